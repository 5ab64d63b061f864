//! What every edge route shares, whatever its domain: paging, the list
//! query, times, edge enums, file references and the answer of a started
//! export. These modules never import a route: routes import them.

pub mod enums;
pub mod export;
pub mod file_ref;
pub mod paging;
pub mod query;
pub mod time;

//! Energy: charging, from opening the enterprise's account to cards,
//! sessions, stations, statements and the behaviour analysis. The edge
//! paths keep their `/charging...` names.

pub mod accounts;
pub mod behavior;
pub mod cards;
mod checks;
pub mod convert;
pub mod dashboard;
pub mod opening;
pub mod sessions;
pub mod statements;
pub mod stations;

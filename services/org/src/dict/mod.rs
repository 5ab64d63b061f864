//! Dictionaries (`getSimpleDictByType`): operator-maintained value lists
//! shared by every enterprise.

pub mod convert;
pub mod handlers;
pub mod store;

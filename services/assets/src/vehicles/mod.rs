//! Vehicle asset files (carFiles): list, detail, create, edit, export and
//! import.

pub mod binding_log;
pub mod convert;
pub mod domain;
pub mod export;
pub mod handlers;
pub mod import;
pub mod store;

/// The permission of the vehicle files and their hidden pages (binding log,
/// private cars).
pub const PERMISSION: &str = "as:sys:car";

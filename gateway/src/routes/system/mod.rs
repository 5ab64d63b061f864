//! System administration: organisations, roles and users, logs, notices,
//! help, shared data, sensitive fields, approvals, export records, files,
//! and the development-only helpers.

pub mod approvals;
pub mod dev;
pub mod exports;
pub mod files;
mod forms;
pub mod help;
pub mod login_logs;
pub mod notices;
pub mod operation_logs;
pub mod org_lookups;
pub mod pickers;
pub mod sensitive;
pub mod settings;
pub mod shared_data;
pub mod users;

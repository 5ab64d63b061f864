//! Users: the members of an enterprise, newest first. Lists and reads are
//! limited to the caller's data scope (another organisation's member answers
//! 4004 like a missing one); phones leave the service masked. Every user has
//! at least one role. Adding a user creates the sign-in account through
//! auth, or links the person who already has one (same account name or
//! phone: they then choose the enterprise on /selectNet); an account created
//! for a member that could not be added is taken back. Disabling a user or
//! changing their roles, scope or phone announces the change, so the next
//! request runs with it.

pub mod convert;
pub mod domain;
pub mod export;
pub mod handlers;
#[cfg(test)]
mod list_plans;
pub mod store;

/// Permission of the users list and detail (and its export).
pub const PERM_USER_LIST: &str = "as:sys:user:getList";
/// Permission to add and edit users.
pub const PERM_USER_EDIT: &str = "as:sys:user:edit";

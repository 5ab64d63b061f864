//! Roles: function permissions (values of the catalogue) plus a data scope.
//! Changing or deleting a role announces the change for its members, so
//! their next request runs with what is left.
//!
//! Each enterprise has one built-in administrator role (`role.builtin`, the
//! seed's 超级管理员): it cannot be deleted, disabled, lose a function
//! permission or its whole-enterprise scope, and its last enabled holder
//! keeps it and stays enabled (`users`). A role members hold is not
//! deleted. Each refusal is a 4009 saying why.

pub mod convert;
pub mod domain;
pub mod handlers;
pub mod store;

/// Permission of the roles list and detail.
pub const PERM_ROLE_LIST: &str = "as:sys:role:getList";
/// Permission to add, edit and delete roles.
pub const PERM_ROLE_EDIT: &str = "as:sys:role:edit";

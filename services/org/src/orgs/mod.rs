//! The organisation tree: list (within the caller's data scope), create,
//! update, move (never under itself or a descendant), enable/disable and
//! delete.
//!
//! An enterprise has one root organisation: the enterprise itself, the first
//! top node. New or moved organisations without a parent go under it.
//!
//! What 停用 means: the root cannot be disabled; disabling a node disables
//! its whole subtree, and members of a disabled organisation cannot use the
//! enterprise (the principal is refused) until they are moved or the
//! organisation is enabled again. Enabling needs an enabled parent and
//! re-enables the subtree. Names are unique under one parent; only an empty
//! organisation (no children, no members) can be deleted.
//!
//! A unit may be marked a company of its own (a subsidiary, a legal entity)
//! when added or edited; the root is always one. The cities a unit serves
//! are `serve`'s.

pub mod convert;
pub mod domain;
pub mod handlers;
pub mod store;

/// Permission of the organisation tree.
pub const PERM_ORG_LIST: &str = "as:sys:org:getList";
/// Permission to change the organisation tree.
pub const PERM_ORG_EDIT: &str = "as:sys:org:edit";

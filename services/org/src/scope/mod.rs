//! Data permissions: how far a member's data reaches. A scope is self, one
//! organisation, an organisation subtree, a custom set of organisations or
//! the whole enterprise; a member's scope is their own when set, else the
//! union of their enabled roles' scopes. No RPC of its own: users, roles,
//! the organisation tree, approvals and exports filter by it, and the
//! principal hands it out as the token's reach claim.

pub mod convert;
pub mod domain;
pub mod store;

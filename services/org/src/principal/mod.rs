//! Who a signed-in person is in one enterprise: roles, effective
//! permissions (roles narrowed by the enterprise lists,
//! docs/console-spec.md §6), data scope and flags; the caller's own
//! enterprise; plus memberships, which cross tenants by nature (service
//! callers only).

pub mod convert;
pub mod domain;
pub mod handlers;
pub mod store;

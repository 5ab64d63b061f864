//! Notices to the members of an enterprise: unread count, list, detail and
//! read marks. A notice addressed to nobody in particular is for everyone.
//! Other services' notices arrive as `NoticeRequested` events (`workflow`),
//! with the console path they point at (`link`).

pub mod convert;
pub mod handlers;
pub mod store;

/// Permission of the notice pages.
pub const PERM_NOTICES: &str = "as:message:pageInfo";

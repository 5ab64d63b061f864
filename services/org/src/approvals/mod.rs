//! Approvals: count, list, detail, approve/reject with a comment, and the
//! vehicle allotment list. Each approval is a small state machine whose
//! every move is kept with who and when. Every read and decision is bounded
//! by the caller's data scope over the applicant's organisation (and their
//! own applications); an approval outside it answers 4004 and is never
//! counted.

pub mod convert;
pub mod domain;
pub mod export;
pub mod handlers;
pub mod store;

/// Permission of the approval pages (list, detail, count).
pub const PERM_APPROVALS: &str = "as:approval:pageInfo";
/// Permission to approve or reject.
pub const PERM_DECIDE: &str = "oss:as:approval";

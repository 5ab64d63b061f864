//! Workflow requests other services send org as typed events
//! (docs/ARCHITECTURE.md §5.3): nobody writes org's tables, a service asks.
//!
//! - `notices`: `NoticeRequested` (`fleetdesk.*.notice.requested`) becomes
//!   one notice per recipient in the notice centre. The recipients are the
//!   members it names and every enabled member holding its permission
//!   (after the enterprise lists) whose data scope reaches its
//!   organisation (`recipients`); a request naming neither is for everyone.
//!   Its source key makes it idempotent: the same key again gives no
//!   recipient a second notice, even as a new event.
//! - `approvals`: `ApprovalRequested` (`fleetdesk.*.approval.requested`)
//!   raises a pending approval that the approval centre lists (bounded by
//!   the approvers' data scope over the organisation applied from); its
//!   request key raises it once. Deciding it publishes `ApprovalDecided`
//!   with the kind and the business id as requested (`approvals::handlers`),
//!   which the requester routes by.
//!
//! Both run as durable JetStream consumers under the once-only table
//! (`fleetdesk_kit::events::Consumer`). A request org can never apply (an
//! unknown enterprise, a bad id, an unknown kind) is logged and dropped
//! rather than retried for ever. Depends on `scope`, `lists` and
//! `approvals` (their codes).

pub mod approvals;
pub mod notices;
pub mod recipients;
pub mod store;

/// Longest title org keeps of a requested notice or approval.
pub const MAX_TITLE: usize = 100;
/// Longest content org keeps of a requested notice or approval.
pub const MAX_CONTENT: usize = 2000;

/// `text` trimmed and cut to `max` characters.
pub fn clip(text: &str, max: usize) -> String {
    text.trim().chars().take(max).collect()
}

/// An optional id of a request: empty is none; a bad one is an error.
pub fn optional_id(field: &str, value: &str) -> anyhow::Result<Option<uuid::Uuid>> {
    match value.trim() {
        "" => Ok(None),
        id => uuid::Uuid::parse_str(id)
            .map(Some)
            .map_err(|_| anyhow::anyhow!("{field} is not an id: {id}")),
    }
}

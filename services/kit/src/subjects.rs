//! Every event subject, in one place: `fleetdesk.<domain>.<entity>.<verb>`.
//! Each names the protobuf message its payload is (see
//! `proto/fleetdesk/<domain>/v1/events.proto`).

/// `auth.v1.SessionRevoked`: a session ended; gateways drop it from their caches.
pub const AUTH_SESSION_REVOKED: &str = "fleetdesk.auth.session.revoked";

/// `org.v1.PrincipalChanged`: what some principals may do changed.
pub const ORG_PRINCIPAL_CHANGED: &str = "fleetdesk.org.principal.changed";

/// `org.v1.OrgUnitChanged`: an organisation's full state after a change.
pub const ORG_UNIT_CHANGED: &str = "fleetdesk.org.unit.changed";

/// `org.v1.ApprovalDecided`: an approval step was decided.
pub const ORG_APPROVAL_DECIDED: &str = "fleetdesk.org.approval.decided";

/// `common.v1.ExportJobEvent`: every export job event of every domain
/// (what org's export records follow).
pub const EXPORT_ALL: &str = "fleetdesk.*.export.*";

/// `common.v1.ExportJobEvent` of `domain`'s export jobs:
/// `fleetdesk.<domain>.export.<verb>` with verb requested, progressed,
/// finished, failed or cancelled (`kit::export::ExportVerb`).
pub fn export(domain: &str, verb: &str) -> String {
    format!("fleetdesk.{domain}.export.{verb}")
}

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

/// `org.v1.NoticeRequested` of every domain: what org's notice consumer takes.
pub const NOTICE_REQUESTED_ALL: &str = "fleetdesk.*.notice.requested";

/// `org.v1.NoticeRequested`: `domain` asks org to publish a notice.
pub fn notice_requested(domain: &str) -> String {
    format!("fleetdesk.{domain}.notice.requested")
}

/// `org.v1.ApprovalRequested` of every domain: what org's approval consumer takes.
pub const APPROVAL_REQUESTED_ALL: &str = "fleetdesk.*.approval.requested";

/// `org.v1.ApprovalRequested`: `domain` raises an approval in org; org
/// answers with [`ORG_APPROVAL_DECIDED`] when it is decided.
pub fn approval_requested(domain: &str) -> String {
    format!("fleetdesk.{domain}.approval.requested")
}

/// `energy.v1.ChargingOpenChanged`: an enterprise's charging state changed
/// (applied, opened, rejected); org keeps the enterprise flags by it.
pub const ENERGY_OPENING_CHANGED: &str = "fleetdesk.energy.opening.changed";

/// `energy.v1.ChargingSessionSettled`: a charging session was settled from
/// its CDR (captured, the rest released). The vehicle target's operation
/// log consumes it (charged energy and charge counts per vehicle and day).
pub const ENERGY_SESSION_SETTLED: &str = "fleetdesk.energy.session.settled";

/// `vehicle.v1.RepairBillIssued`: a confirmed repair statement raised a
/// repair bill (finance bills from it).
pub const VEHICLE_REPAIR_BILL_ISSUED: &str = "fleetdesk.vehicle.repair_bill.issued";

/// `vehicle.v1.UsageRecordChanged`: a usage record was created, edited or
/// ended (finance raises rent instalments from rentals).
pub const VEHICLE_USAGE_RECORD_CHANGED: &str = "fleetdesk.vehicle.usage_record.changed";

/// `vehicle.v1.WarningRequested` of every domain: what risk's warnings take.
pub const WARNING_REQUESTED_ALL: &str = "fleetdesk.*.warning.requested";

/// `vehicle.v1.WarningRequested`: `domain` asks risk to raise a warning.
pub fn warning_requested(domain: &str) -> String {
    format!("fleetdesk.{domain}.warning.requested")
}

/// `common.v1.ExportJobEvent`: every export job event of every domain
/// (what org's export records follow).
pub const EXPORT_ALL: &str = "fleetdesk.*.export.*";

/// `common.v1.ExportJobEvent` of `domain`'s export jobs:
/// `fleetdesk.<domain>.export.<verb>` with verb requested, progressed,
/// finished, failed or cancelled (`kit::export::ExportVerb`).
pub fn export(domain: &str, verb: &str) -> String {
    format!("fleetdesk.{domain}.export.{verb}")
}

/// `energy.v1.ReconciliationStatementConfirmed`: an enterprise confirmed its
/// monthly charging statement (finance raises the bill).
pub const ENERGY_STATEMENT_CONFIRMED: &str = "fleetdesk.energy.statement.confirmed";

/// `energy.v1.ReconciliationStatementDisputed`: an enterprise disputed its
/// monthly charging statement (the operator reissues it).
pub const ENERGY_STATEMENT_DISPUTED: &str = "fleetdesk.energy.statement.disputed";

/// `finance.v1.ChargingTopUpPaid`: a charging top-up order was paid (energy
/// tops up the enterprise's charging main account).
pub const FINANCE_CHARGING_TOP_UP_PAID: &str = "fleetdesk.finance.charging_top_up.paid";

/// `telematics.v1.VehicleCommand` (core NATS request, answered with
/// `CommandDelivery`): a command for the terminal with this phone (SIM,
/// without zero padding). Only the edge holding its connection subscribes.
pub fn telematics_command(phone: &str) -> String {
    format!("telematics.command.{phone}")
}

/// The JetStream stream of telemetry, apart from domain events, kept for a
/// limited age (Postgres holds the history).
pub const TELEMETRY_STREAM: &str = "FLEETDESK_TELEMETRY";

/// Every subject of the telemetry stream (`telematics.v1` messages).
pub const TELEMETRY_ALL: &str = "telemetry.>";

/// Fixes only ([`telemetry_fix`]): not command results or media.
pub const TELEMETRY_FIXES: &str = "telemetry.*.*";

/// Command results of every vehicle ([`telemetry_command`]).
pub const TELEMETRY_COMMAND_RESULTS: &str = "telemetry.*.*.command";

/// `telematics.v1.Fix`: a vehicle's position reports.
pub fn telemetry_fix(enterprise_id: &str, vehicle_id: &str) -> String {
    format!("telemetry.{enterprise_id}.{vehicle_id}")
}

/// `telematics.v1.CommandResult`: what a vehicle's terminal did with a command.
pub fn telemetry_command(enterprise_id: &str, vehicle_id: &str) -> String {
    format!("telemetry.{enterprise_id}.{vehicle_id}.command")
}

/// `telematics.v1.MediaStored`: a photo or clip of a vehicle, in the object store.
pub fn telemetry_media(enterprise_id: &str, vehicle_id: &str) -> String {
    format!("telemetry.{enterprise_id}.{vehicle_id}.media")
}

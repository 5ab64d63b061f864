//! Every RPC the vehicle target hosts but has not built: MaintenanceService's
//! subjects other than plans and reminders (each subject's issue replaces
//! its names here with handlers in `maintenance`), and RiskService's video
//! clips (the video issue's). A service's RPCs share one impl, so each is
//! answered from its impl through [`not_built`] (or
//! [`maintenance_not_built`], which refuses a name not listed here). Each
//! answers UNIMPLEMENTED naming itself, so a caller knows what is missing
//! rather than guessing.

use fleetdesk_kit::grpc;
use tonic::Status;

/// MaintenanceService's RPCs not built yet, by subject.
pub const MAINTENANCE: &[&str] = &[
    // Annual inspections (drivingLicense).
    "ListAnnualInspections",
    "RecordAnnualInspection",
    // Repair orders, statements and bills (maintainment).
    "ListRepairOrders",
    "GetRepairOrder",
    "CreateRepairOrder",
    "SubmitRepairQuote",
    "ConfirmRepairPrice",
    "CancelRepairOrder",
    "CompleteRepairOrder",
    "ListRepairStatements",
    "GetRepairStatement",
    "ConfirmRepairStatement",
    "ListRepairBills",
    "GetRepairBill",
    // Insurance (carGuaranteeSlip).
    "ListInsurancePolicies",
];

/// The answer of an unbuilt RPC `method` of `service` (e.g. "RiskService").
pub fn not_built(service: &str, method: &str) -> Status {
    grpc::not_built(&format!("fleetdesk.vehicle.v1.{service}/{method}"))
}

/// The answer of MaintenanceService's unbuilt `method` (one of [`MAINTENANCE`]).
pub fn maintenance_not_built(method: &str) -> Status {
    debug_assert!(
        MAINTENANCE.contains(&method),
        "{method} is not listed as not built"
    );
    not_built("MaintenanceService", method)
}

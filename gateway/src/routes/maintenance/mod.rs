//! Vehicle management (vehicleManagement): maintenance reminders and their
//! service plans, traffic violations, annual inspections, repair orders
//! (`repairs`) with their configuration, statements and bills
//! (`repair_settlement`); insurance joins as its own module.

pub mod inspections;
pub mod insurance;
pub mod plans;
pub mod reminders;
pub mod repair_bodies;
pub mod repair_settlement;
pub mod repairs;
pub mod violations;

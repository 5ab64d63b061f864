//! Vehicle management (vehicleManagement): maintenance reminders and their
//! service plans, traffic violations; annual inspections, repairs and
//! insurance join as their own modules.

pub mod plans;
pub mod reminders;
pub mod violations;

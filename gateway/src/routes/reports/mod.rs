//! Asset reports (assetsReport): the daily and monthly operation logs and
//! the safety report.

pub mod operation_logs;
pub mod safety;

//! Asset reports (assetsReport): the daily and monthly operation logs.

pub mod operation_logs;

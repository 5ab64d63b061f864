//! Risk control (riskControll): risk alarms with their workflow (assign,
//! handle, dismiss, comment) and the enterprise's alarm rules.

pub mod alarms;
pub mod rules;

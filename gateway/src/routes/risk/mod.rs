//! Risk control (riskControll): risk alarms with their workflow (assign,
//! handle, dismiss, comment), the enterprise's alarm rules, accidents,
//! customer-service records and warnings.

pub mod accidents;
pub mod alarms;
pub mod rules;
pub mod service_records;
pub mod warnings;

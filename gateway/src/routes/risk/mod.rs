//! Risk control (riskControll): risk alarms with their workflow (assign,
//! handle, dismiss, comment), the enterprise's alarm rules, accidents,
//! customer-service records, warnings, and the vehicles' video (monitor,
//! playback) with its viewing audit.

pub mod accidents;
pub mod alarms;
pub mod rules;
pub mod service_records;
pub mod video;
pub mod warnings;

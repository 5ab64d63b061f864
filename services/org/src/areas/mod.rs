//! Areas: provinces, cities and districts of GB/T 2260 from the `gb2260`
//! data package, and the operator's regions and operating cities.

pub mod convert;
pub mod domain;
pub mod handlers;
pub mod store;

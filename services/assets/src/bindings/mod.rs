//! The binding log (bindingLog): which terminal (and, from the drivers
//! module, which driver) a vehicle had when, and who changed it.

pub mod convert;
pub mod export;
pub mod handlers;
pub mod store;

//! Private cars (addPrivateCar): employees' own cars registered for
//! business use; approval makes them vehicles with ownership PRIVATE.

pub mod convert;
pub mod domain;
pub mod export;
pub mod handlers;
pub mod store;

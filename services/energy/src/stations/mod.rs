//! Stations of the charging platform where enterprise cards work (OCPI
//! locations): synced from the platform's locations module on start and
//! then periodically, kept current by its pushes of locations, EVSEs,
//! connectors and tariffs (EVSE status above all), listed and shown
//! (ListStations, GetStation) with today's tariff.

pub mod convert;
pub mod domain;
pub mod handlers;
pub mod push;
pub mod store;
pub mod sync;

/// The permission of the station list (the charge management menu's).
pub use crate::permissions::CHARGE_MANAGEMENT as PERMISSION;

//! Watching the fleet: positions and tracks with the live stream,
//! geofences, temperatures and remote locks.

pub mod geofences;
pub mod lock;
pub mod monitor;
pub mod temperature;

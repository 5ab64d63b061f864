//! Cameras (monitor, playback; issue 22): the vehicles in reach whose
//! terminal reports video channels, one such vehicle with its terminal's
//! phone for the device edge's MediaService, and the viewing audit (who
//! watched which camera, live or a recording, when and how long).
//!
//! The cameras themselves are reported by the device edge into
//! `vehicle_camera` (a terminal's 0x1003 answer: video channels, codecs;
//! [`report`]). A vehicle without video channels is not
//! listed, and asking for it answers 该车辆未配置摄像头, so the console never
//! offers video for a vehicle that has no camera. The gateway calls
//! `GetCameraVehicle` (tenant and reach) before it asks the edge for a
//! stream, `StartVideoView` when the stream starts and `EndVideoView` when
//! it ends.
//!
//! Reads vehicles and organisations (fleetdesk-assets) and the latest
//! positions (online state).

pub mod convert;
pub mod domain;
pub mod handlers;
pub mod report;
pub mod store;

/// The permission of video monitoring, playback and their audit.
pub const PERMISSION: &str = "as:risk:video";

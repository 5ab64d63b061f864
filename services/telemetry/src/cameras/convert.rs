//! Cameras and viewings, store rows → proto.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::codes::known;
use fleetdesk_kit::convert::timestamp;
use fleetdesk_proto::vehicle::v1 as pb;

use super::domain::{self, ViewKind};
use super::store::{CameraRow, ViewRow};
use crate::positions::domain::OFFLINE_AFTER;

pub fn camera(row: CameraRow, now: DateTime<Utc>) -> pb::CameraVehicle {
    let CameraRow {
        vehicle_id,
        plate_number,
        org_id,
        org_name,
        phone: _,
        video_channels,
        fix_time,
    } = row;
    pb::CameraVehicle {
        vehicle_id: vehicle_id.to_string(),
        plate_number,
        org_id: org_id.to_string(),
        org_name,
        online: fix_time.is_some_and(|t| t >= now - OFFLINE_AFTER),
        channels: domain::channels(video_channels),
        last_fix_time: fix_time.map(timestamp),
    }
}

pub fn view(row: ViewRow, now: DateTime<Utc>) -> Result<pb::VideoView, ServiceError> {
    let ViewRow {
        id,
        vehicle_id,
        plate_number,
        channel,
        kind,
        created_by,
        viewer_name,
        started_at,
        ended_at,
    } = row;
    Ok(pb::VideoView {
        id: id.to_string(),
        vehicle_id: vehicle_id.to_string(),
        plate_number,
        channel: u32::try_from(channel).unwrap_or(0),
        kind: known::<ViewKind>(kind)?.pb(),
        viewer_id: created_by.map(|u| u.to_string()).unwrap_or_default(),
        viewer_name,
        started_at: Some(timestamp(started_at)),
        ended_at: ended_at.map(timestamp),
        duration_seconds: domain::duration_seconds(started_at, ended_at, now),
    })
}

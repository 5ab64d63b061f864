//! Service records between proto and domain, by destructuring: a new proto
//! field fails to compile here until it is handled.

use fleetdesk_kit::convert::{datetime, timestamp};
use fleetdesk_kit::mask;
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use uuid::Uuid;

use super::domain::RecordFields;
use super::store::RecordRow;

pub fn fields(input: pb::CustomerServiceRecordInput) -> RecordFields {
    let pb::CustomerServiceRecordInput {
        vehicle_id,
        driver_id,
        alarm_id,
        caller_name,
        caller_phone,
        channel,
        category,
        summary,
        resolution,
        start_time,
        duration_seconds,
        follow_up_time,
        satisfaction,
        status,
    } = input;
    RecordFields {
        vehicle_id,
        driver_id,
        alarm_id,
        caller_name,
        caller_phone,
        channel,
        category,
        summary,
        resolution,
        start_time: start_time.as_ref().and_then(datetime),
        duration_seconds,
        follow_up_time: follow_up_time.as_ref().and_then(datetime),
        satisfaction,
        status,
    }
}

/// The record as the caller sees it: the caller's phone masked.
pub fn record(row: RecordRow, enterprise_id: Uuid) -> pb::CustomerServiceRecord {
    let RecordRow {
        id,
        org_id,
        org_name,
        created_by: _,
        ticket_no,
        vehicle_id,
        plate_number,
        driver_id,
        driver_name,
        alarm_id,
        caller_name,
        caller_phone,
        channel,
        category,
        status,
        summary,
        resolution,
        agent_name,
        start_time,
        duration_seconds,
        follow_up_time,
        close_time,
        satisfaction,
        created_by_name,
        updated_by_name,
        created_at,
        updated_at,
    } = row;
    let id_text = |id: Option<Uuid>| id.map(|i| i.to_string()).unwrap_or_default();
    pb::CustomerServiceRecord {
        id: id.to_string(),
        ticket_no,
        enterprise_id: enterprise_id.to_string(),
        vehicle_id: vehicle_id.to_string(),
        plate_number,
        driver_id: id_text(driver_id),
        driver_name,
        caller_name,
        caller_masked_phone: mask::centre(&caller_phone),
        channel: i32::from(channel),
        category: i32::from(category),
        status: i32::from(status),
        summary,
        resolution,
        agent_name,
        start_time: Some(timestamp(start_time)),
        duration_seconds,
        close_time: close_time.map(timestamp),
        satisfaction: i32::from(satisfaction),
        alarm_id: id_text(alarm_id),
        follow_up_time: follow_up_time.map(timestamp),
        org_id: org_id.to_string(),
        org_name: org_name.unwrap_or_default(),
        audit: Some(common::Audit {
            created_by: created_by_name,
            create_time: Some(timestamp(created_at)),
            updated_by: updated_by_name,
            update_time: Some(timestamp(updated_at)),
        }),
    }
}

//! Lock rows onto the wire.

use chrono::{DateTime, Utc};
use fleetdesk_assets::vehicles::domain::UsageKind;
use fleetdesk_kit::convert::timestamp;
use fleetdesk_proto::vehicle::v1 as pb;

use super::domain::{CommandState, LockAction};
use super::store::{CommandRow, LockVehicleRow};
use crate::codes::optional;
use crate::positions::domain::OFFLINE_AFTER;

pub fn command(row: CommandRow) -> pb::LockCommand {
    let CommandRow {
        id,
        enterprise_id,
        org_id: _,
        created_by,
        operator_name,
        vehicle_id,
        plate_number,
        vin,
        phone: _,
        action,
        reason,
        state,
        failure_reason,
        sent_at,
        completed_at,
        expire_at,
        created_at,
        updated_at,
    } = row;
    let action = optional::<LockAction>(Some(action));
    pb::LockCommand {
        id: id.to_string(),
        enterprise_id: enterprise_id.to_string(),
        vehicle_id: vehicle_id.to_string(),
        plate_number,
        vin,
        action: action.map_or(0, LockAction::pb),
        mode: if action == Some(LockAction::Lock) {
            pb::LockMode::NoRestart as i32
        } else {
            0
        },
        speed_limit_kmh: 0,
        reason,
        status: optional::<CommandState>(Some(state)).map_or(0, CommandState::pb),
        failure_reason,
        requested_by: created_by.map(|u| u.to_string()).unwrap_or_default(),
        request_time: Some(timestamp(created_at)),
        sent_time: sent_at.map(timestamp),
        complete_time: completed_at.map(timestamp),
        expire_time: Some(timestamp(expire_at)),
        operator_name,
        update_time: Some(timestamp(updated_at)),
    }
}

pub fn lock_vehicle(
    row: LockVehicleRow,
    last: Option<pb::LockCommand>,
    now: DateTime<Utc>,
) -> pb::LockableVehicle {
    let LockVehicleRow {
        vehicle_id,
        plate_number,
        vin,
        org_id,
        org_name,
        usage_kind,
        overdue_instalments,
        overdue_amount_fen,
        fix_time,
        speed_dkmh,
        charging,
        locked_by,
    } = row;
    let lock_state = match optional::<LockAction>(locked_by) {
        Some(LockAction::Lock) => pb::LockState::Locked as i32,
        Some(LockAction::Unlock) => pb::LockState::Unlocked as i32,
        None => 0,
    };
    pb::LockableVehicle {
        vehicle_id: vehicle_id.to_string(),
        plate_number,
        vin,
        org_id: org_id.to_string(),
        org_name,
        usage_kind: optional::<UsageKind>(Some(usage_kind)).map_or(0, UsageKind::pb),
        overdue_instalments,
        overdue_amount_fen,
        lock_state,
        online: fix_time.is_some_and(|t| t >= now - OFFLINE_AFTER),
        speed_kmh: speed_dkmh.map(|s| f64::from(s) / 10.0),
        charging: charging.unwrap_or(false),
        last_fix_time: fix_time.map(timestamp),
        last_command: last,
    }
}

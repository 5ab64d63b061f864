//! Reminders and services between proto and domain, by destructuring: a
//! new proto field fails to compile here until it is handled.

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::codes::known;
use fleetdesk_kit::convert::{datetime, timestamp};
use fleetdesk_proto::vehicle::v1 as pb;
use uuid::Uuid;

use super::domain::{CompletionFields, Schedule};
use super::judge::Judged;
use super::store::{RecordRow, ReminderRow};
use crate::odometer::day_start;
use crate::plans::convert::{audit, strings};
use crate::plans::domain::Kind;

/// A completion's fields (the reminder's id is the handler's).
pub fn completion(req: pb::CompleteMaintenanceReminderRequest) -> (String, CompletionFields) {
    let pb::CompleteMaintenanceReminderRequest {
        reminder_id,
        service_time,
        service_odometer_m,
        repair_order_id,
        remark,
        supplier,
        cost_fen,
        items,
        schedule,
    } = req;
    (
        reminder_id,
        CompletionFields {
            service_time: service_time.as_ref().and_then(datetime),
            service_odometer_m,
            supplier,
            cost_fen,
            items,
            remark,
            repair_order_id,
            schedule,
        },
    )
}

pub fn reminder(j: Judged, enterprise: Uuid) -> Result<pb::MaintenanceReminder, ServiceError> {
    let Judged {
        row,
        standing,
        meter,
    } = j;
    let ReminderRow {
        id,
        org_id,
        org_name,
        vehicle_id,
        plate_number,
        vin,
        plan_id,
        plan_name,
        kind,
        interval_m,
        interval_months,
        soon_m,
        soon_days,
        plan_items: _,
        last_service_time,
        last_service_odometer_m,
        base_date: _,
        base_odometer_m: _,
        due_odometer_m,
        due_date,
        completed_at: _,
        record_id,
        repair_order_id,
        // The standing re-derived from them (`judge::stored`) is shown.
        due_state: _,
        urgency: _,
        forecast_date: _,
        judged_on: _,
        judged_odometer_m: _,
        judged_daily_m: _,
        created_by_name,
        updated_by_name,
        created_at,
        updated_at,
    } = row;
    let kind: Kind = known(kind)?;
    let status = standing.map_or(pb::MaintenanceReminderStatus::Done, |s| s.state.pb());
    Ok(pb::MaintenanceReminder {
        id: id.to_string(),
        enterprise_id: enterprise.to_string(),
        org_id: org_id.to_string(),
        org_name: org_name.unwrap_or_default(),
        vehicle_id: vehicle_id.to_string(),
        plate_number,
        vin,
        kind: kind.pb(),
        status: status as i32,
        interval_days: 0,
        interval_m,
        last_service_time: last_service_time.map(timestamp),
        last_service_odometer_m: last_service_odometer_m.unwrap_or_default(),
        due_time: due_date.map(|d| timestamp(day_start(d))),
        due_odometer_m: due_odometer_m.unwrap_or_default(),
        current_odometer_m: meter.odometer_m.unwrap_or_default(),
        remaining_days: standing
            .and_then(|s| s.remaining_days)
            .map_or(0, |d| i32::try_from(d).unwrap_or(i32::MAX)),
        remaining_m: standing.and_then(|s| s.remaining_m).unwrap_or_default(),
        repair_order_id,
        audit: Some(audit(
            created_by_name,
            created_at,
            updated_by_name,
            updated_at,
        )),
        plan_id: plan_id.to_string(),
        plan_name,
        interval_months,
        soon_m,
        soon_days,
        daily_mileage_m: meter.daily_m.unwrap_or_default(),
        forecast_due_time: standing
            .and_then(|s| s.forecast)
            .map(|d| timestamp(day_start(d))),
        due_by_mileage: standing.is_some_and(|s| s.by_mileage),
        record_id: record_id.map(|r| r.to_string()).unwrap_or_default(),
    })
}

pub fn record(row: RecordRow) -> Result<pb::MaintenanceRecord, ServiceError> {
    let RecordRow {
        id,
        reminder_id,
        plan_id,
        plan_name,
        vehicle_id,
        plate_number,
        service_time,
        service_odometer_m,
        supplier,
        cost_fen,
        items,
        remark,
        schedule,
        repair_order_id,
        created_by_name,
        created_at,
    } = row;
    let schedule: Schedule = known(schedule)?;
    Ok(pb::MaintenanceRecord {
        id: id.to_string(),
        reminder_id: reminder_id.to_string(),
        plan_id: plan_id.to_string(),
        plan_name,
        vehicle_id: vehicle_id.to_string(),
        plate_number,
        service_time: Some(timestamp(service_time)),
        service_odometer_m,
        supplier,
        cost_fen,
        items: strings(&items),
        remark,
        schedule: schedule.pb(),
        repair_order_id,
        operator_name: created_by_name,
        create_time: Some(timestamp(created_at)),
    })
}

//! Maintenance reminders (carMaintenance; permission `as:maintain:remind`):
//! the list ordered by urgency with its export, one reminder with its
//! service history, and completing it. Distances are metres; money is fen.

use axum::extract::{Path, State};
use fleetdesk_proto::vehicle::v1 as pb;
use prost_types::Timestamp;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::enums::{codes, edge_enum};
use crate::edge::export::{ExportRecordBody, answer_started};
use crate::edge::paging::paging;
use crate::edge::query::{EdgeQuery, ExportQuery, batch, end_time, start_time, time_range};
use crate::edge::time::{rfc3339, time_field};
use crate::envelope::{ApiError, ApiResult, Envelope, Ok, OkWith, Page};
use crate::extract::TrimmedJson;
use crate::routes::maintenance::plans::MaintenanceKind;
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_reminders))
        .routes(routes!(export_reminders))
        .routes(routes!(get_reminder))
        .routes(routes!(complete_reminder))
}

edge_enum!(
    /// OVERDUE (已逾期: past the due reading or date), DUE (已到期: exactly at
    /// it), UPCOMING (即将到期: within the plan's due-soon window or forecast
    /// by daily mileage within its days), OK (正常), DONE (已完成).
    MaintenanceReminderStatus => pb::MaintenanceReminderStatus { Upcoming, Due, Overdue, Done, Ok }
);
edge_enum!(
    /// KEEP: next due = the previous due + the interval; RESET: next due =
    /// this service's date and odometer + the interval.
    MaintenanceSchedule => pb::MaintenanceSchedule { Keep, Reset }
);

/// When a vehicle's next service under a plan falls due, by odometer or
/// by date, whichever comes first.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MaintenanceReminderBody {
    pub id: String,
    pub org_id: String,
    pub org_name: String,
    pub vehicle_id: String,
    pub plate_number: String,
    pub vin: String,
    pub plan_id: String,
    pub plan_name: String,
    pub kind: Option<MaintenanceKind>,
    pub status: Option<MaintenanceReminderStatus>,
    /// The state comes from the odometer rather than the calendar.
    pub due_by_mileage: bool,
    pub interval_m: i64,
    pub interval_months: i32,
    pub soon_m: i64,
    pub soon_days: i32,
    /// The service that opened this cycle; empty for a cycle the plan opened.
    pub last_service_time: String,
    pub last_service_odometer_m: i64,
    /// Due date (Beijing day start); empty without a months interval.
    pub due_time: String,
    /// Due reading; 0 without a distance interval.
    pub due_odometer_m: i64,
    /// Telemetry's odometer now; 0 when unknown.
    pub current_odometer_m: i64,
    /// Average daily mileage over the last 30 days; 0 when unknown.
    pub daily_mileage_m: i64,
    /// When it falls due: the due date or, sooner, the day the daily mileage reaches the due reading.
    pub forecast_due_time: String,
    /// Days until `forecastDueTime`; negative when overdue.
    pub remaining_days: i32,
    /// Metres until the due reading; negative when overdue.
    pub remaining_m: i64,
    /// Once DONE: the service that closed it.
    pub record_id: String,
    pub repair_order_id: String,
    pub create_time: String,
    pub update_time: String,
}

impl From<pb::MaintenanceReminder> for MaintenanceReminderBody {
    fn from(r: pb::MaintenanceReminder) -> Self {
        let audit = r.audit.unwrap_or_default();
        MaintenanceReminderBody {
            kind: MaintenanceKind::from_pb(r.kind),
            status: MaintenanceReminderStatus::from_pb(r.status),
            last_service_time: rfc3339(r.last_service_time.as_ref()),
            due_time: rfc3339(r.due_time.as_ref()),
            forecast_due_time: rfc3339(r.forecast_due_time.as_ref()),
            create_time: rfc3339(audit.create_time.as_ref()),
            update_time: rfc3339(audit.update_time.as_ref()),
            id: r.id,
            org_id: r.org_id,
            org_name: r.org_name,
            vehicle_id: r.vehicle_id,
            plate_number: r.plate_number,
            vin: r.vin,
            plan_id: r.plan_id,
            plan_name: r.plan_name,
            due_by_mileage: r.due_by_mileage,
            interval_m: r.interval_m,
            interval_months: r.interval_months,
            soon_m: r.soon_m,
            soon_days: r.soon_days,
            last_service_odometer_m: r.last_service_odometer_m,
            due_odometer_m: r.due_odometer_m,
            current_odometer_m: r.current_odometer_m,
            daily_mileage_m: r.daily_mileage_m,
            remaining_days: r.remaining_days,
            remaining_m: r.remaining_m,
            record_id: r.record_id,
            repair_order_id: r.repair_order_id,
        }
    }
}

/// A service done.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MaintenanceRecordBody {
    pub id: String,
    pub reminder_id: String,
    pub plan_id: String,
    pub plan_name: String,
    pub vehicle_id: String,
    pub plate_number: String,
    pub service_time: String,
    pub service_odometer_m: i64,
    pub supplier: String,
    pub cost_fen: i64,
    pub items: Vec<String>,
    pub remark: String,
    pub schedule: Option<MaintenanceSchedule>,
    pub repair_order_id: String,
    pub operator_name: String,
    pub create_time: String,
}

impl From<pb::MaintenanceRecord> for MaintenanceRecordBody {
    fn from(r: pb::MaintenanceRecord) -> Self {
        MaintenanceRecordBody {
            service_time: rfc3339(r.service_time.as_ref()),
            create_time: rfc3339(r.create_time.as_ref()),
            schedule: MaintenanceSchedule::from_pb(r.schedule),
            id: r.id,
            reminder_id: r.reminder_id,
            plan_id: r.plan_id,
            plan_name: r.plan_name,
            vehicle_id: r.vehicle_id,
            plate_number: r.plate_number,
            service_odometer_m: r.service_odometer_m,
            supplier: r.supplier,
            cost_fen: r.cost_fen,
            items: r.items,
            remark: r.remark,
            repair_order_id: r.repair_order_id,
            operator_name: r.operator_name,
        }
    }
}

/// A reminder with the services of its vehicle under its plan, newest first.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MaintenanceReminderDetailBody {
    pub reminder: MaintenanceReminderBody,
    pub records: Vec<MaintenanceRecordBody>,
}

/// Filters of the reminder list and its export; combined with AND, a
/// repeated key matches any of its values.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ReminderListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    /// Plate numbers, at most 250.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub plate_numbers: Vec<String>,
    /// VINs, at most 250.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub vins: Vec<String>,
    /// Organisations; each takes its subtree.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub org_ids: Vec<String>,
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub plan_ids: Vec<String>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub kinds: Vec<MaintenanceKind>,
    /// Due states; none = every open one (DONE only when asked for).
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub statuses: Vec<MaintenanceReminderStatus>,
    /// Falling due (forecast) from this time (yyyy-MM-dd, yyyy-MM-dd HH:mm:ss or RFC 3339).
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub due_time_start: Option<Timestamp>,
    /// A bare date includes the day.
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub due_time_end: Option<Timestamp>,
}

impl ReminderListParams {
    /// The request shared by the list and its export (whose page is ignored).
    fn request(self) -> Result<pb::ListMaintenanceRemindersRequest, ApiError> {
        Result::Ok(pb::ListMaintenanceRemindersRequest {
            page: Some(paging(self.page, self.size)?),
            plate_numbers: self.plate_numbers,
            vins: self.vins,
            org_ids: self.org_ids,
            kinds: codes(self.kinds),
            statuses: codes(self.statuses),
            due_time: time_range(self.due_time_start, self.due_time_end),
            plan_ids: self.plan_ids,
        })
    }
}

#[utoipa::path(
    get, path = "/maintenance/reminders", tag = "vehicles",
    params(ReminderListParams),
    responses((status = 200, description = "Reminders in the caller's data scope, most urgent first (state, then the day they fall due)", body = Envelope<Page<MaintenanceReminderBody>>)),
    security(("token" = ["as:maintain:remind"]))
)]
async fn list_reminders(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<ReminderListParams>,
) -> ApiResult<Page<MaintenanceReminderBody>> {
    let answer = state
        .maintenance()
        .list_maintenance_reminders(state.as_user(&principal, query.request()?))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer.reminders.into_iter().map(Into::into).collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

#[utoipa::path(
    post, path = "/maintenance/reminders/export", tag = "vehicles",
    params(ReminderListParams),
    responses((status = 200, description = "The export record of the reminder list with the list's filters, order and data scope (paging ignored); the file follows in export records", body = Envelope<ExportRecordBody>)),
    security(("token" = ["as:maintain:remind"]))
)]
async fn export_reminders(
    State(state): State<AppState>,
    principal: Principal,
    ExportQuery(query): ExportQuery<ReminderListParams>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportMaintenanceRemindersRequest {
        filter: Some(query.request()?),
    };
    let answer = state
        .maintenance()
        .export_maintenance_reminders(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}

#[utoipa::path(
    get, path = "/maintenance/reminders/{reminderId}", tag = "vehicles",
    params(("reminderId" = String, Path, description = "Reminder id")),
    responses((status = 200, description = "The reminder and its vehicle's services under its plan", body = Envelope<MaintenanceReminderDetailBody>)),
    security(("token" = ["as:maintain:remind"]))
)]
async fn get_reminder(
    State(state): State<AppState>,
    principal: Principal,
    Path(reminder_id): Path<String>,
) -> ApiResult<MaintenanceReminderDetailBody> {
    let answer = state
        .maintenance()
        .get_maintenance_reminder(state.as_user(
            &principal,
            pb::GetMaintenanceReminderRequest { reminder_id },
        ))
        .await?
        .into_inner();
    Result::Ok(Ok(MaintenanceReminderDetailBody {
        reminder: answer.reminder.unwrap_or_default().into(),
        records: answer.records.into_iter().map(Into::into).collect(),
    }))
}

/// The service done. The odometer must agree with telemetry around the
/// service day (4000 naming `serviceOdometerM` otherwise).
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct CompleteReminderForm {
    /// yyyy-MM-dd, yyyy-MM-dd HH:mm:ss (Beijing) or RFC 3339; not in the future.
    pub service_time: String,
    pub service_odometer_m: i64,
    pub supplier: String,
    pub cost_fen: i64,
    /// Empty: the plan's items.
    pub items: Vec<String>,
    pub remark: String,
    pub repair_order_id: String,
    /// Required: keep the schedule or reset it from this service.
    pub schedule: Option<MaintenanceSchedule>,
}

/// The completed reminder and the next cycle's.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CompletedReminderBody {
    pub completed: MaintenanceReminderBody,
    pub next: MaintenanceReminderBody,
}

#[utoipa::path(
    post, path = "/maintenance/reminders/{reminderId}/complete", tag = "vehicles",
    params(("reminderId" = String, Path, description = "Reminder id")),
    request_body = CompleteReminderForm,
    responses((status = 200, description = "The service is recorded and the next reminder scheduled; a reminder already completed is 4009", body = Envelope<CompletedReminderBody>)),
    security(("token" = ["as:maintain:remind"]))
)]
async fn complete_reminder(
    State(state): State<AppState>,
    principal: Principal,
    Path(reminder_id): Path<String>,
    TrimmedJson(form): TrimmedJson<CompleteReminderForm>,
) -> ApiResult<CompletedReminderBody> {
    let request = pb::CompleteMaintenanceReminderRequest {
        reminder_id,
        service_time: time_field("serviceTime", &form.service_time)?,
        service_odometer_m: form.service_odometer_m,
        repair_order_id: form.repair_order_id,
        remark: form.remark,
        supplier: form.supplier,
        cost_fen: form.cost_fen,
        items: form.items,
        schedule: form.schedule.map_or(0, i32::from),
    };
    let answer = state
        .maintenance()
        .complete_maintenance_reminder(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(CompletedReminderBody {
        completed: answer.completed.unwrap_or_default().into(),
        next: answer.next.unwrap_or_default().into(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edge::query::{ListQuery, from_query};

    fn read(raw: &str) -> Result<pb::ListMaintenanceRemindersRequest, ApiError> {
        from_query::<ReminderListParams>(&ListQuery::parse(raw).unwrap())?.request()
    }

    #[test]
    fn the_list_query_reads_the_filters_the_contract_names() {
        let request = read(
            "plateNumbers=B1&plateNumbers=B2&planIds=p1&statuses=OVERDUE&statuses=DUE\
             &kinds=ROUTINE_SERVICE&dueTimeStart=2026-12-01&dueTimeEnd=2026-12-31",
        )
        .unwrap();
        assert_eq!(request.plate_numbers, vec!["B1", "B2"]);
        assert_eq!(request.plan_ids, vec!["p1"]);
        assert_eq!(
            request.statuses,
            vec![
                pb::MaintenanceReminderStatus::Overdue as i32,
                pb::MaintenanceReminderStatus::Due as i32
            ]
        );
        assert_eq!(
            request.kinds,
            vec![pb::MaintenanceKind::RoutineService as i32]
        );
        assert!(request.due_time.is_some());
        let err = read("statuses=LATE").unwrap_err();
        assert_eq!(err.0.fields[0].field, "statuses");
    }
}

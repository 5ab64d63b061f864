//! Maintenance plans and reminders over the real vehicle service
//! (MaintenanceService, fleetdesk-maintenance): telemetry's odometer and
//! daily mileage written as ingest leaves them (`latest_position`,
//! `operation_day`), plans and completions through gRPC.

use crate::support;

use chrono::{Days, FixedOffset, Months, NaiveDate, TimeZone, Utc};
use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::{ErrorCode, ServiceError, db};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use fleetdesk_proto::vehicle::v1::maintenance_service_client::MaintenanceServiceClient;
use pb::MaintenanceReminderStatus as Status;
use support::{Stack, Tenant};
use tonic::transport::Channel;
use uuid::Uuid;

const PERMS: &[&str] = &["as:maintain:remind"];
const KM: i64 = 1000;

fn client(s: &Stack) -> MaintenanceServiceClient<Channel> {
    MaintenanceServiceClient::new(s.channel.clone())
}

fn req<T>(s: &Stack, t: &Tenant, message: T) -> tonic::Request<T> {
    s.req_as(t, t.user, PERMS, message)
}

fn err(status: &tonic::Status) -> ServiceError {
    ServiceError::from_status(status)
}

fn beijing() -> FixedOffset {
    FixedOffset::east_opt(8 * 3600).unwrap()
}

fn today() -> NaiveDate {
    Utc::now().with_timezone(&beijing()).date_naive()
}

/// Noon of a Beijing day.
fn noon(d: NaiveDate) -> prost_types::Timestamp {
    let at = beijing()
        .from_local_datetime(&d.and_hms_opt(12, 0, 0).unwrap())
        .unwrap()
        .with_timezone(&Utc);
    timestamp(at.min(Utc::now()))
}

fn day_of(ts: Option<&prost_types::Timestamp>) -> Option<NaiveDate> {
    ts.and_then(fleetdesk_kit::convert::datetime)
        .map(|t| t.with_timezone(&beijing()).date_naive())
}

/// Telemetry's odometer of `vehicle` now, as ingest keeps it.
async fn odometer(s: &Stack, t: &Tenant, vehicle: Uuid, km: i64) {
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query(
        "insert into latest_position (vehicle_id, enterprise_id, fix_time, receive_time, lat, \
           lng, altitude_m, speed_dkmh, heading, alarm_bits, status_bits, mileage_m) \
         values ($1, $2, now(), now(), 22.54, 114.05, 0, 0, 0, 0, 0, $3) \
         on conflict (vehicle_id) do update set mileage_m = excluded.mileage_m",
    )
    .bind(vehicle)
    .bind(t.enterprise)
    .bind(km * KM)
    .execute(&mut *tx)
    .await
    .unwrap();
    tx.commit().await.unwrap();
}

/// An operation-log day of `vehicle`: its mileage and odometer extremes.
async fn op_day(s: &Stack, t: &Tenant, vehicle: Uuid, d: NaiveDate, km: i64, odo_km: (i64, i64)) {
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query(
        "insert into operation_day (vehicle_id, day, enterprise_id, moving, online, mileage_m, \
           min_odometer_m, max_odometer_m) \
         values ($1, $2, $3, '\\x'::bytea, '\\x'::bytea, $4, $5, $6)",
    )
    .bind(vehicle)
    .bind(d)
    .bind(t.enterprise)
    .bind(km * KM)
    .bind(odo_km.0 * KM)
    .bind(odo_km.1 * KM)
    .execute(&mut *tx)
    .await
    .unwrap();
    tx.commit().await.unwrap();
}

fn plan_input(t: &Tenant, name: &str, interval_km: i64, months: i32) -> pb::MaintenancePlan {
    pb::MaintenancePlan {
        org_id: t.org.to_string(),
        name: name.into(),
        kind: pb::MaintenanceKind::RoutineService.into(),
        interval_m: interval_km * KM,
        interval_months: months,
        soon_m: 500 * KM,
        soon_days: 30,
        items: vec!["机油".into(), "机滤".into()],
        ..Default::default()
    }
}

async fn create_plan(s: &Stack, t: &Tenant, plan: pb::MaintenancePlan) -> pb::MaintenancePlan {
    client(s)
        .create_maintenance_plan(req(
            s,
            t,
            pb::CreateMaintenancePlanRequest { plan: Some(plan) },
        ))
        .await
        .unwrap()
        .into_inner()
        .plan
        .unwrap()
}

fn list_request(statuses: &[Status]) -> pb::ListMaintenanceRemindersRequest {
    pb::ListMaintenanceRemindersRequest {
        page: Some(common::PageRequest { page: 1, size: 20 }),
        statuses: statuses.iter().map(|s| *s as i32).collect(),
        ..Default::default()
    }
}

async fn list(s: &Stack, t: &Tenant) -> Vec<pb::MaintenanceReminder> {
    client(s)
        .list_maintenance_reminders(req(s, t, list_request(&[])))
        .await
        .unwrap()
        .into_inner()
        .reminders
}

fn of(reminders: &[pb::MaintenanceReminder], vehicle: Uuid) -> pb::MaintenanceReminder {
    reminders
        .iter()
        .find(|r| r.vehicle_id == vehicle.to_string())
        .cloned()
        .unwrap_or_else(|| panic!("no reminder of {vehicle}"))
}

fn completion(
    reminder: &pb::MaintenanceReminder,
    d: NaiveDate,
    km: i64,
    schedule: pb::MaintenanceSchedule,
) -> pb::CompleteMaintenanceReminderRequest {
    pb::CompleteMaintenanceReminderRequest {
        reminder_id: reminder.id.clone(),
        service_time: Some(noon(d)),
        service_odometer_m: km * KM,
        supplier: "深圳华通汽修".into(),
        cost_fen: 68_000,
        schedule: schedule.into(),
        remark: "按时保养".into(),
        ..Default::default()
    }
}

/// Completes as tenant `t`'s user.
async fn complete(
    s: &Stack,
    t: &Tenant,
    request: pb::CompleteMaintenanceReminderRequest,
) -> Result<pb::CompleteMaintenanceReminderResponse, ServiceError> {
    client(s)
        .complete_maintenance_reminder(req(s, t, request))
        .await
        .map(tonic::Response::into_inner)
        .map_err(|e| err(&e))
}

#[tokio::test]
async fn a_plan_opens_one_reminder_per_vehicle_it_covers_and_follows_its_model() {
    let s = support::stack().await;
    let t = s.tenant(3).await;
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query("update vehicle set model = 'T5' where id = $1")
        .bind(t.vehicles[2])
        .execute(&mut *tx)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    let plan = create_plan(
        &s,
        &t,
        pb::MaintenancePlan {
            vehicle_model: "EV".into(),
            ..plan_input(&t, "常规保养", 5_000, 6)
        },
    )
    .await;
    assert_eq!(plan.vehicle_count, 2);
    assert_eq!(list(&s, &t).await.len(), 2);

    // Every model now, and a shorter interval moves the open reminders' due.
    let updated = client(&s)
        .update_maintenance_plan(req(
            &s,
            &t,
            pb::UpdateMaintenancePlanRequest {
                plan_id: plan.id.clone(),
                plan: Some(plan_input(&t, "常规保养", 4_000, 6)),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .plan
        .unwrap();
    assert_eq!(updated.vehicle_count, 3);
    let reminders = list(&s, &t).await;
    assert_eq!(reminders.len(), 3);
    assert!(reminders.iter().all(|r| r.due_odometer_m == 4_000 * KM));

    // A second plan of the same name is refused naming the field.
    let e = client(&s)
        .create_maintenance_plan(req(
            &s,
            &t,
            pb::CreateMaintenancePlanRequest {
                plan: Some(plan_input(&t, "常规保养", 4_000, 6)),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&e).code, ErrorCode::Conflict);
    assert_eq!(err(&e).fields[0].field, "name");

    client(&s)
        .delete_maintenance_plan(req(
            &s,
            &t,
            pb::DeleteMaintenancePlanRequest {
                plan_id: plan.id.clone(),
            },
        ))
        .await
        .unwrap();
    assert!(list(&s, &t).await.is_empty());
}

#[tokio::test]
async fn the_daily_job_opens_reminders_for_vehicles_added_after_the_plan() {
    let s = support::stack().await;
    let t = s.tenant(1).await;
    create_plan(&s, &t, plan_input(&t, "常规保养", 5_000, 6)).await;
    let later = s.tenant_with_plates(0, "粤B").await;
    let added = Uuid::new_v4();
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query(
        "insert into vehicle (id, enterprise_id, org_id, plate_number, plate_color, vin, \
         brand, model, category, energy_type, ownership_type, status) \
         values ($1, $2, $3, '粤B99999', 3, 'LVIN9999999999999', '东风', 'EV', 2, 1, 1, 1)",
    )
    .bind(added)
    .bind(t.enterprise)
    .bind(t.org)
    .execute(&mut *tx)
    .await
    .unwrap();
    tx.commit().await.unwrap();
    assert_eq!(list(&s, &t).await.len(), 1);

    let round = fleetdesk_maintenance::plans::job::run_once(&s.app, Utc::now())
        .await
        .unwrap();
    assert_eq!(round.opened, 1);
    let reminders = list(&s, &t).await;
    assert_eq!(reminders.len(), 2);
    of(&reminders, added);
    // A second round changes nothing; another tenant's plans are its own.
    let again = fleetdesk_maintenance::plans::job::run_once(&s.app, Utc::now())
        .await
        .unwrap();
    assert_eq!(again.opened, 0);
    assert!(list(&s, &later).await.is_empty());
}

#[tokio::test]
async fn a_reminder_due_by_mileage_before_time_fires_on_mileage_and_exactly_at_the_interval_is_due()
{
    let s = support::stack().await;
    let t = s.tenant(3).await;
    for v in &t.vehicles {
        odometer(&s, &t, *v, 10_000).await;
    }
    create_plan(&s, &t, plan_input(&t, "常规保养", 5_000, 12)).await;
    odometer(&s, &t, t.vehicles[0], 15_200).await;
    odometer(&s, &t, t.vehicles[1], 15_000).await;
    odometer(&s, &t, t.vehicles[2], 14_600).await;

    let reminders = list(&s, &t).await;
    let over = of(&reminders, t.vehicles[0]);
    assert_eq!(over.status, Status::Overdue as i32);
    assert!(over.due_by_mileage);
    assert_eq!(over.remaining_m, -200 * KM);
    assert_eq!(over.current_odometer_m, 15_200 * KM);
    // The due date is a year away; the odometer decided.
    assert_eq!(
        day_of(over.due_time.as_ref()),
        today().checked_add_months(Months::new(12))
    );
    let exactly = of(&reminders, t.vehicles[1]);
    assert_eq!(exactly.status, Status::Due as i32);
    assert_eq!(exactly.remaining_m, 0);
    let soon = of(&reminders, t.vehicles[2]);
    assert_eq!(soon.status, Status::Upcoming as i32);
    // Most urgent first.
    let order: Vec<&str> = reminders.iter().map(|r| r.vehicle_id.as_str()).collect();
    let expected: Vec<String> = t.vehicles.iter().map(Uuid::to_string).collect();
    assert_eq!(order, expected);

    // The due-state filter.
    let due_only = client(&s)
        .list_maintenance_reminders(req(&s, &t, list_request(&[Status::Due])))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(due_only.page.unwrap().total, 1);
    assert_eq!(due_only.reminders[0].vehicle_id, t.vehicles[1].to_string());
}

#[tokio::test]
async fn the_due_date_is_forecast_from_the_vehicles_real_daily_mileage() {
    let s = support::stack().await;
    let t = s.tenant(2).await;
    for v in &t.vehicles {
        odometer(&s, &t, *v, 10_000).await;
    }
    create_plan(&s, &t, plan_input(&t, "常规保养", 5_000, 12)).await;
    // Ten whole days: a truck doing 300 km a day, a van doing 20.
    for i in 1..=10u64 {
        let d = today().checked_sub_days(Days::new(i)).unwrap();
        op_day(&s, &t, t.vehicles[0], d, 300, (0, 0)).await;
        op_day(&s, &t, t.vehicles[1], d, 20, (0, 0)).await;
    }
    let reminders = list(&s, &t).await;
    let truck = of(&reminders, t.vehicles[0]);
    assert_eq!(truck.daily_mileage_m, 300 * KM);
    // 5,000 km at 300 km a day: 17 days, inside the plan's 30-day window.
    assert_eq!(
        day_of(truck.forecast_due_time.as_ref()),
        today().checked_add_days(Days::new(17))
    );
    assert_eq!(truck.remaining_days, 17);
    assert_eq!(truck.status, Status::Upcoming as i32);
    assert!(truck.due_by_mileage);
    let van = of(&reminders, t.vehicles[1]);
    // 250 days at 20 km a day, before the year is up: still OK.
    assert_eq!(
        day_of(van.forecast_due_time.as_ref()),
        today().checked_add_days(Days::new(250))
    );
    assert_eq!(van.status, Status::Ok as i32);
    assert_eq!(reminders[0].vehicle_id, t.vehicles[0].to_string());
}

#[tokio::test]
async fn an_odometer_that_contradicts_telemetry_is_refused_naming_the_field() {
    let s = support::stack().await;
    let t = s.tenant(1).await;
    let v = t.vehicles[0];
    odometer(&s, &t, v, 52_000).await;
    create_plan(&s, &t, plan_input(&t, "常规保养", 5_000, 12)).await;
    let d = today();
    op_day(&s, &t, v, d, 100, (52_000, 52_100)).await;
    let reminder = of(&list(&s, &t).await, v);

    // One zero too many.
    let e = complete(
        &s,
        &t,
        completion(&reminder, d, 520_500, pb::MaintenanceSchedule::Reset),
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::BadRequest);
    assert_eq!(e.fields[0].field, "serviceOdometerM");
    assert!(
        e.message.contains("保养里程与车辆上报的里程不符"),
        "{}",
        e.message
    );
    // Nothing was recorded: the reminder is still open and unchanged.
    let still = of(&list(&s, &t).await, v);
    assert_eq!(still.id, reminder.id);

    // The schedule choice is required.
    let e = complete(
        &s,
        &t,
        completion(&reminder, d, 52_050, pb::MaintenanceSchedule::Unspecified),
    )
    .await
    .unwrap_err();
    assert_eq!(e.fields[0].field, "schedule");

    // The dashboard's reading, close to telemetry's, is taken.
    complete(
        &s,
        &t,
        completion(&reminder, d, 52_050, pb::MaintenanceSchedule::Reset),
    )
    .await
    .unwrap();
}

#[tokio::test]
async fn completing_keeps_the_schedule_or_resets_it_from_the_service_as_chosen() {
    let s = support::stack().await;
    let t = s.tenant(2).await;
    for v in &t.vehicles {
        odometer(&s, &t, *v, 10_000).await;
    }
    create_plan(&s, &t, plan_input(&t, "常规保养", 5_000, 6)).await;
    let d = today();
    for v in &t.vehicles {
        odometer(&s, &t, *v, 14_000).await;
        op_day(&s, &t, *v, d, 100, (13_950, 14_000)).await;
    }
    let reminders = list(&s, &t).await;
    let first_due_date = today().checked_add_months(Months::new(6)).unwrap();

    // Serviced early at 14,000 km, keeping the schedule: 15,000 + 5,000.
    let kept = complete(
        &s,
        &t,
        completion(
            &of(&reminders, t.vehicles[0]),
            d,
            14_000,
            pb::MaintenanceSchedule::Keep,
        ),
    )
    .await
    .unwrap();
    assert_eq!(kept.completed.unwrap().status, Status::Done as i32);
    let next = kept.next.unwrap();
    assert_eq!(next.due_odometer_m, 20_000 * KM);
    assert_eq!(
        day_of(next.due_time.as_ref()),
        first_due_date.checked_add_months(Months::new(6))
    );
    assert_eq!(next.last_service_odometer_m, 14_000 * KM);

    // Reset from the service instead: 14,000 + 5,000, six months from today.
    let reset = complete(
        &s,
        &t,
        completion(
            &of(&reminders, t.vehicles[1]),
            d,
            14_000,
            pb::MaintenanceSchedule::Reset,
        ),
    )
    .await
    .unwrap()
    .next
    .unwrap();
    assert_eq!(reset.due_odometer_m, 19_000 * KM);
    assert_eq!(day_of(reset.due_time.as_ref()), Some(first_due_date));

    // The detail shows the service in the history; completing twice is a conflict.
    let detail = client(&s)
        .get_maintenance_reminder(req(
            &s,
            &t,
            pb::GetMaintenanceReminderRequest {
                reminder_id: next.id.clone(),
            },
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(detail.records.len(), 1);
    let record = &detail.records[0];
    assert_eq!(record.cost_fen, 68_000);
    assert_eq!(record.items, ["机油", "机滤"]);
    assert_eq!(record.schedule, pb::MaintenanceSchedule::Keep as i32);
    let e = complete(
        &s,
        &t,
        completion(
            &of(&reminders, t.vehicles[0]),
            d,
            14_000,
            pb::MaintenanceSchedule::Keep,
        ),
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::Conflict);
    // Done ones are listed when asked for.
    let done = client(&s)
        .list_maintenance_reminders(req(&s, &t, list_request(&[Status::Done])))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(done.page.unwrap().total, 2);
}

#[tokio::test]
async fn tenant_b_sees_nothing_of_a() {
    let s = support::stack().await;
    let a = s.tenant(2).await;
    let b = s.tenant_with_plates(1, "沪A").await;
    let plan = create_plan(&s, &a, plan_input(&a, "常规保养", 5_000, 6)).await;
    let reminder = list(&s, &a).await.remove(0);

    assert!(list(&s, &b).await.is_empty());
    let plans = client(&s)
        .list_maintenance_plans(req(&s, &b, pb::ListMaintenancePlansRequest::default()))
        .await
        .unwrap()
        .into_inner();
    assert!(plans.plans.is_empty());
    let e = client(&s)
        .get_maintenance_reminder(req(
            &s,
            &b,
            pb::GetMaintenanceReminderRequest {
                reminder_id: reminder.id.clone(),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&e).code, ErrorCode::NotFound);
    let e = complete(
        &s,
        &b,
        completion(&reminder, today(), 1, pb::MaintenanceSchedule::Keep),
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    let e = client(&s)
        .delete_maintenance_plan(req(
            &s,
            &b,
            pb::DeleteMaintenancePlanRequest {
                plan_id: plan.id.clone(),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&e).code, ErrorCode::NotFound);
    // A plan of B over A's organisation is refused.
    let e = client(&s)
        .create_maintenance_plan(req(
            &s,
            &b,
            pb::CreateMaintenancePlanRequest {
                plan: Some(plan_input(&a, "越权", 5_000, 6)),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&e).fields[0].field, "orgId");
    assert_eq!(list(&s, &a).await.len(), 2);
}

#[tokio::test]
async fn a_user_reaching_a_branch_sees_only_its_vehicles_reminders_and_exports_them() {
    let s = support::stack().await;
    let t = s.tenant(3).await;
    let branch = Uuid::new_v4();
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query(
        "insert into org_unit (id, enterprise_id, name, path, version) \
         values ($1, $2, '分部', $3, 1)",
    )
    .bind(branch)
    .bind(t.enterprise)
    .bind(format!("/{}/{branch}/", t.org))
    .execute(&mut *tx)
    .await
    .unwrap();
    sqlx::query("update vehicle set org_id = $2 where id = $1")
        .bind(t.vehicles[1])
        .bind(branch)
        .execute(&mut *tx)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    let plan = create_plan(&s, &t, plan_input(&t, "常规保养", 5_000, 6)).await;
    assert_eq!(plan.vehicle_count, 3);

    let scoped = client(&s)
        .list_maintenance_reminders(s.req_reaching(
            &t,
            t.user,
            PERMS,
            vec![branch],
            list_request(&[]),
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(scoped.page.unwrap().total, 1);
    assert_eq!(scoped.reminders[0].vehicle_id, t.vehicles[1].to_string());
    assert_eq!(scoped.reminders[0].org_name, "分部");

    let job = client(&s)
        .export_maintenance_reminders(s.req_reaching(
            &t,
            t.user,
            PERMS,
            vec![branch],
            pb::ExportMaintenanceRemindersRequest {
                filter: Some(list_request(&[])),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .job
        .unwrap();
    let rows = s.exported_rows(&job.id).await;
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!(rows[0][0], "车牌号");
    assert_eq!(rows[1][0], "粤B00001");
    assert_eq!(rows[1][3], "常规保养");
}

/// Where a listed reminder sits: its status's rank, the day it falls due
/// (unknown last), its id.
fn urgency(r: &pb::MaintenanceReminder) -> (u8, NaiveDate, String) {
    let rank = match Status::try_from(r.status).unwrap() {
        Status::Overdue => 0,
        Status::Due => 1,
        Status::Upcoming => 2,
        Status::Ok => 3,
        Status::Done => 4,
        Status::Unspecified => panic!("unspecified status"),
    };
    let day = day_of(r.forecast_due_time.as_ref()).unwrap_or(NaiveDate::MAX);
    (rank, day, r.id.clone())
}

#[tokio::test]
async fn the_stored_state_follows_the_odometer_once_judged_and_pages_in_urgency_order() {
    let s = support::stack().await;
    let t = s.tenant(12).await;
    for v in &t.vehicles {
        odometer(&s, &t, *v, 10_000).await;
    }
    create_plan(&s, &t, plan_input(&t, "常规保养", 5_000, 12)).await;
    let first = of(&list(&s, &t).await, t.vehicles[0]);
    assert_eq!(first.status, Status::Ok as i32);

    // The list shows the state it stored until the reminders are judged again.
    odometer(&s, &t, t.vehicles[0], 15_300).await;
    let before = of(&list(&s, &t).await, t.vehicles[0]);
    assert_eq!(before.status, Status::Ok as i32);
    assert_eq!(before.current_odometer_m, 10_000 * KM);
    let written = fleetdesk_maintenance::plans::job::judge_once(&s.app, Utc::now())
        .await
        .unwrap();
    assert_eq!(written, 1);
    let after = of(&list(&s, &t).await, t.vehicles[0]);
    assert_eq!(after.status, Status::Overdue as i32);
    assert_eq!(after.current_odometer_m, 15_300 * KM);
    assert_eq!(after.remaining_m, -300 * KM);
    let overdue = client(&s)
        .list_maintenance_reminders(req(&s, &t, list_request(&[Status::Overdue])))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(overdue.page.unwrap().total, 1);
    assert_eq!(overdue.reminders[0].vehicle_id, t.vehicles[0].to_string());

    // Every state, and days to go by the calendar and by the daily mileage.
    let readings = [
        15_300, 10_000, 14_800, 15_000, 12_000, 14_600, 10_500, 15_100, 11_000, 14_900, 13_000,
        10_200,
    ];
    for (v, km) in t.vehicles.iter().zip(readings) {
        odometer(&s, &t, *v, km).await;
    }
    for i in 1..=10u64 {
        let d = today().checked_sub_days(Days::new(i)).unwrap();
        op_day(&s, &t, t.vehicles[4], d, 100, (0, 0)).await;
        op_day(&s, &t, t.vehicles[10], d, 150, (0, 0)).await;
        op_day(&s, &t, t.vehicles[1], d, 40, (0, 0)).await;
    }
    fleetdesk_maintenance::plans::job::judge_once(&s.app, Utc::now())
        .await
        .unwrap();

    let mut listed = Vec::new();
    for page in 1..=3 {
        let answer = client(&s)
            .list_maintenance_reminders(req(
                &s,
                &t,
                pb::ListMaintenanceRemindersRequest {
                    page: Some(common::PageRequest { page, size: 5 }),
                    ..Default::default()
                },
            ))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(answer.page.unwrap().total, 12);
        listed.extend(answer.reminders);
    }
    assert_eq!(listed.len(), 12);
    let keys: Vec<_> = listed.iter().map(urgency).collect();
    let mut sorted = keys.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(keys, sorted, "pages out of urgency order");
    let states: Vec<i32> = listed.iter().map(|r| r.status).collect();
    assert_eq!(
        states[..5],
        [
            Status::Overdue as i32,
            Status::Overdue as i32,
            Status::Due as i32,
            Status::Upcoming as i32,
            Status::Upcoming as i32,
        ]
    );
    // 3,000 km at 100 km a day: 30 days, due soon by mileage; 2,000 km at
    // 150: 14 days, sooner, listed first among the mileage forecasts.
    let v4 = of(&listed, t.vehicles[4]);
    assert_eq!(v4.status, Status::Upcoming as i32);
    assert_eq!(v4.remaining_days, 30);
    let v10 = of(&listed, t.vehicles[10]);
    assert_eq!(v10.remaining_days, 14);
    let pos = |v: Uuid| listed.iter().position(|r| r.vehicle_id == v.to_string());
    assert!(pos(t.vehicles[10]) < pos(t.vehicles[4]));
}

//! Annual inspections over the real vehicle service (MaintenanceService,
//! fleetdesk-maintenance::inspections): due dates from the legal schedule,
//! the overdue and due-soon filters, a recorded inspection moving the due
//! date (a failed one keeping it), the import all rows or none, and nothing
//! of one tenant or outside the caller's data scope seen.

use crate::support;

use chrono::{Days, Months, NaiveDate, Utc};
use fleetdesk_kit::{ErrorCode, ServiceError, db};
use fleetdesk_maintenance::odometer::{beijing_day, day_start};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use fleetdesk_proto::vehicle::v1::maintenance_service_client::MaintenanceServiceClient;
use support::{Stack, Tenant};
use tonic::transport::Channel;
use uuid::Uuid;

const PERMS: &[&str] = &["as:inspection"];

fn client(s: &Stack) -> MaintenanceServiceClient<Channel> {
    MaintenanceServiceClient::new(s.channel.clone())
}

fn req<T>(s: &Stack, t: &Tenant, message: T) -> tonic::Request<T> {
    s.req_as(t, t.user, PERMS, message)
}

fn err(status: &tonic::Status) -> ServiceError {
    ServiceError::from_status(status)
}

fn today() -> NaiveDate {
    beijing_day(Utc::now())
}

fn ts(day: NaiveDate) -> prost_types::Timestamp {
    fleetdesk_kit::convert::timestamp(day_start(day))
}

fn day_of(t: &Option<prost_types::Timestamp>) -> Option<NaiveDate> {
    t.as_ref()
        .and_then(fleetdesk_kit::convert::datetime)
        .map(beijing_day)
}

/// Sets a vehicle's body category, registration day and licence stamp.
async fn register(
    s: &Stack,
    vehicle: Uuid,
    category: pb::VehicleCategory,
    registered: NaiveDate,
    stamp: Option<NaiveDate>,
) {
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query(
        "update vehicle set category = $2, register_time = $3, inspection_expire_time = $4 \
         where id = $1",
    )
    .bind(vehicle)
    .bind(category as i16)
    .bind(day_start(registered))
    .bind(stamp.map(day_start))
    .execute(&mut *tx)
    .await
    .unwrap();
    tx.commit().await.unwrap();
}

async fn list_as(
    s: &Stack,
    request: tonic::Request<pb::ListAnnualInspectionsRequest>,
) -> Vec<pb::AnnualInspection> {
    client(s)
        .list_annual_inspections(request)
        .await
        .unwrap()
        .into_inner()
        .inspections
}

async fn list(
    s: &Stack,
    t: &Tenant,
    statuses: &[pb::InspectionStatus],
) -> Vec<pb::AnnualInspection> {
    list_as(
        s,
        req(
            s,
            t,
            pb::ListAnnualInspectionsRequest {
                page: Some(common::PageRequest { page: 1, size: 100 }),
                statuses: statuses.iter().map(|s| *s as i32).collect(),
                ..Default::default()
            },
        ),
    )
    .await
}

fn plates(rows: &[pb::AnnualInspection]) -> Vec<&str> {
    rows.iter().map(|r| r.plate_number.as_str()).collect()
}

fn recording(
    vehicle: Uuid,
    day: NaiveDate,
    result: pb::InspectionResult,
) -> pb::RecordAnnualInspectionRequest {
    pb::RecordAnnualInspectionRequest {
        vehicle_id: vehicle.to_string(),
        inspection_time: Some(ts(day)),
        station_name: "深圳市安车机动车检测站".into(),
        result: result as i32,
        odometer_m: 125_000_000,
        cost_fen: 39_000,
        licence_images: vec![common::FileRef {
            name: "行驶证副页.jpg".into(),
            key: "ent/inspection/a.jpg".into(),
            content_type: "image/jpeg".into(),
            size_bytes: 1024,
        }],
        ..Default::default()
    }
}

async fn record(
    s: &Stack,
    t: &Tenant,
    message: pb::RecordAnnualInspectionRequest,
) -> Result<pb::RecordAnnualInspectionResponse, tonic::Status> {
    client(s)
        .record_annual_inspection(req(s, t, message))
        .await
        .map(tonic::Response::into_inner)
}

async fn detail(s: &Stack, t: &Tenant, vehicle: Uuid) -> pb::GetAnnualInspectionResponse {
    client(s)
        .get_annual_inspection(req(
            s,
            t,
            pb::GetAnnualInspectionRequest {
                vehicle_id: vehicle.to_string(),
            },
        ))
        .await
        .unwrap()
        .into_inner()
}

/// Four vehicles: 粤B00000 a truck due in 15 days, 粤B00001 one whose
/// licence stamp ran out 10 days ago, 粤B00002 a truck registered two months
/// ago, 粤B00003 a passenger car a year old (exempt to year 6).
async fn fleet(s: &Stack) -> (Tenant, [NaiveDate; 4]) {
    let t = s.tenant(4).await;
    let today = today();
    let soon = today + Days::new(15);
    let reg0 = soon - Months::new(12);
    register(
        s,
        t.vehicles[0],
        pb::VehicleCategory::HeavyTruck,
        reg0,
        None,
    )
    .await;
    let lapsed = today - Days::new(10);
    register(
        s,
        t.vehicles[1],
        pb::VehicleCategory::LightTruck,
        today - Months::new(36),
        Some(lapsed),
    )
    .await;
    let reg2 = today - Months::new(2);
    register(s, t.vehicles[2], pb::VehicleCategory::Van, reg2, None).await;
    let reg3 = today - Months::new(12);
    register(
        s,
        t.vehicles[3],
        pb::VehicleCategory::PassengerCar,
        reg3,
        None,
    )
    .await;
    (
        t,
        [soon, lapsed, reg2 + Months::new(12), reg3 + Months::new(72)],
    )
}

#[tokio::test]
async fn due_dates_follow_the_schedule_and_the_states_filter_by_them() {
    let s = support::stack().await;
    let (t, due) = fleet(&s).await;
    let all = list(&s, &t, &[]).await;
    // Soonest due first.
    assert_eq!(
        plates(&all),
        ["粤B00001", "粤B00000", "粤B00002", "粤B00003"]
    );
    let by_plate = |p: &str| all.iter().find(|r| r.plate_number == p).unwrap();
    for (i, expected) in due.iter().enumerate() {
        assert_eq!(
            day_of(&by_plate(&format!("粤B{i:05}")).expire_time),
            Some(*expected),
            "vehicle {i}"
        );
    }
    assert_eq!(by_plate("粤B00000").remaining_days, 15);
    assert_eq!(by_plate("粤B00001").remaining_days, -10);
    assert_eq!(
        by_plate("粤B00003").inspection_class,
        pb::InspectionClass::SmallPassenger as i32
    );
    assert_eq!(
        by_plate("粤B00000").inspection_class,
        pb::InspectionClass::Goods as i32
    );

    let overdue = list(&s, &t, &[pb::InspectionStatus::Overdue]).await;
    assert_eq!(plates(&overdue), ["粤B00001"]);
    assert_eq!(overdue[0].status, pb::InspectionStatus::Overdue as i32);
    let soon = list(&s, &t, &[pb::InspectionStatus::DueSoon]).await;
    assert_eq!(plates(&soon), ["粤B00000"]);
    assert_eq!(soon[0].status, pb::InspectionStatus::DueSoon as i32);
    let valid = list(&s, &t, &[pb::InspectionStatus::Valid]).await;
    assert_eq!(plates(&valid), ["粤B00002", "粤B00003"]);
    let urgent = list(
        &s,
        &t,
        &[pb::InspectionStatus::Overdue, pb::InspectionStatus::DueSoon],
    )
    .await;
    assert_eq!(plates(&urgent), ["粤B00001", "粤B00000"]);

    // The due-date range: [start, end) of days.
    let ranged = list_as(
        &s,
        req(
            &s,
            &t,
            pb::ListAnnualInspectionsRequest {
                expire_time: Some(common::TimeRange {
                    start: Some(ts(due[0])),
                    end: Some(ts(due[2])),
                }),
                ..Default::default()
            },
        ),
    )
    .await;
    assert_eq!(plates(&ranged), ["粤B00000"]);
    // Over 250 VINs is refused naming the field.
    let many = client(&s)
        .list_annual_inspections(req(
            &s,
            &t,
            pb::ListAnnualInspectionsRequest {
                vins: (0..251).map(|i| format!("V{i}")).collect(),
                ..Default::default()
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&many).fields[0].field, "vins");
}

#[tokio::test]
async fn recording_moves_the_due_date_and_a_failed_result_keeps_it_due() {
    let s = support::stack().await;
    let (t, due) = fleet(&s).await;
    let overdue = t.vehicles[1];
    let today = today();

    // Bad input changes nothing.
    let future = record(
        &s,
        &t,
        recording(overdue, today + Days::new(1), pb::InspectionResult::Passed),
    )
    .await
    .unwrap_err();
    assert_eq!(err(&future).code, ErrorCode::BadRequest);
    assert_eq!(err(&future).fields[0].field, "inspectionTime");
    let no_result = record(
        &s,
        &t,
        recording(overdue, today, pb::InspectionResult::Unspecified),
    )
    .await
    .unwrap_err();
    assert_eq!(err(&no_result).fields[0].field, "result");
    assert!(detail(&s, &t, overdue).await.records.is_empty());

    let failed = record(
        &s,
        &t,
        recording(overdue, today, pb::InspectionResult::Failed),
    )
    .await
    .unwrap();
    let state = failed.inspection.unwrap();
    assert_eq!(
        day_of(&state.expire_time),
        Some(due[1]),
        "a failed one keeps the due date"
    );
    assert_eq!(state.status, pb::InspectionStatus::Overdue as i32);
    assert_eq!(state.last_result, pb::InspectionResult::Failed as i32);
    assert_eq!(
        plates(&list(&s, &t, &[pb::InspectionStatus::Overdue]).await),
        ["粤B00001"]
    );

    let passed = record(
        &s,
        &t,
        recording(overdue, today, pb::InspectionResult::Passed),
    )
    .await
    .unwrap();
    let state = passed.inspection.unwrap();
    // A goods vehicle three years old: a year from the inspection.
    assert_eq!(day_of(&state.expire_time), Some(today + Months::new(12)));
    assert_eq!(state.status, pb::InspectionStatus::Valid as i32);
    assert_eq!(state.last_cost_fen, 39_000);
    assert_eq!(state.licence_images.len(), 1);
    let record_row = passed.record.unwrap();
    assert_eq!(day_of(&record_row.previous_expire_time), Some(due[1]));
    assert!(
        list(&s, &t, &[pb::InspectionStatus::Overdue])
            .await
            .is_empty()
    );

    let shown = detail(&s, &t, overdue).await;
    let results: Vec<i32> = shown.records.iter().map(|r| r.result).collect();
    assert_eq!(results.len(), 2);
    assert!(results.contains(&(pb::InspectionResult::Failed as i32)));
    assert!(results.contains(&(pb::InspectionResult::Passed as i32)));
    assert_eq!(shown.records[0].images.len(), 1);
    assert_eq!(shown.logs.len(), 2, "one operation-log row per record");
    assert!(shown.logs.iter().any(|l| l.remark.contains("不合格")));

    // A record older than the last is history only.
    let older = record(
        &s,
        &t,
        recording(
            overdue,
            today - Days::new(400),
            pb::InspectionResult::Passed,
        ),
    )
    .await
    .unwrap();
    assert_eq!(
        day_of(&older.inspection.unwrap().expire_time),
        Some(today + Months::new(12))
    );
    assert_eq!(detail(&s, &t, overdue).await.records.len(), 3);

    // A stamp given with a passed inspection wins over the schedule.
    let stamped = record(
        &s,
        &t,
        pb::RecordAnnualInspectionRequest {
            expire_time: Some(ts(due[0] + Months::new(12))),
            ..recording(t.vehicles[0], today, pb::InspectionResult::Passed)
        },
    )
    .await
    .unwrap();
    assert_eq!(
        day_of(&stamped.inspection.unwrap().expire_time),
        Some(due[0] + Months::new(12))
    );
}

#[tokio::test]
async fn a_vehicle_corrected_before_its_first_inspection_is_scheduled_again() {
    let s = support::stack().await;
    let (t, due) = fleet(&s).await;
    // The list opened every row; then two registrations are corrected, one
    // of them on a vehicle whose inspection was already recorded.
    assert_eq!(list(&s, &t, &[]).await.len(), 4);
    let today = today();
    record(
        &s,
        &t,
        recording(t.vehicles[0], today, pb::InspectionResult::Passed),
    )
    .await
    .unwrap();
    let recorded = detail(&s, &t, t.vehicles[0]).await.inspection.unwrap();
    let registered = today - Months::new(6);
    for vehicle in [t.vehicles[0], t.vehicles[2]] {
        register(
            &s,
            vehicle,
            pb::VehicleCategory::HeavyTruck,
            registered,
            None,
        )
        .await;
    }

    let all = list(&s, &t, &[]).await;
    let by_plate = |p: &str| all.iter().find(|r| r.plate_number == p).unwrap();
    assert_eq!(
        day_of(&by_plate("粤B00002").expire_time),
        Some(registered + Months::new(12)),
        "derived again from the corrected registration, not {}",
        due[2]
    );
    assert_eq!(
        by_plate("粤B00000").expire_time,
        recorded.expire_time,
        "a recorded inspection keeps the due date it set"
    );
    assert_eq!(day_of(&by_plate("粤B00003").expire_time), Some(due[3]));
}

#[tokio::test]
async fn another_tenants_vehicle_is_not_found_and_the_data_scope_limits_the_list() {
    let s = support::stack().await;
    let (a, _) = fleet(&s).await;
    let b = s.tenant(1).await;
    // Another tenant's vehicle is NOT_FOUND before its input is read.
    let foreign = record(
        &s,
        &b,
        pb::RecordAnnualInspectionRequest {
            vehicle_id: a.vehicles[1].to_string(),
            ..Default::default()
        },
    )
    .await
    .unwrap_err();
    assert_eq!(err(&foreign).code, ErrorCode::NotFound);
    let got = client(&s)
        .get_annual_inspection(req(
            &s,
            &b,
            pb::GetAnnualInspectionRequest {
                vehicle_id: a.vehicles[1].to_string(),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&got).code, ErrorCode::NotFound);
    assert_eq!(plates(&list(&s, &b, &[]).await), ["粤B00000"]);

    // A member reaching a branch sees its vehicle only, and records nothing else.
    let branch = Uuid::new_v4();
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query(
        "insert into org_unit (id, enterprise_id, name, path, version) \
         values ($1, $2, '分部', $3, 1)",
    )
    .bind(branch)
    .bind(a.enterprise)
    .bind(format!("/{}/{branch}/", a.org))
    .execute(&mut *tx)
    .await
    .unwrap();
    sqlx::query("update vehicle set org_id = $2 where id = $1")
        .bind(a.vehicles[2])
        .bind(branch)
        .execute(&mut *tx)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    let seen = list_as(
        &s,
        s.req_reaching(&a, a.user, PERMS, vec![branch], Default::default()),
    )
    .await;
    assert_eq!(plates(&seen), ["粤B00002"]);
    assert_eq!(seen[0].org_id, branch.to_string());
    let outside = client(&s)
        .record_annual_inspection(s.req_reaching(
            &a,
            a.user,
            PERMS,
            vec![branch],
            recording(a.vehicles[1], today(), pb::InspectionResult::Passed),
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&outside).code, ErrorCode::NotFound);
    assert!(detail(&s, &a, a.vehicles[1]).await.records.is_empty());
    // The organisation filter takes the subtree.
    let filtered = list_as(
        &s,
        req(
            &s,
            &a,
            pb::ListAnnualInspectionsRequest {
                org_ids: vec![branch.to_string()],
                ..Default::default()
            },
        ),
    )
    .await;
    assert_eq!(plates(&filtered), ["粤B00002"]);
}

/// An xlsx of `rows` under the import's header, stored as tenant `t`'s upload.
async fn upload(s: &Stack, t: &Tenant, rows: &[[&str; 8]]) -> pb::ImportFile {
    let header = [
        "车牌号",
        "检验日期",
        "检验结果",
        "检验机构",
        "里程(公里)",
        "检验费用(元)",
        "有效期至",
        "备注",
    ];
    let rows: Vec<&[&str]> = rows.iter().map(|r| r.as_slice()).collect();
    s.upload_sheet(t, "年检.xlsx", &header, &rows).await
}

async fn import_as(
    s: &Stack,
    request: tonic::Request<pb::ImportAnnualInspectionsRequest>,
) -> common::ImportResult {
    client(s)
        .import_annual_inspections(request)
        .await
        .unwrap()
        .into_inner()
        .result
        .unwrap()
}

#[tokio::test]
async fn an_import_writes_all_rows_or_none_within_the_callers_data_scope() {
    let s = support::stack().await;
    let (t, due) = fleet(&s).await;
    let today = today();
    let day = |d: NaiveDate| d.format("%Y-%m-%d").to_string();
    let earlier = day(today - Days::new(20));
    let now = day(today);
    let good = [
        "粤B00001",
        earlier.as_str(),
        "不合格",
        "安车检测站",
        "80000",
        "390",
        "",
        "",
    ];
    let later = [
        "粤B00001",
        now.as_str(),
        "合格",
        "安车检测站",
        "80100.5",
        "390.50",
        "",
        "复检",
    ];
    let future = day(today + Days::new(3));
    let refused = import_as(
        &s,
        req(
            &s,
            &t,
            pb::ImportAnnualInspectionsRequest {
                file: Some(
                    upload(
                        &s,
                        &t,
                        &[
                            good,
                            ["粤Z99999", now.as_str(), "合格", "", "", "", "", ""],
                            ["粤B00000", future.as_str(), "合格", "", "", "", "", ""],
                            ["粤B00002", now.as_str(), "良好", "", "", "", "", ""],
                            ["粤B00003", now.as_str(), "合格", "", "", "1.005", "", ""],
                        ],
                    )
                    .await,
                ),
            },
        ),
    )
    .await;
    assert_eq!(refused.imported, 0);
    let problems: Vec<(i64, &str)> = refused
        .error_list
        .iter()
        .map(|e| (e.row, e.column.as_str()))
        .collect();
    assert!(problems.contains(&(4, "检验日期")), "{problems:?}");
    assert!(problems.contains(&(5, "检验结果")), "{problems:?}");
    assert!(problems.contains(&(6, "检验费用(元)")), "{problems:?}");
    assert!(detail(&s, &t, t.vehicles[1]).await.records.is_empty());
    let unknown = import_as(
        &s,
        req(
            &s,
            &t,
            pb::ImportAnnualInspectionsRequest {
                file: Some(
                    upload(
                        &s,
                        &t,
                        &[good, ["粤Z99999", now.as_str(), "合格", "", "", "", "", ""]],
                    )
                    .await,
                ),
            },
        ),
    )
    .await;
    assert_eq!(unknown.imported, 0);
    assert_eq!(unknown.error_list[0].column, "车牌号");
    assert!(detail(&s, &t, t.vehicles[1]).await.records.is_empty());

    // Out of the caller's data scope.
    let file = upload(&s, &t, &[later, good]).await;
    let elsewhere = import_as(
        &s,
        s.req_reaching(
            &t,
            t.user,
            PERMS,
            vec![Uuid::new_v4()],
            pb::ImportAnnualInspectionsRequest {
                file: Some(file.clone()),
            },
        ),
    )
    .await;
    assert_eq!(elsewhere.imported, 0);
    assert_eq!(
        elsewhere.error_list[0].reason,
        "该车辆不在您的数据权限范围内"
    );

    // Written in date order: the later passed row sets the due date.
    let done = import_as(
        &s,
        req(
            &s,
            &t,
            pb::ImportAnnualInspectionsRequest { file: Some(file) },
        ),
    )
    .await;
    assert_eq!(done.imported, 2, "{:?}", done.error_list);
    let shown = detail(&s, &t, t.vehicles[1]).await;
    assert_eq!(shown.records.len(), 2);
    assert_eq!(shown.records[0].cost_fen, 39_050);
    assert_eq!(shown.records[0].odometer_m, 80_100_500);
    assert_eq!(
        shown.records[1].previous_expire_time,
        shown.records[1].expire_time
    );
    let state = shown.inspection.unwrap();
    assert_eq!(day_of(&state.expire_time), Some(today + Months::new(12)));
    assert_ne!(Some(due[1]), day_of(&state.expire_time));
}

#[tokio::test]
async fn the_export_walks_the_filtered_list_in_its_order() {
    let s = support::stack().await;
    let (t, _) = fleet(&s).await;
    let job = client(&s)
        .export_annual_inspections(req(
            &s,
            &t,
            pb::ExportAnnualInspectionsRequest {
                filter: Some(pb::ListAnnualInspectionsRequest {
                    statuses: vec![
                        pb::InspectionStatus::Overdue as i32,
                        pb::InspectionStatus::Valid as i32,
                    ],
                    ..Default::default()
                }),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .job
        .unwrap();
    let rows = s.exported_rows(&job.id).await;
    assert_eq!(rows[0][0], "车牌号");
    let plates: Vec<&str> = rows[1..].iter().map(|r| r[0].as_str()).collect();
    assert_eq!(plates, ["粤B00001", "粤B00002", "粤B00003"]);
    assert_eq!(rows[1][5], "已逾期");
}

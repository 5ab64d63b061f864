//! Traffic violations over the real vehicle service (MaintenanceService,
//! fleetdesk-maintenance::violations), fetched from a traffic-authority
//! stand-in listening on a real port (signed HTTP, paging, rate limit):
//! stored once however often fetched, attributed to the driver bound under
//! the usage record valid at the violation's time (nobody when none), state
//! moves refused out of order, and nothing of one tenant seen by another.

use crate::support;

use chrono::{DateTime, Days, Duration, Utc};
use fleetdesk_kit::{ErrorCode, ServiceError, db};
use fleetdesk_maintenance::violations::authority::{Authority, AuthorityConfig};
use fleetdesk_maintenance::violations::job;
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use fleetdesk_proto::vehicle::v1::maintenance_service_client::MaintenanceServiceClient;
use fleetdesk_traffic_standin::{RateLimit, Settings, StandIn, records};
use support::{Stack, Tenant};
use tonic::transport::Channel;
use uuid::Uuid;

const PERMS: &[&str] = &["as:violation"];
const KEY: &str = "fleetdesk-vehicle";
const SECRET: &str = "test-secret";

fn client(s: &Stack) -> MaintenanceServiceClient<Channel> {
    MaintenanceServiceClient::new(s.channel.clone())
}

fn req<T>(s: &Stack, t: &Tenant, message: T) -> tonic::Request<T> {
    s.req_as(t, t.user, PERMS, message)
}

fn err(status: &tonic::Status) -> ServiceError {
    ServiceError::from_status(status)
}

/// The authority on a free port, and a client of it signing with `secret`.
async fn authority(secret: &str) -> (StandIn, Authority) {
    let standin = StandIn::new(Settings::single(KEY, SECRET));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let serving = standin.clone();
    tokio::spawn(async move {
        fleetdesk_traffic_standin::serve(listener, serving, std::future::pending())
            .await
            .unwrap();
    });
    let client = Authority::new(AuthorityConfig {
        url,
        app_key: KEY.to_owned(),
        secret: secret.to_owned(),
    })
    .unwrap();
    (standin, client)
}

/// What the authority holds for `plate` over the job's year.
fn expected(plate: &str) -> Vec<records::Record> {
    let now = Utc::now();
    let today = records::beijing_day(now);
    records::between(plate, today - Days::new(365), today, now)
}

/// The plate of tenant `t`'s vehicle `i` (every test tenant's are 粤B00000, …).
fn plate(t: &Tenant, i: usize) -> String {
    assert!(i < t.vehicles.len());
    format!("粤B{i:05}")
}

async fn list(s: &Stack, t: &Tenant, f: pb::ListViolationsRequest) -> pb::ListViolationsResponse {
    client(s)
        .list_violations(req(
            s,
            t,
            pb::ListViolationsRequest {
                page: Some(common::PageRequest { page: 1, size: 100 }),
                ..f
            },
        ))
        .await
        .unwrap()
        .into_inner()
}

async fn driver(s: &Stack, t: &Tenant, name: &str) -> Uuid {
    let id = Uuid::new_v4();
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query(
        "insert into driver (id, enterprise_id, org_id, name, phone, id_number, licence_class, \
         status) values ($1, $2, $3, $4, $5, $6, 1, 1)",
    )
    .bind(id)
    .bind(t.enterprise)
    .bind(t.org)
    .bind(name)
    .bind(format!("138{:08}", id.as_u128() % 100_000_000))
    .bind(format!("ID{}", id.simple()))
    .execute(&mut *tx)
    .await
    .unwrap();
    tx.commit().await.unwrap();
    id
}

/// A usage record of `vehicle` valid over `[start, ended)` and the driver
/// bound to it over `[bound, unbound)`.
async fn in_use(
    s: &Stack,
    t: &Tenant,
    vehicle: Uuid,
    usage: (DateTime<Utc>, Option<DateTime<Utc>>),
    binding: (Uuid, &str, DateTime<Utc>, Option<DateTime<Utc>>),
) {
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query(
        "insert into usage_record (id, enterprise_id, org_id, vehicle_id, plate_number, vin, \
         kind, state, contract_no, start_time, ended_at) \
         values ($1, $2, $3, $4, '', '', 1, $5, $6, $7, $8)",
    )
    .bind(Uuid::new_v4())
    .bind(t.enterprise)
    .bind(t.org)
    .bind(vehicle)
    .bind(if usage.1.is_some() { 3i16 } else { 2i16 })
    .bind(format!("HT{}", Uuid::new_v4().simple()))
    .bind(usage.0)
    .bind(usage.1)
    .execute(&mut *tx)
    .await
    .unwrap();
    tx.commit().await.unwrap();
    bind(s, t, vehicle, binding).await;
}

/// `driver` bound to `vehicle` over `[bound, unbound)`.
async fn bind(
    s: &Stack,
    t: &Tenant,
    vehicle: Uuid,
    binding: (Uuid, &str, DateTime<Utc>, Option<DateTime<Utc>>),
) {
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query(
        "insert into vehicle_binding (id, enterprise_id, org_id, vehicle_id, kind, target_id, \
         target_name, bound_at, unbound_at) values ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    )
    .bind(Uuid::new_v4())
    .bind(t.enterprise)
    .bind(t.org)
    .bind(vehicle)
    .bind(pb::BindingKind::Driver as i16)
    .bind(binding.0.to_string())
    .bind(binding.1)
    .bind(binding.2)
    .bind(binding.3)
    .execute(&mut *tx)
    .await
    .unwrap();
    tx.commit().await.unwrap();
}

fn time_of(v: &pb::Violation) -> DateTime<Utc> {
    fleetdesk_kit::convert::datetime(v.violation_time.as_ref().unwrap()).unwrap()
}

#[tokio::test]
async fn violations_fetched_twice_are_stored_once_through_paging_and_the_rate_limit() {
    let s = support::stack().await;
    let t = s.tenant(3).await;
    let (standin, authority) = authority(SECRET).await;
    // Pages of two at four requests a second: a year of three plates takes
    // several pages each and several windows.
    let authority = authority.with_page_size(2);
    standin.set_rate_limit(RateLimit {
        requests: 4,
        per: std::time::Duration::from_secs(1),
    });
    let want: usize = (0..3).map(|i| expected(&plate(&t, i)).len()).sum();
    assert!(want > 0, "the stand-in's year has records: {want}");

    let first = job::fetch_enterprise(&s.app, &authority, t.enterprise, Utc::now())
        .await
        .unwrap();
    assert_eq!((first.plates, first.failed), (3, 0));
    assert_eq!((first.records, first.new), (want, want));
    assert!(
        standin.counts().throttled > 0,
        "the limit was hit and waited out"
    );
    assert!(standin.counts().served > 3, "several pages a plate");

    let second = job::fetch_enterprise(&s.app, &authority, t.enterprise, Utc::now())
        .await
        .unwrap();
    assert_eq!((second.records, second.new), (want, 0));

    let all = list(&s, &t, pb::ListViolationsRequest::default()).await;
    assert_eq!(all.page.unwrap().total, i64::try_from(want).unwrap());
    let mut numbers: Vec<_> = all
        .violations
        .iter()
        .map(|v| v.decision_no.clone())
        .collect();
    numbers.sort();
    numbers.dedup();
    assert_eq!(numbers.len(), want);
    // What the authority said, fen and points included, newest first.
    let one = expected(&plate(&t, 0));
    let stored = list(
        &s,
        &t,
        pb::ListViolationsRequest {
            plate_numbers: vec![plate(&t, 0)],
            ..Default::default()
        },
    )
    .await;
    assert_eq!(
        stored
            .violations
            .iter()
            .map(|v| (v.decision_no.clone(), v.fine_fen, v.penalty_points))
            .collect::<Vec<_>>(),
        one.iter()
            .map(|r| (r.decision_no.clone(), r.fine_fen, r.points))
            .collect::<Vec<_>>()
    );
    assert_eq!(
        stored.total_fine_fen,
        one.iter().map(|r| r.fine_fen).sum::<i64>()
    );
    assert!(
        stored
            .violations
            .iter()
            .all(|v| v.status == pb::ViolationStatus::Unhandled as i32)
    );
    // Only due enterprises are fetched by the daily job.
    assert!(
        !job::due(&s.app, Utc::now())
            .await
            .unwrap()
            .contains(&t.enterprise)
    );
}

#[tokio::test]
async fn an_unsigned_fetch_stores_nothing() {
    let s = support::stack().await;
    let t = s.tenant(1).await;
    let (standin, wrong) = authority("not-the-secret").await;
    let round = job::fetch_enterprise(&s.app, &wrong, t.enterprise, Utc::now())
        .await
        .unwrap();
    assert_eq!((round.failed, round.new), (1, 0));
    assert_eq!(standin.counts().refused, 1);
    let all = list(&s, &t, pb::ListViolationsRequest::default()).await;
    assert_eq!(all.page.unwrap().total, 0);
}

#[tokio::test]
async fn a_violation_is_attributed_to_the_driver_in_use_at_its_time_and_to_nobody_otherwise() {
    let s = support::stack().await;
    let t = s.tenant(10).await;
    // A vehicle with three violations in the year (most have a few).
    let (i, records) = (0..10)
        .map(|i| (i, expected(&plate(&t, i))))
        .find(|(_, r)| r.len() >= 3)
        .expect("a plate with three violations");
    let vehicle = t.vehicles[i];
    let at = |r: &records::Record| {
        DateTime::parse_from_rfc3339(&r.time)
            .unwrap()
            .with_timezone(&Utc)
    };
    // Newest first: [0] in Li's time, [1] in Wang's, older ones before
    // any usage record.
    let (newest, middle) = (at(&records[0]), at(&records[1]));
    let older = at(&records[2]);
    let wang = driver(&s, &t, "王师傅").await;
    let li = driver(&s, &t, "李师傅").await;
    let split = middle + Duration::seconds(1);
    in_use(
        &s,
        &t,
        vehicle,
        (older + Duration::seconds(1), Some(split)),
        (wang, "王师傅", older + Duration::seconds(1), Some(split)),
    )
    .await;
    in_use(&s, &t, vehicle, (split, None), (li, "李师傅", split, None)).await;
    // A binding without a usage record around it does not count.
    let zhao = driver(&s, &t, "赵师傅").await;
    bind(
        &s,
        &t,
        vehicle,
        (
            zhao,
            "赵师傅",
            older - Duration::days(1),
            Some(older + Duration::seconds(1)),
        ),
    )
    .await;
    let (_, authority) = authority(SECRET).await;
    job::fetch_enterprise(&s.app, &authority, t.enterprise, Utc::now())
        .await
        .unwrap();
    let all = list(
        &s,
        &t,
        pb::ListViolationsRequest {
            plate_numbers: vec![plate(&t, i)],
            ..Default::default()
        },
    )
    .await;
    let of = |when: DateTime<Utc>| {
        all.violations
            .iter()
            .find(|v| time_of(v) == when)
            .unwrap()
            .clone()
    };
    assert_eq!(of(newest).driver_id, li.to_string());
    assert_eq!(of(newest).driver_name, "李师傅");
    assert_eq!(of(middle).driver_id, wang.to_string());
    assert_eq!(of(older).driver_id, "");
    assert_eq!(of(older).driver_name, "");
    assert!(!of(newest).driver_assigned);
    // The driver filter lists each driver's own.
    let lis = list(
        &s,
        &t,
        pb::ListViolationsRequest {
            driver_id: li.to_string(),
            ..Default::default()
        },
    )
    .await;
    assert!(lis.violations.iter().all(|v| v.driver_id == li.to_string()));
    assert!(lis.violations.iter().any(|v| time_of(v) == newest));

    // An operator holds Wang responsible for the older one instead.
    let assigned = client(&s)
        .assign_violation(req(
            &s,
            &t,
            pb::AssignViolationRequest {
                violation_id: of(older).id,
                driver_id: wang.to_string(),
                remark: "司机确认".into(),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .violation
        .unwrap();
    assert_eq!(
        (assigned.driver_id.as_str(), assigned.driver_assigned),
        (wang.to_string().as_str(), true)
    );
    // Another enterprise's driver is refused, naming the field.
    let other = s.tenant(0).await;
    let stranger = driver(&s, &other, "外企司机").await;
    let refused = client(&s)
        .assign_violation(req(
            &s,
            &t,
            pb::AssignViolationRequest {
                violation_id: of(older).id,
                driver_id: stranger.to_string(),
                remark: String::new(),
            },
        ))
        .await
        .unwrap_err();
    let refused = err(&refused);
    assert_eq!(refused.code, ErrorCode::BadRequest);
    assert_eq!(refused.fields[0].field, "driverId");
}

#[tokio::test]
async fn a_violation_moves_unhandled_handled_paid_and_illegal_moves_change_nothing() {
    let s = support::stack().await;
    let t = s.tenant(5).await;
    let (_, authority) = authority(SECRET).await;
    job::fetch_enterprise(&s.app, &authority, t.enterprise, Utc::now())
        .await
        .unwrap();
    let all = list(&s, &t, pb::ListViolationsRequest::default()).await;
    let id = all.violations[0].id.clone();
    let pay = |id: String| pb::PayViolationRequest {
        violation_id: id,
        receipts: Vec::new(),
        remark: String::new(),
    };
    // Paying before handling is a conflict (4009) and changes nothing.
    let early = client(&s)
        .pay_violation(req(&s, &t, pay(id.clone())))
        .await
        .unwrap_err();
    assert_eq!(err(&early).code, ErrorCode::Conflict);
    let handle = |id: String| pb::HandleViolationRequest {
        violation_id: id,
        status: pb::ViolationStatus::Handled.into(),
        driver_id: String::new(),
        receipts: Vec::new(),
        remark: "已在交管12123处理".into(),
    };
    let handled = client(&s)
        .handle_violation(req(&s, &t, handle(id.clone())))
        .await
        .unwrap()
        .into_inner()
        .violation
        .unwrap();
    assert_eq!(handled.status, pb::ViolationStatus::Handled as i32);
    assert!(handled.handled_time.is_some());
    let again = client(&s)
        .handle_violation(req(&s, &t, handle(id.clone())))
        .await
        .unwrap_err();
    assert_eq!(err(&again).code, ErrorCode::Conflict);
    let paid = client(&s)
        .pay_violation(req(&s, &t, pay(id.clone())))
        .await
        .unwrap()
        .into_inner()
        .violation
        .unwrap();
    assert_eq!(paid.status, pb::ViolationStatus::Paid as i32);
    assert!(paid.paid_time.is_some());
    let twice = client(&s)
        .pay_violation(req(&s, &t, pay(id.clone())))
        .await
        .unwrap_err();
    assert_eq!(err(&twice).code, ErrorCode::Conflict);
    let late = client(&s)
        .handle_violation(req(&s, &t, handle(id.clone())))
        .await
        .unwrap_err();
    assert_eq!(err(&late).code, ErrorCode::Conflict);

    let detail = client(&s)
        .get_violation(req(
            &s,
            &t,
            pb::GetViolationRequest {
                violation_id: id.clone(),
            },
        ))
        .await
        .unwrap()
        .into_inner();
    let v = detail.violation.unwrap();
    assert_eq!(v.status, pb::ViolationStatus::Paid as i32);
    assert_eq!(v.handled_time, handled.handled_time);
    // The fetch, the handling and the payment; nothing for the refusals.
    assert_eq!(detail.logs.len(), 3, "{:?}", detail.logs);
    assert!(detail.logs[0].remark.contains("已缴款"));
    assert!(detail.logs[1].remark.contains("已处理"));

    // The state filter.
    let paid_only = list(
        &s,
        &t,
        pb::ListViolationsRequest {
            statuses: vec![pb::ViolationStatus::Paid.into()],
            ..Default::default()
        },
    )
    .await;
    assert_eq!(
        paid_only
            .violations
            .iter()
            .map(|v| v.id.clone())
            .collect::<Vec<_>>(),
        vec![id]
    );
}

#[tokio::test]
async fn tenant_b_sees_nothing_of_a() {
    let s = support::stack().await;
    let a = s.tenant(5).await;
    let b = s.tenant(5).await;
    let (_, authority) = authority(SECRET).await;
    job::fetch_enterprise(&s.app, &authority, a.enterprise, Utc::now())
        .await
        .unwrap();
    let of_a = list(&s, &a, pb::ListViolationsRequest::default()).await;
    assert!(!of_a.violations.is_empty());
    let id = of_a.violations[0].id.clone();
    let of_b = list(&s, &b, pb::ListViolationsRequest::default()).await;
    assert_eq!(of_b.page.unwrap().total, 0);
    assert_eq!(of_b.total_fine_fen, 0);
    let got = client(&s)
        .get_violation(req(
            &s,
            &b,
            pb::GetViolationRequest {
                violation_id: id.clone(),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&got).code, ErrorCode::NotFound);
    let handled = client(&s)
        .handle_violation(req(
            &s,
            &b,
            pb::HandleViolationRequest {
                violation_id: id.clone(),
                status: pb::ViolationStatus::Handled.into(),
                ..Default::default()
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&handled).code, ErrorCode::NotFound);
    // A's violation is untouched.
    let still = list(&s, &a, pb::ListViolationsRequest::default()).await;
    assert_eq!(
        still.violations[0].status,
        pb::ViolationStatus::Unhandled as i32
    );
}

#[tokio::test]
async fn the_export_writes_the_filtered_list() {
    let s = support::stack().await;
    let t = s.tenant(2).await;
    let (_, authority) = authority(SECRET).await;
    job::fetch_enterprise(&s.app, &authority, t.enterprise, Utc::now())
        .await
        .unwrap();
    let filter = pb::ListViolationsRequest {
        plate_numbers: vec![plate(&t, 1)],
        ..Default::default()
    };
    let job = client(&s)
        .export_violations(req(
            &s,
            &t,
            pb::ExportViolationsRequest {
                filter: Some(filter),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .job
        .unwrap();
    let rows = s.exported_rows(&job.id).await;
    assert_eq!(rows[0][0], "车牌号");
    assert_eq!(rows.len() - 1, expected(&plate(&t, 1)).len());
    assert!(rows[1..].iter().all(|r| r[0] == plate(&t, 1)));
}

/// An xlsx of `rows` under the import's header, stored as tenant `t`'s upload.
async fn upload(s: &Stack, t: &Tenant, rows: &[[&str; 9]]) -> pb::ImportFile {
    let header = [
        "车牌号",
        "违章时间",
        "违章地点",
        "违法代码",
        "违法行为",
        "罚款(元)",
        "扣分",
        "决定书编号",
        "处理机关",
    ];
    let rows: Vec<&[&str]> = rows.iter().map(|r| &r[..]).collect();
    s.upload_sheet(t, "违章.xlsx", &header, &rows).await
}

async fn import(s: &Stack, t: &Tenant, file: pb::ImportFile) -> common::ImportResult {
    client(s)
        .import_violations(req(s, t, pb::ImportViolationsRequest { file: Some(file) }))
        .await
        .unwrap()
        .into_inner()
        .result
        .unwrap()
}

#[tokio::test]
async fn an_import_writes_all_rows_or_none_and_a_number_imported_twice_stays_one() {
    let s = support::stack().await;
    let t = s.tenant(2).await;
    let good = [
        "粤B00000",
        "2026-10-03 08:15:00",
        "深南大道",
        "1352A",
        "超速未达20%",
        "200",
        "1",
        "IMP0001",
        "深圳交警",
    ];
    let other = [
        "粤B00001",
        "2026-10-04 18:40",
        "滨河大道",
        "1625",
        "闯红灯",
        "200.00",
        "6",
        "IMP0002",
        "深圳交警",
    ];
    // One bad row (an unknown plate, a future time, a repeated number): nothing is written.
    let refused = import(
        &s,
        &t,
        upload(
            &s,
            &t,
            &[
                good,
                [
                    "粤Z99999",
                    "2026-10-05 09:00",
                    "",
                    "1039",
                    "",
                    "200",
                    "0",
                    "IMP0003",
                    "",
                ],
                [
                    "粤B00001",
                    "2099-01-01 09:00",
                    "",
                    "1039",
                    "",
                    "200",
                    "0",
                    "IMP0004",
                    "",
                ],
                [
                    "粤B00001",
                    "2026-10-06 09:00",
                    "",
                    "1039",
                    "",
                    "abc",
                    "0",
                    "IMP0005",
                    "",
                ],
                [
                    "粤B00001",
                    "2026-10-07 09:00",
                    "",
                    "1039",
                    "",
                    "200",
                    "0",
                    "IMP0001",
                    "",
                ],
            ],
        )
        .await,
    )
    .await;
    assert_eq!(refused.imported, 0);
    let problems: Vec<(i64, &str)> = refused
        .error_list
        .iter()
        .map(|e| (e.row, e.column.as_str()))
        .collect();
    assert!(problems.contains(&(4, "违章时间")), "{problems:?}");
    assert!(problems.contains(&(5, "罚款(元)")), "{problems:?}");
    assert!(problems.contains(&(6, "决定书编号")), "{problems:?}");
    assert_eq!(
        list(&s, &t, pb::ListViolationsRequest::default())
            .await
            .page
            .unwrap()
            .total,
        0
    );
    // The unknown plate is found against the stored vehicles.
    let unknown = import(
        &s,
        &t,
        upload(
            &s,
            &t,
            &[
                good,
                [
                    "粤Z99999",
                    "2026-10-05 09:00",
                    "",
                    "1039",
                    "",
                    "200",
                    "0",
                    "IMP0003",
                    "",
                ],
            ],
        )
        .await,
    )
    .await;
    assert_eq!(unknown.imported, 0);
    assert_eq!(unknown.error_list[0].column, "车牌号");
    assert_eq!(
        list(&s, &t, pb::ListViolationsRequest::default())
            .await
            .page
            .unwrap()
            .total,
        0
    );

    let done = import(&s, &t, upload(&s, &t, &[good, other]).await).await;
    assert_eq!(done.imported, 2);
    assert!(done.error_list.is_empty());
    let again = import(&s, &t, upload(&s, &t, &[good]).await).await;
    assert_eq!(again.imported, 1);
    let all = list(&s, &t, pb::ListViolationsRequest::default()).await;
    assert_eq!(all.page.unwrap().total, 2);
    let first = all
        .violations
        .iter()
        .find(|v| v.decision_no == "IMP0001")
        .unwrap();
    assert_eq!((first.fine_fen, first.penalty_points), (20_000, 1));
    assert_eq!(first.source, pb::ViolationSource::Imported as i32);
    assert_eq!(
        time_of(first).to_rfc3339(),
        "2026-10-03T00:15:00+00:00",
        "a Beijing time"
    );
    assert_eq!(all.total_fine_fen, 40_000);
}

#[tokio::test]
async fn an_import_refuses_a_vehicle_outside_the_callers_data_scope() {
    let s = support::stack().await;
    let t = s.tenant(1).await;
    let row = [
        "粤B00000",
        "2026-10-03 08:15:00",
        "深南大道",
        "1352A",
        "超速未达20%",
        "200",
        "1",
        "IMP0101",
        "深圳交警",
    ];
    let file = upload(&s, &t, &[row]).await;
    // A member reaching only an organisation that holds none of the tenant's vehicles.
    let elsewhere = s.req_reaching(
        &t,
        t.user,
        PERMS,
        vec![Uuid::new_v4()],
        pb::ImportViolationsRequest {
            file: Some(file.clone()),
        },
    );
    let refused = client(&s)
        .import_violations(elsewhere)
        .await
        .unwrap()
        .into_inner()
        .result
        .unwrap();
    assert_eq!(refused.imported, 0);
    assert_eq!(
        (
            refused.error_list[0].column.as_str(),
            refused.error_list[0].reason.as_str()
        ),
        ("车牌号", "该车辆不在您的数据权限范围内")
    );
    assert_eq!(
        list(&s, &t, pb::ListViolationsRequest::default())
            .await
            .page
            .unwrap()
            .total,
        0
    );
    // The same file from a member reaching the whole enterprise is written.
    assert_eq!(import(&s, &t, file).await.imported, 1);
}

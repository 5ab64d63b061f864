//! Risk records over the real vehicle service: accidents, customer-service
//! records and warnings through RiskService; drivers, bindings, alarms and
//! usage records written as their own modules leave them; the warnings job
//! run as the daily task runs it.

use crate::support;

use chrono::{DateTime, Duration, Utc};
use fleetdesk_kit::actor::OPERATOR_NAME_KEY;
use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::{ErrorCode, ServiceError, db};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use fleetdesk_proto::vehicle::v1::risk_service_client::RiskServiceClient;
use fleetdesk_risk::warnings::job;
use support::{Stack, Tenant};
use tonic::metadata::MetadataValue;
use tonic::transport::Channel;
use uuid::Uuid;

const PERMS: &[&str] = &["as:accident", "as:risk:service", "as:risk:warn"];

fn client(s: &Stack) -> RiskServiceClient<Channel> {
    RiskServiceClient::new(s.channel.clone())
}

/// A request of tenant `t`'s user, signed as "王五" for the logs.
fn req<T>(s: &Stack, t: &Tenant, message: T) -> tonic::Request<T> {
    let mut r = s.req_as(t, t.user, PERMS, message);
    r.metadata_mut().insert_bin(
        OPERATOR_NAME_KEY,
        MetadataValue::from_bytes("王五".as_bytes()),
    );
    r
}

fn err(status: &tonic::Status) -> ServiceError {
    ServiceError::from_status(status)
}

fn page() -> Option<common::PageRequest> {
    Some(common::PageRequest { page: 1, size: 100 })
}

/// Whole seconds (the wire and the database agree on them).
fn now() -> DateTime<Utc> {
    DateTime::from_timestamp(Utc::now().timestamp(), 0).unwrap()
}

/// A driver of `t` (status 1 active, 3 left) with its licence expiry.
async fn driver(
    s: &Stack,
    t: &Tenant,
    name: &str,
    expires: Option<DateTime<Utc>>,
    status: i16,
) -> Uuid {
    let id = Uuid::new_v4();
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query(
        "insert into driver (id, enterprise_id, org_id, name, phone, id_number, licence_class, \
         licence_expire_time, status) values ($1, $2, $3, $4, $5, $6, 1, $7, $8)",
    )
    .bind(id)
    .bind(t.enterprise)
    .bind(t.org)
    .bind(name)
    .bind(format!("138{:08}", id.as_u128() % 100_000_000))
    .bind(format!("44030019900101{:04}", id.as_u128() % 10_000))
    .bind(expires)
    .bind(status)
    .execute(&mut *tx)
    .await
    .unwrap();
    tx.commit().await.unwrap();
    id
}

/// A driver binding of `vehicle` from `from` until `until` (open when `None`),
/// as the binding log keeps it.
async fn bind(
    s: &Stack,
    t: &Tenant,
    vehicle: Uuid,
    driver: Uuid,
    name: &str,
    from: DateTime<Utc>,
    until: Option<DateTime<Utc>>,
) {
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query(
        "insert into vehicle_binding (id, enterprise_id, org_id, vehicle_id, kind, target_id, \
         target_name, bound_at, unbound_at) values ($1, $2, $3, $4, 1, $5, $6, $7, $8)",
    )
    .bind(Uuid::new_v4())
    .bind(t.enterprise)
    .bind(t.org)
    .bind(vehicle)
    .bind(driver.to_string())
    .bind(name)
    .bind(from)
    .bind(until)
    .execute(&mut *tx)
    .await
    .unwrap();
    tx.commit().await.unwrap();
}

fn input(vehicle: Uuid, at: DateTime<Utc>) -> pb::AccidentInput {
    pb::AccidentInput {
        vehicle_id: vehicle.to_string(),
        accident_time: Some(timestamp(at)),
        address: "深圳市南山区科技园".into(),
        description: "追尾前车".into(),
        severity: pb::AccidentSeverity::PropertyOnly.into(),
        estimated_loss_fen: 350_000,
        images: vec![common::FileRef {
            name: "现场.jpg".into(),
            key: "risk/1.jpg".into(),
            content_type: "image/jpeg".into(),
            size_bytes: 1024,
        }],
        ..Default::default()
    }
}

async fn create_accident(
    s: &Stack,
    t: &Tenant,
    accident: pb::AccidentInput,
) -> Result<pb::Accident, ServiceError> {
    client(s)
        .create_accident(req(
            s,
            t,
            pb::CreateAccidentRequest {
                accident: Some(accident),
            },
        ))
        .await
        .map(|r| r.into_inner().accident.unwrap())
        .map_err(|e| err(&e))
}

async fn update_accident(
    s: &Stack,
    t: &Tenant,
    id: &str,
    accident: pb::AccidentInput,
    status: pb::AccidentStatus,
) -> Result<pb::Accident, ServiceError> {
    let r = pb::UpdateAccidentRequest {
        accident_id: id.to_owned(),
        accident: Some(accident),
        status: status.into(),
    };
    client(s)
        .update_accident(req(s, t, r))
        .await
        .map(|r| r.into_inner().accident.unwrap())
        .map_err(|e| err(&e))
}

async fn get_accident(
    s: &Stack,
    t: &Tenant,
    r: pb::GetAccidentRequest,
) -> Result<pb::GetAccidentResponse, ServiceError> {
    client(s)
        .get_accident(req(s, t, r))
        .await
        .map(|r| r.into_inner())
        .map_err(|e| err(&e))
}

async fn accidents(
    s: &Stack,
    t: &Tenant,
    r: pb::ListAccidentsRequest,
) -> Result<Vec<pb::Accident>, ServiceError> {
    let r = pb::ListAccidentsRequest { page: page(), ..r };
    client(s)
        .list_accidents(req(s, t, r))
        .await
        .map(|r| r.into_inner().accidents)
        .map_err(|e| err(&e))
}

async fn warnings(s: &Stack, t: &Tenant, r: pb::ListWarningsRequest) -> Vec<pb::Warning> {
    let r = pb::ListWarningsRequest { page: page(), ..r };
    let mut list = client(s)
        .list_warnings(req(s, t, r))
        .await
        .unwrap()
        .into_inner()
        .warnings;
    list.sort_by(|a, b| a.content.cmp(&b.content));
    list
}

async fn acknowledge(
    s: &Stack,
    t: &Tenant,
    ids: Vec<String>,
) -> Result<Vec<pb::Warning>, ServiceError> {
    client(s)
        .acknowledge_warnings(req(
            s,
            t,
            pb::AcknowledgeWarningsRequest { warning_ids: ids },
        ))
        .await
        .map(|r| r.into_inner().warnings)
        .map_err(|e| err(&e))
}

/// Operation-log rows and document numbers the tenant has (nothing written
/// means neither).
async fn traces(s: &Stack, t: &Tenant) -> (i64, i64) {
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    let logs: i64 = sqlx::query_scalar(
        "select count(*) from operation_log where enterprise_id = $1 and business_type = 7",
    )
    .bind(t.enterprise)
    .fetch_one(&mut *tx)
    .await
    .unwrap();
    let numbers: i64 =
        sqlx::query_scalar("select count(*) from risk_number where enterprise_id = $1")
            .bind(t.enterprise)
            .fetch_one(&mut *tx)
            .await
            .unwrap();
    (logs, numbers)
}

async fn an_accident_takes_the_driver_bound_at_its_time_and_logs_each_change(s: &Stack) {
    let t = s.tenant(1).await;
    let v = t.vehicles[0];
    let t0 = now();
    let zhang = driver(s, &t, "张三", None, 1).await;
    let li = driver(s, &t, "李四", None, 1).await;
    // 张三 drove it until yesterday, 李四 since.
    bind(
        s,
        &t,
        v,
        zhang,
        "张三",
        t0 - Duration::days(10),
        Some(t0 - Duration::days(1)),
    )
    .await;
    bind(s, &t, v, li, "李四", t0 - Duration::days(1), None).await;

    let created = create_accident(s, &t, input(v, t0 - Duration::days(3)))
        .await
        .unwrap();
    assert_eq!(
        (created.driver_id.as_str(), created.driver_name.as_str()),
        (zhang.to_string().as_str(), "张三")
    );
    assert_eq!(created.status, pb::AccidentStatus::Reported as i32);
    assert!(
        created.case_no.starts_with("SG") && created.case_no.ends_with("0001"),
        "{}",
        created.case_no
    );
    assert_eq!(created.case_no.len(), 14);
    assert_eq!(
        (created.plate_number.as_str(), created.org_name.as_str()),
        ("粤B00000", "总部")
    );
    assert_eq!(created.images.len(), 1);
    assert_eq!(created.audit.as_ref().unwrap().created_by, "王五");
    let second = create_accident(s, &t, input(v, t0 - Duration::hours(5)))
        .await
        .unwrap();
    assert!(second.case_no.ends_with("0002"), "{}", second.case_no);
    assert_eq!(second.driver_name, "李四");

    // Edit: now two hours ago (李四's time), the insurer's code, loss assessed.
    let mut edit = input(v, t0 - Duration::hours(2));
    edit.fixed_loss_code = "DS-2026-001".into();
    edit.assessed_loss_fen = 280_000;
    edit.liability = pb::AccidentLiability::Main.into();
    let updated = update_accident(
        s,
        &t,
        &created.id,
        edit.clone(),
        pb::AccidentStatus::LossAssessment,
    )
    .await
    .unwrap();
    assert_eq!(
        (updated.driver_id.as_str(), updated.driver_name.as_str()),
        (li.to_string().as_str(), "李四")
    );
    assert_eq!(updated.status, pb::AccidentStatus::LossAssessment as i32);
    assert_eq!(
        (updated.assessed_loss_fen, updated.case_no.as_str()),
        (280_000, created.case_no.as_str())
    );
    assert_eq!(updated.close_time, None);

    // The detail, by id and by the loss-assessment code, with its log newest first.
    let by_id = get_accident(
        s,
        &t,
        pb::GetAccidentRequest {
            accident_id: created.id.clone(),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let by_code = get_accident(
        s,
        &t,
        pb::GetAccidentRequest {
            fixed_loss_code: "DS-2026-001".into(),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(by_id.accident, by_code.accident);
    assert_eq!(
        by_id.accident.as_ref().unwrap().liability,
        pb::AccidentLiability::Main as i32
    );
    let remarks: Vec<&str> = by_id.logs.iter().map(|l| l.remark.as_str()).collect();
    assert_eq!(remarks.len(), 2, "{remarks:?}");
    assert!(
        remarks[0].contains("司机：由「张三」改为「李四」"),
        "{}",
        remarks[0]
    );
    assert!(
        remarks[0].contains("定损金额：由「0.00元」改为「2800.00元」"),
        "{}",
        remarks[0]
    );
    assert!(
        remarks[0].contains("状态：由「已报案」改为「定损中」"),
        "{}",
        remarks[0]
    );
    assert!(remarks[1].starts_with("新增事故"), "{}", remarks[1]);
    assert!(by_id.logs.iter().all(|l| l.operator_name == "王五"));

    // Another accident may not take the same code.
    let mut clash = input(v, t0 - Duration::hours(1));
    clash.fixed_loss_code = "DS-2026-001".into();
    let e = update_accident(s, &t, &second.id, clash, pb::AccidentStatus::Unspecified)
        .await
        .unwrap_err();
    assert_eq!(
        (e.code, e.fields[0].field.as_str()),
        (ErrorCode::Conflict, "fixedLossCode")
    );

    // The status moves forward only; CLOSED sets the close time and is final.
    let e = update_accident(
        s,
        &t,
        &created.id,
        edit.clone(),
        pb::AccidentStatus::Reported,
    )
    .await
    .unwrap_err();
    assert_eq!(
        (e.code, e.fields[0].field.as_str()),
        (ErrorCode::BadRequest, "status")
    );
    let closed = update_accident(s, &t, &created.id, edit.clone(), pb::AccidentStatus::Closed)
        .await
        .unwrap();
    assert!(closed.close_time.is_some());
    let e = update_accident(s, &t, &created.id, edit, pb::AccidentStatus::Closed)
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::Conflict);

    // The list's filters.
    let by_status = accidents(
        s,
        &t,
        pb::ListAccidentsRequest {
            statuses: vec![pb::AccidentStatus::Closed.into()],
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(
        by_status.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(),
        [created.id.as_str()]
    );
    let by_driver = accidents(
        s,
        &t,
        pb::ListAccidentsRequest {
            driver_id: li.to_string(),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(by_driver.len(), 2);
    let by_case = accidents(
        s,
        &t,
        pb::ListAccidentsRequest {
            case_no: second.case_no.clone(),
            plate_numbers: vec!["粤B00000".into()],
            org_ids: vec![t.org.to_string()],
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(by_case.len(), 1);
    let early = accidents(
        s,
        &t,
        pb::ListAccidentsRequest {
            accident_time: Some(common::TimeRange {
                start: None,
                end: Some(timestamp(t0 - Duration::hours(3))),
            }),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(
        early.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(),
        [second.id.as_str()]
    );
    let too_many: Vec<String> = (0..251).map(|i| format!("粤B{i:05}")).collect();
    let e = accidents(
        s,
        &t,
        pb::ListAccidentsRequest {
            plate_numbers: too_many,
            ..Default::default()
        },
    )
    .await
    .unwrap_err();
    assert_eq!(e.fields[0].field, "plateNumbers");
}

async fn bad_accident_input_is_refused_in_chinese_and_writes_nothing(s: &Stack) {
    let t = s.tenant(1).await;
    let other = s.tenant(1).await;
    let mut bad = input(t.vehicles[0], now() - Duration::hours(1));
    bad.estimated_loss_fen = -100;
    bad.severity = 0;
    let e = create_accident(s, &t, bad).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::BadRequest);
    let fields: Vec<(&str, &str)> = e
        .fields
        .iter()
        .map(|f| (f.field.as_str(), f.message.as_str()))
        .collect();
    assert_eq!(
        fields,
        [
            ("severity", "请选择事故等级"),
            ("estimatedLossFen", "预估损失金额不能为负数")
        ]
    );
    let e = create_accident(s, &t, pb::AccidentInput::default())
        .await
        .unwrap_err();
    assert_eq!(
        (e.fields[0].field.as_str(), e.fields[0].message.as_str()),
        ("vehicleId", "请选择车辆")
    );
    let e = create_accident(s, &t, input(t.vehicles[0], now() + Duration::days(1)))
        .await
        .unwrap_err();
    assert_eq!(e.fields[0].message, "事故时间不能晚于当前时间");
    // Another tenant's vehicle is not there for this caller.
    let e = create_accident(s, &t, input(other.vehicles[0], now()))
        .await
        .unwrap_err();
    assert_eq!(
        (e.fields[0].field.as_str(), e.fields[0].message.as_str()),
        ("vehicleId", "车辆不存在")
    );
    let mut unknown_driver = input(t.vehicles[0], now());
    unknown_driver.driver_id = Uuid::new_v4().to_string();
    let e = create_accident(s, &t, unknown_driver).await.unwrap_err();
    assert_eq!(
        (e.fields[0].field.as_str(), e.fields[0].message.as_str()),
        ("driverId", "司机不存在")
    );

    assert!(
        accidents(s, &t, pb::ListAccidentsRequest::default())
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(traces(s, &t).await, (0, 0));
}

async fn a_service_record_from_an_alarm_takes_its_vehicle_and_closes_once(s: &Stack) {
    let t = s.tenant(2).await;
    let v = t.vehicles[1];
    let t0 = now();
    let wang = driver(s, &t, "王师傅", None, 1).await;
    bind(s, &t, v, wang, "王师傅", t0 - Duration::days(2), None).await;
    let alarm = Uuid::new_v4();
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query(
        "insert into risk_alarm (id, enterprise_id, vehicle_id, org_id, rule_id, condition, kind, \
         level, started_at, last_seen_at, lat, lng) values ($1, $2, $3, $4, $5, -1, 1, 3, $6, $6, 22.5, 114.0)",
    )
    .bind(alarm)
    .bind(t.enterprise)
    .bind(v)
    .bind(t.org)
    .bind(Uuid::new_v4())
    .bind(t0 - Duration::hours(1))
    .execute(&mut *tx)
    .await
    .unwrap();
    tx.commit().await.unwrap();

    let record = pb::CustomerServiceRecordInput {
        alarm_id: alarm.to_string(),
        caller_name: "王师傅".into(),
        caller_phone: "13812345678".into(),
        channel: pb::ServiceChannel::Phone.into(),
        category: pb::ServiceCategory::RoadsideAssistance.into(),
        summary: "超速报警后回访，车辆爆胎".into(),
        start_time: Some(timestamp(t0 - Duration::minutes(30))),
        duration_seconds: 180,
        follow_up_time: Some(timestamp(t0 + Duration::days(1))),
        ..Default::default()
    };
    let created = client(s)
        .create_customer_service_record(req(
            s,
            &t,
            pb::CreateCustomerServiceRecordRequest {
                record: Some(record.clone()),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .record
        .unwrap();
    assert_eq!(
        (created.vehicle_id.as_str(), created.plate_number.as_str()),
        (v.to_string().as_str(), "粤B00001")
    );
    assert_eq!(
        (created.driver_name.as_str(), created.alarm_id.as_str()),
        ("王师傅", alarm.to_string().as_str())
    );
    assert_eq!(created.caller_masked_phone, "138****5678");
    assert_eq!(
        (created.status, created.agent_name.as_str()),
        (pb::ServiceRecordStatus::Open as i32, "王五")
    );
    assert!(created.ticket_no.starts_with("KF"), "{}", created.ticket_no);
    assert!(created.follow_up_time.is_some() && created.close_time.is_none());

    // A vehicle other than the alarm's is refused; a record needs a summary.
    let mut wrong = record.clone();
    wrong.vehicle_id = t.vehicles[0].to_string();
    let e = client(s)
        .create_customer_service_record(req(
            s,
            &t,
            pb::CreateCustomerServiceRecordRequest {
                record: Some(wrong),
            },
        ))
        .await
        .map_err(|e| err(&e))
        .unwrap_err();
    assert_eq!(e.fields[0].field, "vehicleId");
    let mut empty = record.clone();
    empty.summary = String::new();
    let e = client(s)
        .create_customer_service_record(req(
            s,
            &t,
            pb::CreateCustomerServiceRecordRequest {
                record: Some(empty),
            },
        ))
        .await
        .map_err(|e| err(&e))
        .unwrap_err();
    assert_eq!(
        (e.fields[0].field.as_str(), e.fields[0].message.as_str()),
        ("summary", "请输入问题描述")
    );

    let mut done = record.clone();
    done.resolution = "已派救援车换胎".into();
    done.status = pb::ServiceRecordStatus::Closed.into();
    done.satisfaction = 5;
    let update = pb::UpdateCustomerServiceRecordRequest {
        record_id: created.id.clone(),
        record: Some(done.clone()),
    };
    let closed = client(s)
        .update_customer_service_record(req(s, &t, update.clone()))
        .await
        .unwrap()
        .into_inner()
        .record
        .unwrap();
    assert_eq!(
        (closed.status, closed.satisfaction),
        (pb::ServiceRecordStatus::Closed as i32, 5)
    );
    assert!(closed.close_time.is_some());
    let e = client(s)
        .update_customer_service_record(req(s, &t, update))
        .await
        .map_err(|e| err(&e))
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::Conflict);

    let list = client(s)
        .list_customer_service_records(req(
            s,
            &t,
            pb::ListCustomerServiceRecordsRequest {
                page: page(),
                ticket_no: created.ticket_no.clone(),
                statuses: vec![pb::ServiceRecordStatus::Closed.into()],
                categories: vec![pb::ServiceCategory::RoadsideAssistance.into()],
                ..Default::default()
            },
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(list.records.len(), 1);
    assert_eq!(list.page.unwrap().total, 1);
    assert_eq!(list.records[0].resolution, "已派救援车换胎");
}

/// A rent-to-own record of `vehicle` with `paid` and `overdue` instalments.
async fn rent_to_own(s: &Stack, t: &Tenant, vehicle: Uuid, paid: i32, overdue: i32) -> Uuid {
    let id = Uuid::new_v4();
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query(
        "insert into usage_record (id, enterprise_id, org_id, vehicle_id, plate_number, vin, kind, \
         state, contract_no, start_time, down_payment_fen, monthly_payment_fen, term_months, \
         paid_periods, overdue_periods) \
         select $1, $2, $3, v.id, v.plate_number, v.vin, 4, 2, 'HT-2026-07', now() - interval '6 months', \
           1000000, 150000, 24, $5, $6 from vehicle v where v.id = $4",
    )
    .bind(id)
    .bind(t.enterprise)
    .bind(t.org)
    .bind(vehicle)
    .bind(paid)
    .bind(overdue)
    .execute(&mut *tx)
    .await
    .unwrap();
    tx.commit().await.unwrap();
    id
}

async fn set_overdue(s: &Stack, record: Uuid, overdue: i32) {
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query("update usage_record set overdue_periods = $2 where id = $1")
        .bind(record)
        .bind(overdue)
        .execute(&mut *tx)
        .await
        .unwrap();
    tx.commit().await.unwrap();
}

/// A tenant with two expiring licences, one far off, one of a driver who
/// left, and a rent-to-own record one instalment behind.
async fn warned_tenant(s: &Stack) -> (Tenant, Uuid) {
    let t = s.tenant(1).await;
    let t0 = now();
    driver(s, &t, "赵一", Some(t0 + Duration::days(10)), 1).await;
    driver(s, &t, "钱二", Some(t0 + Duration::days(3)), 1).await;
    driver(s, &t, "孙三", Some(t0 + Duration::days(60)), 1).await;
    driver(s, &t, "周四", Some(t0 + Duration::days(5)), 3).await;
    let record = rent_to_own(s, &t, t.vehicles[0], 3, 1).await;
    (t, record)
}

async fn the_warnings_job_run_twice_raises_each_warning_once(s: &Stack) {
    let (t, record) = warned_tenant(s).await;
    job::run_once(&s.app, Utc::now()).await.unwrap();
    let again = job::run_once(&s.app, Utc::now()).await.unwrap();
    assert_eq!(again.raised, 0);

    let list = warnings(s, &t, pb::ListWarningsRequest::default()).await;
    let seen: Vec<(i32, i32, &str)> = list
        .iter()
        .map(|w| (w.warning_type, w.level, w.title.as_str()))
        .collect();
    assert_eq!(
        seen,
        [
            (
                pb::WarningType::LicenceExpiring as i32,
                pb::RiskLevel::Medium as i32,
                "驾驶证即将到期"
            ),
            (
                pb::WarningType::LicenceExpiring as i32,
                pb::RiskLevel::High as i32,
                "驾驶证即将到期"
            ),
            (
                pb::WarningType::PaymentOverdue as i32,
                pb::RiskLevel::Medium as i32,
                "分期付款逾期"
            ),
        ],
        "{list:?}"
    );
    assert_eq!(
        (list[0].driver_name.as_str(), list[1].driver_name.as_str()),
        ("赵一", "钱二")
    );
    assert_eq!(list[2].plate_number, "粤B00000");
    assert!(
        list.iter()
            .all(|w| w.status == pb::WarningStatus::Unread as i32)
    );

    // A second instalment falls due: one more warning, for the new period.
    set_overdue(s, record, 2).await;
    job::run_once(&s.app, Utc::now()).await.unwrap();
    job::run_once(&s.app, Utc::now()).await.unwrap();
    let overdue = warnings(
        s,
        &t,
        pb::ListWarningsRequest {
            warning_types: vec![pb::WarningType::PaymentOverdue.into()],
            ..Default::default()
        },
    )
    .await;
    assert_eq!(overdue.len(), 2, "{overdue:?}");
    assert!(
        overdue
            .iter()
            .any(|w| w.level == pb::RiskLevel::High as i32 && w.content.contains("第 5 期"))
    );
    // Paid up: both resolve, and nothing is raised again.
    set_overdue(s, record, 0).await;
    job::run_once(&s.app, Utc::now()).await.unwrap();
    let resolved = warnings(
        s,
        &t,
        pb::ListWarningsRequest {
            statuses: vec![pb::WarningStatus::Resolved.into()],
            ..Default::default()
        },
    )
    .await;
    assert_eq!(resolved.len(), 2);
}

/// Sets driver `id`'s ID card: an end date, or long-term when `None`.
async fn set_id_card(s: &Stack, id: Uuid, expires: Option<DateTime<Utc>>) {
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query("update driver set id_card_expire_time = $2, id_card_long_term = $3 where id = $1")
        .bind(id)
        .bind(expires)
        .bind(expires.is_none())
        .execute(&mut *tx)
        .await
        .unwrap();
    tx.commit().await.unwrap();
}

async fn an_expiring_id_card_is_warned_of_once_and_resolved_when_renewed(s: &Stack) {
    let t = s.tenant(0).await;
    let t0 = now();
    // Licences far off: only ID cards are warned of here.
    let licence = Some(t0 + Duration::days(400));
    let soon = driver(s, &t, "吴五", licence, 1).await;
    set_id_card(s, soon, Some(t0 + Duration::days(12))).await;
    let expired = driver(s, &t, "郑六", licence, 1).await;
    set_id_card(s, expired, Some(t0 - Duration::days(2))).await;
    let long_term = driver(s, &t, "王七", licence, 1).await;
    set_id_card(s, long_term, None).await;
    let far = driver(s, &t, "冯八", licence, 1).await;
    set_id_card(s, far, Some(t0 + Duration::days(90))).await;
    let left = driver(s, &t, "陈九", licence, 3).await;
    set_id_card(s, left, Some(t0 + Duration::days(3))).await;

    job::run_once(&s.app, Utc::now()).await.unwrap();
    job::run_once(&s.app, Utc::now()).await.unwrap();
    let list = warnings(s, &t, pb::ListWarningsRequest::default()).await;
    let seen: Vec<(i32, i32, &str, &str)> = list
        .iter()
        .map(|w| {
            (
                w.warning_type,
                w.level,
                w.title.as_str(),
                w.driver_name.as_str(),
            )
        })
        .collect();
    let id_card = pb::WarningType::IdCardExpiring as i32;
    assert_eq!(
        seen,
        [
            (
                id_card,
                pb::RiskLevel::Medium as i32,
                "身份证即将到期",
                "吴五"
            ),
            (id_card, pb::RiskLevel::High as i32, "身份证已过期", "郑六"),
        ],
        "{list:?}"
    );
    assert!(
        list[0].content.contains("剩余 12 天"),
        "{}",
        list[0].content
    );

    // Renewed (a new end) or made long-term: both resolve, nothing is raised again.
    set_id_card(s, soon, Some(t0 + Duration::days(3650))).await;
    set_id_card(s, expired, None).await;
    let round = job::run_once(&s.app, Utc::now()).await.unwrap();
    assert!(round.resolved >= 2, "{round:?}");
    let list = warnings(
        s,
        &t,
        pb::ListWarningsRequest {
            warning_types: vec![id_card],
            ..Default::default()
        },
    )
    .await;
    assert_eq!(list.len(), 2, "{list:?}");
    assert!(
        list.iter()
            .all(|w| w.status == pb::WarningStatus::Resolved as i32)
    );
}

/// Applies the warning requests of `t` in the outbox as risk's consumer
/// does; answers how many it applied.
async fn deliver_warning_requests(s: &Stack, t: &Tenant) -> usize {
    use fleetdesk_kit::{events::Handler, subjects};
    use prost::Message;
    let payloads: Vec<Vec<u8>> =
        sqlx::query_scalar("select payload from outbox where subject = $1 order by created_at")
            .bind(subjects::warning_requested("vehicle"))
            .fetch_all(&s.owner)
            .await
            .unwrap();
    let mut applied = 0;
    for payload in payloads {
        let event = pb::WarningRequested::decode(payload.as_slice()).unwrap();
        if event.enterprise_id != t.enterprise.to_string() {
            continue;
        }
        let mut tx = db::begin_service(&s.app).await.unwrap();
        fleetdesk_risk::warnings::requests::Requests
            .handle(&mut tx, event)
            .await
            .unwrap();
        tx.commit().await.unwrap();
        applied += 1;
    }
    applied
}

async fn due_items_become_warnings_once_through_the_event(s: &Stack) {
    let t = s.tenant(3).await;
    let now = Utc::now();
    let today = now.date_naive();
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    // An overdue service, an inspection due in ten days, a policy ending in twenty.
    let plan = Uuid::new_v4();
    sqlx::query(
        "insert into maintenance_plan (id, enterprise_id, org_id, name, kind, interval_months) \
         values ($1, $2, $3, '常规保养', 1, 6)",
    )
    .bind(plan)
    .bind(t.enterprise)
    .bind(t.org)
    .execute(&mut *tx)
    .await
    .unwrap();
    sqlx::query(
        "insert into maintenance_reminder (id, enterprise_id, org_id, vehicle_id, plan_id, \
           base_date, base_odometer_m, due_date, due_state) \
         values ($1, $2, $3, $4, $5, $6, 0, $7, 0)",
    )
    .bind(Uuid::new_v4())
    .bind(t.enterprise)
    .bind(t.org)
    .bind(t.vehicles[0])
    .bind(plan)
    .bind(today - Duration::days(190))
    .bind(today - Duration::days(10))
    .execute(&mut *tx)
    .await
    .unwrap();
    sqlx::query(
        "insert into annual_inspection (id, enterprise_id, org_id, vehicle_id, inspection_class, \
           due_date) values ($1, $2, $3, $4, 1, $5)",
    )
    .bind(Uuid::new_v4())
    .bind(t.enterprise)
    .bind(t.org)
    .bind(t.vehicles[1])
    .bind(today + Duration::days(10))
    .execute(&mut *tx)
    .await
    .unwrap();
    sqlx::query(
        "insert into insurance_policy (id, enterprise_id, org_id, vehicle_id, plate_number, kind, \
           insurer, policy_no, start_time, end_time, premium_fen) \
         values ($1, $2, $3, $4, '粤B00002', 1, '人保财险', 'PDZA2026000001', $5, $6, 95000)",
    )
    .bind(Uuid::new_v4())
    .bind(t.enterprise)
    .bind(t.org)
    .bind(t.vehicles[2])
    .bind(now - Duration::days(345))
    .bind(now + Duration::days(20))
    .execute(&mut *tx)
    .await
    .unwrap();
    tx.commit().await.unwrap();

    fleetdesk_maintenance::due::run_once(&s.app, now)
        .await
        .unwrap();
    // The next day's round asks for nothing new.
    fleetdesk_maintenance::due::run_once(&s.app, now + Duration::hours(1))
        .await
        .unwrap();
    assert_eq!(
        deliver_warning_requests(s, &t).await,
        3,
        "each item asked once"
    );
    // A redelivery raises nothing twice.
    deliver_warning_requests(s, &t).await;
    let list = warnings(s, &t, pb::ListWarningsRequest::default()).await;
    let mut seen: Vec<(i32, &str)> = list
        .iter()
        .map(|w| (w.warning_type, w.title.as_str()))
        .collect();
    seen.sort_unstable();
    assert_eq!(
        seen,
        [
            (pb::WarningType::InsuranceExpiring as i32, "保险即将到期"),
            (pb::WarningType::InspectionDue as i32, "年检即将到期"),
            (pb::WarningType::MaintenanceDue as i32, "保养已逾期"),
        ]
    );
    let policy = list
        .iter()
        .find(|w| w.warning_type == pb::WarningType::InsuranceExpiring as i32)
        .unwrap();
    assert!(
        policy.content.contains("粤B00002的交强险"),
        "{}",
        policy.content
    );
    assert_eq!(policy.vehicle_id, t.vehicles[2].to_string());
}

async fn warnings_are_acknowledged_one_or_a_batch_at_a_time(s: &Stack) {
    let (t, _) = warned_tenant(s).await;
    job::run_once(&s.app, Utc::now()).await.unwrap();
    let list = warnings(s, &t, pb::ListWarningsRequest::default()).await;
    assert_eq!(list.len(), 3);
    let batch = vec![list[0].id.clone(), list[2].id.clone()];
    let acked = acknowledge(s, &t, batch.clone()).await.unwrap();
    assert_eq!(acked.len(), 2);
    for w in &acked {
        assert_eq!(
            (w.status, w.acknowledged_by.as_str()),
            (pb::WarningStatus::Acknowledged as i32, "王五")
        );
        assert!(w.acknowledge_time.is_some());
    }
    // Again: nothing moves, the first acknowledgement stays.
    let again = acknowledge(s, &t, batch).await.unwrap();
    assert_eq!(
        again.iter().map(|w| w.acknowledge_time).collect::<Vec<_>>(),
        acked.iter().map(|w| w.acknowledge_time).collect::<Vec<_>>()
    );
    let unread = warnings(
        s,
        &t,
        pb::ListWarningsRequest {
            statuses: vec![pb::WarningStatus::Unread.into()],
            ..Default::default()
        },
    )
    .await;
    assert_eq!(
        unread.iter().map(|w| w.id.as_str()).collect::<Vec<_>>(),
        [list[1].id.as_str()]
    );
    let one = acknowledge(s, &t, vec![list[1].id.clone()]).await.unwrap();
    assert_eq!(one[0].status, pb::WarningStatus::Acknowledged as i32);

    let e = acknowledge(s, &t, vec![]).await.unwrap_err();
    assert_eq!(e.fields[0].field, "warningIds");
    let too_many: Vec<String> = (0..251).map(|_| Uuid::new_v4().to_string()).collect();
    let e = acknowledge(s, &t, too_many).await.unwrap_err();
    assert_eq!(
        (e.fields[0].field.as_str(), e.fields[0].message.as_str()),
        ("warningIds", "每次批量查询，最大不超过250台")
    );
}

async fn another_tenant_sees_none_of_the_records_and_cannot_change_them(s: &Stack) {
    let (a, _) = warned_tenant(s).await;
    let b = s.tenant(1).await;
    let mut with_code = input(a.vehicles[0], now() - Duration::hours(1));
    with_code.fixed_loss_code = format!("DS-{}", Uuid::new_v4());
    let accident = create_accident(s, &a, with_code.clone()).await.unwrap();
    let record = client(s)
        .create_customer_service_record(req(
            s,
            &a,
            pb::CreateCustomerServiceRecordRequest {
                record: Some(pb::CustomerServiceRecordInput {
                    vehicle_id: a.vehicles[0].to_string(),
                    channel: pb::ServiceChannel::Wecom.into(),
                    category: pb::ServiceCategory::Complaint.into(),
                    summary: "投诉司机态度".into(),
                    ..Default::default()
                }),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .record
        .unwrap();
    job::run_once(&s.app, Utc::now()).await.unwrap();
    let a_warnings = warnings(s, &a, pb::ListWarningsRequest::default()).await;
    assert_eq!(a_warnings.len(), 3);

    // B lists nothing of A's.
    assert!(
        accidents(s, &b, pb::ListAccidentsRequest::default())
            .await
            .unwrap()
            .is_empty()
    );
    let records = client(s)
        .list_customer_service_records(req(
            s,
            &b,
            pb::ListCustomerServiceRecordsRequest {
                page: page(),
                ..Default::default()
            },
        ))
        .await
        .unwrap()
        .into_inner();
    assert!(records.records.is_empty() && records.page.unwrap().total == 0);
    assert!(
        warnings(s, &b, pb::ListWarningsRequest::default())
            .await
            .is_empty()
    );

    // B cannot open or change them.
    for get in [
        pb::GetAccidentRequest {
            accident_id: accident.id.clone(),
            ..Default::default()
        },
        pb::GetAccidentRequest {
            fixed_loss_code: with_code.fixed_loss_code.clone(),
            ..Default::default()
        },
    ] {
        assert_eq!(
            get_accident(s, &b, get).await.unwrap_err().code,
            ErrorCode::NotFound
        );
    }
    let mut on_b = input(b.vehicles[0], now() - Duration::hours(1));
    on_b.description = "改写".into();
    let e = update_accident(s, &b, &accident.id, on_b, pb::AccidentStatus::Closed)
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    let e = client(s)
        .update_customer_service_record(req(
            s,
            &b,
            pb::UpdateCustomerServiceRecordRequest {
                record_id: record.id.clone(),
                record: Some(pb::CustomerServiceRecordInput {
                    vehicle_id: b.vehicles[0].to_string(),
                    channel: pb::ServiceChannel::Phone.into(),
                    category: pb::ServiceCategory::Other.into(),
                    summary: "改写".into(),
                    status: pb::ServiceRecordStatus::Closed.into(),
                    ..Default::default()
                }),
            },
        ))
        .await
        .map_err(|e| err(&e))
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    let e = acknowledge(s, &b, vec![a_warnings[0].id.clone()])
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    // Nor record an accident on A's vehicle.
    let e = create_accident(s, &b, input(a.vehicles[0], now()))
        .await
        .unwrap_err();
    assert_eq!(e.fields[0].field, "vehicleId");

    // A's are as they were.
    let still = get_accident(
        s,
        &a,
        pb::GetAccidentRequest {
            accident_id: accident.id.clone(),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let still = still.accident.unwrap();
    assert_eq!(
        (still.status, still.description.as_str()),
        (pb::AccidentStatus::Reported as i32, "追尾前车")
    );
    let unread = warnings(
        s,
        &a,
        pb::ListWarningsRequest {
            statuses: vec![pb::WarningStatus::Unread.into()],
            ..Default::default()
        },
    )
    .await;
    assert_eq!(unread.len(), 3);
}

#[tokio::test]
async fn risk_records_on_one_stack() {
    let s = support::stack().await;
    fleetdesk_testkit::scenarios!(&s;
        an_accident_takes_the_driver_bound_at_its_time_and_logs_each_change,
        bad_accident_input_is_refused_in_chinese_and_writes_nothing,
        a_service_record_from_an_alarm_takes_its_vehicle_and_closes_once,
        the_warnings_job_run_twice_raises_each_warning_once,
        an_expiring_id_card_is_warned_of_once_and_resolved_when_renewed,
        due_items_become_warnings_once_through_the_event,
        warnings_are_acknowledged_one_or_a_batch_at_a_time,
        another_tenant_sees_none_of_the_records_and_cannot_change_them,
    );
}

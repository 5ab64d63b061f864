//! A driver's ID-card validity over the real vehicle service (AssetService,
//! fleetdesk-assets::drivers): an end date or long-term (长期) kept and
//! logged, implausible ends refused in Chinese with nothing changed,
//! another tenant's driver not found before any check, and the import and
//! export carrying the column 身份证有效期至.

use crate::support;

use chrono::{DateTime, Duration, TimeZone, Utc};
use fleetdesk_kit::{ErrorCode, ServiceError, db};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use fleetdesk_proto::vehicle::v1::asset_service_client::AssetServiceClient;
use support::{Stack, Tenant};
use tonic::transport::Channel;

const PERMS: &[&str] = &["as:sys:driver"];

fn client(s: &Stack) -> AssetServiceClient<Channel> {
    AssetServiceClient::new(s.channel.clone())
}

fn req<T>(s: &Stack, t: &Tenant, message: T) -> tonic::Request<T> {
    s.req_as(t, t.user, PERMS, message)
}

fn ts(at: DateTime<Utc>) -> Option<prost_types::Timestamp> {
    Some(fleetdesk_kit::convert::timestamp(at))
}

/// Midnight in Shanghai of `days` from today, as the console sends a date.
fn day_in(days: i64) -> DateTime<Utc> {
    let today = (Utc::now() + Duration::hours(8)).date_naive();
    let day = today + Duration::days(days);
    Utc.from_utc_datetime(&day.and_hms_opt(0, 0, 0).unwrap()) - Duration::hours(8)
}

fn input(t: &Tenant, phone: &str, id_number: &str) -> pb::DriverInput {
    pb::DriverInput {
        org_id: t.org.to_string(),
        name: "吴敏".into(),
        phone: phone.into(),
        id_number: id_number.into(),
        licence_class: pb::LicenceClass::C1.into(),
        licence_expire_time: ts(day_in(900)),
        ..Default::default()
    }
}

async fn create(
    s: &Stack,
    t: &Tenant,
    driver: pb::DriverInput,
) -> Result<pb::Driver, ServiceError> {
    client(s)
        .create_driver(req(
            s,
            t,
            pb::CreateDriverRequest {
                driver: Some(driver),
            },
        ))
        .await
        .map(|r| r.into_inner().driver.unwrap())
        .map_err(|e| ServiceError::from_status(&e))
}

async fn update(
    s: &Stack,
    t: &Tenant,
    id: &str,
    driver: pb::DriverInput,
) -> Result<pb::Driver, ServiceError> {
    client(s)
        .update_driver(req(
            s,
            t,
            pb::UpdateDriverRequest {
                driver_id: id.to_owned(),
                driver: Some(driver),
            },
        ))
        .await
        .map(|r| r.into_inner().driver.unwrap())
        .map_err(|e| ServiceError::from_status(&e))
}

/// The tenant's drivers and driver operation-log rows.
async fn written(s: &Stack, t: &Tenant) -> (i64, Vec<String>) {
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    let drivers: i64 = sqlx::query_scalar("select count(*) from driver where enterprise_id = $1")
        .bind(t.enterprise)
        .fetch_one(&mut *tx)
        .await
        .unwrap();
    let remarks: Vec<String> = sqlx::query_scalar(
        "select remark from operation_log where enterprise_id = $1 and business_type = 2 \
         order by created_at",
    )
    .bind(t.enterprise)
    .fetch_all(&mut *tx)
    .await
    .unwrap();
    (drivers, remarks)
}

fn refused_field(err: &ServiceError) -> (ErrorCode, &str, &str) {
    let f = &err.fields[0];
    (err.code, f.field.as_str(), f.message.as_str())
}

async fn an_id_card_end_or_long_term_is_kept_and_its_change_logged(s: &Stack) {
    let t = s.tenant(0).await;
    let ends = day_in(3650);
    let made = create(
        s,
        &t,
        pb::DriverInput {
            id_card_expire_time: ts(ends),
            ..input(&t, "13800000101", "11010519491231002X")
        },
    )
    .await
    .unwrap();
    assert_eq!(
        (made.id_card_expire_time, made.id_card_long_term),
        (ts(ends), false)
    );
    let renewed = update(
        s,
        &t,
        &made.id,
        pb::DriverInput {
            id_card_long_term: true,
            ..input(&t, "", "")
        },
    )
    .await
    .unwrap();
    assert_eq!(
        (renewed.id_card_expire_time, renewed.id_card_long_term),
        (None, true)
    );
    let (drivers, remarks) = written(s, &t).await;
    assert_eq!(drivers, 1);
    let shown = (ends + Duration::hours(8)).format("%Y-%m-%d");
    assert_eq!(remarks.len(), 2, "{remarks:?}");
    assert_eq!(
        remarks[1],
        format!("身份证有效期至：由「{shown}」改为「长期」")
    );
}

async fn an_implausible_id_card_end_is_refused_and_changes_nothing(s: &Stack) {
    let t = s.tenant(0).await;
    for (expire, long_term, message) in [
        (ts(day_in(365)), true, "长期有效的身份证无需填写有效期至"),
        (ts(day_in(21 * 366)), false, "身份证有效期至不能晚于20年后"),
        (
            ts(Utc.with_ymd_and_hms(1989, 6, 30, 16, 0, 0).unwrap()),
            false,
            "身份证有效期至不能早于1990年",
        ),
    ] {
        let err = create(
            s,
            &t,
            pb::DriverInput {
                id_card_expire_time: expire,
                id_card_long_term: long_term,
                ..input(&t, "13800000201", "11010519491231002X")
            },
        )
        .await
        .unwrap_err();
        assert_eq!(
            refused_field(&err),
            (ErrorCode::BadRequest, "idCardExpireTime", message)
        );
    }
    assert_eq!(written(s, &t).await, (0, vec![]));

    // An edit refused keeps the stored end and logs nothing.
    let ends = day_in(400);
    let made = create(
        s,
        &t,
        pb::DriverInput {
            id_card_expire_time: ts(ends),
            ..input(&t, "13800000202", "11010519491231002X")
        },
    )
    .await
    .unwrap();
    let err = update(
        s,
        &t,
        &made.id,
        pb::DriverInput {
            id_card_expire_time: ts(ends),
            id_card_long_term: true,
            ..input(&t, "", "")
        },
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::BadRequest);
    let stored = client(s)
        .get_driver(req(
            s,
            &t,
            pb::GetDriverRequest {
                driver_id: made.id.clone(),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .driver
        .unwrap();
    assert_eq!(
        (stored.id_card_expire_time, stored.id_card_long_term),
        (ts(ends), false)
    );
    assert_eq!(written(s, &t).await.1.len(), 1);
}

async fn another_tenants_driver_is_not_found_before_the_checks(s: &Stack) {
    let a = s.tenant(0).await;
    let b = s.tenant(0).await;
    let made = create(s, &a, input(&a, "13800000301", "11010519491231002X"))
        .await
        .unwrap();
    let err = update(
        s,
        &b,
        &made.id,
        pb::DriverInput {
            id_card_expire_time: ts(day_in(30 * 366)),
            id_card_long_term: true,
            ..input(&b, "", "")
        },
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    assert_eq!(written(s, &a).await.1.len(), 1);
}

/// Imports `rows` under the columns `HEADER` into tenant `t`.
async fn import(s: &Stack, t: &Tenant, rows: &[&[&str]]) -> common::ImportResult {
    const HEADER: [&str; 7] = [
        "司机姓名",
        "手机号",
        "身份证号",
        "身份证有效期至",
        "所属组织",
        "准驾车型",
        "驾驶证有效期",
    ];
    let file = s.upload_sheet(t, "司机.xlsx", &HEADER, rows).await;
    client(s)
        .import_drivers(req(s, t, pb::ImportDriversRequest { file: Some(file) }))
        .await
        .unwrap()
        .into_inner()
        .result
        .unwrap()
}

async fn the_import_and_export_carry_the_id_card_end(s: &Stack) {
    let t = s.tenant(0).await;
    let result = import(
        s,
        &t,
        &[
            &[
                "郑洁",
                "13800000401",
                "11010519491231002X",
                "长期",
                "总部",
                "C1",
                "2030-05-01",
            ],
            &[
                "王磊",
                "13800000402",
                "440300199001011238",
                "2036-03-15",
                "总部",
                "C1",
                "2030-05-01",
            ],
        ],
    )
    .await;
    assert_eq!(
        (result.imported, result.error_list.len()),
        (2, 0),
        "{result:?}"
    );
    let job = client(s)
        .export_drivers(req(s, &t, pb::ExportDriversRequest::default()))
        .await
        .unwrap()
        .into_inner()
        .job
        .unwrap();
    let rows = s.exported_rows(&job.id).await;
    let column = rows[0].iter().position(|h| h == "身份证有效期至").unwrap();
    let mut ends: Vec<&str> = rows[1..].iter().map(|r| r[column].as_str()).collect();
    ends.sort_unstable();
    assert_eq!(ends, ["2036-03-15", "长期"]);

    // A bad end in the file refuses the whole file under its column.
    let result = import(
        s,
        &t,
        &[&[
            "冯涛",
            "13800000403",
            "320102198506120042",
            "1985-01-01",
            "总部",
            "C1",
            "2030-05-01",
        ]],
    )
    .await;
    assert_eq!(result.imported, 0);
    assert!(
        result
            .error_list
            .iter()
            .any(|e| e.column == "身份证有效期至" && e.reason == "身份证有效期至不能早于1990年"),
        "{result:?}"
    );
}

#[tokio::test]
async fn drivers_on_one_stack() {
    let s = support::stack().await;
    fleetdesk_testkit::scenarios!(&s;
        an_id_card_end_or_long_term_is_kept_and_its_change_logged,
        an_implausible_id_card_end_is_refused_and_changes_nothing,
        another_tenants_driver_is_not_found_before_the_checks,
        the_import_and_export_carry_the_id_card_end,
    );
}

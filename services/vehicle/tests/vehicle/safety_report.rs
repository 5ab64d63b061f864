//! The safety report over the real vehicle service: alarms per 100 km,
//! scores and rankings computed from known operation days and alarms, the
//! enterprise's weights, the range limit, driver attribution by ingest, the
//! data scope and another tenant.

use crate::support;

use chrono::{DateTime, Duration, NaiveDate, TimeZone, Utc};
use fleetdesk_kit::actor::OPERATOR_NAME_KEY;
use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::{ErrorCode, ServiceError, db};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use fleetdesk_telemetry::ingest::domain::FixRow;
use support::{Stack, Tenant, fix_row};
use tonic::metadata::MetadataValue;
use uuid::Uuid;

const READ: &[&str] = &["oss:asset:report"];
const EDIT: &[&str] = &["oss:asset:report", "as:alarm:rule"];

fn req<T>(s: &Stack, t: &Tenant, perms: &[&str], message: T) -> tonic::Request<T> {
    let mut r = s.req_as(t, t.user, perms, message);
    r.metadata_mut().insert_bin(
        OPERATOR_NAME_KEY,
        MetadataValue::from_bytes("王五".as_bytes()),
    );
    r
}

fn day(text: &str) -> NaiveDate {
    NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
}

/// `hour`:00 Beijing time on `d`.
fn beijing(d: NaiveDate, hour: u32) -> DateTime<Utc> {
    chrono::FixedOffset::east_opt(8 * 3600)
        .unwrap()
        .from_local_datetime(&d.and_hms_opt(hour, 0, 0).unwrap())
        .unwrap()
        .with_timezone(&Utc)
}

/// Whole Beijing days `from` to `to` as the edge sends them.
fn filter(from: NaiveDate, to: NaiveDate, org_ids: &[Uuid]) -> Option<pb::SafetyFilter> {
    Some(pb::SafetyFilter {
        report_date: Some(common::TimeRange {
            start: Some(timestamp(beijing(from, 0))),
            end: Some(timestamp(beijing(to.succ_opt().unwrap(), 0))),
        }),
        org_ids: org_ids.iter().map(Uuid::to_string).collect(),
    })
}

/// An operation day of `vehicle` as ingest leaves it.
async fn op_day(s: &Stack, t: &Tenant, vehicle: Uuid, d: NaiveDate, mileage_m: i64) {
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query(
        "insert into operation_day (vehicle_id, day, enterprise_id, moving, online, mileage_m) \
         values ($1, $2, $3, '\\x'::bytea, '\\x'::bytea, $4)",
    )
    .bind(vehicle)
    .bind(d)
    .bind(t.enterprise)
    .bind(mileage_m)
    .execute(&mut *tx)
    .await
    .unwrap();
    tx.commit().await.unwrap();
}

/// An alarm of `kind` (AlarmType) of `vehicle` that started at `at`.
async fn alarm(s: &Stack, t: &Tenant, vehicle: Uuid, kind: pb::AlarmType, at: DateTime<Utc>) {
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query(
        "insert into risk_alarm (enterprise_id, vehicle_id, org_id, rule_id, condition, kind, \
           level, started_at, last_seen_at, lat, lng) \
         values ($1, $2, $3, $4, -1, $5, 2, $6, $6, 22.5, 114.0)",
    )
    .bind(t.enterprise)
    .bind(vehicle)
    .bind(t.org)
    .bind(Uuid::new_v4())
    .bind(kind as i32 as i16)
    .bind(at)
    .execute(&mut *tx)
    .await
    .unwrap();
    tx.commit().await.unwrap();
}

async fn summary(
    s: &Stack,
    r: tonic::Request<pb::GetSafetySummaryRequest>,
) -> Result<pb::GetSafetySummaryResponse, ServiceError> {
    s.telemetry
        .clone()
        .get_safety_summary(r)
        .await
        .map(tonic::Response::into_inner)
        .map_err(|e| ServiceError::from_status(&e))
}

async fn ranking(
    s: &Stack,
    r: tonic::Request<pb::ListSafetyRankingRequest>,
) -> pb::ListSafetyRankingResponse {
    s.telemetry
        .clone()
        .list_safety_ranking(r)
        .await
        .unwrap()
        .into_inner()
}

/// Sets one weight as `perms` allow.
async fn set_weight(
    s: &Stack,
    t: &Tenant,
    perms: &[&str],
    kind: pb::AlarmType,
    weight: f64,
) -> Result<pb::UpdateSafetyWeightsResponse, ServiceError> {
    let request = pb::UpdateSafetyWeightsRequest {
        weights: vec![pb::SafetyWeight {
            alarm_type: kind as i32,
            weight,
            customized: false,
        }],
    };
    s.telemetry
        .clone()
        .update_safety_weights(req(s, t, perms, request))
        .await
        .map(tonic::Response::into_inner)
        .map_err(|e| ServiceError::from_status(&e))
}

/// The summary of `f` as tenant `t`'s reader.
async fn summary_of(
    s: &Stack,
    t: &Tenant,
    f: Option<pb::SafetyFilter>,
) -> Result<pb::GetSafetySummaryResponse, ServiceError> {
    summary(
        s,
        req(s, t, READ, pb::GetSafetySummaryRequest { filter: f }),
    )
    .await
}

/// The first page of a ranking of `f` as tenant `t`'s reader.
async fn ranked(
    s: &Stack,
    t: &Tenant,
    f: Option<pb::SafetyFilter>,
    dimension: pb::SafetyDimension,
    best_first: bool,
) -> pb::ListSafetyRankingResponse {
    ranking(s, req(s, t, READ, ranking_req(f, dimension, best_first))).await
}

fn ranking_req(
    f: Option<pb::SafetyFilter>,
    dimension: pb::SafetyDimension,
    best_first: bool,
) -> pb::ListSafetyRankingRequest {
    pb::ListSafetyRankingRequest {
        filter: f,
        dimension: dimension as i32,
        best_first,
        page: Some(common::PageRequest { page: 1, size: 20 }),
    }
}

fn rate(s: &pb::GetSafetySummaryResponse, kind: pb::AlarmType) -> &pb::SafetyTypeRate {
    s.by_type
        .iter()
        .find(|r| r.alarm_type == kind as i32)
        .unwrap()
}

/// Three vans over two weeks of October 2026: 粤B00000 drives 200 km with
/// three overspeeds and a collision, 粤B00001 50 km with one fatigue alarm,
/// 粤B00002 5 km (too little for a score) with one overspeed.
async fn known_fleet(s: &Stack) -> Tenant {
    let t = s.tenant(3).await;
    let (mon1, mon2) = (day("2026-10-05"), day("2026-10-12"));
    op_day(s, &t, t.vehicles[0], mon1, 100_000).await;
    op_day(s, &t, t.vehicles[0], mon2, 100_000).await;
    op_day(s, &t, t.vehicles[1], mon2, 50_000).await;
    op_day(s, &t, t.vehicles[2], mon1, 5_000).await;
    // The minute before the range (the Beijing day before it) is not counted.
    let before = beijing(mon1, 0) - Duration::minutes(1);
    for (v, kind, at) in [
        (0, pb::AlarmType::Overspeed, beijing(mon1, 8)),
        (0, pb::AlarmType::Overspeed, beijing(mon1, 9)),
        (0, pb::AlarmType::Overspeed, beijing(mon1, 10)),
        (0, pb::AlarmType::Collision, beijing(mon2, 23)),
        (1, pb::AlarmType::FatigueDriving, beijing(mon2, 1)),
        (2, pb::AlarmType::Overspeed, beijing(mon1, 12)),
        (1, pb::AlarmType::Overspeed, before),
    ] {
        alarm(s, &t, t.vehicles[v], kind, at).await;
    }
    t
}

async fn rates_scores_and_rankings_come_from_days_and_alarms(s: &Stack) {
    let t = known_fleet(s).await;
    let f = filter(day("2026-10-05"), day("2026-10-18"), &[]);
    let sum = summary_of(s, &t, f.clone()).await.unwrap();
    assert_eq!(sum.mileage_m, 255_000);
    assert_eq!(sum.alarm_count, 6);
    assert_eq!(sum.vehicle_count, 3);
    assert_eq!(sum.alarms_per_100km, 2.35);
    assert_eq!(rate(&sum, pb::AlarmType::Overspeed).alarm_count, 4);
    assert_eq!(rate(&sum, pb::AlarmType::Overspeed).per_100km, 1.57);
    assert_eq!(rate(&sum, pb::AlarmType::Overspeed).weight, 2.0);
    assert_eq!(rate(&sum, pb::AlarmType::Collision).alarm_count, 1);
    assert_eq!(rate(&sum, pb::AlarmType::Smoking).alarm_count, 0);

    // Worst first: 粤B00001 100 − 3 / 0.5 = 94, 粤B00000 100 − (3×2 + 5) / 2
    // = 94.5, then 粤B00002 without a score.
    let worst = ranked(s, &t, f.clone(), pb::SafetyDimension::Vehicle, false).await;
    assert_eq!(worst.page.unwrap().total, 3);
    let order: Vec<_> = worst
        .rows
        .iter()
        .map(|r| (r.name.as_str(), r.score, r.rank))
        .collect();
    assert_eq!(
        order,
        [
            ("粤B00001", Some(94.0), 1),
            ("粤B00000", Some(94.5), 2),
            ("粤B00002", None, 3)
        ]
    );
    let b0 = &worst.rows[1];
    assert_eq!(
        (b0.mileage_m, b0.alarm_count, b0.alarms_per_100km),
        (200_000, 4, 2.0)
    );
    assert_eq!(b0.org_name, "总部");
    assert_eq!(b0.by_type.len(), 2);
    let best = ranked(s, &t, f.clone(), pb::SafetyDimension::Vehicle, true).await;
    let names: Vec<_> = best.rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["粤B00000", "粤B00001", "粤B00002"]);
    // A page of one.
    let mut paged = ranking_req(f.clone(), pb::SafetyDimension::Vehicle, false);
    paged.page = Some(common::PageRequest { page: 2, size: 5 });
    let second = ranking(s, req(s, &t, READ, paged)).await;
    assert!(second.rows.is_empty());
    assert_eq!(second.page.unwrap().total, 3);

    // The organisation: 255 km, penalty 6 + 5 + 3 + 2 = 16.
    let orgs = ranked(s, &t, f.clone(), pb::SafetyDimension::Org, false).await;
    assert_eq!(orgs.rows.len(), 1);
    assert_eq!(orgs.rows[0].name, "总部");
    assert_eq!(orgs.rows[0].score, Some(93.7));
    assert_eq!(orgs.rows[0].vehicle_count, 3);

    // Two ISO weeks: 41 (105 km, 4 alarms) and 42 (150 km, 2 alarms).
    let trend = s
        .telemetry
        .clone()
        .get_safety_trend(req(s, &t, READ, pb::GetSafetyTrendRequest { filter: f }))
        .await
        .unwrap()
        .into_inner();
    let weeks: Vec<_> = trend
        .weeks
        .iter()
        .map(|w| {
            (
                w.iso_week,
                w.mileage_m,
                w.alarm_count,
                w.average_score,
                w.scored_vehicles,
            )
        })
        .collect();
    // Week 41: 粤B00000 100 km, penalty 6 → 94; 粤B00002 under 10 km.
    // Week 42: 粤B00000 100 km, 5 → 95; 粤B00001 50 km, 3 → 94; average 94.5.
    assert_eq!(
        weeks,
        [
            (41, 105_000, 4, Some(94.0), 1),
            (42, 150_000, 2, Some(94.5), 2)
        ]
    );
}

async fn a_changed_weight_changes_the_score_and_is_audited(s: &Stack) {
    let t = known_fleet(s).await;
    let f = filter(day("2026-10-05"), day("2026-10-18"), &[]);
    // Reading the report is not editing its weights.
    let denied = set_weight(s, &t, READ, pb::AlarmType::Overspeed, 4.0)
        .await
        .unwrap_err();
    assert_eq!(denied.code, ErrorCode::Forbidden);
    let answer = set_weight(s, &t, EDIT, pb::AlarmType::Overspeed, 4.0)
        .await
        .unwrap();
    let overspeed = answer
        .weights
        .iter()
        .find(|w| w.alarm_type == pb::AlarmType::Overspeed as i32)
        .unwrap();
    assert_eq!((overspeed.weight, overspeed.customized), (4.0, true));
    // The same weight again changes nothing and logs nothing.
    set_weight(s, &t, EDIT, pb::AlarmType::Overspeed, 4.0)
        .await
        .unwrap();
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    let log: Vec<(String, Option<f64>, f64)> = sqlx::query_as(
        "select operator_name, before, after from safety_weight_change where enterprise_id = $1",
    )
    .bind(t.enterprise)
    .fetch_all(&mut *tx)
    .await
    .unwrap();
    tx.commit().await.unwrap();
    assert_eq!(log, [("王五".to_owned(), Some(2.0), 4.0)]);
    // 粤B00000: 100 − (3×4 + 5) / 2 = 91.5, now the worst.
    let worst = ranked(s, &t, f, pb::SafetyDimension::Vehicle, false).await;
    assert_eq!(worst.rows[0].name, "粤B00000");
    assert_eq!(worst.rows[0].score, Some(91.5));
    // A weight out of bounds is refused.
    let bad = set_weight(s, &t, EDIT, pb::AlarmType::Collision, 101.0)
        .await
        .unwrap_err();
    assert_eq!(bad.fields[0].field, "weights");
}

async fn a_range_over_366_days_is_refused(s: &Stack) {
    let t = s.tenant(1).await;
    let e = summary_of(s, &t, filter(day("2025-01-01"), day("2026-01-02"), &[]))
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::BadRequest);
    assert_eq!(e.fields[0].field, "reportDate");
    assert!(
        e.fields[0].message.contains("366"),
        "{}",
        e.fields[0].message
    );
    // 366 days is allowed.
    summary_of(s, &t, filter(day("2025-01-01"), day("2026-01-01"), &[]))
        .await
        .unwrap();
}

async fn set_driver(s: &Stack, vehicle: Uuid, driver: Uuid, name: &str) {
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query("update vehicle set driver_id = $2, driver_name = $3 where id = $1")
        .bind(vehicle)
        .bind(driver)
        .bind(name)
        .execute(&mut *tx)
        .await
        .unwrap();
    tx.commit().await.unwrap();
}

/// An hour of driving from `from` at 60 km/h, a fix a minute (59 km).
fn hour_drive(t: &Tenant, vehicle: Uuid, from: DateTime<Utc>, odometer: i64) -> Vec<FixRow> {
    (0..60)
        .map(|i| {
            let mut f = fix_row(t, vehicle, from + Duration::minutes(i), 60);
            f.mileage_m = Some(odometer + i * 1_000);
            f
        })
        .collect()
}

async fn a_day_counts_for_the_driver_bound_when_ingest_first_saw_it(s: &Stack) {
    let t = s.tenant(1).await;
    let v = t.vehicles[0];
    let (zhang, li) = (Uuid::new_v4(), Uuid::new_v4());
    let today = Utc::now()
        .with_timezone(&chrono::FixedOffset::east_opt(8 * 3600).unwrap())
        .date_naive();
    let (d1, d2) = (today - Duration::days(3), today - Duration::days(2));
    let mut pipeline = s.pipeline();
    set_driver(s, v, zhang, "张三").await;
    pipeline
        .apply(hour_drive(&t, v, beijing(d1, 8), 0))
        .await
        .unwrap();
    // Rebound the same day: the day stays 张三's, the next day is 李四's.
    set_driver(s, v, li, "李四").await;
    pipeline
        .apply(hour_drive(&t, v, beijing(d1, 14), 100_000))
        .await
        .unwrap();
    pipeline
        .apply(hour_drive(&t, v, beijing(d2, 8), 200_000))
        .await
        .unwrap();
    alarm(s, &t, v, pb::AlarmType::Overspeed, beijing(d1, 9)).await;
    alarm(s, &t, v, pb::AlarmType::FatigueDriving, beijing(d2, 9)).await;
    alarm(s, &t, v, pb::AlarmType::FatigueDriving, beijing(d2, 10)).await;
    let drivers = ranked(
        s,
        &t,
        filter(d1, d2, &[]),
        pb::SafetyDimension::Driver,
        true,
    )
    .await;
    let rows: Vec<_> = drivers
        .rows
        .iter()
        .map(|r| (r.id.clone(), r.name.as_str(), r.alarm_count))
        .collect();
    // 张三: 1 overspeed (weight 2) over his day; 李四: 2 fatigue (weight 3) over his.
    assert_eq!(
        rows,
        [(zhang.to_string(), "张三", 1), (li.to_string(), "李四", 2)]
    );
    let zhang_row = &drivers.rows[0];
    let li_row = &drivers.rows[1];
    assert!(
        zhang_row.mileage_m > li_row.mileage_m,
        "{} {}",
        zhang_row.mileage_m,
        li_row.mileage_m
    );
    assert!(li_row.mileage_m >= 50_000, "{}", li_row.mileage_m);
    assert_eq!(zhang_row.vehicle_count, 1);
}

async fn another_organisation_subtree_is_outside_the_scope(s: &Stack) {
    let t = s.tenant(2).await;
    let branch = Uuid::new_v4();
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query(
        "insert into org_unit (id, enterprise_id, name, path, version) \
         values ($1, $2, '分部', $3, 1)",
    )
    .bind(branch)
    .bind(t.enterprise)
    .bind(format!("/{branch}/"))
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
    let d = day("2026-10-07");
    op_day(s, &t, t.vehicles[0], d, 40_000).await;
    op_day(s, &t, t.vehicles[1], d, 60_000).await;
    alarm(
        s,
        &t,
        t.vehicles[1],
        pb::AlarmType::Overspeed,
        beijing(d, 9),
    )
    .await;
    let f = filter(d, d, &[]);
    // Reaching the head office's subtree only.
    let scoped = summary(
        s,
        s.req_reaching(
            &t,
            t.user,
            READ,
            vec![t.org],
            pb::GetSafetySummaryRequest { filter: f.clone() },
        ),
    )
    .await
    .unwrap();
    assert_eq!((scoped.mileage_m, scoped.alarm_count), (40_000, 0));
    let ranked = ranking(
        s,
        s.req_reaching(
            &t,
            t.user,
            READ,
            vec![t.org],
            ranking_req(f.clone(), pb::SafetyDimension::Org, false),
        ),
    )
    .await;
    assert_eq!(ranked.rows.len(), 1);
    assert_eq!(ranked.rows[0].name, "总部");
    // The organisation filter: the branch alone.
    let branch_only = summary_of(s, &t, filter(d, d, &[branch])).await.unwrap();
    assert_eq!(
        (branch_only.mileage_m, branch_only.alarm_count),
        (60_000, 1)
    );
}

async fn another_tenant_sees_nothing_of_the_report(s: &Stack) {
    let a = known_fleet(s).await;
    let b = s.tenant(1).await;
    let f = filter(day("2026-10-05"), day("2026-10-18"), &[]);
    let sum = summary_of(s, &b, f.clone()).await.unwrap();
    assert_eq!(
        (sum.mileage_m, sum.alarm_count, sum.vehicle_count),
        (0, 0, 0)
    );
    for dimension in [
        pb::SafetyDimension::Vehicle,
        pb::SafetyDimension::Driver,
        pb::SafetyDimension::Org,
    ] {
        let rows = ranked(s, &b, f.clone(), dimension, false).await;
        assert_eq!(rows.page.unwrap().total, 0, "{dimension:?}");
    }
    // A's weights are A's.
    set_weight(s, &a, EDIT, pb::AlarmType::Smoking, 9.0)
        .await
        .unwrap();
    let theirs = s
        .telemetry
        .clone()
        .get_safety_weights(req(s, &b, READ, pb::GetSafetyWeightsRequest {}))
        .await
        .unwrap()
        .into_inner();
    assert!(theirs.weights.iter().all(|w| !w.customized));
}

async fn the_ranking_exports_as_a_job(s: &Stack) {
    let t = known_fleet(s).await;
    let job = s
        .telemetry
        .clone()
        .export_safety_ranking(req(
            s,
            &t,
            READ,
            pb::ExportSafetyRankingRequest {
                filter: filter(day("2026-10-05"), day("2026-10-18"), &[]),
                dimension: pb::SafetyDimension::Vehicle as i32,
                best_first: false,
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .job
        .unwrap();
    assert!(job.name.contains("安全报表"), "{}", job.name);
    // The ranking's rows, worst first, the one without a score blank.
    let rows = s.exported_rows(&job.id).await;
    assert_eq!(rows[0][0], "排名");
    let body: Vec<_> = rows[1..]
        .iter()
        .map(|r| (r[0].as_str(), r[1].as_str(), r[3].as_str(), r[6].as_str()))
        .collect();
    assert_eq!(
        body,
        [
            ("1", "粤B00001", "50", "94"),
            ("2", "粤B00000", "200", "94.5"),
            ("3", "粤B00002", "5", "")
        ]
    );
    let too_long = s
        .telemetry
        .clone()
        .export_safety_ranking(req(
            s,
            &t,
            READ,
            pb::ExportSafetyRankingRequest {
                filter: filter(day("2025-01-01"), day("2026-10-18"), &[]),
                dimension: 0,
                best_first: false,
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(
        ServiceError::from_status(&too_long).code,
        ErrorCode::BadRequest
    );
}

#[tokio::test]
async fn safety_report_on_one_stack() {
    let s = support::stack().await;
    fleetdesk_testkit::scenarios!(&s;
        rates_scores_and_rankings_come_from_days_and_alarms,
        a_changed_weight_changes_the_score_and_is_audited,
        a_range_over_366_days_is_refused,
        a_day_counts_for_the_driver_bound_when_ingest_first_saw_it,
        another_organisation_subtree_is_outside_the_scope,
        another_tenant_sees_nothing_of_the_report,
        the_ranking_exports_as_a_job,
    );
}

//! Energy in the operation logs and the exports of issue 21 over the real
//! vehicle service: energy's settled sessions reach the logs through the
//! target's durable consumer (once per event id), energy used follows the
//! state of charge in the fixes (through ingest's pipeline), and the alarm,
//! daily-log and monthly-log exports write the rows their lists show.

use crate::support;

use chrono::{DateTime, Datelike, Duration, NaiveDate, Utc};
use fleetdesk_kit::events::{self, Outcome};
use fleetdesk_kit::{convert, db, subjects};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::energy::v1::ChargingSessionSettled;
use fleetdesk_proto::vehicle::v1 as pb;
use fleetdesk_proto::vehicle::v1::risk_service_client::RiskServiceClient;
use fleetdesk_telemetry::ingest::domain::FixRow;
use fleetdesk_telemetry::operation::charging;
use fleetdesk_telemetry::operation::rollup::{Slots, slot_of, slot_start};
use fleetdesk_telemetry::operation::store::{self, DayCache};
use support::{Stack, Tenant, fix_row};
use uuid::Uuid;

const REPORT: &[&str] = &["oss:asset:report"];
const ALARMS: &[&str] = &["as:alarm", "as:alarm:rule"];

/// A Beijing day `days_ago` days before today.
fn beijing_day(days_ago: i64) -> NaiveDate {
    slot_of(Utc::now() - Duration::days(days_ago)).0
}

/// The instant `minute` minutes into Beijing `day`.
fn at(day: NaiveDate, minute: usize) -> DateTime<Utc> {
    slot_start(day, minute)
}

fn settled(
    t: &Tenant,
    vehicle: Option<Uuid>,
    wh: i64,
    end: DateTime<Utc>,
) -> ChargingSessionSettled {
    ChargingSessionSettled {
        session_id: Uuid::new_v4().to_string(),
        enterprise_id: t.enterprise.to_string(),
        org_id: t.org.to_string(),
        card_id: Uuid::new_v4().to_string(),
        vehicle_id: vehicle.map(|v| v.to_string()).unwrap_or_default(),
        energy_wh: wh,
        total_fen: wh / 2,
        uncollected_fen: 0,
        end_time: Some(convert::timestamp(end)),
    }
}

/// Publishes `event` as energy's outbox relay does (id and source headers).
async fn publish(s: &Stack, id: Uuid, event: &ChargingSessionSettled) {
    let js = async_nats::jetstream::new(async_nats::connect(s.nats.url()).await.unwrap());
    events::ensure_event_stream(&js).await.unwrap();
    let mut headers = async_nats::HeaderMap::new();
    headers.insert(events::ID_HEADER, id.to_string().as_str());
    let source = events::source_of(&s.app).await.unwrap();
    headers.insert(events::SOURCE_HEADER, source.as_str());
    js.publish_with_headers(
        subjects::ENERGY_SESSION_SETTLED,
        headers,
        prost::Message::encode_to_vec(event).into(),
    )
    .await
    .unwrap()
    .await
    .unwrap();
}

/// The target's consumer of settled sessions, to deliver events to by hand.
async fn consumer(s: &Stack) -> events::Consumer<charging::SettledSessions> {
    let nats = async_nats::connect(s.nats.url()).await.unwrap();
    charging::consumer(s.app.clone(), nats).await.unwrap()
}

/// Delivers `event` with id `id` as JetStream would (again, when redelivered).
async fn deliver(
    consumer: &events::Consumer<charging::SettledSessions>,
    id: Uuid,
    event: &ChargingSessionSettled,
) -> Outcome {
    let mut headers = async_nats::HeaderMap::new();
    headers.insert(events::ID_HEADER, id.to_string().as_str());
    consumer
        .apply(Some(&headers), &prost::Message::encode_to_vec(event))
        .await
        .unwrap()
}

/// How many daily rows tenant `t` sees on `day`.
async fn rows_on(s: &Stack, t: &Tenant, day: NaiveDate) -> i64 {
    daily(s, t, daily_request(day, day))
        .await
        .page
        .unwrap()
        .total
}

fn day_range(from: NaiveDate, to: NaiveDate) -> Option<common::TimeRange> {
    Some(common::TimeRange {
        start: Some(convert::timestamp(at(from, 0))),
        end: Some(convert::timestamp(at(to, 0) + Duration::days(1))),
    })
}

fn daily_request(from: NaiveDate, to: NaiveDate) -> pb::ListDailyOperationReportsRequest {
    pb::ListDailyOperationReportsRequest {
        page: Some(common::PageRequest { page: 1, size: 100 }),
        report_date: day_range(from, to),
        ..Default::default()
    }
}

fn month_of(day: NaiveDate) -> common::YearMonth {
    common::YearMonth {
        year: day.year(),
        month: day.month() as i32,
    }
}

fn monthly_request(from: NaiveDate, to: NaiveDate) -> pb::ListMonthlyOperationReportsRequest {
    pb::ListMonthlyOperationReportsRequest {
        page: Some(common::PageRequest { page: 1, size: 100 }),
        start_month: Some(month_of(from)),
        end_month: Some(month_of(to)),
        ..Default::default()
    }
}

async fn daily(
    s: &Stack,
    t: &Tenant,
    req: pb::ListDailyOperationReportsRequest,
) -> pb::ListDailyOperationReportsResponse {
    s.telemetry
        .clone()
        .list_daily_operation_reports(s.req_as(t, t.user, REPORT, req))
        .await
        .unwrap()
        .into_inner()
}

async fn monthly(
    s: &Stack,
    t: &Tenant,
    req: pb::ListMonthlyOperationReportsRequest,
) -> pb::ListMonthlyOperationReportsResponse {
    s.telemetry
        .clone()
        .list_monthly_operation_reports(s.req_as(t, t.user, REPORT, req))
        .await
        .unwrap()
        .into_inner()
}

/// (charged Wh, charges) of `vehicle`'s row of `day`, if it has one.
async fn charged_on(s: &Stack, t: &Tenant, vehicle: Uuid, day: NaiveDate) -> Option<(i64, i32)> {
    daily(s, t, daily_request(day, day))
        .await
        .reports
        .into_iter()
        .find(|r| r.vehicle_id == vehicle.to_string())
        .map(|r| (r.energy_charged_wh, r.charge_count))
}

async fn set_capacity(s: &Stack, vehicle: Uuid, wh: i64) {
    let mut tx = fleetdesk_kit::db::begin_service(&s.owner).await.unwrap();
    sqlx::query("update vehicle set battery_capacity_wh = $2 where id = $1")
        .bind(vehicle)
        .bind(wh)
        .execute(&mut *tx)
        .await
        .unwrap();
    tx.commit().await.unwrap();
}

async fn a_settled_session_adds_to_its_day_and_month_once_even_delivered_twice(s: &Stack) {
    let t = s.tenant(2).await;
    let v = t.vehicles[0];
    let day = beijing_day(3);
    // Charging ended at 23:30 Beijing: that day, not the next (UTC) one.
    let first = settled(&t, Some(v), 42_500, at(day, 23 * 60 + 30));
    let id = Uuid::new_v4();
    publish(s, id, &first).await;
    let mut seen = None;
    for _ in 0..100 {
        seen = charged_on(s, &t, v, day).await;
        if seen.is_some() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(seen, Some((42_500, 1)), "the consumer applied the event");
    // The same event again (a redelivery) changes nothing.
    let consumer = consumer(s).await;
    assert_eq!(deliver(&consumer, id, &first).await, Outcome::Duplicate);
    // And through a catch-up from energy's outbox.
    let payload = prost::Message::encode_to_vec(&first);
    assert_eq!(
        charging::catch_up(&s.app, &[(id, payload)]).await.unwrap(),
        0
    );
    // A second session of the same day adds to it; its month sums both.
    let second_id = Uuid::new_v4();
    let second = settled(&t, Some(v), 10_000, at(day, 8 * 60));
    assert_eq!(
        deliver(&consumer, second_id, &second).await,
        Outcome::Applied
    );
    assert_eq!(
        deliver(&consumer, second_id, &second).await,
        Outcome::Duplicate
    );
    assert_eq!(charged_on(s, &t, v, day).await, Some((52_500, 2)));
    assert_eq!(charged_on(s, &t, v, day.succ_opt().unwrap()).await, None);
    let months = monthly(s, &t, monthly_request(day, day)).await;
    let month = months
        .reports
        .iter()
        .find(|r| r.vehicle_id == v.to_string())
        .unwrap();
    assert_eq!((month.energy_charged_wh, month.charge_count), (52_500, 2));
    let totals = months.totals.unwrap();
    assert_eq!((totals.energy_charged_wh, totals.charge_count), (52_500, 2));
    // Fixes of that day later keep the charges (ingest rewrites the day's other figures).
    s.pipeline()
        .apply(vec![fix_row(&t, v, at(day, 9 * 60), 40)])
        .await
        .unwrap();
    assert_eq!(charged_on(s, &t, v, day).await, Some((52_500, 2)));
    // Another tenant sees none of it.
    let b = s.tenant(1).await;
    assert_eq!(rows_on(s, &b, day).await, 0);
}

async fn a_session_without_a_vehicle_or_of_an_unknown_one_is_ignored(s: &Stack) {
    let t = s.tenant(1).await;
    let b = s.tenant(1).await;
    let day = beijing_day(2);
    let end = at(day, 12 * 60);
    let consumer = consumer(s).await;
    for event in [
        settled(&t, None, 30_000, end),
        settled(&t, Some(Uuid::new_v4()), 30_000, end),
        // B's vehicle announced as A's.
        settled(&t, Some(b.vehicles[0]), 30_000, end),
    ] {
        assert_eq!(
            deliver(&consumer, Uuid::new_v4(), &event).await,
            Outcome::Applied
        );
    }
    assert_eq!(rows_on(s, &t, day).await, 0);
    assert_eq!(rows_on(s, &b, day).await, 0);
}

async fn energy_used_is_the_soc_drop_times_the_capacity_and_late_fixes_correct_it(s: &Stack) {
    let t = s.tenant(3).await;
    let (full, no_capacity, no_soc) = (t.vehicles[0], t.vehicles[1], t.vehicles[2]);
    set_capacity(s, full, 60_000).await;
    set_capacity(s, no_soc, 60_000).await;
    let day = beijing_day(4);
    // 90 → 70 driving (08:00-08:20), charged to 95 at noon, 95 → 85 (16:00-16:10).
    let soc_fixes = |v: Uuid| {
        let mut out = Vec::new();
        for (i, soc) in (70..=90).rev().enumerate() {
            let mut f = fix_row(&t, v, at(day, 8 * 60 + i), 40);
            f.soc = Some(soc);
            out.push(f);
        }
        for (i, soc) in (70..=95).enumerate() {
            let mut f = fix_row(&t, v, at(day, 12 * 60 + i), 0);
            f.soc = Some(soc);
            out.push(f);
        }
        for (i, soc) in (85..=95).rev().enumerate() {
            let mut f = fix_row(&t, v, at(day, 16 * 60 + i), 40);
            f.soc = Some(soc);
            out.push(f);
        }
        out
    };
    let fixes = soc_fixes(full);
    // The afternoon first, the morning late: the same day as in order.
    let (morning, rest) = fixes.split_at(21);
    s.pipeline().apply(rest.to_vec()).await.unwrap();
    let before = daily(s, &t, daily_request(day, day)).await;
    let row = |list: &pb::ListDailyOperationReportsResponse, v: Uuid| {
        list.reports
            .iter()
            .find(|r| r.vehicle_id == v.to_string())
            .cloned()
            .unwrap()
    };
    assert_eq!(row(&before, full).energy_consumed_wh, 10 * 600);
    s.pipeline().apply(morning.to_vec()).await.unwrap();
    s.pipeline().apply(soc_fixes(no_capacity)).await.unwrap();
    let mut without_soc = soc_fixes(no_soc);
    without_soc.iter_mut().for_each(|f| f.soc = None);
    s.pipeline().apply(without_soc).await.unwrap();
    let after = daily(s, &t, daily_request(day, day)).await;
    let r = row(&after, full);
    assert!(r.energy_consumed_known);
    // (20 + 10) points of 60 kWh.
    assert_eq!(r.energy_consumed_wh, 30 * 600);
    for v in [no_capacity, no_soc] {
        let r = row(&after, v);
        assert!(!r.energy_consumed_known, "{r:?}");
        assert_eq!(r.energy_consumed_wh, 0);
    }
    assert_eq!(after.totals.unwrap().energy_consumed_wh, 30 * 600);
    let months = monthly(s, &t, monthly_request(day, day)).await;
    let m = months
        .reports
        .iter()
        .find(|r| r.vehicle_id == full.to_string())
        .unwrap();
    assert!(m.energy_consumed_known);
    assert_eq!(m.energy_consumed_wh, 30 * 600);
    let m = months
        .reports
        .iter()
        .find(|r| r.vehicle_id == no_soc.to_string())
        .unwrap();
    assert!(!m.energy_consumed_known);
}

/// The export's rows without the header, the list's rows as (first, second)
/// columns to compare by.
fn keys(rows: &[Vec<String>], a: usize, b: usize) -> Vec<(String, String)> {
    rows.iter().map(|r| (r[a].clone(), r[b].clone())).collect()
}

async fn each_export_writes_its_lists_rows_and_none_of_another_tenants(s: &Stack) {
    let t = s.tenant(3).await;
    let b = s.tenant_with_plates(2, "粤Z").await;
    let first = beijing_day(6);
    let last = beijing_day(1);
    // Days of driving (and a charge) for every vehicle of both tenants.
    let charges = consumer(s).await;
    for (tenant, n) in [(&t, 0), (&b, 1)] {
        let mut fixes = Vec::new();
        for (i, v) in tenant.vehicles.iter().enumerate() {
            for d in 0..5 {
                let day = first + Duration::days(d);
                for m in 0..6 {
                    let mut f = fix_row(tenant, *v, at(day, 9 * 60 + i * 7 + m), 90);
                    f.mileage_m = Some(1_000 * (d * 10 + m as i64));
                    fixes.push(f);
                }
            }
            let charge = settled(tenant, Some(*v), 20_000 + n * 1_000, at(first, 20 * 60));
            deliver(&charges, Uuid::new_v4(), &charge).await;
        }
        s.pipeline().apply(fixes).await.unwrap();
        // An overspeed alarm per vehicle (90 km/h over a 60 rule).
        let mut risk = RiskServiceClient::new(s.channel.clone());
        risk.create_alarm_rule(s.req_as(
            tenant,
            tenant.user,
            ALARMS,
            pb::CreateAlarmRuleRequest {
                rule: Some(pb::AlarmRule {
                    name: "限速 60".into(),
                    kind: pb::AlarmRuleKind::Overspeed.into(),
                    level: pb::RiskLevel::High.into(),
                    limit_kmh: 60,
                    enabled: true,
                    ..Default::default()
                }),
            },
        ))
        .await
        .unwrap();
        let mut fixes = Vec::new();
        // Within the last day for the alarm list, but on Beijing's today, outside
        // the daily list's days (3 h ago is yesterday in Beijing from 16:00 to 19:00 UTC).
        let today = at(beijing_day(0), 0);
        if Utc::now() - today < Duration::seconds(70) {
            tokio::time::sleep(std::time::Duration::from_secs(70)).await;
        }
        let t0 = DateTime::from_timestamp(
            (Utc::now() - Duration::hours(3)).max(today).timestamp() / 60 * 60,
            0,
        )
        .unwrap();
        for v in &tenant.vehicles {
            fixes.push(fix_row(tenant, *v, t0, 50));
            fixes.push(fix_row(tenant, *v, t0 + Duration::seconds(30), 90));
            fixes.push(fix_row(tenant, *v, t0 + Duration::seconds(60), 50));
        }
        s.pipeline().apply(fixes).await.unwrap();
    }

    // Daily: the list's rows in its order, the figures as the list shows them.
    let mut req = daily_request(first, last);
    req.page = Some(common::PageRequest { page: 1, size: 10 });
    let list = daily(s, &t, daily_request(first, last)).await;
    assert_eq!(list.reports.len(), 15);
    let job = s
        .telemetry
        .clone()
        .export_daily_operation_reports(s.req_as(
            &t,
            t.user,
            REPORT,
            pb::ExportDailyOperationReportsRequest { filter: Some(req) },
        ))
        .await
        .unwrap()
        .into_inner()
        .job
        .unwrap();
    let rows = s.exported_rows(&job.id).await;
    assert_eq!(rows[0][0], "日期");
    assert!(
        rows[0].contains(&"耗电量(kWh)".to_owned()) && rows[0].contains(&"充电次数".to_owned())
    );
    let want: Vec<(String, String)> = list
        .reports
        .iter()
        .map(|r| {
            (
                slot_of(convert::datetime(r.report_date.as_ref().unwrap()).unwrap())
                    .0
                    .format("%Y-%m-%d")
                    .to_string(),
                r.plate_number.clone(),
            )
        })
        .collect();
    assert_eq!(keys(&rows[1..], 0, 1), want);
    let charged = rows[0].iter().position(|h| h == "充电量(kWh)").unwrap();
    let charges = rows[0].iter().position(|h| h == "充电次数").unwrap();
    let used = rows[0].iter().position(|h| h == "耗电量(kWh)").unwrap();
    let mileage = rows[0].iter().position(|h| h == "里程(km)").unwrap();
    for (row, r) in rows[1..].iter().zip(&list.reports) {
        assert_eq!(
            row[charged],
            format!("{:.1}", r.energy_charged_wh as f64 / 1000.0)
        );
        assert_eq!(row[charges], r.charge_count.to_string());
        // No capacity: energy used unknown.
        assert_eq!(row[used], "-");
        assert_eq!(row[mileage], format!("{:.1}", r.mileage_m as f64 / 1000.0));
    }
    assert!(rows.iter().all(|r| !r[1].starts_with("粤Z")));

    // Monthly.
    let list = monthly(s, &t, monthly_request(first, last)).await;
    assert!(!list.reports.is_empty());
    let job = s
        .telemetry
        .clone()
        .export_monthly_operation_reports(s.req_as(
            &t,
            t.user,
            REPORT,
            pb::ExportMonthlyOperationReportsRequest {
                filter: Some(monthly_request(first, last)),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .job
        .unwrap();
    let rows = s.exported_rows(&job.id).await;
    assert_eq!(rows[0][0], "月份");
    let want: Vec<(String, String)> = list
        .reports
        .iter()
        .map(|r| {
            let m = r.month.as_ref().unwrap();
            (
                format!("{:04}-{:02}", m.year, m.month),
                r.plate_number.clone(),
            )
        })
        .collect();
    assert_eq!(keys(&rows[1..], 0, 1), want);
    assert!(rows.iter().all(|r| !r[1].starts_with("粤Z")));

    // Alarms: the list's filter (level and time), newest first.
    let now = Utc::now();
    let filter = pb::ListRiskAlarmsRequest {
        page: Some(common::PageRequest { page: 1, size: 100 }),
        levels: vec![pb::RiskLevel::High.into()],
        alarm_time: Some(common::TimeRange {
            start: Some(convert::timestamp(now - Duration::days(1))),
            end: Some(convert::timestamp(now)),
        }),
        ..Default::default()
    };
    let mut risk = RiskServiceClient::new(s.channel.clone());
    let list = risk
        .list_risk_alarms(s.req_as(&t, t.user, ALARMS, filter.clone()))
        .await
        .unwrap()
        .into_inner()
        .alarms;
    assert_eq!(list.len(), 3);
    let job = risk
        .export_risk_alarms(s.req_as(
            &t,
            t.user,
            ALARMS,
            pb::ExportRiskAlarmsRequest {
                filter: Some(filter.clone()),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .job
        .unwrap();
    let rows = s.exported_rows(&job.id).await;
    assert_eq!(rows[0][0], "车牌号");
    assert_eq!(rows.len(), 1 + list.len());
    for (row, a) in rows[1..].iter().zip(&list) {
        assert_eq!(
            (
                row[0].as_str(),
                row[3].as_str(),
                row[4].as_str(),
                row[10].as_str()
            ),
            (a.plate_number.as_str(), "超速", "三级", "未处理")
        );
    }
    // Tenant B's export has B's alarms only.
    let job = risk
        .export_risk_alarms(s.req_as(
            &b,
            b.user,
            ALARMS,
            pb::ExportRiskAlarmsRequest {
                filter: Some(filter),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .job
        .unwrap();
    let rows = s.exported_rows(&job.id).await;
    assert_eq!(rows.len(), 1 + b.vehicles.len());
    assert!(rows[1..].iter().all(|r| r[0].starts_with("粤Z")));
    // A filter the list refuses is refused before a job is queued.
    let bad = risk
        .export_risk_alarms(s.req_as(
            &t,
            t.user,
            ALARMS,
            pb::ExportRiskAlarmsRequest { filter: None },
        ))
        .await
        .unwrap_err();
    assert_eq!(bad.code(), tonic::Code::InvalidArgument);
}

/// The row version (xmin) of a vehicle's day: it moves only when the row is written.
async fn day_version(s: &Stack, vehicle: Uuid, day: NaiveDate) -> String {
    sqlx::query_scalar("select xmin::text from operation_day where vehicle_id = $1 and day = $2")
        .bind(vehicle)
        .bind(day)
        .fetch_one(&s.owner)
        .await
        .unwrap()
}

async fn a_minute_that_changes_nothing_leaves_its_day_unwritten(s: &Stack) {
    let t = s.tenant(2).await;
    let v = *t.vehicles.last().unwrap();
    let day = beijing_day(9);
    let parked = |time: DateTime<Utc>| {
        let mut f = fix_row(&t, v, time, 0);
        f.mileage_m = Some(5_000);
        f
    };
    s.pipeline()
        .apply(vec![parked(at(day, 600))])
        .await
        .unwrap();
    let first = day_version(s, v, day).await;
    // Parked, later in the same minute: its slot is online already.
    let same_minute = at(day, 600) + Duration::seconds(10);
    s.pipeline()
        .apply(vec![
            parked(same_minute),
            parked(same_minute + Duration::seconds(30)),
        ])
        .await
        .unwrap();
    assert_eq!(day_version(s, v, day).await, first);
    // The next minute is one more online slot: the day is written.
    s.pipeline()
        .apply(vec![parked(at(day, 601))])
        .await
        .unwrap();
    assert_ne!(day_version(s, v, day).await, first);
}

/// A moving fix of `t`'s first vehicle at `minute` of `day`, its odometer at `odometer_m`.
fn moving(t: &Tenant, day: NaiveDate, minute: usize, odometer_m: i64) -> FixRow {
    let mut f = fix_row(t, t.vehicles[0], at(day, minute), 40);
    f.mileage_m = Some(odometer_m);
    f
}

/// Another process's batch (on the service's pool `app`), committed.
async fn elsewhere(app: &sqlx_postgres::PgPool, fixes: &[FixRow]) -> usize {
    let mut tx = db::begin_service(app).await.unwrap();
    let seen = store::add_fixes(&mut tx, &DayCache::default(), fixes)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    seen.written
}

/// The day counts the odometer from 5 to 30 km and the minutes 500, 600
/// and 700 online, and its month the day's mileage once.
async fn assert_counted_all_three(s: &Stack, t: &Tenant, day: NaiveDate) {
    let v = t.vehicles[0];
    let (min, max, mileage, online): (i64, i64, i64, Vec<u8>) = sqlx::query_as(
        "select min_odometer_m, max_odometer_m, mileage_m, online from operation_day \
         where vehicle_id = $1 and day = $2",
    )
    .bind(v)
    .bind(day)
    .fetch_one(&s.owner)
    .await
    .unwrap();
    assert_eq!((min, max, mileage), (5_000, 30_000, 25_000));
    let online = Slots::from_bytes(&online);
    assert!([500, 600, 700].iter().all(|slot| online.get(*slot)));
    let month: i64 = sqlx::query_scalar(
        "select mileage_m from operation_month where vehicle_id = $1 and month = $2",
    )
    .bind(v)
    .bind(day.with_day(1).unwrap())
    .fetch_one(&s.owner)
    .await
    .unwrap();
    assert_eq!(month, 25_000, "the month sums its day once");
}

/// Two batches racing on one day: the second read it before the first
/// committed, so its write must not put back the day it read.
async fn batches_racing_on_one_day_both_count_and_its_month_follows(s: &Stack) {
    let t = s.tenant(1).await;
    let day = beijing_day(11);
    s.pipeline()
        .apply(vec![moving(&t, day, 500, 5_000)])
        .await
        .unwrap();
    // The first batch writes the day and holds it, uncommitted.
    let mut first = db::begin_service(&s.app).await.unwrap();
    store::add_fixes(
        &mut first,
        &DayCache::default(),
        &[moving(&t, day, 700, 30_000)],
    )
    .await
    .unwrap();
    let second = {
        let (app, fixes) = (s.app.clone(), [moving(&t, day, 600, 10_000)]);
        tokio::spawn(async move { elsewhere(&app, &fixes).await })
    };
    // The second batch has read the day as it was and waits on the first's write.
    let waiting = || async {
        sqlx::query_scalar::<_, bool>(
            "select exists (select 1 from pg_stat_activity \
             where datname = current_database() and wait_event_type = 'Lock' \
             and query like '%operation_day%')",
        )
        .fetch_one(&s.owner)
        .await
        .unwrap()
    };
    let started = std::time::Instant::now();
    while !waiting().await {
        assert!(
            started.elapsed().as_secs() < 10,
            "the second batch never waited"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    first.commit().await.unwrap();
    assert_eq!(second.await.unwrap(), 1);
    assert_counted_all_three(s, &t, day).await;
}

/// A day this process knows from its last batch, moved since by another
/// process: the next batch's write fails its version check, so the day is
/// read again and merged rather than put back as this process knew it.
async fn a_day_known_from_the_last_batch_and_moved_since_is_read_again(s: &Stack) {
    let t = s.tenant(1).await;
    let day = beijing_day(12);
    let mut ingest = s.pipeline();
    ingest
        .apply(vec![moving(&t, day, 500, 5_000)])
        .await
        .unwrap();
    assert_eq!(elsewhere(&s.app, &[moving(&t, day, 700, 30_000)]).await, 1);
    ingest
        .apply(vec![moving(&t, day, 600, 10_000)])
        .await
        .unwrap();
    assert_counted_all_three(s, &t, day).await;
}

#[tokio::test]
async fn operation_energy_and_exports_on_one_stack() {
    let s = support::stack().await;
    fleetdesk_testkit::scenarios!(&s;
        a_settled_session_adds_to_its_day_and_month_once_even_delivered_twice,
        a_session_without_a_vehicle_or_of_an_unknown_one_is_ignored,
        energy_used_is_the_soc_drop_times_the_capacity_and_late_fixes_correct_it,
        each_export_writes_its_lists_rows_and_none_of_another_tenants,
        a_minute_that_changes_nothing_leaves_its_day_unwritten,
        batches_racing_on_one_day_both_count_and_its_month_follows,
        a_day_known_from_the_last_batch_and_moved_since_is_read_again,
    );
}

//! The alarm rule kinds beyond a fix's own reading, over the real vehicle
//! service: the fence's own speed limit, the fatigue rule's daily limit,
//! fence entry/exit in a forbidden window, temperature out of range for a
//! minimum time and the terminal-offline job. Rules and fences are set
//! through the gRPC services, fixes go through ingest's pipeline, alarms are
//! read through RiskService.

use crate::support;

use chrono::{DateTime, Duration, NaiveTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use fleetdesk_proto::vehicle::v1::risk_service_client::RiskServiceClient;
use fleetdesk_telemetry::alarms::offline;
use fleetdesk_telemetry::ingest::domain::FixRow;
use support::{Stack, Tenant, fix_row, shuffled};
use uuid::Uuid;

const PERMS: &[&str] = &["as:alarm", "as:alarm:rule"];
/// Where the fixes are (the support's fixes are here too).
const LAT: f64 = 22.54;
const LNG: f64 = 114.05;

async fn create_rule(s: &Stack, t: &Tenant, rule: pb::AlarmRule) -> pb::AlarmRule {
    RiskServiceClient::new(s.channel.clone())
        .create_alarm_rule(s.req_as(
            t,
            t.user,
            PERMS,
            pb::CreateAlarmRuleRequest { rule: Some(rule) },
        ))
        .await
        .map(|r| r.into_inner().rule.unwrap())
        .map_err(|e| ServiceError::from_status(&e))
        .unwrap()
}

fn rule(name: &str, kind: pb::AlarmRuleKind) -> pb::AlarmRule {
    pb::AlarmRule {
        name: name.into(),
        kind: kind.into(),
        level: pb::RiskLevel::Medium.into(),
        enabled: true,
        ..Default::default()
    }
}

/// A circle fence around the fixes' point, with a speed limit.
async fn fence(s: &Stack, t: &Tenant, radius_m: i32, limit_kmh: Option<i32>) -> pb::Geofence {
    let input = pb::GeofenceInput {
        org_id: t.org.to_string(),
        name: format!("围栏 {radius_m}"),
        purpose: pb::GeofencePurpose::General as i32,
        shape: pb::GeofenceShape::Circle as i32,
        center: Some(common::GeoPoint {
            latitude: LAT,
            longitude: LNG,
        }),
        radius_m,
        all_vehicles: true,
        enabled: true,
        speed_limit_kmh: limit_kmh,
        ..Default::default()
    };
    s.telemetry
        .clone()
        .create_geofence(s.req_as(
            t,
            t.user,
            &["as:fence"],
            pb::CreateGeofenceRequest {
                geofence: Some(input),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .geofence
        .unwrap()
}

/// (type, start, end) of each alarm of `plate` (all when none), oldest first.
async fn spans(s: &Stack, t: &Tenant, plate: Option<&str>) -> Vec<(i32, i64, Option<i64>)> {
    let now = Utc::now();
    let req = pb::ListRiskAlarmsRequest {
        page: Some(common::PageRequest { page: 1, size: 100 }),
        plate_numbers: plate.map(|p| vec![p.to_owned()]).unwrap_or_default(),
        alarm_time: Some(common::TimeRange {
            start: Some(fleetdesk_kit::convert::timestamp(now - Duration::days(30))),
            end: Some(fleetdesk_kit::convert::timestamp(now + Duration::days(2))),
        }),
        ..Default::default()
    };
    let list = RiskServiceClient::new(s.channel.clone())
        .list_risk_alarms(s.req_as(t, t.user, PERMS, req))
        .await
        .unwrap()
        .into_inner()
        .alarms;
    let mut out: Vec<_> = list
        .iter()
        .map(|a| {
            (
                a.alarm_type,
                a.alarm_time.as_ref().unwrap().seconds,
                a.end_time.as_ref().map(|e| e.seconds),
            )
        })
        .collect();
    out.sort();
    out
}

fn plate(i: usize) -> String {
    format!("粤B{i:05}")
}

/// Whole minutes, `hours` ago.
fn ago(hours: i64) -> DateTime<Utc> {
    let t = Utc::now() - Duration::hours(hours);
    DateTime::from_timestamp(t.timestamp() / 60 * 60, 0).unwrap()
}

/// 00:00 UTC (08:00 in Beijing) `days` ago.
fn day_start(days: i64) -> DateTime<Utc> {
    (Utc::now() - Duration::days(days))
        .date_naive()
        .and_time(NaiveTime::MIN)
        .and_utc()
}

fn at(t: &Tenant, v: Uuid, time: DateTime<Utc>, kmh: i32, lat: f64) -> FixRow {
    FixRow {
        lat,
        ..fix_row(t, v, time, kmh)
    }
}

async fn inside_a_fence_its_own_limit_wins_and_shuffled_fixes_agree(s: &Stack) {
    let t = s.tenant(4).await;
    create_rule(
        s,
        &t,
        pb::AlarmRule {
            limit_kmh: 60,
            min_duration_seconds: 30,
            ..rule("限速 60", pb::AlarmRuleKind::Overspeed)
        },
    )
    .await;
    // Two fences around the point: the lower limit (40) counts.
    fence(s, &t, 2000, Some(80)).await;
    fence(s, &t, 1000, Some(40)).await;
    let t0 = ago(10);
    // Every 10 s for 5 minutes: 50 km/h, 70 km/h from 60 s to 170 s.
    let drive = |v: Uuid, lat: f64| -> Vec<FixRow> {
        (0..30)
            .map(|i| {
                let kmh = if (6..18).contains(&i) { 70 } else { 50 };
                at(&t, v, t0 + Duration::seconds(i * 10), kmh, lat)
            })
            .collect()
    };
    let mut pipeline = s.pipeline();
    for batch in drive(t.vehicles[0], LAT).chunks(4) {
        pipeline.apply(batch.to_vec()).await.unwrap();
    }
    // Inside the 40 km/h fence, 50 km/h is over it from the first fix: one
    // alarm for the whole drive (still going: nothing showed it end).
    let overspeed = pb::AlarmType::Overspeed as i32;
    let expected = vec![(overspeed, t0.timestamp(), None)];
    assert_eq!(spans(s, &t, Some(&plate(0))).await, expected);
    // Far from the fences (0.5° north), the rule's own 60 km/h counts.
    pipeline
        .apply(drive(t.vehicles[1], LAT + 0.5))
        .await
        .unwrap();
    assert_eq!(
        spans(s, &t, Some(&plate(1))).await,
        vec![(
            overspeed,
            (t0 + Duration::seconds(60)).timestamp(),
            Some((t0 + Duration::seconds(180)).timestamp())
        )]
    );
    // The same fixes in random orders and batches give the same alarm.
    for (n, seed) in [(2usize, 7u64), (3, 8)] {
        let mixed = shuffled(&drive(t.vehicles[n], LAT), seed);
        let mut rest = &mixed[..];
        let mut size = 1;
        while !rest.is_empty() {
            let (batch, tail) = rest.split_at(size.min(rest.len()));
            pipeline.apply(batch.to_vec()).await.unwrap();
            rest = tail;
            size = size * 3 % 11 + 1;
        }
        assert_eq!(spans(s, &t, Some(&plate(n))).await, expected, "seed {seed}");
    }
}

async fn a_daily_driving_limit_is_one_alarm_per_beijing_day(s: &Stack) {
    let t = s.tenant(2).await;
    create_rule(
        s,
        &t,
        pb::AlarmRule {
            max_drive_minutes: 720,
            rest_minutes: 20,
            daily_drive_minutes: 180,
            ..rule("每日驾驶", pb::AlarmRuleKind::Fatigue)
        },
    )
    .await;
    let v = t.vehicles[0];
    // Two days from 08:00 Beijing: 2 h driving, 30 min stop, 2 h driving,
    // a fix a minute; then one standing fix on a third day.
    let mut fixes = Vec::new();
    for d in [4, 3] {
        let start = day_start(d);
        let mut secs = 0;
        for (len, kmh) in [(7200, 60), (1800, 0), (7200, 60), (600, 0)] {
            let end = secs + len;
            while secs < end {
                fixes.push(fix_row(&t, v, start + Duration::seconds(secs), kmh));
                secs += 60;
            }
        }
    }
    fixes.push(fix_row(&t, v, day_start(2), 0));
    let mut pipeline = s.pipeline();
    for batch in fixes.chunks(40) {
        pipeline.apply(batch.to_vec()).await.unwrap();
    }
    let fatigue = pb::AlarmType::FatigueDriving as i32;
    // 3 h reached at 3 h 30 (the stop does not count); the day's alarm ends
    // at its last driving, 4 h 30.
    let day = |d: i64| {
        (
            fatigue,
            (day_start(d) + Duration::minutes(210)).timestamp(),
            Some((day_start(d) + Duration::minutes(270)).timestamp()),
        )
    };
    let plate0 = Some(plate(0));
    assert_eq!(spans(s, &t, plate0.as_deref()).await, vec![day(4), day(3)]);
    // Sent again: nothing new.
    pipeline.apply(fixes.clone()).await.unwrap();
    assert_eq!(spans(s, &t, plate0.as_deref()).await, vec![day(4), day(3)]);
    // Another vehicle's same drive, shuffled: the same two alarms.
    let other: Vec<FixRow> = fixes
        .iter()
        .map(|f| FixRow {
            vehicle_id: t.vehicles[1],
            ..f.clone()
        })
        .collect();
    for batch in shuffled(&other, 3).chunks(40) {
        pipeline.apply(batch.to_vec()).await.unwrap();
    }
    assert_eq!(spans(s, &t, Some(&plate(1))).await, vec![day(4), day(3)]);
}

async fn entering_a_fence_inside_a_forbidden_window_alarms_and_outside_it_does_not(s: &Stack) {
    let t = s.tenant(4).await;
    let f = fence(s, &t, 500, None).await;
    let created = create_rule(
        s,
        &t,
        pb::AlarmRule {
            fence_ids: vec![f.id.clone()],
            fence_on_enter: true,
            window_start_minute: 22 * 60,
            window_end_minute: 6 * 60,
            ..rule("夜间进围栏", pb::AlarmRuleKind::FenceWindow)
        },
    )
    .await;
    assert_eq!(
        (
            created.fence_ids.clone(),
            created.fence_on_enter,
            created.fence_on_exit
        ),
        (vec![f.id.clone()], true, false)
    );
    // 15:30 UTC is 23:30 Beijing, 17:00 UTC 01:00 (past midnight), 04:00 UTC noon.
    let cases = [
        (0usize, day_start(3) + Duration::minutes(15 * 60 + 30)),
        (1, day_start(3) + Duration::hours(17)),
        (2, day_start(3) + Duration::hours(4)),
        // Vehicle 0's drive, its fixes shuffled.
        (3, day_start(3) + Duration::minutes(15 * 60 + 30)),
    ];
    let mut pipeline = s.pipeline();
    for (i, enter) in cases {
        // Outside (2 km north) for two minutes, then inside for five.
        let mut fixes: Vec<FixRow> = (-4..10)
            .map(|k| {
                let lat = if k < 0 { LAT + 0.02 } else { LAT };
                at(
                    &t,
                    t.vehicles[i],
                    enter + Duration::seconds(k * 30),
                    20,
                    lat,
                )
            })
            .collect();
        if i == 3 {
            fixes = shuffled(&fixes, 5);
        }
        for batch in fixes.chunks(3) {
            pipeline.apply(batch.to_vec()).await.unwrap();
        }
    }
    let geofence = pb::AlarmType::Geofence as i32;
    for (i, enter) in cases {
        let expected = if i == 2 {
            vec![]
        } else {
            vec![(geofence, enter.timestamp(), Some(enter.timestamp()))]
        };
        assert_eq!(spans(s, &t, Some(&plate(i))).await, expected, "vehicle {i}");
    }
}

async fn a_temperature_excursion_past_the_minimum_is_one_alarm_and_a_short_one_none(s: &Stack) {
    let t = s.tenant(3).await;
    // The cold-chain band: -20 to -15 °C.
    for v in &t.vehicles {
        s.telemetry
            .clone()
            .set_temperature_threshold(s.req_as(
                &t,
                t.user,
                &["as:temperature"],
                pb::SetTemperatureThresholdRequest {
                    threshold: Some(pb::TemperatureThreshold {
                        vehicle_id: v.to_string(),
                        probe_no: 0,
                        min_celsius: -20.0,
                        max_celsius: -15.0,
                        min_duration_seconds: 60,
                    }),
                },
            ))
            .await
            .unwrap();
    }
    create_rule(
        s,
        &t,
        pb::AlarmRule {
            min_duration_seconds: 15 * 60,
            ..rule("冷链超温", pb::AlarmRuleKind::Temperature)
        },
    )
    .await;
    let t0 = ago(6);
    // A reading a minute: in range for 5 minutes, out (-10 °C) for `out`
    // minutes, back in range for 5.
    let excursion = |v: Uuid, out: i64| -> Vec<FixRow> {
        (0..out + 10)
            .map(|m| {
                let deci = if (5..5 + out).contains(&m) {
                    -100
                } else {
                    -180
                };
                FixRow {
                    temperatures: vec![(1, deci)],
                    ..fix_row(&t, v, t0 + Duration::minutes(m), 40)
                }
            })
            .collect()
    };
    let mut pipeline = s.pipeline();
    for batch in excursion(t.vehicles[0], 20).chunks(4) {
        pipeline.apply(batch.to_vec()).await.unwrap();
    }
    // Out of order: the 10-minute one reversed.
    let mut short = excursion(t.vehicles[1], 10);
    short.reverse();
    for batch in short.chunks(3) {
        pipeline.apply(batch.to_vec()).await.unwrap();
    }
    assert_eq!(
        spans(s, &t, Some(&plate(0))).await,
        vec![(
            pb::AlarmType::Temperature as i32,
            (t0 + Duration::minutes(5)).timestamp(),
            Some((t0 + Duration::minutes(25)).timestamp())
        )]
    );
    assert_eq!(spans(s, &t, Some(&plate(1))).await, vec![]);
    // The 20-minute one again, shuffled: the same alarm.
    let mixed = shuffled(&excursion(t.vehicles[2], 20), 11);
    for batch in mixed.chunks(5) {
        pipeline.apply(batch.to_vec()).await.unwrap();
    }
    assert_eq!(
        spans(s, &t, Some(&plate(2))).await,
        spans(s, &t, Some(&plate(0))).await
    );
}

async fn the_offline_job_run_twice_opens_one_alarm_which_the_next_fix_ends(s: &Stack) {
    let t = s.tenant(3).await;
    create_rule(
        s,
        &t,
        pb::AlarmRule {
            offline_hours: 24,
            ..rule("终端离线", pb::AlarmRuleKind::Offline)
        },
    )
    .await;
    let last = ago(30);
    let mut pipeline = s.pipeline();
    for (i, v) in t.vehicles.iter().take(2).enumerate() {
        // Vehicle 1 reported an hour ago: online.
        let newest = if i == 0 { last } else { ago(1) };
        let fixes: Vec<FixRow> = (0..3)
            .map(|k| fix_row(&t, *v, newest - Duration::minutes(2 - k), 0))
            .collect();
        pipeline.apply(fixes).await.unwrap();
    }
    let mut seeded = offline::Seeded::default();
    let now = Utc::now();
    let opened = offline::run_once(&s.app, now, &mut seeded).await.unwrap();
    let again = offline::run_once(&s.app, now + Duration::minutes(5), &mut seeded)
        .await
        .unwrap();
    // A fresh process (seeding again) opens nothing new either.
    let fresh = offline::run_once(&s.app, now, &mut offline::Seeded::default())
        .await
        .unwrap();
    assert_eq!((opened, again, fresh), (1, 0, 0));
    let offline_type = pb::AlarmType::Offline as i32;
    let start = (last + Duration::hours(24)).timestamp();
    assert_eq!(spans(s, &t, None).await, vec![(offline_type, start, None)]);
    // The vehicle reports again: the alarm ends at that fix.
    let back = ago(0) - Duration::minutes(1);
    pipeline
        .apply(vec![fix_row(&t, t.vehicles[0], back, 30)])
        .await
        .unwrap();
    assert_eq!(
        spans(s, &t, None).await,
        vec![(offline_type, start, Some(back.timestamp()))]
    );
    let after = offline::run_once(&s.app, Utc::now(), &mut seeded)
        .await
        .unwrap();
    assert_eq!(after, 0);
    assert_eq!(spans(s, &t, None).await.len(), 1);
    // Vehicle 2 was silent 30 h; a blind-area upload then shows it reported
    // 10 h into the silence: it was never 24 h offline, the alarm goes.
    let v = t.vehicles[2];
    pipeline.apply(vec![fix_row(&t, v, last, 0)]).await.unwrap();
    assert_eq!(
        offline::run_once(&s.app, Utc::now(), &mut seeded)
            .await
            .unwrap(),
        1
    );
    assert_eq!(spans(s, &t, Some(&plate(2))).await.len(), 1);
    let mut late = fix_row(&t, v, last + Duration::hours(10), 0);
    late.backfill = true;
    pipeline.apply(vec![late]).await.unwrap();
    assert_eq!(spans(s, &t, Some(&plate(2))).await, vec![]);
}

#[tokio::test]
async fn the_remaining_alarm_rule_kinds_on_one_stack() {
    let s = support::stack().await;
    fleetdesk_testkit::scenarios!(&s;
        inside_a_fence_its_own_limit_wins_and_shuffled_fixes_agree,
        a_daily_driving_limit_is_one_alarm_per_beijing_day,
        entering_a_fence_inside_a_forbidden_window_alarms_and_outside_it_does_not,
        a_temperature_excursion_past_the_minimum_is_one_alarm_and_a_short_one_none,
        the_offline_job_run_twice_opens_one_alarm_which_the_next_fix_ends,
    );
}

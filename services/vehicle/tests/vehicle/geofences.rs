//! Geofences over the real vehicle service: gRPC on port 0, a fresh
//! PostgreSQL database and a private JetStream server, one stack for the
//! whole file; each scenario makes its own tenants on it. Fixes are
//! published to the telemetry stream as the device edge publishes them, or
//! handed to ingest's pipeline directly where the batching itself is what a
//! test varies.

use std::time::Duration;

use chrono::{DateTime, Utc};
use fleetdesk_kit::{ErrorCode, ServiceError, db};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::telematics::v1 as tpb;
use fleetdesk_proto::vehicle::v1 as pb;
use fleetdesk_telemetry::geofences::engine::Fix;
use fleetdesk_telemetry::ingest::consumer::Pipeline;
use fleetdesk_telemetry::ingest::domain::FixRow;
use prost::Message as _;
use uuid::Uuid;

use crate::support;

use support::{Stack, Tenant};

impl Stack {
    fn fence_req<T>(&self, t: &Tenant, message: T) -> tonic::Request<T> {
        self.req_as(t, t.user, &["as:fence"], message)
    }

    async fn create(
        &self,
        t: &Tenant,
        input: pb::GeofenceInput,
    ) -> Result<pb::Geofence, ServiceError> {
        self.create_keyed(t, input, None).await
    }

    async fn create_keyed(
        &self,
        t: &Tenant,
        input: pb::GeofenceInput,
        key: Option<&str>,
    ) -> Result<pb::Geofence, ServiceError> {
        let mut req = self.fence_req(
            t,
            pb::CreateGeofenceRequest {
                geofence: Some(input),
            },
        );
        if let Some(key) = key {
            req.metadata_mut()
                .insert("idempotency-key", key.parse().unwrap());
        }
        self.telemetry
            .clone()
            .create_geofence(req)
            .await
            .map(|r| r.into_inner().geofence.unwrap())
            .map_err(|s| ServiceError::from_status(&s))
    }

    async fn list(&self, t: &Tenant) -> Vec<pb::Geofence> {
        let req = self.fence_req(
            t,
            pb::ListGeofencesRequest {
                page: Some(common::PageRequest { page: 1, size: 100 }),
                ..Default::default()
            },
        );
        self.telemetry
            .clone()
            .list_geofences(req)
            .await
            .unwrap()
            .into_inner()
            .geofences
    }

    async fn crossings(&self, t: &Tenant, plate: Option<&str>) -> Vec<pb::GeofenceCrossing> {
        let req = self.fence_req(
            t,
            pb::ListGeofenceCrossingsRequest {
                page: Some(common::PageRequest { page: 1, size: 100 }),
                plate_numbers: plate.map(|p| vec![p.to_owned()]).unwrap_or_default(),
                ..Default::default()
            },
        );
        let mut list = self
            .telemetry
            .clone()
            .list_geofence_crossings(req)
            .await
            .unwrap()
            .into_inner()
            .crossings;
        list.reverse();
        list
    }

    /// Publishes fixes as the device edge does and waits until the evaluator committed them.
    async fn publish(&self, t: &Tenant, vehicle: Uuid, fixes: &[Fix], backfill: bool) {
        let client = async_nats::connect(self.nats.url()).await.unwrap();
        let js = async_nats::jetstream::new(client);
        fleetdesk_telemetry::ingest::ensure_stream(&js)
            .await
            .unwrap();
        let mut acks = Vec::new();
        for f in fixes {
            let payload = tpb::Fix {
                terminal: "13800000000".into(),
                enterprise_id: t.enterprise.to_string(),
                vehicle_id: vehicle.to_string(),
                fix_time: Some(prost_types::Timestamp {
                    seconds: f.time.timestamp(),
                    nanos: 0,
                }),
                receive_time: None,
                latitude: f.lat,
                longitude: f.lng,
                speed_dkmh: f.speed_dkmh,
                backfill,
                ..Default::default()
            };
            acks.push(
                js.publish(
                    format!("telemetry.{}.{}", t.enterprise, vehicle),
                    payload.encode_to_vec().into(),
                )
                .await
                .unwrap(),
            );
        }
        for ack in acks {
            ack.await.unwrap();
        }
    }

    /// Polls until ingest has committed `n` fixes of the vehicle (history
    /// rows and their evaluation commit together).
    async fn wait_for_fixes(&self, vehicle: Uuid, n: i64) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        loop {
            let mut tx = db::begin_service(&self.owner).await.unwrap();
            let count: i64 =
                sqlx::query_scalar("select count(*) from position where vehicle_id = $1")
                    .bind(vehicle)
                    .fetch_one(&mut *tx)
                    .await
                    .unwrap();
            drop(tx);
            if count >= n {
                return;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "only {count} of {n} fixes evaluated"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

fn circle(
    org: Uuid,
    name: &str,
    lat: f64,
    lng: f64,
    radius_m: i32,
    dwell: i32,
) -> pb::GeofenceInput {
    pb::GeofenceInput {
        org_id: org.to_string(),
        name: name.into(),
        purpose: pb::GeofencePurpose::General as i32,
        shape: pb::GeofenceShape::Circle as i32,
        center: Some(common::GeoPoint {
            latitude: lat,
            longitude: lng,
        }),
        radius_m,
        dwell_seconds: dwell,
        all_vehicles: true,
        enabled: true,
        ..Default::default()
    }
}

fn geo(lat: f64, lng: f64) -> common::GeoPoint {
    common::GeoPoint {
        latitude: lat,
        longitude: lng,
    }
}

fn base() -> DateTime<Utc> {
    // Fixes of the last hour, so the replay buffer keeps them.
    let now = Utc::now() - chrono::Duration::hours(1);
    DateTime::from_timestamp(now.timestamp() - now.timestamp() % 60, 0).unwrap()
}

fn fix(t0: DateTime<Utc>, secs: i64, lat: f64, lng: f64, kmh: i32) -> Fix {
    Fix {
        time: t0 + chrono::Duration::seconds(secs),
        lat,
        lng,
        speed_dkmh: kmh * 10,
    }
}

/// 1 km north of (31.0, 121.0) is outside every test fence near it.
const OUT: (f64, f64) = (31.01, 121.0);
const IN: (f64, f64) = (31.0, 121.0);

async fn fences_are_created_listed_edited_and_deleted_and_bad_shapes_are_refused_in_chinese(
    s: &Stack,
) {
    let a = s.tenant(1).await;
    let created = s
        .create(&a, circle(a.org, "一号仓", 31.0, 121.0, 300, 30))
        .await
        .unwrap();
    assert_eq!(created.radius_m, 300);
    assert_eq!(created.dwell_seconds, 30);
    let mut polygon = circle(a.org, "园区", 0.0, 0.0, 0, 0);
    polygon.shape = pb::GeofenceShape::Polygon as i32;
    polygon.center = None;
    polygon.vertices = vec![geo(31.0, 121.0), geo(31.0, 121.01), geo(31.01, 121.01)];
    polygon.speed_limit_kmh = Some(20);
    polygon.active_windows = vec![pb::GeofenceActiveWindow {
        weekdays: vec![1, 2, 3, 4, 5],
        start_minute: 8 * 60,
        end_minute: 18 * 60,
    }];
    let poly = s.create(&a, polygon.clone()).await.unwrap();
    assert_eq!(poly.vertices.len(), 3);
    assert_eq!(poly.speed_limit_kmh, Some(20));
    assert_eq!(poly.active_windows[0].weekdays, [1, 2, 3, 4, 5]);
    assert_eq!(s.list(&a).await.len(), 2);

    // Refusals name the field, in Chinese.
    let mut two = polygon.clone();
    two.vertices.truncate(2);
    let err = s.create(&a, two).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::BadRequest);
    assert_eq!(err.fields[0].field, "points");
    assert_eq!(err.fields[0].message, "多边形至少需要 3 个点");
    let mut bow = polygon.clone();
    bow.vertices = vec![geo(0.0, 0.0), geo(1.0, 1.0), geo(0.0, 1.0), geo(1.0, 0.0)];
    assert_eq!(
        s.create(&a, bow).await.unwrap_err().fields[0].message,
        "多边形的边不能相交"
    );
    let err = s
        .create(&a, circle(a.org, "小", 31.0, 121.0, 10, 0))
        .await
        .unwrap_err();
    assert_eq!(err.fields[0].field, "radiusM");
    let err = s
        .create(&a, circle(a.org, "远", 95.0, 121.0, 100, 0))
        .await
        .unwrap_err();
    assert_eq!(err.fields[0].message, "纬度须在 -90 到 90 之间");
    let mut corridor = polygon.clone();
    corridor.shape = pb::GeofenceShape::Corridor as i32;
    corridor.corridor_width_m = 6_000;
    let err = s.create(&a, corridor.clone()).await.unwrap_err();
    assert_eq!(err.fields[0].field, "corridorWidthM");
    corridor.corridor_width_m = 100;
    assert_eq!(s.create(&a, corridor).await.unwrap().corridor_width_m, 100);

    // Edit replaces the fields; delete removes the fence.
    let mut edited = circle(a.org, "一号仓（扩建）", 31.0, 121.0, 800, 0);
    edited.enabled = false;
    let updated = s
        .telemetry
        .clone()
        .update_geofence(s.fence_req(
            &a,
            pb::UpdateGeofenceRequest {
                geofence_id: created.id.clone(),
                geofence: Some(edited),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .geofence
        .unwrap();
    assert_eq!(updated.name, "一号仓（扩建）");
    assert_eq!((updated.radius_m, updated.enabled), (800, false));
    s.telemetry
        .clone()
        .delete_geofence(s.fence_req(
            &a,
            pb::DeleteGeofenceRequest {
                geofence_id: created.id.clone(),
            },
        ))
        .await
        .unwrap();
    let gone = s
        .telemetry
        .clone()
        .get_geofence(s.fence_req(
            &a,
            pb::GetGeofenceRequest {
                geofence_id: created.id,
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(ServiceError::from_status(&gone).code, ErrorCode::NotFound);
    assert_eq!(s.list(&a).await.len(), 2);
}

async fn an_idempotency_key_creates_once_and_refuses_another_body(s: &Stack) {
    let a = s.tenant(1).await;
    let input = circle(a.org, "一号仓", 31.0, 121.0, 300, 0);
    let first = s
        .create_keyed(&a, input.clone(), Some("k-1"))
        .await
        .unwrap();
    let again = s
        .create_keyed(&a, input.clone(), Some("k-1"))
        .await
        .unwrap();
    assert_eq!(first.id, again.id);
    assert_eq!(s.list(&a).await.len(), 1);
    let mut other = input;
    other.name = "二号仓".into();
    let err = s.create_keyed(&a, other, Some("k-1")).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Conflict);
    assert_eq!(s.list(&a).await.len(), 1);
}

async fn published_fixes_enter_and_exit_only_after_the_dwell_with_sign_ins_and_speeding_alarms(
    s: &Stack,
) {
    let a = s.tenant(1).await;
    let v = a.vehicles[0];
    let mut fence = circle(a.org, "一号仓", IN.0, IN.1, 200, 30);
    fence.alert_on_enter = true;
    fence.speed_limit_kmh = Some(30);
    let fence = s.create(&a, fence).await.unwrap();
    let mut point = circle(a.org, "签到点", IN.0, IN.1, 100, 0);
    point.purpose = pb::GeofencePurpose::SignIn as i32;
    let point = s.create(&a, point).await.unwrap();

    let t0 = base();
    let mut fixes = Vec::new();
    for i in 0..6 {
        fixes.push(fix(t0, i * 10, OUT.0, OUT.1, 40));
    }
    // 10 s inside, shorter than the dwell: no crossing of the 30 s fence.
    fixes.push(fix(t0, 60, IN.0, IN.1, 20));
    fixes.push(fix(t0, 70, OUT.0, OUT.1, 40));
    for i in 8..31 {
        // Fast for one fix at 120 s: a speeding alarm inside the fence.
        let kmh = if i == 12 { 50 } else { 10 };
        fixes.push(fix(t0, i * 10, IN.0, IN.1, kmh));
    }
    for i in 31..41 {
        fixes.push(fix(t0, i * 10, OUT.0, OUT.1, 40));
    }
    s.publish(&a, v, &fixes, false).await;
    s.wait_for_fixes(v, fixes.len() as i64).await;

    let at = |secs: i64| {
        Some(fleetdesk_kit::convert::timestamp(
            t0 + chrono::Duration::seconds(secs),
        ))
    };
    let of_fence: Vec<_> = s
        .crossings(&a, None)
        .await
        .into_iter()
        .filter(|c| c.geofence_id == fence.id)
        .map(|c| (c.direction, c.cross_time, c.dwell_seconds, c.alarmed))
        .collect();
    assert_eq!(
        of_fence,
        [
            (pb::CrossingDirection::Enter as i32, at(80), 0, true),
            (pb::CrossingDirection::Exit as i32, at(310), 230, false),
        ]
    );
    // The sign-in point has no dwell: the brief visit at 60 s counts too.
    let sign_ins = s
        .telemetry
        .clone()
        .list_geofence_sign_ins(s.fence_req(
            &a,
            pb::ListGeofenceSignInsRequest {
                page: None,
                geofence_ids: vec![point.id.clone()],
                ..Default::default()
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .sign_ins;
    let times: Vec<_> = sign_ins.iter().rev().map(|s| s.sign_time).collect();
    assert_eq!(times, [at(60), at(80)]);
    assert_eq!(sign_ins[0].point_name, "签到点");
    let alarms = s
        .telemetry
        .clone()
        .list_geofence_alarms(s.fence_req(&a, pb::ListGeofenceAlarmsRequest::default()))
        .await
        .unwrap()
        .into_inner()
        .alarms;
    let kinds: Vec<_> = alarms
        .iter()
        .rev()
        .map(|a| (a.kind, a.alarm_time, a.limit_kmh))
        .collect();
    assert_eq!(
        kinds,
        [
            (pb::GeofenceAlarmKind::Enter as i32, at(80), 0),
            (pb::GeofenceAlarmKind::Speeding as i32, at(120), 30),
        ]
    );
    // Outside at the end: nobody inside.
    let inside = s
        .telemetry
        .clone()
        .list_vehicles_in_geofence(s.fence_req(
            &a,
            pb::ListVehiclesInGeofenceRequest {
                geofence_id: fence.id.clone(),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .vehicles;
    assert!(inside.is_empty());
    let dashboard = s
        .telemetry
        .clone()
        .get_geofence_dashboard(s.fence_req(
            &a,
            pb::GetGeofenceDashboardRequest {
                org_ids: Vec::new(),
                time_range: Some(common::TimeRange {
                    start: at(-3600),
                    end: at(3600),
                }),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .dashboard
        .unwrap();
    assert_eq!(dashboard.geofence_count, 2);
    assert_eq!(
        dashboard.enter_count, 3,
        "one fence entry, two sign-in point entries"
    );
    let dwell = dashboard
        .dwell
        .iter()
        .find(|d| d.geofence_id == fence.id)
        .unwrap();
    assert_eq!((dwell.entries, dwell.max_dwell_seconds), (1, 230));

    // Still inside after more fixes: the inside list shows it since the enter.
    let back: Vec<Fix> = (50..60).map(|i| fix(t0, i * 10, IN.0, IN.1, 5)).collect();
    s.publish(&a, v, &back, false).await;
    s.wait_for_fixes(v, (fixes.len() + back.len()) as i64).await;
    let inside = s
        .telemetry
        .clone()
        .list_vehicles_in_geofence(s.fence_req(
            &a,
            pb::ListVehiclesInGeofenceRequest {
                geofence_id: fence.id.clone(),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .vehicles;
    assert_eq!(inside.len(), 1);
    assert_eq!(inside[0].entered_at, at(500));
}

/// A route through a circle, a polygon and a corridor, with visits shorter
/// than the dwell, a speeding stretch and a sign-in point: 240 fixes.
fn route(t0: DateTime<Utc>) -> Vec<Fix> {
    let mut fixes = Vec::new();
    for i in 0..240i64 {
        // Along the latitude 31.0 eastwards, 0.0005° (about 48 m) per fix,
        // wobbling north now and then (out of the corridor, briefly).
        let lng = 121.0 + 0.0005 * i as f64;
        let lat = if i % 37 == 5 { 31.004 } else { 31.0 };
        // Two fast stretches inside the polygon (limit 40): two alarms.
        let kmh = if (100..105).contains(&i) || (120..123).contains(&i) {
            60
        } else {
            15
        };
        fixes.push(fix(t0, i * 10, lat, lng, kmh));
    }
    fixes
}

async fn route_fences(s: &Stack, t: &Tenant) {
    let mut c = circle(t.org, "圆", 31.0, 121.02, 300, 20);
    c.alert_on_exit = true;
    s.create(t, c).await.unwrap();
    let mut p = circle(t.org, "多边形", 0.0, 0.0, 0, 40);
    p.shape = pb::GeofenceShape::Polygon as i32;
    p.center = None;
    p.vertices = vec![
        geo(30.998, 121.045),
        geo(31.002, 121.045),
        geo(31.002, 121.07),
        geo(30.998, 121.07),
    ];
    p.speed_limit_kmh = Some(40);
    // About 500 s inside on the route: one overstay.
    p.max_dwell_minutes = 5;
    s.create(t, p).await.unwrap();
    let mut r = circle(t.org, "路线", 0.0, 0.0, 0, 0);
    r.shape = pb::GeofenceShape::Corridor as i32;
    r.center = None;
    r.vertices = vec![geo(31.0, 121.08), geo(31.0, 121.12)];
    r.corridor_width_m = 200;
    r.alert_on_enter = true;
    s.create(t, r).await.unwrap();
    let mut sign = circle(t.org, "签到", 31.0, 121.1, 60, 0);
    sign.purpose = pb::GeofencePurpose::SignIn as i32;
    s.create(t, sign).await.unwrap();
}

/// A crossing without its ids: name, direction, time, confirmation, latitude, dwell, alarmed.
type CrossingKey = (
    String,
    i16,
    DateTime<Utc>,
    DateTime<Utc>,
    f64,
    Option<i64>,
    bool,
);

/// Every found row of a vehicle, keyed so two vehicles compare.
async fn found(s: &Stack, vehicle: Uuid) -> Vec<String> {
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    let crossings: Vec<CrossingKey> = sqlx::query_as(
        "select geofence_name, direction, cross_time, confirmed_at, lat, dwell_seconds, alarmed \
         from geofence_crossing where vehicle_id = $1 order by cross_time, geofence_name, direction",
    )
    .bind(vehicle)
    .fetch_all(&mut *tx)
    .await
    .unwrap();
    let alarms: Vec<(String, i16, DateTime<Utc>)> = sqlx::query_as(
        "select geofence_name, kind, alarm_time from geofence_alarm where vehicle_id = $1 \
         order by alarm_time, geofence_name, kind",
    )
    .bind(vehicle)
    .fetch_all(&mut *tx)
    .await
    .unwrap();
    let sign_ins: Vec<(String, DateTime<Utc>)> = sqlx::query_as(
        "select point_name, sign_time from sign_in where vehicle_id = $1 order by sign_time",
    )
    .bind(vehicle)
    .fetch_all(&mut *tx)
    .await
    .unwrap();
    let states: Vec<(String, bool, Option<DateTime<Utc>>)> = sqlx::query_as(
        "select g.name, s.inside, s.since from geofence_state s join geofence g on g.id = s.geofence_id \
         where s.vehicle_id = $1 and (s.inside or s.pending_inside is not null) order by g.name",
    )
    .bind(vehicle)
    .fetch_all(&mut *tx)
    .await
    .unwrap();
    crossings
        .iter()
        .map(|c| format!("crossing {c:?}"))
        .chain(alarms.iter().map(|a| format!("alarm {a:?}")))
        .chain(sign_ins.iter().map(|s| format!("sign-in {s:?}")))
        .chain(states.iter().map(|s| format!("state {s:?}")))
        .collect()
}

/// A seeded shuffle (no rand dependency): xorshift and Fisher–Yates.
fn shuffled<T: Clone>(items: &[T], seed: u64) -> Vec<T> {
    let mut out = items.to_vec();
    let mut x = seed.max(1);
    for i in (1..out.len()).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.swap(i, (x % (i as u64 + 1)) as usize);
    }
    out
}

async fn shuffled_and_backfilled_fixes_give_exactly_the_crossings_of_in_order_ones(s: &Stack) {
    let a = s.tenant(3).await;
    route_fences(s, &a).await;
    let t0 = base();
    let fixes = route(t0);
    let (in_order, shuffled_v, backfilled) = (a.vehicles[0], a.vehicles[1], a.vehicles[2]);

    s.publish(&a, in_order, &fixes, false).await;
    s.wait_for_fixes(in_order, fixes.len() as i64).await;
    let expected = found(s, in_order).await;
    let crossings = expected
        .iter()
        .filter(|r| r.starts_with("crossing"))
        .count();
    assert!(
        crossings >= 6,
        "the route crosses every fence: {expected:#?}"
    );
    assert!(expected.iter().any(|r| r.starts_with("sign-in")));
    assert!(expected.iter().any(|r| r.starts_with("alarm")));
    assert!(
        expected
            .iter()
            .any(|r| r.starts_with("alarm (\"多边形\", 4,")),
        "the polygon's overstay: {expected:#?}"
    );

    // The same fixes in a random order, in several publishes.
    let mixed = shuffled(&fixes, 7);
    for chunk in mixed.chunks(50) {
        s.publish(&a, shuffled_v, chunk, false).await;
    }
    s.wait_for_fixes(shuffled_v, fixes.len() as i64).await;
    assert_eq!(found(s, shuffled_v).await, expected);

    // A blind zone: the middle third arrives after the rest, as a backfill.
    let (before, rest) = fixes.split_at(80);
    let (blind, after) = rest.split_at(80);
    s.publish(&a, backfilled, before, false).await;
    s.publish(&a, backfilled, after, false).await;
    s.wait_for_fixes(backfilled, 160).await;
    s.publish(&a, backfilled, blind, true).await;
    s.wait_for_fixes(backfilled, fixes.len() as i64).await;
    assert_eq!(found(s, backfilled).await, expected);
}

async fn any_batching_and_order_evaluated_directly_gives_the_same_rows(s: &Stack) {
    let a = s.tenant(6).await;
    route_fences(s, &a).await;
    let t0 = base();
    let fixes = route(t0);
    let mut pipeline = Pipeline::new(s.app.clone());
    let input = |v: Uuid, f: &[Fix]| -> Vec<FixRow> {
        f.iter()
            .map(|fix| FixRow {
                enterprise_id: a.enterprise,
                vehicle_id: v,
                fix_time: fix.time,
                receive_time: fix.time,
                lat: fix.lat,
                lng: fix.lng,
                altitude_m: 0,
                speed_dkmh: fix.speed_dkmh,
                heading: 0,
                alarm_bits: 0,
                status_bits: 0,
                mileage_m: None,
                soc: None,
                temperatures: Vec::new(),
                backfill: false,
                device_time: None,
            })
            .collect()
    };
    let reference = a.vehicles[0];
    pipeline.apply(input(reference, &fixes)).await.unwrap();
    let expected = found(s, reference).await;
    // Newest first, one fix per batch: every fix but the first is late.
    let v = a.vehicles[1];
    for f in fixes.iter().rev() {
        pipeline
            .apply(input(v, std::slice::from_ref(f)))
            .await
            .unwrap();
    }
    assert_eq!(found(s, v).await, expected, "reversed");
    // Random orders in random batch sizes, and a resend of everything.
    for (n, seed) in [(2usize, 11u64), (3, 12), (4, 13)] {
        let v = a.vehicles[n];
        let mixed = shuffled(&fixes, seed);
        let mut rest = &mixed[..];
        let mut size = 1;
        while !rest.is_empty() {
            let (batch, tail) = rest.split_at(size.min(rest.len()));
            pipeline.apply(input(v, batch)).await.unwrap();
            rest = tail;
            size = size * 3 % 41 + 1;
        }
        let again = pipeline.apply(input(v, &mixed)).await.unwrap();
        assert_eq!(
            (again.stored, again.fences.fixes),
            (0, 0),
            "a resend is dropped"
        );
        assert_eq!(found(s, v).await, expected, "seed {seed}");
    }
    // Two replicas take a new vehicle's first fixes at once: the one that
    // inserts its latest position second waits, then follows the first.
    let v = a.vehicles[5];
    let (first, second) = fixes.split_at(fixes.len() / 2);
    let mut other = Pipeline::new(s.app.clone());
    let (x, y) = tokio::join!(
        pipeline.apply(input(v, second)),
        other.apply(input(v, first))
    );
    x.unwrap();
    y.unwrap();
    assert_eq!(found(s, v).await, expected, "two replicas at once");
}

async fn a_thousand_fences_in_an_enterprise_still_find_the_right_ones(s: &Stack) {
    let a = s.tenant(1).await;
    // A 40 x 25 grid of 150 m circles, 0.01° apart, straight into the table.
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    for i in 0..1_000 {
        let (row, col) = (i / 40, i % 40);
        sqlx::query(
            "insert into geofence (id, enterprise_id, org_id, name, purpose, shape, center_lat, \
             center_lng, radius_m) values ($1, $2, $3, $4, 1, 1, $5, $6, 150)",
        )
        .bind(Uuid::new_v4())
        .bind(a.enterprise)
        .bind(a.org)
        .bind(format!("网格{i:04}"))
        .bind(30.0 + 0.01 * f64::from(row))
        .bind(120.0 + 0.01 * f64::from(col))
        .execute(&mut *tx)
        .await
        .unwrap();
    }
    tx.commit().await.unwrap();
    // One more through the API: it bumps the enterprise's fence version.
    s.create(&a, circle(a.org, "网格外", 29.0, 119.0, 100, 0))
        .await
        .unwrap();
    assert_eq!(
        s.telemetry
            .clone()
            .list_geofences(s.fence_req(&a, pb::ListGeofencesRequest::default()))
            .await
            .unwrap()
            .into_inner()
            .page
            .unwrap()
            .total,
        1_001
    );
    let t0 = base();
    let v = a.vehicles[0];
    // Visit the centre of fence (row 3, col 17) = #137, then (row 20, col 5) = #805,
    // then a point between fences.
    let stops = [(30.03, 120.17), (30.20, 120.05), (30.205, 120.055)];
    let mut fixes = Vec::new();
    for (k, (lat, lng)) in stops.iter().enumerate() {
        for j in 0..3 {
            fixes.push(fix(t0, (k as i64 * 3 + j) * 10, *lat, *lng, 0));
        }
    }
    s.publish(&a, v, &fixes, false).await;
    s.wait_for_fixes(v, fixes.len() as i64).await;
    let mut seen: Vec<(String, i32)> = s
        .crossings(&a, None)
        .await
        .into_iter()
        .map(|c| (c.geofence_name, c.direction))
        .collect();
    // Leaving one fence and entering the next share a fix time.
    seen.sort();
    let (enter, exit) = (
        pb::CrossingDirection::Enter as i32,
        pb::CrossingDirection::Exit as i32,
    );
    assert_eq!(
        seen,
        [
            ("网格0137".to_owned(), enter),
            ("网格0137".to_owned(), exit),
            ("网格0805".to_owned(), enter),
            ("网格0805".to_owned(), exit),
        ]
    );
}

async fn another_tenant_sees_none_of_the_fences_or_crossings_and_cannot_change_them(s: &Stack) {
    let (a, b) = (s.tenant(1).await, s.tenant(2).await);
    let fence = s
        .create(&a, circle(a.org, "一号仓", IN.0, IN.1, 200, 0))
        .await
        .unwrap();
    let t0 = base();
    let fixes = [
        fix(t0, 0, OUT.0, OUT.1, 0),
        fix(t0, 10, IN.0, IN.1, 0),
        fix(t0, 20, IN.0, IN.1, 0),
    ];
    s.publish(&a, a.vehicles[0], &fixes, false).await;
    s.wait_for_fixes(a.vehicles[0], 3).await;
    assert_eq!(s.crossings(&a, None).await.len(), 1);

    assert!(s.list(&b).await.is_empty());
    assert!(s.crossings(&b, None).await.is_empty());
    let not_found = |r: Result<(), tonic::Status>| {
        assert_eq!(
            ServiceError::from_status(&r.unwrap_err()).code,
            ErrorCode::NotFound
        );
    };
    let mut client = s.telemetry.clone();
    not_found(
        client
            .get_geofence(s.fence_req(
                &b,
                pb::GetGeofenceRequest {
                    geofence_id: fence.id.clone(),
                },
            ))
            .await
            .map(|_| ()),
    );
    not_found(
        client
            .update_geofence(s.fence_req(
                &b,
                pb::UpdateGeofenceRequest {
                    geofence_id: fence.id.clone(),
                    geofence: Some(circle(b.org, "改", 0.0, 0.0, 100, 0)),
                },
            ))
            .await
            .map(|_| ()),
    );
    not_found(
        client
            .delete_geofence(s.fence_req(
                &b,
                pb::DeleteGeofenceRequest {
                    geofence_id: fence.id.clone(),
                },
            ))
            .await
            .map(|_| ()),
    );
    not_found(
        client
            .list_vehicles_in_geofence(s.fence_req(
                &b,
                pb::ListVehiclesInGeofenceRequest {
                    geofence_id: fence.id.clone(),
                },
            ))
            .await
            .map(|_| ()),
    );
    // B watching A's vehicle is refused as an unknown vehicle.
    let mut watch = circle(b.org, "监控", IN.0, IN.1, 200, 0);
    watch.all_vehicles = false;
    watch.vehicle_ids = vec![a.vehicles[0].to_string()];
    let err = s.create(&b, watch).await.unwrap_err();
    assert_eq!(err.fields[0].field, "vehicleIds");
    // A's fence is untouched.
    assert_eq!(s.list(&a).await[0].name, "一号仓");
}

async fn a_stay_past_the_max_raises_one_overstay_and_a_backfilled_earlier_exit_removes_it(
    s: &Stack,
) {
    let a = s.tenant(1).await;
    let v = a.vehicles[0];
    let mut fence = circle(a.org, "限时装卸区", IN.0, IN.1, 200, 0);
    fence.max_dwell_minutes = 5;
    let fence = s.create(&a, fence).await.unwrap();
    assert_eq!(fence.max_dwell_minutes, 5);
    let t0 = base();
    let at = |secs: i64| {
        Some(fleetdesk_kit::convert::timestamp(
            t0 + chrono::Duration::seconds(secs),
        ))
    };
    let overstays = || async {
        s.telemetry
            .clone()
            .list_geofence_alarms(s.fence_req(
                &a,
                pb::ListGeofenceAlarmsRequest {
                    kinds: vec![pb::GeofenceAlarmKind::Overstay as i32],
                    ..Default::default()
                },
            ))
            .await
            .unwrap()
            .into_inner()
            .alarms
    };
    // In at 60, no fix between 180 and 420 (a blind zone), out at 600.
    let mut fixes = vec![fix(t0, 0, OUT.0, OUT.1, 30)];
    for t in [60, 120, 180, 420, 480, 540] {
        fixes.push(fix(t0, t, IN.0, IN.1, 0));
    }
    fixes.push(fix(t0, 600, OUT.0, OUT.1, 30));
    s.publish(&a, v, &fixes, false).await;
    s.wait_for_fixes(v, fixes.len() as i64).await;
    let found = overstays().await;
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        (
            found[0].alarm_time,
            found[0].max_stay_minutes,
            &found[0].geofence_id
        ),
        (at(60 + 300), 5, &fence.id),
        "timed when the stay reached five minutes"
    );
    // The blind zone uploaded: the vehicle was out at 240 and 300, so no
    // stay lasted five minutes and the alarm goes.
    let blind = [
        fix(t0, 240, OUT.0, OUT.1, 30),
        fix(t0, 300, OUT.0, OUT.1, 30),
    ];
    s.publish(&a, v, &blind, true).await;
    s.wait_for_fixes(v, (fixes.len() + blind.len()) as i64)
        .await;
    assert!(overstays().await.is_empty());
    let directions: Vec<i32> = s
        .crossings(&a, None)
        .await
        .iter()
        .map(|c| c.direction)
        .collect();
    let (enter, exit) = (
        pb::CrossingDirection::Enter as i32,
        pb::CrossingDirection::Exit as i32,
    );
    assert_eq!(directions, [enter, exit, enter, exit]);
}

async fn the_dashboard_counts_only_the_fences_of_the_chosen_organisations(s: &Stack) {
    let a = s.tenant(2).await;
    // A depot organisation under the tenant's head office.
    let depot = Uuid::new_v4();
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query(
        "insert into org_unit (id, enterprise_id, parent_id, name, path, version) \
         values ($1, $2, $3, '一号仓储部', $4, 1)",
    )
    .bind(depot)
    .bind(a.enterprise)
    .bind(a.org)
    .bind(format!("/{}/{depot}/", a.org))
    .execute(&mut *tx)
    .await
    .unwrap();
    tx.commit().await.unwrap();
    let far = (31.1, 121.1);
    let head_fence = s
        .create(&a, circle(a.org, "总部围栏", IN.0, IN.1, 200, 0))
        .await
        .unwrap();
    let depot_fence = s
        .create(&a, circle(depot, "仓储部围栏", far.0, far.1, 200, 0))
        .await
        .unwrap();
    let t0 = base();
    for (v, (lat, lng)) in [(a.vehicles[0], IN), (a.vehicles[1], far)] {
        let fixes = [
            fix(t0, 0, lat + 0.01, lng, 30),
            fix(t0, 10, lat, lng, 0),
            fix(t0, 20, lat, lng, 0),
        ];
        s.publish(&a, v, &fixes, false).await;
        s.wait_for_fixes(v, 3).await;
    }
    let a = &a;
    let dashboard = |orgs: Vec<Uuid>| async move {
        s.telemetry
            .clone()
            .get_geofence_dashboard(s.fence_req(
                a,
                pb::GetGeofenceDashboardRequest {
                    org_ids: orgs.iter().map(Uuid::to_string).collect(),
                    time_range: Some(common::TimeRange {
                        start: Some(fleetdesk_kit::convert::timestamp(
                            t0 - chrono::Duration::hours(1),
                        )),
                        end: Some(fleetdesk_kit::convert::timestamp(
                            t0 + chrono::Duration::hours(1),
                        )),
                    }),
                },
            ))
            .await
            .unwrap()
            .into_inner()
            .dashboard
            .unwrap()
    };
    let depot_only = dashboard(vec![depot]).await;
    assert_eq!(
        (
            depot_only.geofence_count,
            depot_only.enter_count,
            depot_only.vehicles_inside
        ),
        (1, 1, 1)
    );
    let fences: Vec<&str> = depot_only
        .dwell
        .iter()
        .map(|d| d.geofence_id.as_str())
        .collect();
    assert_eq!(fences, [depot_fence.id.as_str()]);
    // The head office takes in its depot.
    for orgs in [vec![a.org], Vec::new()] {
        let all = dashboard(orgs).await;
        assert_eq!(
            (all.geofence_count, all.enter_count, all.vehicles_inside),
            (2, 2, 2)
        );
        assert!(all.dwell.iter().any(|d| d.geofence_id == head_fence.id));
    }
}

#[tokio::test]
async fn geofences_on_one_stack() {
    let s = support::stack().await;
    fleetdesk_testkit::scenarios!(&s;
        fences_are_created_listed_edited_and_deleted_and_bad_shapes_are_refused_in_chinese,
        an_idempotency_key_creates_once_and_refuses_another_body,
        published_fixes_enter_and_exit_only_after_the_dwell_with_sign_ins_and_speeding_alarms,
        shuffled_and_backfilled_fixes_give_exactly_the_crossings_of_in_order_ones,
        any_batching_and_order_evaluated_directly_gives_the_same_rows,
        a_thousand_fences_in_an_enterprise_still_find_the_right_ones,
        another_tenant_sees_none_of_the_fences_or_crossings_and_cannot_change_them,
        a_stay_past_the_max_raises_one_overstay_and_a_backfilled_earlier_exit_removes_it,
        the_dashboard_counts_only_the_fences_of_the_chosen_organisations,
    );
}

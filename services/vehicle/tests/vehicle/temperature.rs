//! Temperature monitoring over the real vehicle service: gRPC on port 0, a
//! fresh PostgreSQL database and a private JetStream server, one stack for
//! the whole file; each scenario makes its own tenants on it. Fixes
//! with probe readings are published to the telemetry stream as the device
//! edge publishes them, or handed to evaluation directly where the order and
//! batching are what a test varies.

use std::time::Duration;

use chrono::{DateTime, Utc};
use fleetdesk_kit::{ErrorCode, ServiceError, db};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::telematics::v1 as tpb;
use fleetdesk_proto::vehicle::v1 as pb;
use fleetdesk_telemetry::temperature::evaluate::{self, ReadingIn};
use prost::Message as _;
use uuid::Uuid;

use crate::support;

use support::{Stack, Tenant};

fn err(s: &tonic::Status) -> ServiceError {
    ServiceError::from_status(s)
}

fn page() -> Option<common::PageRequest> {
    Some(common::PageRequest { page: 1, size: 100 })
}

fn ts(t: DateTime<Utc>) -> prost_types::Timestamp {
    prost_types::Timestamp {
        seconds: t.timestamp(),
        nanos: 0,
    }
}

/// A minute boundary an hour ago: inside the buffer and the share's 24 h.
/// Taken once: a scenario that publishes in one minute and checks in the
/// next must see the same times.
fn base() -> DateTime<Utc> {
    static BASE: std::sync::OnceLock<DateTime<Utc>> = std::sync::OnceLock::new();
    *BASE.get_or_init(|| {
        let now = Utc::now() - chrono::Duration::hours(1);
        DateTime::from_timestamp(now.timestamp() - now.timestamp() % 60, 0).unwrap()
    })
}

fn at(s: i64) -> DateTime<Utc> {
    base() + chrono::Duration::seconds(s)
}

/// (seconds after base, tenths) of probe 1: a 200 s excursion (below the
/// 300 s minimum), then one seen out of band for 400 s, then back in band.
fn profile() -> Vec<(i64, i32)> {
    let mut r: Vec<(i64, i32)> = vec![(0, -180)];
    r.extend((1..=20).map(|i: i64| (i * 10, -100)));
    r.push((210, -170));
    r.extend((0..=40).map(|i: i32| (300 + i64::from(i) * 10, -90 - i)));
    r.push((710, -175));
    r
}

impl Stack {
    /// A scenario's own tenants: `a` with two vehicles (粤B…), `b` with one (沪A…).
    async fn tenants(&self) -> (Tenant, Tenant) {
        (
            self.tenant_with_plates(2, "粤B").await,
            self.tenant_with_plates(1, "沪A").await,
        )
    }

    fn temperature_req<T>(&self, t: &Tenant, message: T) -> tonic::Request<T> {
        self.req_as(t, t.user, &["as:temperature"], message)
    }

    async fn set_band(&self, t: &Tenant, vehicle: Uuid) -> Result<(), ServiceError> {
        self.telemetry
            .clone()
            .set_temperature_threshold(self.temperature_req(
                t,
                pb::SetTemperatureThresholdRequest {
                    threshold: Some(pb::TemperatureThreshold {
                        vehicle_id: vehicle.to_string(),
                        probe_no: 0,
                        min_celsius: -20.0,
                        max_celsius: -15.0,
                        min_duration_seconds: 300,
                    }),
                },
            ))
            .await
            .map(|_| ())
            .map_err(|s| err(&s))
    }

    async fn alarms(&self, t: &Tenant) -> Vec<pb::TemperatureAlarm> {
        self.telemetry
            .clone()
            .list_temperature_alarms(self.temperature_req(
                t,
                pb::ListTemperatureAlarmsRequest {
                    page: page(),
                    ..Default::default()
                },
            ))
            .await
            .unwrap()
            .into_inner()
            .alarms
    }

    async fn readings(&self, t: &Tenant) -> Vec<pb::TemperatureReading> {
        self.telemetry
            .clone()
            .list_temperature_readings(self.temperature_req(
                t,
                pb::ListTemperatureReadingsRequest {
                    page: page(),
                    record_time: Some(common::TimeRange {
                        start: Some(ts(at(-3600))),
                        end: Some(ts(at(3600))),
                    }),
                    ..Default::default()
                },
            ))
            .await
            .unwrap()
            .into_inner()
            .readings
    }

    async fn publish_readings(&self, t: &Tenant, vehicle: Uuid, readings: &[(i64, i32)]) {
        let fixes: Vec<(i64, Option<i32>)> = readings.iter().map(|&(s, d)| (s, Some(d))).collect();
        self.publish_fixes(t, vehicle, &fixes).await;
    }

    /// Fixes at (seconds after base, probe 1's tenths); `None`: a fix
    /// without probes (an alarm photo's position).
    async fn publish_fixes(&self, t: &Tenant, vehicle: Uuid, readings: &[(i64, Option<i32>)]) {
        let client = async_nats::connect(self.nats.url()).await.unwrap();
        let js = async_nats::jetstream::new(client);
        fleetdesk_telemetry::ingest::ensure_stream(&js)
            .await
            .unwrap();
        let mut acks = Vec::new();
        for &(s, deci) in readings {
            let payload = tpb::Fix {
                terminal: "13800000000".into(),
                enterprise_id: t.enterprise.to_string(),
                vehicle_id: vehicle.to_string(),
                fix_time: Some(ts(at(s))),
                receive_time: Some(ts(Utc::now())),
                latitude: 22.54,
                longitude: 114.05,
                temperatures: deci
                    .map(|deci_celsius| tpb::ProbeTemperature {
                        probe: 1,
                        deci_celsius,
                    })
                    .into_iter()
                    .collect(),
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

    /// Polls until `table` holds `n` rows of the vehicle (what the consumers committed).
    async fn wait_for(&self, table: &str, vehicle: Uuid, n: i64) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        loop {
            let mut tx = db::begin_service(&self.owner).await.unwrap();
            let count: i64 = sqlx::query_scalar(&format!(
                "select count(*) from {table} where vehicle_id = $1"
            ))
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
                "only {count} of {n} rows in {table}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Alarms of one vehicle as (started, ended, min, max), straight from the table.
    async fn alarm_rows(
        &self,
        vehicle: Uuid,
    ) -> Vec<(DateTime<Utc>, Option<DateTime<Utc>>, i32, i32)> {
        let mut tx = db::begin_service(&self.owner).await.unwrap();
        sqlx::query_as(
            "select started_at, ended_at, min_seen_deci, max_seen_deci from temperature_alarm \
             where vehicle_id = $1 order by started_at",
        )
        .bind(vehicle)
        .fetch_all(&mut *tx)
        .await
        .unwrap()
    }

    async fn share(
        &self,
        t: &Tenant,
        vehicle: Uuid,
        days: i64,
    ) -> Result<(String, String), ServiceError> {
        self.telemetry
            .clone()
            .create_temperature_share(self.temperature_req(
                t,
                pb::CreateTemperatureShareRequest {
                    vehicle_id: vehicle.to_string(),
                    consignee_name: "王收货".into(),
                    consignee_phone: "13900000000".into(),
                    expires_at: Some(ts(Utc::now() + chrono::Duration::days(days))),
                },
            ))
            .await
            .map(|r| {
                let r = r.into_inner();
                (r.share.unwrap().id, r.token)
            })
            .map_err(|s| err(&s))
    }

    /// The share view as the gateway's public route asks for it (any caller: the token decides).
    async fn shared(
        &self,
        caller: &Tenant,
        token: &str,
    ) -> Result<pb::GetSharedTemperatureResponse, ServiceError> {
        self.telemetry
            .clone()
            .get_shared_temperature(self.temperature_req(
                caller,
                pb::GetSharedTemperatureRequest {
                    token: token.to_owned(),
                },
            ))
            .await
            .map(tonic::Response::into_inner)
            .map_err(|s| err(&s))
    }
}

async fn short_excursion_raises_nothing_long_one_raises_one_closed_back_in_band(s: &Stack) {
    let (a, _) = s.tenants().await;
    let v = a.vehicles[0];
    s.set_band(&a, v).await.unwrap();
    let readings = profile();
    // Up to the last out-of-band reading: the long excursion is open.
    let open_part = readings.len() - 1;
    s.publish_readings(&a, v, &readings[..open_part]).await;
    s.wait_for("temperature_eval_reading", v, open_part as i64)
        .await;
    let alarms = s.alarms(&a).await;
    assert_eq!(
        alarms.len(),
        1,
        "the 200 s excursion raised an alarm: {alarms:?}"
    );
    let alarm = &alarms[0];
    assert_eq!(alarm.started_at, Some(ts(at(300))));
    assert_eq!(alarm.ended_at, None);
    assert_eq!(alarm.probe_no, 1);
    assert_eq!(
        (alarm.min_seen_celsius, alarm.max_seen_celsius),
        (-13.0, -9.0)
    );
    assert_eq!(
        (alarm.threshold_min_celsius, alarm.threshold_max_celsius),
        (-20.0, -15.0)
    );
    // Back in band closes that alarm, and no second one appears.
    s.publish_readings(&a, v, &readings[open_part..]).await;
    s.wait_for("temperature_eval_reading", v, readings.len() as i64)
        .await;
    let alarms = s.alarms(&a).await;
    assert_eq!(alarms.len(), 1);
    assert_eq!(alarms[0].ended_at, Some(ts(at(710))));
    // The vehicle list shows the probe and no open alarm any more.
    s.wait_for("latest_position", v, 1).await;
    let list = s
        .telemetry
        .clone()
        .list_temperature_vehicles(s.temperature_req(
            &a,
            pb::ListTemperatureVehiclesRequest {
                page: page(),
                ..Default::default()
            },
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        list.vehicles.len(),
        1,
        "only the vehicle with a band or probes"
    );
    assert_eq!(list.vehicles[0].vehicle_id, v.to_string());
    assert_eq!(list.vehicles[0].open_alarms, 0);
    assert_eq!(list.vehicles[0].thresholds.len(), 1);
}

async fn reordered_and_duplicated_fixes_give_the_same_alarms(s: &Stack) {
    let (a, _) = s.tenants().await;
    let (ordered, shuffled) = (a.vehicles[0], a.vehicles[1]);
    s.set_band(&a, ordered).await.unwrap();
    s.set_band(&a, shuffled).await.unwrap();
    let reading = |v: Uuid, (sec, deci): (i64, i32)| ReadingIn {
        enterprise_id: a.enterprise,
        vehicle_id: v,
        probe: 1,
        time: at(sec),
        deci,
    };
    let profile = profile();
    let all: Vec<ReadingIn> = profile.iter().map(|r| reading(ordered, *r)).collect();
    evaluate::evaluate_batch(&s.app, &all).await.unwrap();
    // Newest first, in batches of 7, every batch sent twice: the closing
    // reading comes before the excursion it closes.
    let mut reversed: Vec<ReadingIn> = profile.iter().map(|r| reading(shuffled, *r)).collect();
    reversed.reverse();
    for chunk in reversed.chunks(7) {
        evaluate::evaluate_batch(&s.app, chunk).await.unwrap();
        evaluate::evaluate_batch(&s.app, chunk).await.unwrap();
    }
    let expected = s.alarm_rows(ordered).await;
    assert_eq!(expected.len(), 1);
    assert_eq!(expected[0].0, at(300));
    assert_eq!(expected[0].1, Some(at(710)));
    assert_eq!(s.alarm_rows(shuffled).await, expected);
    // A late in-band reading inside the excursion splits it into two shorter
    // ones, neither long enough: the alarm goes.
    evaluate::evaluate_batch(&s.app, &[reading(shuffled, (505, -170))])
        .await
        .unwrap();
    assert_eq!(s.alarm_rows(shuffled).await, vec![]);
}

async fn tenant_b_sees_none_of_a(s: &Stack) {
    let (a, b) = s.tenants().await;
    let v = a.vehicles[0];
    s.set_band(&a, v).await.unwrap();
    let readings = profile();
    s.publish_readings(&a, v, &readings).await;
    s.wait_for("temperature_eval_reading", v, readings.len() as i64)
        .await;
    s.wait_for("temperature_reading", v, readings.len() as i64)
        .await;
    s.share(&a, v, 7).await.unwrap();
    assert_eq!(s.alarms(&a).await.len(), 1);
    assert_eq!(s.readings(&a).await.len(), 64);
    assert!(s.alarms(&b).await.is_empty());
    assert!(s.readings(&b).await.is_empty());
    let shares = s
        .telemetry
        .clone()
        .list_temperature_shares(s.temperature_req(
            &b,
            pb::ListTemperatureSharesRequest {
                page: page(),
                ..Default::default()
            },
        ))
        .await
        .unwrap()
        .into_inner();
    assert!(shares.shares.is_empty());
    assert_eq!(
        s.set_band(&b, v).await.unwrap_err().code,
        ErrorCode::NotFound
    );
    assert_eq!(
        s.share(&b, v, 7).await.unwrap_err().code,
        ErrorCode::NotFound
    );
    let series = s
        .telemetry
        .clone()
        .list_temperature_series(s.temperature_req(
            &b,
            pb::ListTemperatureSeriesRequest {
                vehicle_id: v.to_string(),
                range: Some(common::TimeRange {
                    start: Some(ts(at(-60))),
                    end: Some(ts(at(3600))),
                }),
                max_points: 0,
            },
        ))
        .await
        .map_err(|s| err(&s))
        .unwrap_err();
    assert_eq!(series.code, ErrorCode::NotFound);
}

async fn share_link_shows_its_vehicle_until_revoked_or_expired(s: &Stack) {
    let (a, b) = s.tenants().await;
    let (v, other) = (a.vehicles[0], a.vehicles[1]);
    s.publish_readings(&a, v, &[(0, -180), (10, -181)]).await;
    s.publish_readings(&a, other, &[(0, 40)]).await;
    s.wait_for("temperature_reading", v, 2).await;
    s.wait_for("latest_position", v, 1).await;
    s.wait_for("temperature_reading", other, 1).await;
    assert_eq!(
        s.share(&a, v, 31).await.unwrap_err().code,
        ErrorCode::BadRequest
    );
    let (id, token) = s.share(&a, v, 7).await.unwrap();
    let view = s.shared(&b, &token).await.unwrap();
    assert_eq!(view.plate_number, "粤B00000");
    assert_eq!(view.latest.len(), 1);
    assert!((view.latest[0].celsius - -18.1).abs() < 1e-9);
    assert!(!view.readings.is_empty());
    assert!(view.readings.iter().all(|r| r.vehicle_id == v.to_string()));
    // A newer fix without probes keeps the last reading and its time.
    s.publish_fixes(&a, v, &[(20, None)]).await;
    s.wait_for("position", v, 3).await;
    let view = s.shared(&b, &token).await.unwrap();
    assert_eq!(view.latest.len(), 1, "the last reading stays");
    assert!((view.latest[0].celsius - -18.1).abs() < 1e-9);
    assert_eq!(view.latest_time, Some(ts(at(10))));
    assert_eq!(
        s.shared(&b, "not-a-token").await.unwrap_err().code,
        ErrorCode::NotFound
    );
    // Revoked: gone.
    s.telemetry
        .clone()
        .revoke_temperature_share(
            s.temperature_req(&a, pb::RevokeTemperatureShareRequest { share_id: id }),
        )
        .await
        .unwrap();
    let gone = s.shared(&b, &token).await.unwrap_err();
    assert_eq!(gone.code, ErrorCode::NotFound);
    assert!(gone.message.contains("失效"), "{}", gone.message);
    // Expired: gone too.
    let (id, token) = s.share(&a, v, 1).await.unwrap();
    assert!(s.shared(&b, &token).await.is_ok());
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query(
        "update temperature_share set expires_at = now() - interval '1 second' where id = $1",
    )
    .bind(Uuid::parse_str(&id).unwrap())
    .execute(&mut *tx)
    .await
    .unwrap();
    tx.commit().await.unwrap();
    assert_eq!(
        s.shared(&b, &token).await.unwrap_err().code,
        ErrorCode::NotFound
    );
}

async fn the_alarm_export_writes_the_lists_rows_under_the_callers_reach(s: &Stack) {
    use fleetdesk_kit::export::{Cell, ExportKind as _, JobScope};
    use fleetdesk_telemetry::temperature::export::TemperatureAlarmsExport;

    let (a, b) = s.tenants().await;
    let v = a.vehicles[0];
    s.set_band(&a, v).await.unwrap();
    let readings = profile();
    s.publish_readings(&a, v, &readings).await;
    s.wait_for("temperature_eval_reading", v, readings.len() as i64)
        .await;
    assert_eq!(s.alarms(&a).await.len(), 1);
    let export = |t: &Tenant, plates: &[&str]| {
        let request = s.temperature_req(
            t,
            pb::ExportTemperatureAlarmsRequest {
                filter: Some(pb::ListTemperatureAlarmsRequest {
                    plate_numbers: plates.iter().map(|p| (*p).to_owned()).collect(),
                    ..Default::default()
                }),
            },
        );
        let mut client = s.telemetry.clone();
        async move {
            let job = client
                .export_temperature_alarms(request)
                .await
                .unwrap()
                .into_inner()
                .job
                .unwrap();
            Uuid::parse_str(&job.id).unwrap()
        }
    };
    // The job as the worker reads it, once the worker finished it.
    let finished = |job: Uuid| async move {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        loop {
            let mut tx = db::begin_service(&s.owner).await.unwrap();
            let row: (i16, i64, Uuid, Option<Uuid>, serde_json::Value, Vec<u8>) = sqlx::query_as(
                "select status, rows_done, enterprise_id, requested_by, reach, filter \
                 from export_job where id = $1",
            )
            .bind(job)
            .fetch_one(&mut *tx)
            .await
            .unwrap();
            drop(tx);
            if row.0 == 3 {
                let scope = JobScope {
                    id: job,
                    enterprise_id: row.2,
                    requested_by: row.3,
                    reach: row.4,
                    filter: row.5,
                };
                return (row.1, scope);
            }
            assert!(row.0 < 4, "export job ended in status {}", row.0);
            assert!(tokio::time::Instant::now() < deadline, "export not done");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    let (rows, _) = finished(export(&a, &["粤B00001"]).await).await;
    assert_eq!(rows, 0, "the filter applies");
    let (rows, scope) = finished(export(&a, &["粤B00000"]).await).await;
    assert_eq!(rows, 1);
    let mut tx = db::begin_tenant(&s.app, a.enterprise).await.unwrap();
    let page = TemperatureAlarmsExport
        .page(&mut tx, &scope, None, 100)
        .await
        .unwrap();
    drop(tx);
    assert_eq!(page.rows.len(), 1);
    let row = &page.rows[0];
    assert_eq!(row[0], Cell::from("粤B00000"));
    assert_eq!(row[1], Cell::from("1"));
    assert_eq!(row[4], Cell::from("-13.0"));
    assert_eq!(row[9], Cell::from("已恢复"));
    // Another tenant's export of every alarm finds none of them.
    let (rows, _) = finished(export(&b, &[]).await).await;
    assert_eq!(rows, 0);
}

#[tokio::test]
async fn temperature_on_one_stack() {
    let s = support::stack().await;
    fleetdesk_testkit::scenarios!(&s;
        short_excursion_raises_nothing_long_one_raises_one_closed_back_in_band,
        reordered_and_duplicated_fixes_give_the_same_alarms,
        tenant_b_sees_none_of_a,
        share_link_shows_its_vehicle_until_revoked_or_expired,
        the_alarm_export_writes_the_lists_rows_under_the_callers_reach,
    );
}

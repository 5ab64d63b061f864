//! Fixes whose terminal time cannot be right (issue 26: they were answered
//! and dropped): ingest stores them at their receive time with the device
//! time kept, and they move the vehicle's latest position.

use crate::support;

use chrono::{DateTime, Duration, Utc};
use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::db;
use fleetdesk_proto::telematics::v1 as pb;
use fleetdesk_telemetry::ingest::domain::FixRow;
use support::stack;

#[tokio::test]
async fn fixes_whose_time_cannot_be_right_are_stored_at_their_receive_time_and_flagged() {
    let s = stack().await;
    let t = s.tenant(1).await;
    let vehicle = t.vehicles[0];
    let now = Utc::now();
    let received = now - Duration::seconds(5);
    let message = |device: DateTime<Utc>, lat: f64, at: DateTime<Utc>| pb::Fix {
        terminal: "13912345678".into(),
        enterprise_id: t.enterprise.to_string(),
        vehicle_id: vehicle.to_string(),
        fix_time: Some(timestamp(device)),
        receive_time: Some(timestamp(at)),
        latitude: lat,
        longitude: 114.05,
        ..Default::default()
    };
    // GPS week rollover, an unset clock a day ahead, and a sound fix.
    let rolled = now - Duration::weeks(1024);
    let ahead = now + Duration::days(1);
    let sound = now - Duration::minutes(1);
    let fixes = [
        message(rolled, 22.51, received),
        message(ahead, 22.52, received + Duration::microseconds(1)),
        message(sound, 22.53, received),
    ]
    .into_iter()
    .map(|m| FixRow::parse(m, now).unwrap())
    .collect();
    let applied = s.pipeline().apply(fixes).await.unwrap();
    assert_eq!(applied.stored, 3);

    let mut tx = db::begin_service(&s.owner).await.unwrap();
    let rows: Vec<(f64, DateTime<Utc>, Option<DateTime<Utc>>)> = sqlx::query_as(
        "select lat, fix_time, device_time from position where vehicle_id = $1 order by lat",
    )
    .bind(vehicle)
    .fetch_all(&mut *tx)
    .await
    .unwrap();
    let micros = |t: DateTime<Utc>| t.timestamp_micros();
    let seen: Vec<(f64, i64, Option<i64>)> = rows
        .iter()
        .map(|(lat, fix, device)| (*lat, micros(*fix), device.map(|d| d.timestamp())))
        .collect();
    assert_eq!(
        seen,
        [
            (22.51, micros(received), Some(rolled.timestamp())),
            (22.52, micros(received) + 1, Some(ahead.timestamp())),
            (22.53, micros(sound), None),
        ]
    );
    let latest: f64 = sqlx::query_scalar("select lat from latest_position where vehicle_id = $1")
        .bind(vehicle)
        .fetch_one(&mut *tx)
        .await
        .unwrap();
    assert_eq!(
        latest, 22.52,
        "the newest receive time is the latest position"
    );
}

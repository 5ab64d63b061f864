//! Alarm evidence over the real vehicle service: active-safety alarms of
//! position reports through ingest's pipeline (and the telemetry stream),
//! the device edge's media announcements through the telemetry stream to
//! the media consumer, and the evidence read back through RiskService.

use crate::support;

use std::time::Duration as StdDuration;

use chrono::{DateTime, Duration, Utc};
use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::{ErrorCode, ServiceError};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::telematics::v1 as tpb;
use fleetdesk_proto::vehicle::v1 as pb;
use fleetdesk_proto::vehicle::v1::risk_service_client::RiskServiceClient;
use fleetdesk_telemetry::ingest::domain::FixRow;
use prost::Message as _;
use support::{Stack, Tenant, fix_row, shuffled};
use uuid::Uuid;

const PERMS: &[&str] = &["as:alarm", "as:alarm:rule"];

fn client(s: &Stack) -> RiskServiceClient<tonic::transport::Channel> {
    RiskServiceClient::new(s.channel.clone())
}

fn base() -> DateTime<Utc> {
    let now = Utc::now() - Duration::hours(3);
    DateTime::from_timestamp(now.timestamp() / 60 * 60, 0).unwrap()
}

/// A position report of `vehicle` at `at` carrying `items`, as the edge
/// publishes it.
fn report(t: &Tenant, vehicle: Uuid, at: DateTime<Utc>, items: Vec<tpb::SafetyAlarm>) -> tpb::Fix {
    tpb::Fix {
        enterprise_id: t.enterprise.to_string(),
        vehicle_id: vehicle.to_string(),
        fix_time: Some(timestamp(at)),
        receive_time: Some(timestamp(at + Duration::seconds(1))),
        latitude: 22.54,
        longitude: 114.05,
        speed_dkmh: 420,
        safety_alarms: items,
        ..Default::default()
    }
}

fn dms(key: &str, event: u32, level: u32, flag: u32, at: DateTime<Utc>) -> tpb::SafetyAlarm {
    tpb::SafetyAlarm {
        alarm_key: key.to_owned(),
        source: tpb::SafetySource::Dms.into(),
        event,
        level,
        flag,
        attachment_count: 2,
        time: Some(timestamp(at)),
        latitude: 22.55,
        longitude: 114.06,
        speed_kmh: 42,
    }
}

/// Ingest's pipeline over `reports` in one batch.
async fn ingest(s: &Stack, reports: Vec<tpb::Fix>) {
    let now = Utc::now();
    let mut fixes: Vec<FixRow> = Vec::new();
    let mut items = Vec::new();
    for r in reports {
        let (fix, found) = FixRow::parse_report(r, now).unwrap();
        fixes.push(fix);
        items.extend(found);
    }
    s.pipeline().apply_reports(fixes, items).await.unwrap();
}

async fn alarms(
    s: &Stack,
    t: &Tenant,
    types: Vec<i32>,
) -> Result<Vec<pb::RiskAlarm>, ServiceError> {
    let now = Utc::now();
    let req = pb::ListRiskAlarmsRequest {
        page: Some(common::PageRequest { page: 1, size: 100 }),
        alarm_types: types,
        alarm_time: Some(common::TimeRange {
            start: Some(timestamp(now - Duration::days(2))),
            end: Some(timestamp(now + Duration::hours(1))),
        }),
        ..Default::default()
    };
    client(s)
        .list_risk_alarms(s.req_as(t, t.user, PERMS, req))
        .await
        .map(|r| r.into_inner().alarms)
        .map_err(|e| ServiceError::from_status(&e))
}

async fn detail(s: &Stack, t: &Tenant, id: &str) -> Result<pb::GetRiskAlarmResponse, ServiceError> {
    let req = pb::GetRiskAlarmRequest {
        alarm_id: id.to_owned(),
    };
    client(s)
        .get_risk_alarm(s.req_as(t, t.user, PERMS, req))
        .await
        .map(|r| r.into_inner())
        .map_err(|e| ServiceError::from_status(&e))
}

/// Publishes `media` on the vehicle's media subject as the edge does
/// (message id: `msg_id`), once the media consumer exists.
async fn announce(s: &Stack, media: &tpb::MediaStored, msg_id: &str) {
    let js = async_nats::jetstream::new(async_nats::connect(s.nats.url()).await.unwrap());
    let stream = fleetdesk_telemetry::ingest::ensure_stream(&js)
        .await
        .unwrap();
    let source = fleetdesk_kit::events::source_of(&s.app).await.unwrap();
    let durable = fleetdesk_telemetry::media::consumer::durable_name(&source);
    let deadline = tokio::time::Instant::now() + StdDuration::from_secs(10);
    while stream.consumer_info(&durable).await.is_err() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "no consumer {durable}"
        );
        tokio::time::sleep(StdDuration::from_millis(25)).await;
    }
    let mut headers = async_nats::HeaderMap::new();
    headers.insert("Nats-Msg-Id", msg_id);
    js.publish_with_headers(
        fleetdesk_kit::subjects::telemetry_media(&media.enterprise_id, &media.vehicle_id),
        headers,
        media.encode_to_vec().into(),
    )
    .await
    .unwrap()
    .await
    .unwrap();
}

/// How many files the media consumer stored under `key` (service scope),
/// waiting up to 10 s for `expected`.
async fn stored(s: &Stack, key: &str, expected: i64) -> i64 {
    let mut count = 0;
    for _ in 0..200 {
        let mut tx = fleetdesk_kit::db::begin_service(&s.owner).await.unwrap();
        count = sqlx::query_scalar("select count(*) from vehicle_media where object_key = $1")
            .bind(key)
            .fetch_one(&mut *tx)
            .await
            .unwrap();
        drop(tx);
        if count == expected {
            break;
        }
        tokio::time::sleep(StdDuration::from_millis(50)).await;
    }
    count
}

fn media(
    t: &Tenant,
    vehicle: Uuid,
    name: &str,
    media_type: i32,
    event_code: i32,
    alarm_key: &str,
    at: DateTime<Utc>,
) -> tpb::MediaStored {
    let content_type = if media_type == 2 {
        "video/mp4"
    } else {
        "image/jpeg"
    };
    tpb::MediaStored {
        enterprise_id: t.enterprise.to_string(),
        vehicle_id: vehicle.to_string(),
        media_id: 7,
        media_type,
        event_code,
        channel: 1,
        object_key: format!("{}/media/{vehicle}-{name}/{name}", t.enterprise),
        content_type: content_type.to_owned(),
        size_bytes: 2048,
        position: Some(report(t, vehicle, at, Vec::new())),
        alarm_key: alarm_key.to_owned(),
        file_name: if alarm_key.is_empty() {
            String::new()
        } else {
            format!("02_65_6502_0_{name}")
        },
    }
}

async fn a_dms_alarm_is_one_alarm_of_its_type_however_often_it_is_sent(s: &Stack) {
    let t = s.tenant(1).await;
    let v = t.vehicles[0];
    let t0 = base();
    let key = "013300001111-261129080000-1";
    let phone = |flag, secs| dms(key, 2, 2, flag, t0 + Duration::seconds(secs));
    // Start and end items of one phone call, and an ordinary report between.
    let reports = vec![
        report(&t, v, t0, vec![phone(1, 0)]),
        report(&t, v, t0 + Duration::seconds(10), Vec::new()),
        report(&t, v, t0 + Duration::seconds(20), vec![phone(2, 18)]),
    ];
    ingest(s, reports.clone()).await;
    let list = alarms(s, &t, Vec::new()).await.unwrap();
    assert_eq!(list.len(), 1, "{list:?}");
    let a = &list[0];
    assert_eq!(a.alarm_type, pb::AlarmType::PhoneUse as i32);
    assert_eq!(a.level, pb::RiskLevel::High as i32);
    assert_eq!(a.alarm_key, key);
    assert_eq!(a.rule_id, "", "no rule raises it");
    assert_eq!(a.alarm_time.as_ref().unwrap().seconds, t0.timestamp());
    assert_eq!(a.duration_seconds, 18);
    assert_eq!((a.point.unwrap().latitude, a.speed_kmh), (22.55, 42.0));
    // Re-sent, shuffled, split over batches, and the start again as a
    // backfill: still the same one alarm.
    let mut again = shuffled(&reports, 7);
    let mut backfill = report(&t, v, t0 + Duration::seconds(30), vec![phone(1, 0)]);
    backfill.backfill = true;
    again.push(backfill);
    for batch in again.chunks(2) {
        ingest(s, batch.to_vec()).await;
    }
    let after = alarms(s, &t, Vec::new()).await.unwrap();
    assert_eq!(after.len(), 1, "{after:?}");
    assert_eq!(
        (after[0].id.as_str(), after[0].duration_seconds),
        (a.id.as_str(), 18)
    );
    // The end before the start (another vehicle): the same span.
    let w = s.tenant(1).await;
    let u = w.vehicles[0];
    ingest(
        s,
        vec![report(
            &w,
            u,
            t0 + Duration::seconds(20),
            vec![phone(2, 18)],
        )],
    )
    .await;
    ingest(s, vec![report(&w, u, t0, vec![phone(1, 0)])]).await;
    let reversed = alarms(s, &w, Vec::new()).await.unwrap();
    assert_eq!(reversed.len(), 1);
    assert_eq!(
        (
            reversed[0].alarm_time.as_ref().unwrap().seconds,
            reversed[0].duration_seconds
        ),
        (t0.timestamp(), 18)
    );
    // A level-1 smoking item is MEDIUM; the type filter finds each.
    ingest(
        s,
        vec![report(
            &t,
            v,
            t0 + Duration::seconds(40),
            vec![dms("k-smoke", 3, 1, 0, t0 + Duration::seconds(40))],
        )],
    )
    .await;
    let smoking = alarms(s, &t, vec![pb::AlarmType::Smoking as i32])
        .await
        .unwrap();
    assert_eq!(smoking.len(), 1);
    assert_eq!(smoking[0].level, pb::RiskLevel::Medium as i32);
    let phone_calls = alarms(s, &t, vec![pb::AlarmType::PhoneUse as i32])
        .await
        .unwrap();
    assert_eq!(phone_calls.len(), 1);
}

async fn a_clip_with_the_alarms_key_is_its_evidence_and_reading_it_is_logged(s: &Stack) {
    let t = s.tenant(1).await;
    let v = t.vehicles[0];
    let t0 = base();
    let key = "013300002222-261129081500-3";
    let forward = tpb::SafetyAlarm {
        alarm_key: key.to_owned(),
        source: tpb::SafetySource::Adas.into(),
        event: 1,
        level: 2,
        time: Some(timestamp(t0)),
        ..Default::default()
    };
    ingest(s, vec![report(&t, v, t0, vec![forward])]).await;
    let alarm = alarms(s, &t, Vec::new()).await.unwrap().pop().unwrap();
    assert_eq!(alarm.alarm_type, pb::AlarmType::ForwardCollision as i32);
    assert!(
        detail(s, &t, &alarm.id)
            .await
            .unwrap()
            .alarm
            .unwrap()
            .clips
            .is_empty()
    );
    let clip = media(&t, v, "clip.mp4", 2, 0, key, t0 + Duration::seconds(5));
    let photo = media(&t, v, "photo.jpg", 0, 0, key, t0 + Duration::seconds(2));
    // Another alarm's clip is not this one's.
    let other = media(&t, v, "other.mp4", 2, 0, "013300002222-261129081500-4", t0);
    announce(s, &clip, "clip").await;
    announce(s, &photo, "photo").await;
    announce(s, &other, "other").await;
    // The same file announced again (a lost ack) is stored once.
    announce(s, &clip, "clip-again").await;
    assert_eq!(stored(s, &clip.object_key, 1).await, 1);
    assert_eq!(stored(s, &other.object_key, 1).await, 1);
    let got = detail(s, &t, &alarm.id).await.unwrap();
    let a = got.alarm.unwrap();
    assert_eq!(a.clips.len(), 1, "{:?}", a.clips);
    let file = a.clips[0].file.as_ref().unwrap();
    assert_eq!(
        (
            file.key.as_str(),
            file.content_type.as_str(),
            file.name.as_str()
        ),
        (
            clip.object_key.as_str(),
            "video/mp4",
            "02_65_6502_0_clip.mp4"
        )
    );
    assert_eq!(a.clips[0].channel, 1);
    assert_eq!(
        a.clips[0].taken_at.as_ref().unwrap().seconds,
        (t0 + Duration::seconds(5)).timestamp()
    );
    assert_eq!(
        a.images.iter().map(|f| f.key.as_str()).collect::<Vec<_>>(),
        vec![photo.object_key.as_str()]
    );
    assert!(
        got.activities
            .iter()
            .any(|x| x.action == pb::AlarmActivityAction::Viewed as i32),
        "reading the evidence is logged"
    );
    // The list row carries it too.
    let row = alarms(s, &t, Vec::new()).await.unwrap().pop().unwrap();
    assert_eq!((row.clips.len(), row.images.len()), (1, 1));
}

async fn a_collision_photo_near_a_collision_bit_alarm_is_its_image(s: &Stack) {
    let t = s.tenant(1).await;
    let rule = pb::AlarmRule {
        name: "碰撞".into(),
        kind: pb::AlarmRuleKind::Terminal.into(),
        level: pb::RiskLevel::High.into(),
        terminal_bits: vec![29],
        enabled: true,
        ..Default::default()
    };
    client(s)
        .create_alarm_rule(s.req_as(
            &t,
            t.user,
            PERMS,
            pb::CreateAlarmRuleRequest { rule: Some(rule) },
        ))
        .await
        .unwrap();
    let v = t.vehicles[0];
    let t0 = base();
    let mut fixes: Vec<_> = (0..4)
        .map(|i| fix_row(&t, v, t0 + Duration::seconds(i * 15), 30))
        .collect();
    fixes[1].alarm_bits = 1 << 29;
    s.pipeline().apply(fixes).await.unwrap();
    let alarm = alarms(s, &t, Vec::new()).await.unwrap().pop().unwrap();
    assert_eq!(alarm.alarm_type, pb::AlarmType::Collision as i32);
    let start = t0 + Duration::seconds(15);
    let near = media(&t, v, "near.jpg", 0, 3, "", start + Duration::seconds(20));
    let late = media(&t, v, "late.jpg", 0, 3, "", start + Duration::hours(1));
    let robbery = media(
        &t,
        v,
        "robbery.jpg",
        0,
        2,
        "",
        start + Duration::seconds(20),
    );
    for (m, id) in [(&near, "near"), (&late, "late"), (&robbery, "robbery")] {
        announce(s, m, id).await;
        assert_eq!(stored(s, &m.object_key, 1).await, 1);
    }
    let a = detail(s, &t, &alarm.id).await.unwrap().alarm.unwrap();
    assert_eq!(
        a.images.iter().map(|f| f.key.as_str()).collect::<Vec<_>>(),
        vec![near.object_key.as_str()]
    );
    assert_eq!(a.images[0].name, "near.jpg");
    assert!(a.clips.is_empty());
}

async fn another_tenant_gets_none_of_the_evidence(s: &Stack) {
    let a = s.tenant(1).await;
    let b = s.tenant(1).await;
    let v = a.vehicles[0];
    let t0 = base();
    let key = "013300003333-261129082000-9";
    ingest(s, vec![report(&a, v, t0, vec![dms(key, 2, 2, 0, t0)])]).await;
    let alarm = alarms(s, &a, Vec::new()).await.unwrap().pop().unwrap();
    let clip = media(&a, v, "a.mp4", 2, 0, key, t0);
    announce(s, &clip, "a-clip").await;
    assert_eq!(stored(s, &clip.object_key, 1).await, 1);
    // B asks for A's alarm: not found, so no link to its evidence.
    let err = detail(s, &b, &alarm.id).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    assert!(alarms(s, &b, Vec::new()).await.unwrap().is_empty());
    // B's report naming A's vehicle raises nothing, and B's file announced
    // for A's vehicle under the same alarm key is not stored.
    ingest(s, vec![report(&b, v, t0, vec![dms("b-key", 2, 2, 0, t0)])]).await;
    assert!(alarms(s, &b, Vec::new()).await.unwrap().is_empty());
    let mut foreign = media(&b, v, "b.mp4", 2, 0, key, t0);
    foreign.vehicle_id = v.to_string();
    announce(s, &foreign, "b-clip").await;
    // A's own announcement naming B's object is dropped too.
    let mut stolen = media(&a, v, "stolen.mp4", 2, 0, key, t0);
    stolen.object_key = foreign.object_key.replace("b.mp4", "c.mp4");
    announce(s, &stolen, "stolen").await;
    // A marker after both, so the consumer has passed them.
    let marker = media(&a, v, "marker.jpg", 0, 1, "", t0);
    announce(s, &marker, "marker").await;
    assert_eq!(stored(s, &marker.object_key, 1).await, 1);
    assert_eq!(stored(s, &foreign.object_key, 0).await, 0);
    assert_eq!(stored(s, &stolen.object_key, 0).await, 0);
    let clips = detail(s, &a, &alarm.id).await.unwrap().alarm.unwrap().clips;
    assert_eq!(
        clips
            .iter()
            .map(|c| c.file.as_ref().unwrap().key.clone())
            .collect::<Vec<_>>(),
        vec![clip.object_key.clone()]
    );
}

#[tokio::test]
async fn alarm_evidence_on_one_stack() {
    let s = support::stack().await;
    fleetdesk_testkit::scenarios!(&s;
        a_dms_alarm_is_one_alarm_of_its_type_however_often_it_is_sent,
        a_clip_with_the_alarms_key_is_its_evidence_and_reading_it_is_logged,
        a_collision_photo_near_a_collision_bit_alarm_is_its_image,
        another_tenant_gets_none_of_the_evidence,
    );
}

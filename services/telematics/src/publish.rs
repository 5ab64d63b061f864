//! Publishing fixes to the telemetry stream. A terminal's message is answered
//! only after JetStream acknowledged every fix in it, so nothing is lost while
//! NATS is down: the terminal keeps the message and sends it again.
//!
//! A fix whose time cannot be right ([`time_suspect`]) is published as sent,
//! counted and logged; ingest stores it at its receive time with the device
//! time kept.

use std::time::Duration;

use async_nats::jetstream;
use chrono::{DateTime, Utc};
use fleetdesk_kit::subjects;
use fleetdesk_proto::telematics::v1 as pb;
use prost::Message as _;

use crate::directory::Binding;
use crate::jt808::Location;
use crate::jt808::location::{AlarmFlag, SafetyAlarm, SafetyKind};

/// The stream that keeps telemetry, separate from domain events.
pub const TELEMETRY_STREAM: &str = subjects::TELEMETRY_STREAM;
/// `telemetry.<enterprise>.<vehicle>[.command|.media]`.
pub const TELEMETRY_SUBJECTS: &str = subjects::TELEMETRY_ALL;
/// A fix sent again within this window (same terminal and fix time) is dropped.
pub const DEDUPE_WINDOW: Duration = Duration::from_secs(10 * 60);

/// Where a vehicle's fixes go.
pub fn subject(binding: &Binding) -> String {
    subjects::telemetry_fix(&binding.enterprise_id, &binding.vehicle_id)
}

/// Creates the telemetry stream if it is missing.
pub async fn ensure_stream(js: &jetstream::Context, max_age: Duration) -> anyhow::Result<()> {
    fleetdesk_kit::events::ensure_stream(
        js,
        jetstream::stream::Config {
            name: TELEMETRY_STREAM.to_owned(),
            subjects: vec![TELEMETRY_SUBJECTS.to_owned()],
            duplicate_window: DEDUPE_WINDOW,
            max_age,
            ..Default::default()
        },
    )
    .await?;
    Ok(())
}

#[derive(Debug, thiserror::Error)]
#[error("publish failed: {0}")]
pub struct PublishError(String);

/// Publishes fixes with every ack in flight at once.
#[derive(Clone)]
pub struct Publisher {
    js: jetstream::Context,
}

impl std::fmt::Debug for Publisher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Publisher")
    }
}

impl Publisher {
    pub fn new(js: jetstream::Context) -> Publisher {
        Publisher { js }
    }

    /// Publishes `fixes` and waits until JetStream holds every one.
    pub async fn publish(
        &self,
        terminal: &str,
        binding: &Binding,
        fixes: &[Location],
        backfill: bool,
    ) -> Result<(), PublishError> {
        let subject = subject(binding);
        let now = Utc::now();
        let mut acks = Vec::with_capacity(fixes.len());
        for (i, fix) in fixes.iter().enumerate() {
            // Distinct receive times: a fix whose own time cannot be right is
            // stored at its receive time, and a batch's fixes must not collide.
            let received = now + chrono::Duration::microseconds(i as i64);
            let mut headers = async_nats::HeaderMap::new();
            let id = match time_suspect(fix.time, received) {
                None => format!("{terminal}:{}", fix.time.timestamp()),
                // A clock stuck at one time would make every fix a repeat.
                Some(reason) => {
                    metrics::counter!("telematics_fixes_time_suspect_total", "reason" => reason)
                        .increment(1);
                    tracing::warn!(%terminal, device_time = %fix.time, reason, "Fix with an impossible time; stored at its receive time.");
                    format!(
                        "{terminal}:{}:{:.6}:{:.6}:{}",
                        fix.time.timestamp(),
                        fix.latitude,
                        fix.longitude,
                        fix.speed_dkmh
                    )
                }
            };
            headers.insert("Nats-Msg-Id", id.as_str());
            let payload = to_pb(terminal, binding, fix, received, backfill).encode_to_vec();
            let ack = self
                .js
                .publish_with_headers(subject.clone(), headers, payload.into())
                .await
                .map_err(|e| PublishError(e.to_string()))?;
            acks.push(ack);
        }
        for ack in acks {
            ack.await.map_err(|e| PublishError(e.to_string()))?;
        }
        Ok(())
    }

    /// Publishes one message (deduplicated on `msg_id`) and waits until
    /// JetStream holds it.
    pub async fn publish_one(
        &self,
        subject: String,
        msg_id: &str,
        message: &impl prost::Message,
    ) -> Result<(), PublishError> {
        let mut headers = async_nats::HeaderMap::new();
        headers.insert("Nats-Msg-Id", msg_id);
        self.js
            .publish_with_headers(subject, headers, message.encode_to_vec().into())
            .await
            .map_err(|e| PublishError(e.to_string()))?
            .await
            .map_err(|e| PublishError(e.to_string()))?;
        Ok(())
    }
}

/// Days back a fix time may be (telemetry's retention); older is a wrong
/// clock (GPS week rollover, an unset RTC), as is a time further ahead than
/// [`FUTURE_SLACK`]. Telemetry ingest applies the same bounds.
pub const MAX_FIX_AGE: chrono::Duration = chrono::Duration::days(180);
pub const FUTURE_SLACK: chrono::Duration = chrono::Duration::minutes(10);

/// Why a fix time cannot be right at `received`: `old` or `future`.
pub fn time_suspect(time: DateTime<Utc>, received: DateTime<Utc>) -> Option<&'static str> {
    if time > received + FUTURE_SLACK {
        Some("future")
    } else if time < received - MAX_FIX_AGE {
        Some("old")
    } else {
        None
    }
}

/// A protobuf timestamp.
pub fn timestamp(t: DateTime<Utc>) -> prost_types::Timestamp {
    prost_types::Timestamp {
        seconds: t.timestamp(),
        nanos: t.timestamp_subsec_nanos() as i32,
    }
}

/// A fix as the stream carries it.
pub fn to_pb(
    terminal: &str,
    binding: &Binding,
    fix: &Location,
    received: DateTime<Utc>,
    backfill: bool,
) -> pb::Fix {
    pb::Fix {
        terminal: terminal.to_owned(),
        enterprise_id: binding.enterprise_id.clone(),
        vehicle_id: binding.vehicle_id.clone(),
        fix_time: Some(timestamp(fix.time)),
        receive_time: Some(timestamp(received)),
        latitude: fix.latitude,
        longitude: fix.longitude,
        altitude_m: i32::from(fix.altitude_m),
        speed_dkmh: i32::from(fix.speed_dkmh),
        heading: i32::from(fix.heading),
        alarm_bits: fix.alarm,
        status_bits: fix.status,
        mileage_m: fix.mileage_m.and_then(|m| i64::try_from(m).ok()),
        soc_percent: fix.soc_percent.map(i32::from),
        temperatures: fix
            .temperatures
            .iter()
            .map(|t| pb::ProbeTemperature {
                probe: i32::from(t.probe),
                deci_celsius: i32::from(t.deci_celsius),
            })
            .collect(),
        backfill,
        safety_alarms: fix.safety_alarms.iter().map(safety_alarm).collect(),
    }
}

/// An active-safety alarm as the stream carries it; its evidence comes
/// later under the same `alarm_key`.
fn safety_alarm(alarm: &SafetyAlarm) -> pb::SafetyAlarm {
    let SafetyAlarm {
        alarm_id: _,
        flag,
        kind,
        scene,
        identifier,
    } = alarm;
    let (source, event, level) = match kind {
        SafetyKind::Adas { event, level, .. } => {
            (pb::SafetySource::Adas, u32::from(*event), *level)
        }
        SafetyKind::Dms { event, level, .. } => (pb::SafetySource::Dms, u32::from(*event), *level),
        // The item has no event of its own: the first reading's event bits.
        SafetyKind::Tyres(tyres) => (
            pb::SafetySource::Tyres,
            tyres.first().map_or(0, |t| u32::from(t.events)),
            0,
        ),
        SafetyKind::BlindSpot { event } => (pb::SafetySource::BlindSpot, u32::from(*event), 0),
    };
    pb::SafetyAlarm {
        alarm_key: identifier.key(),
        source: source as i32,
        event,
        level: u32::from(level),
        flag: match flag {
            AlarmFlag::Unavailable => 0,
            AlarmFlag::Start => 1,
            AlarmFlag::End => 2,
        },
        attachment_count: u32::from(identifier.attachment_count),
        time: Some(timestamp(scene.time)),
        latitude: scene.latitude,
        longitude: scene.longitude,
        speed_kmh: i32::from(scene.speed_kmh),
    }
}

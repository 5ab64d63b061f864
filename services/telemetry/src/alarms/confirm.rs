//! 0x8203 to a terminal through the device edge: a core-NATS request on
//! `telematics.command.<phone>` that the edge holding the terminal answers
//! (as remote lock's delivery does). Best effort, once: an offline terminal
//! keeps its bit, and its next emergency report shows it still held.

use std::time::Duration;

use fleetdesk_proto::telematics::v1 as tpb;
use prost::Message as _;
use uuid::Uuid;

/// How long the edge has to answer.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);

/// Confirms `alarm`'s `bits` to the terminal `phone` (every message of them:
/// serial 0).
pub async fn send(nats: &async_nats::Client, alarm: Uuid, phone: &str, bits: u32) {
    let command = tpb::VehicleCommand {
        command_id: alarm.to_string(),
        phone: phone.to_owned(),
        action: Some(tpb::vehicle_command::Action::ConfirmAlarm(
            tpb::AlarmConfirmation {
                alarm_serial: 0,
                alarm_types: bits,
            },
        )),
    };
    let reply = tokio::time::timeout(
        REQUEST_TIMEOUT,
        nats.request(
            fleetdesk_kit::subjects::telematics_command(phone),
            command.encode_to_vec().into(),
        ),
    )
    .await;
    match reply {
        Ok(Ok(message)) => match tpb::CommandDelivery::decode(message.payload.as_ref()) {
            Ok(d) if d.sent => {
                tracing::info!(%alarm, phone, bits, "Alarm confirmed to the terminal.")
            }
            Ok(d) => {
                tracing::warn!(%alarm, phone, detail = %d.detail, "Alarm confirmation not sent.")
            }
            Err(err) => tracing::warn!(%alarm, error = %err, "Unreadable confirmation delivery."),
        },
        Ok(Err(err)) => {
            tracing::warn!(%alarm, phone, error = %err, "Terminal not reached for the confirmation.")
        }
        Err(_) => tracing::warn!(%alarm, phone, "Alarm confirmation timed out."),
    }
}

//! What a vehicle's terminal can stream (JT/T 1078 audio/video
//! attributes), reported by the device edge through the terminal directory
//! (`ReportAvAttributes`) after it asked the terminal with 0x9003: one row
//! per vehicle in `vehicle_camera`, replaced on each report. The report
//! names the terminal by its SIM; the vehicle is the one its active terminal
//! binding points at (found across tenants, in a service-scoped
//! transaction), so a SIM bound to no vehicle stores nothing. Service
//! callers only (the edge is not a user).

use fleetdesk_assets::vehicles::binding_log::BindingKind;
use fleetdesk_kit::{ServiceError, db, grpc};
use fleetdesk_proto::telematics::v1 as pb;
use sqlx_postgres::PgConnection;
use tonic::Request;

use crate::context::Context;

pub async fn report(
    ctx: &Context,
    req: Request<pb::ReportAvAttributesRequest>,
) -> Result<pb::ReportAvAttributesResponse, ServiceError> {
    grpc::require_service(&req)?;
    let pb::ReportAvAttributesRequest { phone, attributes } = req.into_inner();
    let phone = phone.trim().trim_start_matches('0').to_owned();
    if phone.is_empty() {
        return Err(ServiceError::invalid("phone", "终端手机号不能为空"));
    }
    let camera =
        camera(attributes.ok_or_else(|| ServiceError::invalid("attributes", "缺少音视频属性"))?)?;
    let mut tx = db::begin_service(&ctx.pool).await?;
    let stored = upsert(&mut tx, &phone, camera).await?;
    tx.commit().await?;
    if !stored {
        tracing::info!(%phone, "Audio/video attributes of an unbound terminal not stored.");
    }
    Ok(pb::ReportAvAttributesResponse { stored })
}

/// The stored columns of 0x1003; each count is a BYTE on the wire.
fn camera(attributes: pb::AvAttributes) -> Result<Camera, ServiceError> {
    let pb::AvAttributes {
        audio_encoding: _,
        audio_channels: _,
        sampling_rate: _,
        sample_bits: _,
        audio_frame_length: _,
        audio_output: _,
        video_encoding,
        max_audio_channels,
        max_video_channels,
    } = attributes;
    let byte = |value: u32, field: &str, words: &str| {
        u8::try_from(value)
            .map(i16::from)
            .map_err(|_| ServiceError::invalid(field, words))
    };
    Ok(Camera {
        video_channels: byte(max_video_channels, "maxVideoChannels", "视频通道数无效")?,
        audio_channels: byte(max_audio_channels, "maxAudioChannels", "音频通道数无效")?,
        video_encoding: byte(video_encoding, "videoEncoding", "视频编码无效")?,
    })
}

/// A vehicle's reported camera attributes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Camera {
    pub video_channels: i16,
    pub audio_channels: i16,
    pub video_encoding: i16,
}

/// Stores `camera` for the vehicle whose active terminal binding has
/// `phone` (SIMs compare without zero padding); false when there is none.
pub async fn upsert(
    conn: &mut PgConnection,
    phone: &str,
    camera: Camera,
) -> Result<bool, ServiceError> {
    let stored = sqlx::query(
        "insert into vehicle_camera (vehicle_id, enterprise_id, org_id, phone, video_channels, \
         audio_channels, video_encoding, reported_at) \
         select v.id, v.enterprise_id, v.org_id, $1, $2, $3, $4, now() \
         from vehicle_binding b join vehicle v on v.id = b.vehicle_id \
         where ltrim(b.terminal_sim, '0') = $1 and b.unbound_at is null and b.kind = $5 \
         order by b.bound_at desc limit 1 \
         on conflict (vehicle_id) do update set enterprise_id = excluded.enterprise_id, \
         org_id = excluded.org_id, phone = excluded.phone, \
         video_channels = excluded.video_channels, audio_channels = excluded.audio_channels, \
         video_encoding = excluded.video_encoding, reported_at = excluded.reported_at",
    )
    .bind(phone)
    .bind(camera.video_channels)
    .bind(camera.audio_channels)
    .bind(camera.video_encoding)
    .bind(i16::from(BindingKind::Terminal))
    .execute(conn)
    .await?
    .rows_affected();
    Ok(stored > 0)
}

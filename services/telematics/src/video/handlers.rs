//! `MediaService` requests: service callers only (the gateway calls after
//! its own permission and reach checks; this target keeps no organisation
//! tree to check a user against), validated, then into [`super::streams`].

use fleetdesk_kit::{ErrorCode, ServiceError, grpc};
use fleetdesk_media::Segment;
use fleetdesk_proto::telematics::v1 as pb;
use futures::StreamExt as _;
use tonic::Request;

use super::streams::{Streams, VideoError};

/// A stream of answers of one watch RPC.
pub type Watch<T> =
    std::pin::Pin<Box<dyn futures::Stream<Item = Result<T, tonic::Status>> + Send + 'static>>;

impl From<VideoError> for ServiceError {
    fn from(err: VideoError) -> ServiceError {
        let code = match &err {
            VideoError::Offline
            | VideoError::Unanswered(_)
            | VideoError::NoStream
            | VideoError::Interrupted => ErrorCode::Unavailable,
            VideoError::Refused(_) | VideoError::Busy => ErrorCode::Conflict,
            VideoError::Internal => ErrorCode::Internal,
        };
        ServiceError::new(code, err.to_string())
    }
}

fn phone(phone: &str) -> Result<String, ServiceError> {
    let phone = phone.trim();
    if phone.is_empty() || phone.len() > 20 || !phone.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ServiceError::invalid("phone", "终端手机号无效"));
    }
    Ok(phone.to_owned())
}

fn channel(channel: u32) -> Result<u8, ServiceError> {
    u8::try_from(channel)
        .ok()
        .filter(|c| *c != 0)
        .ok_or_else(|| ServiceError::invalid("channel", "通道号无效"))
}

fn segment(segment: Segment) -> pb::MediaSegment {
    match segment {
        Segment::Init { data, codec } => pb::MediaSegment {
            data: data.to_vec(),
            init: true,
            codec,
            keyframe: false,
        },
        Segment::Fragment { data, keyframe } => pb::MediaSegment {
            data: data.to_vec(),
            init: false,
            codec: String::new(),
            keyframe,
        },
    }
}

fn status(err: VideoError) -> tonic::Status {
    ServiceError::from(err).into()
}

pub async fn watch_live(
    streams: &std::sync::Arc<Streams>,
    req: Request<pb::WatchLiveRequest>,
) -> Result<Watch<pb::WatchLiveResponse>, ServiceError> {
    grpc::require_service(&req)?;
    let pb::WatchLiveRequest {
        phone: number,
        channel: ch,
        stream_type,
    } = req.into_inner();
    let (number, ch) = (phone(&number)?, channel(ch)?);
    let stream_type = pb::StreamType::try_from(stream_type)
        .map_err(|_| ServiceError::invalid("stream_type", "码流类型无效"))?;
    let segments = streams.watch_live(&number, ch, stream_type).await?;
    Ok(Box::pin(segments.map(|s| {
        s.map(|s| pb::WatchLiveResponse {
            segment: Some(segment(s)),
        })
        .map_err(status)
    })))
}

pub async fn get_av_attributes(
    streams: &Streams,
    req: Request<pb::GetAvAttributesRequest>,
) -> Result<pb::GetAvAttributesResponse, ServiceError> {
    grpc::require_service(&req)?;
    let pb::GetAvAttributesRequest { phone: number } = req.into_inner();
    let attributes = streams.av_attributes(&phone(&number)?).await?;
    Ok(pb::GetAvAttributesResponse {
        attributes: Some(attributes),
    })
}

pub async fn list_resources(
    streams: &Streams,
    req: Request<pb::ListResourcesRequest>,
) -> Result<pb::ListResourcesResponse, ServiceError> {
    grpc::require_service(&req)?;
    let pb::ListResourcesRequest {
        phone: number,
        channel: ch,
        start_time,
        end_time,
    } = req.into_inner();
    let number = phone(&number)?;
    // 0 asks for every channel.
    let ch = u8::try_from(ch).map_err(|_| ServiceError::invalid("channel", "通道号无效"))?;
    let query = pb::ResourceQuery {
        channel: u32::from(ch),
        start_time,
        end_time,
    };
    let resources = streams.resources(&number, query).await?;
    Ok(pb::ListResourcesResponse { resources })
}

pub async fn watch_playback(
    streams: &std::sync::Arc<Streams>,
    req: Request<pb::WatchPlaybackRequest>,
) -> Result<Watch<pb::WatchPlaybackResponse>, ServiceError> {
    grpc::require_service(&req)?;
    let pb::WatchPlaybackRequest {
        phone: number,
        channel: ch,
        start_time,
        end_time,
        mode,
        speed,
    } = req.into_inner();
    let (number, ch) = (phone(&number)?, channel(ch)?);
    if start_time.is_none() {
        return Err(ServiceError::invalid("start_time", "缺少回放开始时间"));
    }
    pb::PlaybackMode::try_from(mode).map_err(|_| ServiceError::invalid("mode", "回放方式无效"))?;
    if ![0, 1, 2, 4, 8, 16].contains(&speed) {
        return Err(ServiceError::invalid("speed", "回放倍速无效"));
    }
    let open = pb::PlaybackOpen {
        channel: u32::from(ch),
        start_time,
        end_time,
        mode,
        speed,
        server: None,
    };
    let segments = streams.watch_playback(&number, open).await?;
    Ok(Box::pin(segments.map(|s| {
        s.map(|s| pb::WatchPlaybackResponse {
            segment: Some(segment(s)),
        })
        .map_err(status)
    })))
}

pub async fn control_playback(
    streams: &Streams,
    req: Request<pb::ControlPlaybackRequest>,
) -> Result<pb::ControlPlaybackResponse, ServiceError> {
    grpc::require_service(&req)?;
    let pb::ControlPlaybackRequest {
        phone: number,
        channel: ch,
        action,
        speed,
        seek_time,
    } = req.into_inner();
    let (number, ch) = (phone(&number)?, channel(ch)?);
    let control = pb::PlaybackControl {
        channel: u32::from(ch),
        action,
        speed,
        seek_time,
    };
    // The same rules the edge applies before it writes 0x9202.
    if let Err(invalid) = super::convert::control_playback(control) {
        return Err(ServiceError::invalid("action", invalid.0));
    }
    streams.control_playback(&number, control).await?;
    Ok(pb::ControlPlaybackResponse {})
}

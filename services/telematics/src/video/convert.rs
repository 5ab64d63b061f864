//! The video commands of `VehicleCommand` ↔ the JT/T 808 video messages,
//! destructuring every field so a new proto field fails to compile here.

use chrono::{DateTime, Utc};
use fleetdesk_proto::telematics::v1 as pb;

use crate::jt808::message::{
    AvAttributes, CloseWhat, LiveCommand, LiveControl, LiveData, LiveRequest, MediaServer,
    PlatformMessage, PlaybackCommand, PlaybackControl, PlaybackMode, PlaybackRequest,
    PlaybackSpeed, Resource, ResourceKind, ResourceQuery, ResourceStream, Storage, Stream,
};
use crate::publish;

/// A video command the edge cannot send, with the words for its record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Invalid(pub &'static str);

fn channel(channel: u32, allow_all: bool) -> Result<u8, Invalid> {
    match u8::try_from(channel) {
        Ok(0) if !allow_all => Err(Invalid("通道号无效")),
        Ok(c) => Ok(c),
        Err(_) => Err(Invalid("通道号无效")),
    }
}

fn server(server: Option<pb::MediaServer>) -> Result<MediaServer, Invalid> {
    let pb::MediaServer { host, tcp_port } = server.ok_or(Invalid("缺少媒体服务器地址"))?;
    let tcp_port = u16::try_from(tcp_port)
        .ok()
        .filter(|p| *p != 0)
        .ok_or(Invalid("媒体服务器端口无效"))?;
    if host.is_empty() {
        return Err(Invalid("缺少媒体服务器地址"));
    }
    Ok(MediaServer {
        address: host,
        tcp_port,
        udp_port: 0,
    })
}

fn stream(stream: i32) -> Stream {
    match pb::StreamType::try_from(stream).unwrap_or_default() {
        pb::StreamType::Unspecified | pb::StreamType::Main => Stream::Main,
        pb::StreamType::Sub => Stream::Sub,
    }
}

fn time(t: Option<prost_types::Timestamp>) -> Option<DateTime<Utc>> {
    t.and_then(|t| DateTime::from_timestamp(t.seconds, u32::try_from(t.nanos).unwrap_or(0)))
}

fn speed(speed: u32) -> Result<PlaybackSpeed, Invalid> {
    Ok(match speed {
        0 => PlaybackSpeed::Unset,
        1 => PlaybackSpeed::X1,
        2 => PlaybackSpeed::X2,
        4 => PlaybackSpeed::X4,
        8 => PlaybackSpeed::X8,
        16 => PlaybackSpeed::X16,
        _ => return Err(Invalid("回放倍速无效")),
    })
}

/// 0x9101. Video only: the media port serves no audio yet, and a terminal
/// asked for both would spend its uplink on audio nobody gets.
pub fn open_live(open: pb::LiveOpen) -> Result<PlatformMessage, Invalid> {
    let pb::LiveOpen {
        channel: ch,
        stream_type,
        server: to,
    } = open;
    Ok(PlatformMessage::LiveRequest(LiveRequest {
        server: server(to)?,
        channel: channel(ch, false)?,
        data: LiveData::Video,
        stream: stream(stream_type),
    }))
}

/// 0x9102.
pub fn control_live(control: pb::LiveControl) -> Result<PlatformMessage, Invalid> {
    let pb::LiveControl {
        channel: ch,
        action,
        switch_to,
    } = control;
    let command = match pb::LiveAction::try_from(action).unwrap_or_default() {
        pb::LiveAction::Unspecified => return Err(Invalid("不支持的指令")),
        pb::LiveAction::Close => LiveCommand::Close,
        pb::LiveAction::SwitchStream => LiveCommand::SwitchStream,
        pb::LiveAction::Pause => LiveCommand::Pause,
        pb::LiveAction::Resume => LiveCommand::Resume,
    };
    Ok(PlatformMessage::LiveControl(LiveControl {
        channel: channel(ch, false)?,
        command,
        close: CloseWhat::All,
        switch_to: stream(switch_to),
    }))
}

/// 0x9003.
pub fn query_av_attributes(query: pb::AvAttributesQuery) -> PlatformMessage {
    let pb::AvAttributesQuery {} = query;
    PlatformMessage::QueryAvAttributes
}

/// 0x9205: video recordings (with or without audio) of any alarm, stream
/// and store.
pub fn query_resources(query: pb::ResourceQuery) -> Result<PlatformMessage, Invalid> {
    let pb::ResourceQuery {
        channel: ch,
        start_time,
        end_time,
    } = query;
    Ok(PlatformMessage::QueryResources(ResourceQuery {
        channel: channel(ch, true)?,
        start: time(start_time),
        end: time(end_time),
        alarms: 0,
        kind: ResourceKind::AudioOrVideo,
        stream: ResourceStream::Any,
        storage: Storage::Any,
    }))
}

/// 0x9201.
pub fn open_playback(open: pb::PlaybackOpen) -> Result<PlatformMessage, Invalid> {
    let pb::PlaybackOpen {
        channel: ch,
        start_time,
        end_time,
        mode,
        speed: multiplier,
        server: to,
    } = open;
    let mode = match pb::PlaybackMode::try_from(mode).unwrap_or_default() {
        pb::PlaybackMode::Unspecified | pb::PlaybackMode::Normal => PlaybackMode::Normal,
        pb::PlaybackMode::FastForward => PlaybackMode::FastForward,
        pb::PlaybackMode::KeyFrameRewind => PlaybackMode::KeyFrameRewind,
        pb::PlaybackMode::KeyFramePlay => PlaybackMode::KeyFramePlay,
        pb::PlaybackMode::SingleFrame => PlaybackMode::SingleFrame,
    };
    Ok(PlatformMessage::PlaybackRequest(PlaybackRequest {
        server: server(to)?,
        channel: channel(ch, false)?,
        kind: ResourceKind::AudioOrVideo,
        stream: ResourceStream::Any,
        storage: Storage::Any,
        mode,
        speed: speed(multiplier)?,
        start: time(start_time).ok_or(Invalid("缺少回放开始时间"))?,
        end: time(end_time),
    }))
}

/// 0x9202.
pub fn control_playback(control: pb::PlaybackControl) -> Result<PlatformMessage, Invalid> {
    let pb::PlaybackControl {
        channel: ch,
        action,
        speed: multiplier,
        seek_time,
    } = control;
    let command = match pb::PlaybackAction::try_from(action).unwrap_or_default() {
        pb::PlaybackAction::Unspecified => return Err(Invalid("不支持的指令")),
        pb::PlaybackAction::Play => PlaybackCommand::Play,
        pb::PlaybackAction::Pause => PlaybackCommand::Pause,
        pb::PlaybackAction::Stop => PlaybackCommand::Stop,
        pb::PlaybackAction::FastForward => PlaybackCommand::FastForward,
        pb::PlaybackAction::KeyFrameRewind => PlaybackCommand::KeyFrameRewind,
        pb::PlaybackAction::Seek => PlaybackCommand::Seek,
        pb::PlaybackAction::Slow => PlaybackCommand::Slow,
    };
    let seek_to = time(seek_time);
    if command == PlaybackCommand::Seek && seek_to.is_none() {
        return Err(Invalid("缺少拖动位置"));
    }
    Ok(PlatformMessage::PlaybackControl(PlaybackControl {
        channel: channel(ch, false)?,
        command,
        speed: speed(multiplier)?,
        seek_to: seek_to.filter(|_| command == PlaybackCommand::Seek),
    }))
}

/// 0x1003 as the reply carries it.
pub fn av_attributes(attributes: &AvAttributes) -> pb::AvAttributes {
    let AvAttributes {
        audio_encoding,
        audio_channels,
        sampling_rate,
        sample_bits,
        audio_frame_len,
        audio_output,
        video_encoding,
        max_audio_channels,
        max_video_channels,
    } = *attributes;
    pb::AvAttributes {
        audio_encoding: u32::from(audio_encoding),
        audio_channels: u32::from(audio_channels),
        sampling_rate: u32::from(sampling_rate),
        sample_bits: u32::from(sample_bits),
        audio_frame_length: u32::from(audio_frame_len),
        audio_output,
        video_encoding: u32::from(video_encoding),
        max_audio_channels: u32::from(max_audio_channels),
        max_video_channels: u32::from(max_video_channels),
    }
}

/// An item of 0x1205 as the reply carries it.
pub fn resource(resource: &Resource) -> pb::Resource {
    let Resource {
        channel,
        start,
        end,
        alarms,
        kind,
        stream,
        storage,
        size,
    } = resource;
    pb::Resource {
        channel: u32::from(*channel),
        start_time: Some(publish::timestamp(*start)),
        end_time: Some(publish::timestamp(*end)),
        alarms: *alarms,
        kind: *kind as u32,
        stream_type: match stream {
            ResourceStream::Any => pb::StreamType::Unspecified,
            ResourceStream::Main => pb::StreamType::Main,
            ResourceStream::Sub => pb::StreamType::Sub,
        } as i32,
        storage: *storage as u32,
        size_bytes: u64::from(*size),
    }
}

/// The terminal's words for a 0x0001 result other than 0.
pub fn refusal(result: u8) -> &'static str {
    match result {
        0 => "",
        1 => "终端拒绝执行",
        2 => "终端报告指令有误",
        3 => "终端不支持该指令",
        _ => "终端应答失败",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_live_open_without_a_server_or_with_channel_zero_is_refused() {
        let open = |channel, server| pb::LiveOpen {
            channel,
            stream_type: pb::StreamType::Sub as i32,
            server,
        };
        let to = || {
            Some(pb::MediaServer {
                host: "10.0.0.5".into(),
                tcp_port: 1078,
            })
        };
        assert_eq!(open_live(open(1, None)), Err(Invalid("缺少媒体服务器地址")));
        assert_eq!(open_live(open(0, to())), Err(Invalid("通道号无效")));
        assert_eq!(
            open_live(open(2, to())),
            Ok(PlatformMessage::LiveRequest(LiveRequest {
                server: MediaServer {
                    address: "10.0.0.5".into(),
                    tcp_port: 1078,
                    udp_port: 0
                },
                channel: 2,
                data: LiveData::Video,
                stream: Stream::Sub,
            }))
        );
    }

    #[test]
    fn a_seek_needs_its_position_and_speeds_are_the_standards() {
        let control = |action: pb::PlaybackAction, speed| pb::PlaybackControl {
            channel: 1,
            action: action as i32,
            speed,
            seek_time: None,
        };
        assert_eq!(
            control_playback(control(pb::PlaybackAction::Seek, 0)),
            Err(Invalid("缺少拖动位置"))
        );
        assert_eq!(
            control_playback(control(pb::PlaybackAction::FastForward, 3)),
            Err(Invalid("回放倍速无效"))
        );
        assert!(control_playback(control(pb::PlaybackAction::FastForward, 4)).is_ok());
    }
}

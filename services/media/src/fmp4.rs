//! Fragmented MP4 (ISO/IEC 14496-12) for Media Source Extensions: one init
//! segment per stream, then one `moof`+`mdat` fragment per video frame so a
//! viewer is never more than a frame behind the terminal. [`Muxer`] keeps a
//! stream's timeline: it holds each frame until the next one arrives, so a
//! sample's duration is the real gap between two terminal timestamps.

use bytes::Bytes;

use crate::{h264, h265};

/// Ticks a second of the video track (the MPEG convention).
pub const TIMESCALE: u32 = 90_000;
const TICKS_PER_MS: u64 = (TIMESCALE / 1000) as u64;
/// Used when a frame's duration cannot be told from the timestamps: the
/// frame-interval field, else this (15 frames a second, a common terminal
/// default).
const DEFAULT_FRAME_MS: u64 = 1000 / 15;
/// Timestamp gaps above this are treated as a jump, not a duration.
const MAX_FRAME_MS: u64 = 5_000;
const TRACK_ID: u32 = 1;

/// sample_depends_on = 2 (an I picture).
const SYNC_SAMPLE_FLAGS: u32 = 0x0200_0000;
/// sample_depends_on = 1, sample_is_non_sync_sample = 1.
const NON_SYNC_SAMPLE_FLAGS: u32 = 0x0101_0000;

/// Writes a box: its size is patched in once `body` has written the content.
fn write_box(out: &mut Vec<u8>, kind: &[u8; 4], body: impl FnOnce(&mut Vec<u8>)) {
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(kind);
    body(out);
    let size = (out.len() - start) as u32;
    out[start..start + 4].copy_from_slice(&size.to_be_bytes());
}

fn write_full_box(
    out: &mut Vec<u8>,
    kind: &[u8; 4],
    version: u8,
    flags: u32,
    body: impl FnOnce(&mut Vec<u8>),
) {
    write_box(out, kind, |out| {
        out.push(version);
        out.extend_from_slice(&flags.to_be_bytes()[1..]);
        body(out);
    });
}

fn u16s(out: &mut Vec<u8>, values: &[u16]) {
    for v in values {
        out.extend_from_slice(&v.to_be_bytes());
    }
}

fn u32s(out: &mut Vec<u8>, values: &[u32]) {
    for v in values {
        out.extend_from_slice(&v.to_be_bytes());
    }
}

/// The unity transformation matrix of `mvhd` and `tkhd`.
const MATRIX: [u32; 9] = [0x0001_0000, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000];

/// The video codecs terminals send that MP4 carries as they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    H264,
    H265,
}

/// The decoder configuration record of a track's sample entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecoderConfig {
    /// `AVCDecoderConfigurationRecord`, in an `avc1` entry.
    Avc(Vec<u8>),
    /// `HEVCDecoderConfigurationRecord`, in an `hvc1` entry.
    Hevc(Vec<u8>),
}

/// A video track's description, from its parameter sets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VideoTrack {
    pub width: u32,
    pub height: u32,
    pub config: DecoderConfig,
    /// For `MediaSource.isTypeSupported`, e.g. `avc1.42C01E`.
    pub codec: String,
}

/// `ftyp` + `moov` for one video track with no samples (they come in
/// fragments).
pub fn init_segment(track: &VideoTrack) -> Vec<u8> {
    let mut out = Vec::with_capacity(1024);
    write_box(&mut out, b"ftyp", |out| {
        out.extend_from_slice(b"isom");
        u32s(out, &[0x200]);
        out.extend_from_slice(b"isomiso6avc1mp41");
    });
    write_box(&mut out, b"moov", |out| {
        write_full_box(out, b"mvhd", 0, 0, |out| {
            u32s(out, &[0, 0, 1000, 0, 0x0001_0000]); // times, timescale, duration, rate
            u16s(out, &[0x0100, 0]); // volume, reserved
            u32s(out, &[0, 0]);
            u32s(out, &MATRIX);
            u32s(out, &[0; 6]); // pre_defined
            u32s(out, &[TRACK_ID + 1]); // next_track_ID
        });
        write_box(out, b"trak", |out| {
            write_full_box(out, b"tkhd", 0, 0x3, |out| {
                u32s(out, &[0, 0, TRACK_ID, 0, 0, 0, 0]); // times, id, reserved, duration, reserved
                u16s(out, &[0, 0, 0, 0]); // layer, alternate group, volume, reserved
                u32s(out, &MATRIX);
                u32s(out, &[track.width << 16, track.height << 16]);
            });
            write_box(out, b"mdia", |out| {
                write_full_box(out, b"mdhd", 0, 0, |out| {
                    u32s(out, &[0, 0, TIMESCALE, 0]);
                    u16s(out, &[0x55C4, 0]); // language "und"
                });
                write_full_box(out, b"hdlr", 0, 0, |out| {
                    u32s(out, &[0]);
                    out.extend_from_slice(b"vide");
                    u32s(out, &[0, 0, 0]);
                    out.extend_from_slice(b"Fleetdesk video\0");
                });
                write_box(out, b"minf", |out| {
                    write_full_box(out, b"vmhd", 0, 1, |out| u16s(out, &[0, 0, 0, 0]));
                    write_box(out, b"dinf", |out| {
                        write_full_box(out, b"dref", 0, 0, |out| {
                            u32s(out, &[1]);
                            write_full_box(out, b"url ", 0, 1, |_| {});
                        });
                    });
                    write_box(out, b"stbl", |out| {
                        write_full_box(out, b"stsd", 0, 0, |out| {
                            u32s(out, &[1]);
                            write_sample_entry(out, track);
                        });
                        write_full_box(out, b"stts", 0, 0, |out| u32s(out, &[0]));
                        write_full_box(out, b"stsc", 0, 0, |out| u32s(out, &[0]));
                        write_full_box(out, b"stsz", 0, 0, |out| u32s(out, &[0, 0]));
                        write_full_box(out, b"stco", 0, 0, |out| u32s(out, &[0]));
                    });
                });
            });
        });
        write_box(out, b"mvex", |out| {
            write_full_box(out, b"trex", 0, 0, |out| u32s(out, &[TRACK_ID, 1, 0, 0, 0]));
        });
    });
    out
}

fn write_sample_entry(out: &mut Vec<u8>, track: &VideoTrack) {
    let (entry, record_box, record) = match &track.config {
        DecoderConfig::Avc(record) => (b"avc1", b"avcC", record),
        DecoderConfig::Hevc(record) => (b"hvc1", b"hvcC", record),
    };
    write_box(out, entry, |out| {
        out.extend_from_slice(&[0; 6]);
        u16s(out, &[1]); // data_reference_index
        u16s(out, &[0, 0]);
        u32s(out, &[0, 0, 0]);
        u16s(out, &[track.width as u16, track.height as u16]);
        u32s(out, &[0x0048_0000, 0x0048_0000, 0]); // 72 dpi, reserved
        u16s(out, &[1]); // frame_count
        out.extend_from_slice(&[0; 32]); // compressorname
        u16s(out, &[0x0018, 0xFFFF]); // depth, pre_defined -1
        write_box(out, record_box, |out| out.extend_from_slice(record));
    });
}

/// One video frame of a fragment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sample {
    /// In [`TIMESCALE`] ticks.
    pub duration: u32,
    pub keyframe: bool,
    /// NAL units, each prefixed with its 4-byte length.
    pub data: Vec<u8>,
}

/// `moof` + `mdat` for consecutive samples starting at `base_decode_time`.
pub fn fragment(sequence: u32, base_decode_time: u64, samples: &[Sample]) -> Vec<u8> {
    let payload: usize = samples.iter().map(|s| s.data.len()).sum();
    let mut out = Vec::with_capacity(120 + 12 * samples.len() + payload);
    let mut data_offset_at = 0;
    write_box(&mut out, b"moof", |out| {
        write_full_box(out, b"mfhd", 0, 0, |out| u32s(out, &[sequence]));
        write_box(out, b"traf", |out| {
            // default-base-is-moof: data offsets count from the moof.
            write_full_box(out, b"tfhd", 0, 0x02_0000, |out| u32s(out, &[TRACK_ID]));
            write_full_box(out, b"tfdt", 1, 0, |out| {
                out.extend_from_slice(&base_decode_time.to_be_bytes());
            });
            // data offset, per-sample duration, size and flags.
            write_full_box(out, b"trun", 0, 0x000701, |out| {
                u32s(out, &[samples.len() as u32]);
                data_offset_at = out.len();
                u32s(out, &[0]);
                for s in samples {
                    let flags = if s.keyframe {
                        SYNC_SAMPLE_FLAGS
                    } else {
                        NON_SYNC_SAMPLE_FLAGS
                    };
                    u32s(out, &[s.duration, s.data.len() as u32, flags]);
                }
            });
        });
    });
    let data_offset = (out.len() + 8) as u32;
    out[data_offset_at..data_offset_at + 4].copy_from_slice(&data_offset.to_be_bytes());
    write_box(&mut out, b"mdat", |out| {
        for s in samples {
            out.extend_from_slice(&s.data);
        }
    });
    out
}

/// What the muxer makes of a frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    /// A new init segment: the first, or after the parameter sets changed.
    Init {
        segment: Bytes,
        track: VideoTrack,
    },
    Fragment {
        data: Bytes,
        keyframe: bool,
    },
}

#[derive(Debug)]
struct Pending {
    timestamp_ms: u64,
    fallback_ms: u64,
    sample: Sample,
}

/// One video stream's remuxer: access units (Annex B) in, init segment and
/// fragments out. Frames before the first SPS, PPS and IDR are dropped:
/// nothing could decode them. Parameter sets travel only in the decoder
/// configuration record; a change of any starts a new init segment.
#[derive(Debug)]
pub struct Muxer {
    codec: Codec,
    vps: Option<Vec<u8>>,
    sps: Option<Vec<u8>>,
    pps: Option<Vec<u8>>,
    track: Option<VideoTrack>,
    started: bool,
    pending: Option<Pending>,
    decode_time: u64,
    sequence: u32,
    invalid_sps: u64,
}

impl Muxer {
    pub fn new(codec: Codec) -> Muxer {
        Muxer {
            codec,
            vps: None,
            sps: None,
            pps: None,
            track: None,
            started: false,
            pending: None,
            decode_time: 0,
            sequence: 0,
            invalid_sps: 0,
        }
    }

    fn kind(&self, nal: &[u8]) -> NalKind {
        match self.codec {
            Codec::H264 => match h264::nal_type(nal) {
                h264::nal::SPS => NalKind::Sps,
                h264::nal::PPS => NalKind::Pps,
                h264::nal::AUD => NalKind::Delimiter,
                _ => NalKind::Other,
            },
            Codec::H265 => match h265::nal_type(nal) {
                h265::nal::VPS => NalKind::Vps,
                h265::nal::SPS => NalKind::Sps,
                h265::nal::PPS => NalKind::Pps,
                h265::nal::AUD => NalKind::Delimiter,
                _ => NalKind::Other,
            },
        }
    }

    /// The current track, once an SPS and PPS have been seen.
    pub fn track(&self) -> Option<&VideoTrack> {
        self.track.as_ref()
    }

    /// SPS units that could not be parsed.
    pub fn invalid_sps(&self) -> u64 {
        self.invalid_sps
    }

    /// Takes one access unit. `frame_interval_ms` is the terminal's
    /// last-frame interval field (0 when unknown).
    pub fn push(
        &mut self,
        timestamp_ms: u64,
        frame_interval_ms: u16,
        access_unit: &[u8],
        out: &mut Vec<Output>,
    ) {
        let nals = h264::nal_units(access_unit);
        let mut params_changed = false;
        for n in &nals {
            let slot = match self.kind(n) {
                NalKind::Vps => &mut self.vps,
                NalKind::Sps => &mut self.sps,
                NalKind::Pps => &mut self.pps,
                NalKind::Delimiter | NalKind::Other => continue,
            };
            if slot.as_deref() != Some(*n) {
                *slot = Some(n.to_vec());
                params_changed = true;
            }
        }
        if params_changed {
            self.new_track(out);
        }
        if self.track.is_none() {
            return;
        }
        let keyframe = match self.codec {
            Codec::H264 => h264::is_keyframe(&nals),
            Codec::H265 => h265::is_keyframe(&nals),
        };
        if !self.started && !keyframe {
            return;
        }
        self.started = true;

        let mut data = Vec::with_capacity(access_unit.len() + 4 * nals.len());
        for n in nals.iter().filter(|n| self.kind(n) == NalKind::Other) {
            data.extend_from_slice(&(n.len() as u32).to_be_bytes());
            data.extend_from_slice(n);
        }
        if data.is_empty() {
            return;
        }
        let fallback_ms = match u64::from(frame_interval_ms) {
            0 => DEFAULT_FRAME_MS,
            ms => ms.min(MAX_FRAME_MS),
        };
        if let Some(pending) = self.pending.take() {
            let gap = timestamp_ms.wrapping_sub(pending.timestamp_ms);
            let ms = if (1..=MAX_FRAME_MS).contains(&gap) {
                gap
            } else {
                pending.fallback_ms
            };
            self.emit(pending.sample, ms, out);
        }
        self.pending = Some(Pending {
            timestamp_ms,
            fallback_ms,
            sample: Sample {
                duration: 0,
                keyframe,
                data,
            },
        });
    }

    /// Emits the frame still held (its duration estimated), e.g. when the
    /// terminal disconnects.
    pub fn flush(&mut self, out: &mut Vec<Output>) {
        if let Some(pending) = self.pending.take() {
            self.emit(pending.sample, pending.fallback_ms, out);
        }
    }

    /// The track the parameter sets describe: `None` until all are there,
    /// `Some(Err)` when the SPS cannot be read.
    fn describe(&self) -> Option<Result<VideoTrack, h264::Error>> {
        let (sps_nal, pps_nal) = (self.sps.as_ref()?, self.pps.as_ref()?);
        Some(match self.codec {
            Codec::H264 => h264::Sps::parse(sps_nal).map(|sps| VideoTrack {
                width: sps.width,
                height: sps.height,
                config: DecoderConfig::Avc(h264::avc_decoder_configuration(sps_nal, pps_nal, &sps)),
                codec: sps.codec_string(),
            }),
            Codec::H265 => {
                let vps = self.vps.as_ref()?;
                h265::Sps::parse(sps_nal).map(|sps| VideoTrack {
                    width: sps.width,
                    height: sps.height,
                    config: DecoderConfig::Hevc(h265::hevc_decoder_configuration(
                        vps, sps_nal, pps_nal, &sps,
                    )),
                    codec: sps.codec_string(),
                })
            }
        })
    }

    fn new_track(&mut self, out: &mut Vec<Output>) {
        let track = match self.describe() {
            None => return,
            Some(Ok(track)) => track,
            Some(Err(_)) => {
                self.invalid_sps += 1;
                return;
            }
        };
        if self.track.as_ref() == Some(&track) {
            return;
        }
        self.flush(out);
        out.push(Output::Init {
            segment: Bytes::from(init_segment(&track)),
            track: track.clone(),
        });
        self.track = Some(track);
        self.started = false;
    }

    fn emit(&mut self, mut sample: Sample, duration_ms: u64, out: &mut Vec<Output>) {
        let ticks = duration_ms * TICKS_PER_MS;
        sample.duration = ticks as u32;
        self.sequence = self.sequence.wrapping_add(1);
        let keyframe = sample.keyframe;
        let data = fragment(
            self.sequence,
            self.decode_time,
            std::slice::from_ref(&sample),
        );
        self.decode_time += ticks;
        out.push(Output::Fragment {
            data: Bytes::from(data),
            keyframe,
        });
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NalKind {
    Vps,
    Sps,
    Pps,
    /// Access unit delimiters: MP4 samples are already delimited.
    Delimiter,
    Other,
}

/// The top-level boxes of an MP4 byte string: (type, size).
pub fn top_level_boxes(mut bytes: &[u8]) -> Vec<([u8; 4], usize)> {
    let mut boxes = Vec::new();
    while bytes.len() >= 8 {
        let size = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as usize;
        if size < 8 || size > bytes.len() {
            break;
        }
        boxes.push(([bytes[4], bytes[5], bytes[6], bytes[7]], size));
        bytes = &bytes[size..];
    }
    boxes
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Finds a box by path below `bytes` (a list of boxes).
    fn find<'a>(bytes: &'a [u8], path: &[&[u8; 4]]) -> Option<&'a [u8]> {
        let (first, rest) = path.split_first()?;
        let mut at = 0;
        while at + 8 <= bytes.len() {
            let size = u32::from_be_bytes(bytes[at..at + 4].try_into().ok()?) as usize;
            if size < 8 || at + size > bytes.len() {
                return None;
            }
            if &bytes[at + 4..at + 8] == *first {
                let body = &bytes[at + 8..at + size];
                return if rest.is_empty() {
                    Some(body)
                } else {
                    let skip = match *first {
                        b"stsd" => 8,
                        b"avc1" | b"hvc1" => 78,
                        _ => 0,
                    };
                    find(&body[skip..], rest)
                };
            }
            at += size;
        }
        None
    }

    fn track() -> VideoTrack {
        VideoTrack {
            width: 320,
            height: 240,
            config: DecoderConfig::Avc(vec![
                1, 66, 0xC0, 13, 0xFF, 0xE1, 0, 2, 0x67, 0x42, 1, 0, 1, 0x68,
            ]),
            codec: "avc1.42C00D".into(),
        }
    }

    #[test]
    fn the_init_segment_nests_the_avcc_record_under_stsd() {
        let init = init_segment(&track());
        let kinds: Vec<_> = top_level_boxes(&init).iter().map(|b| b.0).collect();
        assert_eq!(kinds, [*b"ftyp", *b"moov"]);
        let avcc = find(
            &init,
            &[
                b"moov", b"trak", b"mdia", b"minf", b"stbl", b"stsd", b"avc1", b"avcC",
            ],
        )
        .expect("avcC");
        assert_eq!(
            Some(DecoderConfig::Avc(avcc.to_vec())),
            Some(track().config)
        );
        let mdhd = find(&init, &[b"moov", b"trak", b"mdia", b"mdhd"]).unwrap();
        assert_eq!(&mdhd[12..16], &TIMESCALE.to_be_bytes());
        let tkhd = find(&init, &[b"moov", b"trak", b"tkhd"]).unwrap();
        assert_eq!(&tkhd[tkhd.len() - 8..], &[0x01, 0x40, 0, 0, 0, 0xF0, 0, 0]);
        assert!(find(&init, &[b"moov", b"mvex", b"trex"]).is_some());
    }

    #[test]
    fn an_hevc_track_has_an_hvc1_entry_with_its_record() {
        let hevc = VideoTrack {
            config: DecoderConfig::Hevc(vec![1, 2, 3]),
            ..track()
        };
        let init = init_segment(&hevc);
        let stsd = [b"moov", b"trak", b"mdia", b"minf", b"stbl", b"stsd"];
        assert!(find(&init, &[&stsd[..], &[b"avc1"]].concat()).is_none());
        let hvcc = find(&init, &[&stsd[..], &[b"hvc1", b"hvcC"]].concat());
        assert_eq!(hvcc, Some(&[1, 2, 3][..]));
    }

    #[test]
    fn a_fragment_points_its_data_offset_at_the_mdat_payload() {
        let samples = [
            Sample {
                duration: 6000,
                keyframe: true,
                data: vec![0, 0, 0, 2, 0x65, 0x88],
            },
            Sample {
                duration: 6000,
                keyframe: false,
                data: vec![0, 0, 0, 1, 0x41],
            },
        ];
        let bytes = fragment(3, 90_000, &samples);
        let boxes = top_level_boxes(&bytes);
        assert_eq!(
            boxes.iter().map(|b| b.0).collect::<Vec<_>>(),
            [*b"moof", *b"mdat"]
        );
        let mfhd = find(&bytes, &[b"moof", b"mfhd"]).unwrap();
        assert_eq!(&mfhd[4..], &3u32.to_be_bytes());
        let tfdt = find(&bytes, &[b"moof", b"traf", b"tfdt"]).unwrap();
        assert_eq!(tfdt[0], 1, "64-bit decode time");
        assert_eq!(&tfdt[4..], &90_000u64.to_be_bytes());
        let trun = find(&bytes, &[b"moof", b"traf", b"trun"]).unwrap();
        assert_eq!(&trun[4..8], &2u32.to_be_bytes());
        let offset = u32::from_be_bytes(trun[8..12].try_into().unwrap()) as usize;
        assert_eq!(offset, boxes[0].1 + 8);
        assert_eq!(&bytes[offset..offset + 6], &samples[0].data[..]);
        assert_eq!(&trun[12..24], &[0, 0, 0x17, 0x70, 0, 0, 0, 6, 2, 0, 0, 0]);
        assert_eq!(&trun[32..36], &NON_SYNC_SAMPLE_FLAGS.to_be_bytes());
    }

    fn sps() -> Vec<u8> {
        // Baseline 320x240 (see h264's tests), start code included.
        vec![
            0, 0, 0, 1, 0x67, 0x42, 0xC0, 0x0D, 0xEC, 0xA0, 0xA0, 0xFC, 0x80,
        ]
    }

    #[test]
    fn the_muxer_waits_for_parameter_sets_and_an_idr() {
        let mut m = Muxer::new(Codec::H264);
        let mut out = Vec::new();
        m.push(0, 0, &[0, 0, 1, 0x41, 0x9A], &mut out);
        assert!(out.is_empty(), "no SPS yet");
        let mut idr = sps();
        idr.extend_from_slice(&[0, 0, 1, 0x68, 0xCE, 0x38, 0x80, 0, 0, 1, 0x65, 0x88, 0x84]);
        m.push(100, 0, &[0, 0, 1, 0x41, 0x9A], &mut out);
        assert!(out.is_empty());
        m.push(200, 0, &idr, &mut out);
        let Some(Output::Init { track, .. }) = out.first() else {
            panic!("expected an init segment, got {out:?}");
        };
        assert_eq!((track.width, track.height), (320, 240));
        m.push(240, 40, &[0, 0, 1, 0x41, 0x9A], &mut out);
        m.flush(&mut out);
        let fragments: Vec<_> = out
            .iter()
            .filter_map(|o| match o {
                Output::Fragment { data, keyframe } => Some((data.clone(), *keyframe)),
                Output::Init { .. } => None,
            })
            .collect();
        assert_eq!(fragments.len(), 2);
        assert!(fragments[0].1 && !fragments[1].1);
        let trun = |f: &[u8]| find(f, &[b"moof", b"traf", b"trun"]).unwrap().to_vec();
        let tfdt = |f: &[u8]| find(f, &[b"moof", b"traf", b"tfdt"]).unwrap().to_vec();
        // 40 ms from the timestamps, then 40 ms from the interval field.
        assert_eq!(&trun(&fragments[0].0)[12..16], &3600u32.to_be_bytes());
        assert_eq!(&trun(&fragments[1].0)[12..16], &3600u32.to_be_bytes());
        assert_eq!(&tfdt(&fragments[1].0)[4..], &3600u64.to_be_bytes());
        // The IDR's sample holds only the slice, length-prefixed.
        let mdat = find(&fragments[0].0, &[b"mdat"]).unwrap();
        assert_eq!(mdat, &[0, 0, 0, 3, 0x65, 0x88, 0x84]);
    }
}

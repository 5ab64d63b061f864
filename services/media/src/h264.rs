//! Just enough H.264 (ISO/IEC 14496-10) to remux without decoding:
//! terminals send Annex B byte streams, MP4 wants length-prefixed NAL units
//! plus an `avcC` record built from the SPS and PPS, and viewers must start
//! at an IDR picture.

/// NAL unit types this crate acts on.
pub mod nal {
    pub const SLICE: u8 = 1;
    pub const IDR: u8 = 5;
    pub const SEI: u8 = 6;
    pub const SPS: u8 = 7;
    pub const PPS: u8 = 8;
    pub const AUD: u8 = 9;
}

pub use crate::bits::Error;
use crate::bits::{BitReader, unescape};

/// A NAL unit's type (the low five bits of its first byte).
pub fn nal_type(nal: &[u8]) -> u8 {
    nal.first().map_or(0, |b| b & 0x1F)
}

/// Where each NAL unit sits in an Annex B stream: (start code, first
/// byte, end), trailing zero bytes excluded.
fn nal_spans(stream: &[u8]) -> Vec<(usize, usize, usize)> {
    let mut starts = Vec::new();
    let mut i = 0;
    while i + 3 <= stream.len() {
        if stream[i] == 0 && stream[i + 1] == 0 && stream[i + 2] == 1 {
            let code = if i > 0 && stream[i - 1] == 0 {
                i - 1
            } else {
                i
            };
            starts.push((code, i + 3));
            i += 3;
        } else {
            i += 1;
        }
    }
    let mut spans = Vec::with_capacity(starts.len());
    for (n, &(code, begin)) in starts.iter().enumerate() {
        let mut end = starts.get(n + 1).map_or(stream.len(), |next| next.0);
        while end > begin && stream[end - 1] == 0 {
            end -= 1;
        }
        if end > begin {
            spans.push((code, begin, end));
        }
    }
    spans
}

/// The NAL units of an Annex B stream, without start codes.
pub fn nal_units(stream: &[u8]) -> Vec<&[u8]> {
    nal_spans(stream)
        .into_iter()
        .map(|(_, begin, end)| &stream[begin..end])
        .collect()
}

fn is_vcl(kind: u8) -> bool {
    (1..=5).contains(&kind)
}

/// Cuts an Annex B stream into access units (each a slice of the stream,
/// start codes included): a new one begins at an AUD, SEI, SPS or PPS after
/// a picture's slices, or at a slice whose `first_mb_in_slice` is 0.
pub fn access_units(stream: &[u8]) -> Vec<&[u8]> {
    split_units(stream, |nal, seen_slice| {
        let kind = nal_type(nal);
        let first_slice = is_vcl(kind) && nal.get(1).is_some_and(|b| b & 0x80 != 0);
        let starts = seen_slice
            && (matches!(kind, nal::AUD | nal::SEI | nal::SPS | nal::PPS) || first_slice);
        (starts, is_vcl(kind))
    })
}

/// Splits at the NAL units `classify` marks as starting an access unit;
/// it is told whether the unit so far has a slice and answers (starts a
/// unit, is a slice).
pub(crate) fn split_units(
    stream: &[u8],
    classify: impl Fn(&[u8], bool) -> (bool, bool),
) -> Vec<&[u8]> {
    let mut units = Vec::new();
    let mut start: Option<usize> = None;
    let mut seen_slice = false;
    for (code, begin, end) in nal_spans(stream) {
        let (starts_unit, is_slice) = classify(&stream[begin..end], seen_slice);
        if starts_unit {
            if let Some(s) = start {
                units.push(&stream[s..code]);
            }
            start = Some(code);
            seen_slice = false;
        }
        start.get_or_insert(code);
        seen_slice |= is_slice;
    }
    if let Some(s) = start {
        units.push(&stream[s..]);
    }
    units
}

/// Whether an access unit holds an IDR picture.
pub fn is_keyframe(nals: &[&[u8]]) -> bool {
    nals.iter().any(|n| nal_type(n) == nal::IDR)
}

/// What a sequence parameter set tells a muxer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sps {
    pub profile_idc: u8,
    /// The constraint_set flags byte (profile compatibility in `avcC`).
    pub constraints: u8,
    pub level_idc: u8,
    pub chroma_format_idc: u32,
    pub bit_depth_luma: u32,
    pub bit_depth_chroma: u32,
    /// Displayed size, cropping applied.
    pub width: u32,
    pub height: u32,
}

/// Profiles whose SPS carries chroma format, bit depths and scaling lists.
fn has_chroma_info(profile_idc: u8) -> bool {
    matches!(
        profile_idc,
        100 | 110 | 122 | 244 | 44 | 83 | 86 | 118 | 128 | 138 | 139 | 134 | 135
    )
}

impl Sps {
    /// Parses an SPS NAL unit (header byte included).
    pub fn parse(nal: &[u8]) -> Result<Sps, Error> {
        if nal_type(nal) != nal::SPS {
            return Err(Error::Invalid("not an SPS"));
        }
        let rbsp = unescape(&nal[1..]);
        let mut r = BitReader::new(&rbsp);
        let profile_idc = r.bits(8)? as u8;
        let constraints = r.bits(8)? as u8;
        let level_idc = r.bits(8)? as u8;
        r.ue()?; // seq_parameter_set_id
        let (mut chroma_format_idc, mut separate_planes) = (1, false);
        let (mut bit_depth_luma, mut bit_depth_chroma) = (8, 8);
        if has_chroma_info(profile_idc) {
            chroma_format_idc = r.ue()?;
            if chroma_format_idc > 3 {
                return Err(Error::Invalid("chroma_format_idc"));
            }
            if chroma_format_idc == 3 {
                separate_planes = r.bit()?;
            }
            bit_depth_luma = 8 + r.ue()?;
            bit_depth_chroma = 8 + r.ue()?;
            r.bit()?; // qpprime_y_zero_transform_bypass_flag
            if r.bit()? {
                let lists = if chroma_format_idc == 3 { 12 } else { 8 };
                for i in 0..lists {
                    if r.bit()? {
                        skip_scaling_list(&mut r, if i < 6 { 16 } else { 64 })?;
                    }
                }
            }
        }
        r.ue()?; // log2_max_frame_num_minus4
        match r.ue()? {
            0 => {
                r.ue()?; // log2_max_pic_order_cnt_lsb_minus4
            }
            1 => {
                r.bit()?; // delta_pic_order_always_zero_flag
                r.se()?; // offset_for_non_ref_pic
                r.se()?; // offset_for_top_to_bottom_field
                let cycle = r.ue()?;
                if cycle > 255 {
                    return Err(Error::Invalid("num_ref_frames_in_pic_order_cnt_cycle"));
                }
                for _ in 0..cycle {
                    r.se()?;
                }
            }
            2 => {}
            _ => return Err(Error::Invalid("pic_order_cnt_type")),
        }
        r.ue()?; // max_num_ref_frames
        r.bit()?; // gaps_in_frame_num_value_allowed_flag
        let width_mbs = r.ue()? + 1;
        let height_map_units = r.ue()? + 1;
        let frame_mbs_only = r.bit()?;
        if !frame_mbs_only {
            r.bit()?; // mb_adaptive_frame_field_flag
        }
        r.bit()?; // direct_8x8_inference_flag
        let (mut left, mut right, mut top, mut bottom) = (0, 0, 0, 0);
        if r.bit()? {
            left = r.ue()?;
            right = r.ue()?;
            top = r.ue()?;
            bottom = r.ue()?;
        }
        let field_factor = if frame_mbs_only { 1 } else { 2 };
        let chroma_array_type = if separate_planes {
            0
        } else {
            chroma_format_idc
        };
        let (crop_x, crop_y) = match chroma_array_type {
            0 => (1, field_factor),
            1 => (2, 2 * field_factor),
            2 => (2, field_factor),
            _ => (1, field_factor),
        };
        let full_width = width_mbs.checked_mul(16);
        let full_height = height_map_units
            .checked_mul(16)
            .and_then(|h| h.checked_mul(field_factor));
        let crop = |unit: u32, a: u32, b: u32| a.checked_add(b).and_then(|s| s.checked_mul(unit));
        let width = full_width
            .zip(crop(crop_x, left, right))
            .and_then(|(w, c)| w.checked_sub(c))
            .filter(|w| (1..=16384).contains(w))
            .ok_or(Error::Invalid("width"))?;
        let height = full_height
            .zip(crop(crop_y, top, bottom))
            .and_then(|(h, c)| h.checked_sub(c))
            .filter(|h| (1..=16384).contains(h))
            .ok_or(Error::Invalid("height"))?;
        Ok(Sps {
            profile_idc,
            constraints,
            level_idc,
            chroma_format_idc,
            bit_depth_luma,
            bit_depth_chroma,
            width,
            height,
        })
    }

    /// The RFC 6381 codec string Media Source Extensions ask for, e.g.
    /// `avc1.42C01E`.
    pub fn codec_string(&self) -> String {
        format!(
            "avc1.{:02X}{:02X}{:02X}",
            self.profile_idc, self.constraints, self.level_idc
        )
    }
}

fn skip_scaling_list(r: &mut BitReader<'_>, size: usize) -> Result<(), Error> {
    let (mut last, mut next) = (8i64, 8i64);
    for _ in 0..size {
        if next != 0 {
            next = (last + r.se()? + 256).rem_euclid(256);
        }
        if next != 0 {
            last = next;
        }
    }
    Ok(())
}

/// The `AVCDecoderConfigurationRecord` (ISO/IEC 14496-15, 5.3.3.1) for one
/// SPS and one PPS, with 4-byte NAL lengths.
pub fn avc_decoder_configuration(sps_nal: &[u8], pps_nal: &[u8], sps: &Sps) -> Vec<u8> {
    let mut out = vec![
        1,
        sps.profile_idc,
        sps.constraints,
        sps.level_idc,
        0xFC | 3, // lengthSizeMinusOne
        0xE0 | 1, // one SPS
    ];
    out.extend_from_slice(&(sps_nal.len() as u16).to_be_bytes());
    out.extend_from_slice(sps_nal);
    out.push(1); // one PPS
    out.extend_from_slice(&(pps_nal.len() as u16).to_be_bytes());
    out.extend_from_slice(pps_nal);
    if has_chroma_info(sps.profile_idc) {
        out.push(0xFC | (sps.chroma_format_idc & 3) as u8);
        out.push(0xF8 | (sps.bit_depth_luma.saturating_sub(8) & 7) as u8);
        out.push(0xF8 | (sps.bit_depth_chroma.saturating_sub(8) & 7) as u8);
        out.push(0); // no SPS extensions
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::unescape;

    /// An SPS as x264 writes it for baseline 320x240, level 1.3:
    /// profile 66, constraints 0xC0, level 13, id 0, log2_max_frame_num 4,
    /// poc type 0 (lsb 6), 4 refs, 20x15 macroblocks, frame only,
    /// direct_8x8, no cropping, VUI present (not read).
    fn sps_320x240() -> Vec<u8> {
        let mut w = BitWriter::default();
        w.bits(0x67, 8);
        w.bits(66, 8);
        w.bits(0xC0, 8);
        w.bits(13, 8);
        w.ue(0); // id
        w.ue(0); // log2_max_frame_num_minus4
        w.ue(0); // poc type
        w.ue(2); // log2_max_poc_lsb_minus4
        w.ue(4); // refs
        w.bits(0, 1);
        w.ue(19); // width in mbs - 1
        w.ue(14); // height in map units - 1
        w.bits(1, 1); // frame_mbs_only
        w.bits(1, 1); // direct_8x8
        w.bits(0, 1); // no cropping
        w.bits(0, 1); // no vui
        w.bits(1, 1); // stop bit
        w.finish()
    }

    /// High profile 1920x1080: 120x68 macroblocks cropped by 4 (x2) rows.
    fn sps_1080p_high() -> Vec<u8> {
        let mut w = BitWriter::default();
        w.bits(0x67, 8);
        w.bits(100, 8);
        w.bits(0, 8);
        w.bits(40, 8);
        w.ue(0);
        w.ue(1); // chroma 4:2:0
        w.ue(0);
        w.ue(0);
        w.bits(0, 1);
        w.bits(0, 1); // no scaling matrix
        w.ue(0);
        w.ue(2); // poc type 2
        w.ue(1);
        w.bits(0, 1);
        w.ue(119);
        w.ue(67);
        w.bits(1, 1);
        w.bits(1, 1);
        w.bits(1, 1); // cropping
        w.ue(0);
        w.ue(0);
        w.ue(0);
        w.ue(4);
        w.bits(0, 1);
        w.bits(1, 1);
        w.finish()
    }

    #[derive(Default)]
    struct BitWriter {
        bits: Vec<bool>,
    }

    impl BitWriter {
        fn bits(&mut self, v: u32, n: u32) {
            for i in (0..n).rev() {
                self.bits.push(v >> i & 1 == 1);
            }
        }
        fn ue(&mut self, v: u32) {
            let code = v + 1;
            let len = 32 - code.leading_zeros();
            self.bits(0, len - 1);
            self.bits(code, len);
        }
        fn finish(mut self) -> Vec<u8> {
            while !self.bits.len().is_multiple_of(8) {
                self.bits.push(false);
            }
            self.bits
                .chunks(8)
                .map(|c| c.iter().fold(0u8, |a, &b| a << 1 | u8::from(b)))
                .collect()
        }
    }

    #[test]
    fn parses_a_baseline_sps() {
        let sps = Sps::parse(&sps_320x240()).unwrap();
        assert_eq!((sps.profile_idc, sps.level_idc), (66, 13));
        assert_eq!((sps.width, sps.height), (320, 240));
        assert_eq!(sps.codec_string(), "avc1.42C00D");
    }

    #[test]
    fn applies_cropping_in_a_high_profile_sps() {
        let sps = Sps::parse(&sps_1080p_high()).unwrap();
        assert_eq!(sps.profile_idc, 100);
        assert_eq!((sps.width, sps.height), (1920, 1080));
    }

    #[test]
    fn a_truncated_sps_is_an_error() {
        let sps = sps_320x240();
        assert_eq!(Sps::parse(&sps[..5]), Err(Error::Truncated));
        assert!(Sps::parse(&[0x68, 0xCE]).is_err());
    }

    #[test]
    fn emulation_prevention_bytes_are_removed() {
        assert_eq!(unescape(&[0, 0, 3, 1, 0, 0, 3]), [0, 0, 1, 0, 0]);
    }

    #[test]
    fn splits_annex_b_with_three_and_four_byte_start_codes() {
        let stream = [
            0, 0, 0, 1, 0x67, 1, 2, 0, 0, 1, 0x68, 3, 0, 0, 0, 1, 0x65, 0x88, 0,
        ];
        let nals = nal_units(&stream);
        assert_eq!(nals, [&[0x67, 1, 2][..], &[0x68, 3], &[0x65, 0x88]]);
        assert!(is_keyframe(&nals));
        assert!(!is_keyframe(&nals[..2]));
    }

    #[test]
    fn cuts_access_units_at_parameter_sets_and_first_slices() {
        let stream = [
            0, 0, 0, 1, 0x67, 1, 0, 0, 1, 0x68, 2, 0, 0, 1, 0x65, 0x88, // IDR
            0, 0, 1, 0x41, 0x9A, // P, first_mb 0
            0, 0, 1, 0x41, 0x40, // P, first_mb != 0: same picture
            0, 0, 1, 0x41, 0x9B, // next P
        ];
        let units = access_units(&stream);
        assert_eq!(units.len(), 3);
        assert_eq!(nal_units(units[0]).len(), 3);
        assert_eq!(nal_units(units[1]).len(), 2);
        assert_eq!(units.concat(), stream);
    }

    #[test]
    fn builds_the_avcc_record() {
        let sps_nal = sps_320x240();
        let sps = Sps::parse(&sps_nal).unwrap();
        let avcc = avc_decoder_configuration(&sps_nal, &[0x68, 0xCE, 0x38, 0x80], &sps);
        assert_eq!(&avcc[..6], &[1, 66, 0xC0, 13, 0xFF, 0xE1]);
        assert_eq!(
            usize::from(u16::from_be_bytes([avcc[6], avcc[7]])),
            sps_nal.len()
        );
        let pps_at = 8 + sps_nal.len();
        assert_eq!(&avcc[pps_at..], &[1, 0, 4, 0x68, 0xCE, 0x38, 0x80]);
    }
}

//! Just enough H.265 (ITU-T H.265) to remux: newer terminals send HEVC
//! (payload type 99), which MP4 carries as `hvc1` with an `hvcC` record built
//! from the VPS, SPS and PPS. Browsers that decode HEVC play it through the
//! same Media Source Extensions path as H.264.

pub use crate::bits::Error;
use crate::bits::{BitReader, unescape};

/// NAL unit types this crate acts on.
pub mod nal {
    pub const VPS: u8 = 32;
    pub const SPS: u8 = 33;
    pub const PPS: u8 = 34;
    pub const AUD: u8 = 35;
    pub const PREFIX_SEI: u8 = 39;
}

/// A NAL unit's type (bits 1-6 of its two-byte header).
pub fn nal_type(nal: &[u8]) -> u8 {
    nal.first().map_or(0, |b| b >> 1 & 0x3F)
}

fn is_vcl(kind: u8) -> bool {
    kind < 32
}

/// Whether an access unit holds an IRAP picture (IDR, CRA, BLA): one a
/// decoder can start at.
pub fn is_keyframe(nals: &[&[u8]]) -> bool {
    nals.iter().any(|n| (16..=23).contains(&nal_type(n)))
}

/// Cuts an Annex B stream into access units, as [`crate::h264::access_units`]
/// does: a new one begins at a VPS, SPS, PPS, AUD or prefix SEI after a
/// picture's slices, or at a slice with `first_slice_segment_in_pic_flag`.
pub fn access_units(stream: &[u8]) -> Vec<&[u8]> {
    crate::h264::split_units(stream, |nal, seen_slice| {
        let kind = nal_type(nal);
        let first_slice = is_vcl(kind) && nal.get(2).is_some_and(|b| b & 0x80 != 0);
        let starts = seen_slice
            && (matches!(
                kind,
                nal::VPS | nal::SPS | nal::PPS | nal::AUD | nal::PREFIX_SEI
            ) || first_slice);
        (starts, is_vcl(kind))
    })
}

/// What a sequence parameter set tells a muxer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sps {
    /// general_profile_space, tier, profile_idc, compatibility flags,
    /// constraint flags and level: the 12 bytes `hvcC` repeats.
    pub profile_tier_level: [u8; 12],
    pub max_sub_layers: u8,
    pub temporal_id_nesting: bool,
    pub chroma_format_idc: u32,
    pub bit_depth_luma: u32,
    pub bit_depth_chroma: u32,
    /// Displayed size, conformance window applied.
    pub width: u32,
    pub height: u32,
}

impl Sps {
    /// Parses an SPS NAL unit (two-byte header included).
    pub fn parse(nal: &[u8]) -> Result<Sps, Error> {
        if nal_type(nal) != nal::SPS || nal.len() < 3 {
            return Err(Error::Invalid("not an SPS"));
        }
        let rbsp = unescape(&nal[2..]);
        let mut r = BitReader::new(&rbsp);
        r.bits(4)?; // sps_video_parameter_set_id
        let max_sub_layers_minus1 = r.bits(3)? as usize;
        let temporal_id_nesting = r.bit()?;
        let mut profile_tier_level = [0; 12];
        for byte in &mut profile_tier_level {
            *byte = r.bits(8)? as u8;
        }
        let mut present = Vec::with_capacity(max_sub_layers_minus1);
        for _ in 0..max_sub_layers_minus1 {
            present.push((r.bit()?, r.bit()?));
        }
        if max_sub_layers_minus1 > 0 {
            for _ in max_sub_layers_minus1..8 {
                r.bits(2)?;
            }
        }
        for (profile, level) in present {
            if profile {
                r.bits(32)?;
                r.bits(32)?;
                r.bits(24)?;
            }
            if level {
                r.bits(8)?;
            }
        }
        r.ue()?; // sps_seq_parameter_set_id
        let chroma_format_idc = r.ue()?;
        if chroma_format_idc > 3 {
            return Err(Error::Invalid("chroma_format_idc"));
        }
        let separate_planes = chroma_format_idc == 3 && r.bit()?;
        let full_width = r.ue()?;
        let full_height = r.ue()?;
        let (mut left, mut right, mut top, mut bottom) = (0, 0, 0, 0);
        if r.bit()? {
            left = r.ue()?;
            right = r.ue()?;
            top = r.ue()?;
            bottom = r.ue()?;
        }
        let bit_depth_luma = 8 + r.ue()?;
        let bit_depth_chroma = 8 + r.ue()?;
        let (sub_width, sub_height) = match (separate_planes, chroma_format_idc) {
            (false, 1) => (2, 2),
            (false, 2) => (2, 1),
            _ => (1, 1),
        };
        let cropped = |full: u32, unit: u32, a: u32, b: u32| {
            a.checked_add(b)
                .and_then(|s| s.checked_mul(unit))
                .and_then(|c| full.checked_sub(c))
                .filter(|v| (1..=16384).contains(v))
        };
        Ok(Sps {
            profile_tier_level,
            max_sub_layers: max_sub_layers_minus1 as u8 + 1,
            temporal_id_nesting,
            chroma_format_idc,
            bit_depth_luma,
            bit_depth_chroma,
            width: cropped(full_width, sub_width, left, right).ok_or(Error::Invalid("width"))?,
            height: cropped(full_height, sub_height, top, bottom)
                .ok_or(Error::Invalid("height"))?,
        })
    }

    /// The codec string Media Source Extensions ask for (ISO/IEC 14496-15
    /// annex E), e.g. `hvc1.1.6.L93.B0`.
    pub fn codec_string(&self) -> String {
        let ptl = &self.profile_tier_level;
        let space = ["", "A", "B", "C"][usize::from(ptl[0] >> 6)];
        let tier = if ptl[0] & 0x20 != 0 { 'H' } else { 'L' };
        let compatibility = u32::from_be_bytes([ptl[1], ptl[2], ptl[3], ptl[4]]).reverse_bits();
        let constraints = &ptl[5..11];
        let kept = constraints
            .iter()
            .rposition(|b| *b != 0)
            .map_or(0, |i| i + 1);
        let mut codec = format!(
            "hvc1.{space}{}.{compatibility:X}.{tier}{}",
            ptl[0] & 0x1F,
            ptl[11]
        );
        for byte in &constraints[..kept] {
            codec.push_str(&format!(".{byte:X}"));
        }
        codec
    }
}

/// The `HEVCDecoderConfigurationRecord` (ISO/IEC 14496-15, 8.3.3.1) for one
/// VPS, SPS and PPS, with 4-byte NAL lengths.
pub fn hevc_decoder_configuration(vps: &[u8], sps_nal: &[u8], pps: &[u8], sps: &Sps) -> Vec<u8> {
    let mut out = vec![1];
    out.extend_from_slice(&sps.profile_tier_level);
    out.extend_from_slice(&[
        0xF0,
        0x00, // min_spatial_segmentation_idc 0
        0xFC, // parallelismType unknown
        0xFC | (sps.chroma_format_idc & 3) as u8,
        0xF8 | (sps.bit_depth_luma.saturating_sub(8) & 7) as u8,
        0xF8 | (sps.bit_depth_chroma.saturating_sub(8) & 7) as u8,
        0,
        0, // avgFrameRate unknown
        (sps.max_sub_layers & 7) << 3 | u8::from(sps.temporal_id_nesting) << 2 | 3,
        3, // arrays: VPS, SPS, PPS
    ]);
    for (kind, nal) in [(nal::VPS, vps), (nal::SPS, sps_nal), (nal::PPS, pps)] {
        out.push(0x80 | kind); // array_completeness
        out.extend_from_slice(&1u16.to_be_bytes());
        out.extend_from_slice(&(nal.len() as u16).to_be_bytes());
        out.extend_from_slice(nal);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An SPS as x265 writes it for Main 320x240 (level 2.1 = 63):
    /// 1 sub-layer, 4:2:0, width 320 and height 240 with no window.
    fn sps_320x240() -> Vec<u8> {
        let mut bits = String::new();
        let mut put = |v: u64, n: u32| {
            for i in (0..n).rev() {
                bits.push(if v >> i & 1 == 1 { '1' } else { '0' });
            }
        };
        let ue = |put: &mut dyn FnMut(u64, u32), v: u64| {
            let code = v + 1;
            let len = 64 - code.leading_zeros();
            put(0, len - 1);
            put(code, len);
        };
        put(0x4201, 16); // NAL header: SPS
        put(0, 4); // vps id
        put(0, 3); // max_sub_layers_minus1
        put(1, 1); // temporal_id_nesting
        put(0x01, 8); // space 0, tier 0, profile 1 (Main)
        put(0x6000_0000, 32); // compatible with Main and Main 10
        put(0x90, 8); // progressive, frame only
        put(0, 40);
        put(63, 8); // level 2.1
        ue(&mut put, 0); // sps id
        ue(&mut put, 1); // 4:2:0
        ue(&mut put, 320);
        ue(&mut put, 240);
        put(0, 1); // no conformance window
        ue(&mut put, 0);
        ue(&mut put, 0);
        put(1, 1);
        while !bits.len().is_multiple_of(8) {
            bits.push('0');
        }
        (0..bits.len())
            .step_by(8)
            .map(|i| u8::from_str_radix(&bits[i..i + 8], 2).unwrap())
            .collect()
    }

    #[test]
    fn parses_a_main_profile_sps() {
        let sps = Sps::parse(&sps_320x240()).unwrap();
        assert_eq!((sps.width, sps.height), (320, 240));
        assert_eq!(sps.profile_tier_level[0], 1);
        assert_eq!(sps.profile_tier_level[11], 63);
        assert_eq!((sps.max_sub_layers, sps.temporal_id_nesting), (1, true));
        assert_eq!(sps.codec_string(), "hvc1.1.6.L63.90");
    }

    #[test]
    fn a_truncated_sps_is_an_error() {
        assert_eq!(Sps::parse(&sps_320x240()[..8]), Err(Error::Truncated));
        assert!(Sps::parse(&[0x40, 0x01, 0x0C]).is_err());
    }

    #[test]
    fn keyframes_are_irap_pictures() {
        let idr: &[u8] = &[0x26, 0x01, 0xAF];
        let cra: &[u8] = &[0x2A, 0x01, 0xAF];
        let trail: &[u8] = &[0x02, 0x01, 0xD0];
        assert!(is_keyframe(&[idr]));
        assert!(is_keyframe(&[cra]));
        assert!(!is_keyframe(&[trail]));
    }

    #[test]
    fn builds_the_hvcc_record() {
        let sps_nal = sps_320x240();
        let sps = Sps::parse(&sps_nal).unwrap();
        let vps = [0x40, 0x01, 0x0C];
        let pps = [0x44, 0x01, 0xC1];
        let hvcc = hevc_decoder_configuration(&vps, &sps_nal, &pps, &sps);
        assert_eq!(hvcc[0], 1);
        assert_eq!(&hvcc[1..13], &sps.profile_tier_level);
        assert_eq!(
            &hvcc[13..23],
            &[0xF0, 0, 0xFC, 0xFD, 0xF8, 0xF8, 0, 0, 0x0F, 3]
        );
        assert_eq!(&hvcc[23..31], &[0xA0, 0, 1, 0, 3, 0x40, 0x01, 0x0C]);
        assert_eq!(
            &hvcc[hvcc.len() - 8..],
            &[0xA2, 0, 1, 0, 3, 0x44, 0x01, 0xC1]
        );
    }

    #[test]
    fn cuts_access_units_at_first_slices() {
        let stream = [
            0, 0, 0, 1, 0x40, 0x01, 0x0C, 0, 0, 1, 0x42, 0x01, 0x01, 0, 0, 1, 0x44, 0x01, 0xC1, 0,
            0, 1, 0x26, 0x01, 0xAF, // IDR, first slice
            0, 0, 1, 0x02, 0x01, 0xD0, // TRAIL, first slice
            0, 0, 1, 0x02, 0x01, 0x50, // TRAIL, same picture
        ];
        let units = access_units(&stream);
        assert_eq!(units.len(), 2);
        assert_eq!(crate::h264::nal_units(units[0]).len(), 4);
        assert_eq!(crate::h264::nal_units(units[1]).len(), 2);
    }
}

//! Random and damaged streams through decoder, reassembler and muxer, with
//! a fixed seed so a failure replays.

use std::collections::HashMap;

use fleetdesk_media::fmp4::{Codec, Muxer, Output};
use fleetdesk_media::jt1078::{
    DataType, Decoder, Encoder, HEADER, MAX_ACCESS_UNIT, MAX_FRAME, PT_H264, PT_H265, Reassembler,
    SimLayout, VideoIntervals,
};
use rand::rngs::StdRng;
use rand::{Rng as _, SeedableRng as _};

/// A baseline 320x240 SPS, a PPS, then a GOP of an IDR and P slices of
/// random bytes, some larger than one frame body.
fn valid_stream(rng: &mut StdRng, layout: SimLayout) -> Vec<u8> {
    const SPS: [u8; 13] = [
        0, 0, 0, 1, 0x67, 0x42, 0xC0, 0x0D, 0xEC, 0xA0, 0xA0, 0xFC, 0x80,
    ];
    const PPS: [u8; 8] = [0, 0, 0, 1, 0x68, 0xCE, 0x38, 0x80];
    let mut encoder = Encoder::new("13800000001", 1, layout, PT_H264).expect("SIM fits");
    let mut out = Vec::new();
    for i in 0..12u64 {
        let keyframe = i % 6 == 0;
        let mut unit = Vec::new();
        if keyframe {
            unit.extend_from_slice(&SPS);
            unit.extend_from_slice(&PPS);
        }
        unit.extend_from_slice(&[0, 0, 1, if keyframe { 0x65 } else { 0x41 }, 0x88]);
        let len = rng.gen_range(10..if keyframe { 2500 } else { 600 });
        // No zero bytes: the slice cannot contain a start code.
        unit.extend((0..len).map(|_| rng.gen_range(1..=255u8)));
        let data_type = if keyframe {
            DataType::IFrame
        } else {
            DataType::PFrame
        };
        encoder.encode(
            data_type,
            i * 66,
            VideoIntervals::default(),
            &unit,
            &mut out,
        );
    }
    out
}

fn mutate(rng: &mut StdRng, mut bytes: Vec<u8>) -> Vec<u8> {
    for _ in 0..rng.gen_range(1..6) {
        if bytes.is_empty() {
            break;
        }
        let at = rng.gen_range(0..bytes.len());
        match rng.gen_range(0..5) {
            0 => bytes[at] ^= 1 << rng.gen_range(0..8),
            1 => bytes.truncate(at),
            2 => {
                let garbage: Vec<u8> = (0..rng.gen_range(1..300)).map(|_| rng.r#gen()).collect();
                bytes.splice(at..at, garbage);
            }
            3 => {
                let end = (at + rng.gen_range(1..2000)).min(bytes.len());
                bytes.drain(at..end);
            }
            _ => {
                bytes.splice(at..at, HEADER);
            }
        };
    }
    bytes
}

#[derive(Default)]
struct Tally {
    frames: u64,
    malformed: u64,
    fragments: u64,
}

/// Feeds `bytes` in random chunks; checks the bounds as it goes.
fn run(rng: &mut StdRng, bytes: &[u8]) -> Tally {
    let mut decoder = Decoder::new();
    let mut reassembler = Reassembler::new();
    let mut muxers: HashMap<(String, u8), Muxer> = HashMap::new();
    let mut outputs = Vec::new();
    let mut tally = Tally::default();
    let mut rest = bytes;
    while !rest.is_empty() {
        let n = rng.gen_range(1..=rest.len().min(3000));
        decoder.push(&rest[..n]);
        rest = &rest[n..];
        while let Some(frame) = decoder.next_frame() {
            tally.frames += 1;
            assert!(frame.body.len() <= 950);
            if let Some(unit) = reassembler.push(frame) {
                assert!(unit.data.len() <= MAX_ACCESS_UNIT);
                let muxer = muxers
                    .entry((unit.sim.clone(), unit.channel))
                    .or_insert_with(|| {
                        // Damaged payload types reach the H.265 muxer too.
                        Muxer::new(if unit.payload_type == PT_H265 {
                            Codec::H265
                        } else {
                            Codec::H264
                        })
                    });
                muxer.push(unit.timestamp_ms, 0, &unit.data, &mut outputs);
            }
        }
        assert!(
            decoder.buffered() < MAX_FRAME + HEADER.len(),
            "the decoder holds {} bytes",
            decoder.buffered()
        );
        assert!(muxers.len() <= 16);
        for output in outputs.drain(..) {
            if let Output::Fragment { data, .. } = output {
                assert!(data.len() <= MAX_ACCESS_UNIT + 4096);
                tally.fragments += 1;
            }
        }
    }
    tally.malformed = decoder.malformed();
    tally
}

#[test]
fn random_bytes_never_panic_and_count_as_malformed() {
    let mut rng = StdRng::seed_from_u64(0x1078);
    let mut malformed = 0;
    for _ in 0..10_000 {
        let len = rng.gen_range(64..4096);
        let bytes: Vec<u8> = (0..len).map(|_| rng.r#gen()).collect();
        let tally = run(&mut rng, &bytes);
        assert!(tally.malformed >= 1, "{len} random bytes passed as frames");
        malformed += tally.malformed;
    }
    assert!(malformed >= 10_000);
}

#[test]
fn damaged_streams_never_panic_and_resynchronise() {
    let mut rng = StdRng::seed_from_u64(0x808);
    let (mut clean, mut damaged) = (Tally::default(), Tally::default());
    for i in 0..3_000 {
        let layout = if i % 2 == 0 {
            SimLayout::Bcd6
        } else {
            SimLayout::Bcd10
        };
        let valid = valid_stream(&mut rng, layout);
        if i % 100 == 0 {
            let tally = run(&mut rng, &valid);
            assert_eq!(tally.malformed, 0, "an undamaged stream is clean");
            assert!(tally.fragments >= 10, "an undamaged stream plays");
            clean.fragments += tally.fragments;
        }
        let damaged_stream = mutate(&mut rng, valid);
        let tally = run(&mut rng, &damaged_stream);
        damaged.frames += tally.frames;
        damaged.malformed += tally.malformed;
        damaged.fragments += tally.fragments;
    }
    assert!(clean.fragments > 0);
    assert!(
        damaged.malformed > 1_000,
        "damage is noticed: {}",
        damaged.malformed
    );
    assert!(damaged.frames > 20_000, "and frames after it still decode");
    assert!(damaged.fragments > 2_000, "and still play");
}

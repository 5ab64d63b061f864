//! Property tests of the JT/T 808 decoder: whatever bytes a terminal (or an
//! attacker) sends, the decoder answers with frames or errors, never a panic,
//! and what the encoder writes it reads back unchanged.

use chrono::{TimeZone as _, Utc};
use fleetdesk_telematics::jt808::FrameDecoder;
use fleetdesk_telematics::jt808::header::{Header, Package, Version};
use fleetdesk_telematics::jt808::location::{Location, ProbeTemperature};
use fleetdesk_telematics::jt808::message::{TerminalMessage, frame};
use fleetdesk_telematics::jt808::packets::Reassembler;
use proptest::prelude::*;

/// Runs every stage a connection runs on `chunks`; returns how many messages decoded.
fn decode_stream(chunks: &[Vec<u8>]) -> usize {
    let mut decoder = FrameDecoder::default();
    let mut reassembler = Reassembler::default();
    let mut frames = Vec::new();
    let mut decoded = 0;
    for chunk in chunks {
        decoder.feed(chunk, &mut frames);
        for bytes in frames.drain(..).flatten() {
            let Ok((header, body)) = Header::parse(&bytes) else {
                continue;
            };
            if let Ok(Some((header, body))) = reassembler.push(header, body)
                && TerminalMessage::decode(&header, &body).is_ok()
            {
                decoded += 1;
            }
        }
    }
    decoded
}

fn version() -> impl Strategy<Value = Version> {
    prop_oneof![
        Just(Version::V2013),
        (0u8..4).prop_map(|protocol| Version::V2019 { protocol })
    ]
}

prop_compose! {
    fn location()(
        alarm in any::<u32>(),
        status in any::<u32>(),
        lat in -90_000_000i32..=90_000_000,
        lon in -180_000_000i32..=180_000_000,
        altitude_m in any::<u16>(),
        speed_dkmh in 0u16..2000,
        heading in 0u16..360,
        secs in 946_684_800i64..4_070_908_800, // 2000..2099
        mileage in proptest::option::of(0u64..400_000_000),
        soc in proptest::option::of(0u8..=100),
        temps in proptest::collection::vec((any::<u8>(), -400i16..600), 0..6),
    ) -> Location {
        Location {
            alarm,
            // The south and west bits follow the signs, as a terminal sets them.
            status: (status & !0b1100) | (u32::from(lat < 0) << 2) | (u32::from(lon < 0) << 3),
            latitude: f64::from(lat) / 1e6,
            longitude: f64::from(lon) / 1e6,
            altitude_m,
            speed_dkmh,
            heading,
            time: Utc.timestamp_opt(secs, 0).unwrap(),
            mileage_m: mileage.map(|m| m * 100),
            signal: None,
            satellites: None,
            soc_percent: soc,
            temperatures: temps.into_iter().map(|(probe, deci_celsius)| ProbeTemperature { probe, deci_celsius }).collect(),
            safety_alarms: Vec::new(),
        }
    }
}

fn wire(location: &Location, version: Version, serial: u16) -> Vec<u8> {
    let (id, body) = TerminalMessage::Location(location.clone())
        .encode(version)
        .unwrap();
    let header = Header {
        msg_id: id,
        version,
        phone: "13800000001".into(),
        serial,
        package: None,
    };
    frame(&header, &body).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(chunks in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..300), 0..8)) {
        decode_stream(&chunks);
    }

    #[test]
    fn arbitrary_bytes_between_flags_never_panic(bodies in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..120), 1..6)) {
        // Valid framing and checks around random headers and bodies reach the
        // header and body parsers with garbage.
        let chunks: Vec<Vec<u8>> = bodies.iter().map(|b| fleetdesk_telematics::jt808::encode_frame(b)).collect();
        decode_stream(&chunks);
    }

    #[test]
    fn a_location_survives_the_wire_in_any_chunking(loc in location(), version in version(), cut in 1usize..40) {
        let bytes = wire(&loc, version, 7);
        let chunks: Vec<Vec<u8>> = bytes.chunks(cut).map(<[u8]>::to_vec).collect();
        let mut decoder = FrameDecoder::default();
        let mut frames = Vec::new();
        for c in &chunks { decoder.feed(c, &mut frames); }
        prop_assert_eq!(frames.len(), 1);
        let bytes = frames.pop().unwrap().unwrap();
        let (header, body) = Header::parse(&bytes).unwrap();
        prop_assert_eq!(header.version, version);
        prop_assert_eq!(TerminalMessage::decode(&header, body).unwrap(), TerminalMessage::Location(loc));
    }

    #[test]
    fn one_flipped_byte_is_refused_or_read_never_a_panic(loc in location(), at in any::<prop::sample::Index>(), flip in 1u8..=255) {
        let mut bytes = wire(&loc, Version::V2019 { protocol: 1 }, 1);
        let i = at.index(bytes.len());
        bytes[i] ^= flip;
        // The check byte catches nearly every flip; none may crash.
        decode_stream(&[bytes]);
    }

    #[test]
    fn a_sub_packaged_message_reassembles_in_any_order(data in proptest::collection::vec(any::<u8>(), 1..3000), seed in any::<u64>()) {
        let loc = Location {
            alarm: 0, status: 2, latitude: 31.2, longitude: 121.5, altitude_m: 5, speed_dkmh: 0, heading: 0,
            time: Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap(),
            mileage_m: None, signal: None, satellites: None, soc_percent: None, temperatures: vec![],
            safety_alarms: vec![],
        };
        let message = TerminalMessage::MediaData {
            media: fleetdesk_telematics::jt808::message::Media { id: 1, kind: 0, format: 0, event: 3, channel: 1 },
            location: loc,
            data,
        };
        let version = Version::V2019 { protocol: 1 };
        let (id, body) = message.encode(version).unwrap();
        let parts: Vec<&[u8]> = body.chunks(900).collect();
        let total = parts.len() as u16;
        let mut order: Vec<usize> = (0..parts.len()).collect();
        // A cheap deterministic shuffle from the seed.
        let mut s = seed;
        for i in (1..order.len()).rev() {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            order.swap(i, (s >> 33) as usize % (i + 1));
        }
        let mut stream = Vec::new();
        for &i in &order {
            let index = i as u16 + 1;
            let package = (total > 1).then_some(Package { total, index });
            let header = Header { msg_id: id, version, phone: "13800000001".into(), serial: 100 + index, package };
            stream.extend(frame(&header, parts[i]).unwrap());
        }
        let mut decoder = FrameDecoder::default();
        let mut reassembler = Reassembler::default();
        let mut frames = Vec::new();
        decoder.feed(&stream, &mut frames);
        let mut whole = Vec::new();
        for bytes in frames.into_iter().map(Result::unwrap) {
            let (header, body) = Header::parse(&bytes).unwrap();
            if let Some((h, b)) = reassembler.push(header, body).unwrap() { whole.push(TerminalMessage::decode(&h, &b).unwrap()); }
        }
        prop_assert_eq!(whole, vec![message]);
    }
}

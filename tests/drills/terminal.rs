//! A probe terminal: one JT/T 808-2019 connection the drill drives itself,
//! so it knows exactly which reports the edge answered and which it did
//! not (the simulator's terminals decide that on their own).

use std::collections::VecDeque;
use std::time::Duration;

use chrono::{DateTime, Utc};
use fleetdesk_telematics::jt808::header::{Header, Version};
use fleetdesk_telematics::jt808::message::{
    Ack, Authentication, PlatformMessage, RegisterResult, Registration, TerminalMessage, frame,
};
use fleetdesk_telematics::jt808::{FrameDecoder, Location};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

const VERSION: Version = Version::V2019 { protocol: 1 };

/// A vehicle's bound terminal as the directory knows it.
#[derive(Debug, Clone)]
pub struct Bound {
    pub vehicle_id: uuid::Uuid,
    pub plate: String,
    /// The terminal's phone number (its SIM, digits).
    pub phone: String,
    pub terminal_id: String,
}

pub struct ProbeTerminal {
    stream: TcpStream,
    decoder: FrameDecoder,
    received: VecDeque<PlatformMessage>,
    phone: String,
    serial: u16,
}

impl ProbeTerminal {
    /// Connects, registers and authenticates; panics when refused.
    pub async fn sign_on(edge: &str, bound: &Bound) -> ProbeTerminal {
        let stream = TcpStream::connect(edge).await.expect("connect to the edge");
        let mut terminal = ProbeTerminal {
            stream,
            decoder: FrameDecoder::default(),
            received: VecDeque::new(),
            phone: bound.phone.clone(),
            serial: 0,
        };
        let city = fleetdesk_simulator::motion::city_of_plate(&bound.plate);
        let serial = terminal
            .send(&TerminalMessage::Register(Registration {
                province: city.province,
                city: city.city,
                manufacturer: "DRILL".into(),
                model: "PROBE".into(),
                terminal_id: bound.terminal_id.clone(),
                plate_color: 5,
                plate: bound.plate.clone(),
            }))
            .await;
        let code = match terminal.answer_to(serial, Duration::from_secs(10)).await {
            Some(PlatformMessage::RegisterResponse {
                result: RegisterResult::Ok,
                auth_code,
                ..
            }) => auth_code,
            other => panic!("registration of the probe terminal: {other:?}"),
        };
        let serial = terminal
            .send(&TerminalMessage::Authenticate(Authentication {
                code,
                imei: Some("860000000000001".into()),
                software_version: Some("DRILL-1".into()),
            }))
            .await;
        let answer = terminal.answer_to(serial, Duration::from_secs(10)).await;
        assert!(
            matches!(
                answer,
                Some(PlatformMessage::GeneralResponse {
                    result: Ack::Ok,
                    ..
                })
            ),
            "authentication of the probe terminal: {answer:?}"
        );
        terminal
    }

    /// Sends a message; answers its serial.
    pub async fn send(&mut self, message: &TerminalMessage) -> u16 {
        let (msg_id, body) = message.encode(VERSION).expect("encode");
        let serial = self.serial;
        self.serial = self.serial.wrapping_add(1);
        let header = Header {
            msg_id,
            version: VERSION,
            phone: self.phone.clone(),
            serial,
            package: None,
        };
        let bytes = frame(&header, &body).expect("frame");
        self.stream
            .write_all(&bytes)
            .await
            .expect("send to the edge");
        serial
    }

    /// The platform's answer to `serial` (general or registration
    /// response) within `within`, or `None`. Other messages are skipped.
    pub async fn answer_to(&mut self, serial: u16, within: Duration) -> Option<PlatformMessage> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            while let Some(message) = self.received.pop_front() {
                let reply = match &message {
                    PlatformMessage::GeneralResponse { reply_serial, .. }
                    | PlatformMessage::RegisterResponse { reply_serial, .. } => *reply_serial,
                    _ => continue,
                };
                if reply == serial {
                    return Some(message);
                }
            }
            let mut buf = [0u8; 2048];
            let n = match tokio::time::timeout_at(deadline, self.stream.read(&mut buf)).await {
                Err(_) => return None,
                Ok(read) => read.expect("read from the edge"),
            };
            assert!(n > 0, "the edge closed the probe's connection");
            let mut frames = Vec::new();
            self.decoder.feed(&buf[..n], &mut frames);
            for bytes in frames.into_iter().flatten() {
                if let Ok((header, body)) = Header::parse(&bytes)
                    && let Ok(message) = PlatformMessage::decode(&header, body)
                {
                    self.received.push_back(message);
                }
            }
        }
    }
}

/// A plain fix at `time` near (22.54, 114.05), `n` metres apart.
pub fn fix(time: DateTime<Utc>, n: u32) -> Location {
    Location {
        alarm: 0,
        // Positioned, ignition on.
        status: 0b11,
        latitude: 22.54 + f64::from(n) * 1e-5,
        longitude: 114.05,
        altitude_m: 10,
        speed_dkmh: 300,
        heading: 90,
        time,
        mileage_m: Some(1_000 + u64::from(n) * 10),
        signal: Some(20),
        satellites: Some(10),
        soc_percent: Some(80),
        temperatures: Vec::new(),
        safety_alarms: Vec::new(),
    }
}

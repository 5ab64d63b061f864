//! One terminal's TCP connection: frames in, answers out. A terminal must
//! register (once, ever) and authenticate (each connection) before its
//! reports are taken; a report is answered only after it is in the stream.
//! Every limit is per connection: frame size, reassembly buffer, message rate
//! and idle time. A malformed frame is counted and dropped; it never ends the
//! connection, but a terminal that keeps flooding is cut off.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

use crate::directory::{Binding, Directory, Registered};
use crate::jt808::header::{Header, Version};
use crate::jt808::message::{Ack, PlatformMessage, TerminalMessage, frame};
use crate::jt808::packets::Reassembler;
use crate::jt808::{FrameDecoder, id};
use crate::publish::Publisher;

/// What every connection shares.
#[derive(Debug)]
pub(crate) struct Edge<D> {
    pub directory: D,
    pub publisher: Publisher,
    pub idle: Duration,
    pub max_messages_per_sec: u32,
}

#[derive(Debug)]
enum Session {
    /// Connected; may register or authenticate.
    Anonymous,
    /// Authenticated: reports go to this vehicle.
    Bound { terminal: String, binding: Binding },
}

/// Token bucket: `rate` messages a second, bursts of twice that.
#[derive(Debug)]
struct RateLimit {
    rate: f64,
    tokens: f64,
    at: Instant,
}

impl RateLimit {
    fn new(rate: u32) -> RateLimit {
        RateLimit {
            rate: f64::from(rate),
            tokens: f64::from(rate) * 2.0,
            at: Instant::now(),
        }
    }

    fn allow(&mut self) -> bool {
        let now = Instant::now();
        let refill = now.duration_since(self.at).as_secs_f64() * self.rate;
        self.tokens = (self.tokens + refill).min(self.rate * 2.0);
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// Malformed or refused frames after which a connection is closed.
const MAX_STRIKES: u32 = 100;

struct Connection<'a, D> {
    edge: &'a Edge<D>,
    stream: TcpStream,
    session: Session,
    serial: u16,
    strikes: u32,
}

pub(crate) async fn serve<D: Directory>(stream: TcpStream, edge: Arc<Edge<D>>) {
    let mut conn = Connection {
        edge: &edge,
        stream,
        session: Session::Anonymous,
        serial: 0,
        strikes: 0,
    };
    if let Err(err) = conn.run().await {
        tracing::debug!(error = %err, "Terminal connection ended.");
    }
}

impl<D: Directory> Connection<'_, D> {
    async fn run(&mut self) -> std::io::Result<()> {
        let mut decoder = FrameDecoder::default();
        let mut reassembler = Reassembler::default();
        let mut rate = RateLimit::new(self.edge.max_messages_per_sec);
        let mut buf = vec![0u8; 4096];
        let mut frames = Vec::new();
        loop {
            let n = match tokio::time::timeout(self.edge.idle, self.stream.read(&mut buf)).await {
                Err(_) => {
                    metrics::counter!("telematics_connections_closed_total", "reason" => "idle")
                        .increment(1);
                    return Ok(());
                }
                Ok(read) => read?,
            };
            if n == 0 {
                return Ok(());
            }
            decoder.feed(&buf[..n], &mut frames);
            for frame in frames.drain(..) {
                let parsed = frame.map_err(|e| e.to_string()).and_then(|bytes| {
                    let (header, body) = Header::parse(&bytes).map_err(|e| e.to_string())?;
                    reassembler.push(header, body).map_err(|e| e.to_string())
                });
                match parsed {
                    Err(reason) => {
                        metrics::counter!("telematics_frames_total", "result" => "malformed")
                            .increment(1);
                        tracing::debug!(%reason, "Malformed frame dropped.");
                        self.strike()?;
                    }
                    Ok(None) => {}
                    Ok(Some(_)) if !rate.allow() => {
                        metrics::counter!("telematics_frames_total", "result" => "rate_limited")
                            .increment(1);
                        self.strike()?;
                    }
                    Ok(Some((header, body))) => match TerminalMessage::decode(&header, &body) {
                        Ok(message) => {
                            metrics::counter!("telematics_frames_total", "result" => "ok")
                                .increment(1);
                            self.handle(&header, message).await?;
                        }
                        Err(err) => {
                            metrics::counter!("telematics_frames_total", "result" => "malformed")
                                .increment(1);
                            tracing::debug!(error = %err, msg_id = header.msg_id, "Undecodable body.");
                            self.answer(&header, Ack::BadMessage).await?;
                            self.strike()?;
                        }
                    },
                }
            }
        }
    }

    fn strike(&mut self) -> std::io::Result<()> {
        self.strikes += 1;
        if self.strikes > MAX_STRIKES {
            metrics::counter!("telematics_connections_closed_total", "reason" => "abuse")
                .increment(1);
            return Err(std::io::Error::other("too many malformed or excess frames"));
        }
        Ok(())
    }

    async fn handle(&mut self, header: &Header, message: TerminalMessage) -> std::io::Result<()> {
        let terminal = header.terminal().to_owned();
        match message {
            TerminalMessage::Register(registration) => {
                let (result, auth_code) = match self
                    .edge
                    .directory
                    .register(&terminal, &registration)
                    .await
                {
                    Ok(Registered::Accepted { auth_code }) => {
                        (crate::jt808::message::RegisterResult::Ok, auth_code)
                    }
                    Ok(Registered::Refused(result)) => {
                        metrics::counter!("telematics_terminals_refused_total", "step" => "register")
                                .increment(1);
                        (result, String::new())
                    }
                    // No answer: the terminal registers again later.
                    Err(err) => {
                        tracing::warn!(error = %err, %terminal, "Registration not answered.");
                        return Ok(());
                    }
                };
                let reply = PlatformMessage::RegisterResponse {
                    reply_serial: header.serial,
                    result,
                    auth_code,
                };
                self.send(header, &reply).await
            }
            TerminalMessage::Authenticate(auth) => {
                match self
                    .edge
                    .directory
                    .authenticate(&terminal, &auth.code)
                    .await
                {
                    Ok(Some(binding)) => {
                        tracing::debug!(%terminal, vehicle = %binding.vehicle_id, "Terminal authenticated.");
                        self.session = Session::Bound { terminal, binding };
                        self.answer(header, Ack::Ok).await
                    }
                    Ok(None) => {
                        metrics::counter!("telematics_terminals_refused_total", "step" => "authenticate")
                            .increment(1);
                        self.answer(header, Ack::Failed).await?;
                        Err(std::io::Error::other("authentication refused"))
                    }
                    Err(err) => {
                        tracing::warn!(error = %err, %terminal, "Authentication not answered.");
                        Ok(())
                    }
                }
            }
            TerminalMessage::Heartbeat => self.answer(header, Ack::Ok).await,
            TerminalMessage::Location(fix) => self.report(header, &[fix], false).await,
            TerminalMessage::BatchLocation {
                blind_zone,
                locations,
            } => self.report(header, &locations, blind_zone).await,
            // Commands and media come with the monitoring issue's lock
            // commands and alarm photos; until then they are not taken.
            TerminalMessage::GeneralResponse { .. }
            | TerminalMessage::VehicleControlResponse { .. } => Ok(()),
            TerminalMessage::MediaEvent(_)
            | TerminalMessage::MediaData { .. }
            | TerminalMessage::Unsupported(_) => self.answer(header, Ack::Unsupported).await,
        }
    }

    /// Publishes reports of an authenticated terminal; answers once they are stored.
    async fn report(
        &mut self,
        header: &Header,
        fixes: &[crate::jt808::Location],
        backfill: bool,
    ) -> std::io::Result<()> {
        let Session::Bound { terminal, binding } = &self.session else {
            metrics::counter!("telematics_terminals_refused_total", "step" => "unauthenticated")
                .increment(1);
            self.strike()?;
            return self.answer(header, Ack::Failed).await;
        };
        match self
            .edge
            .publisher
            .publish(terminal, binding, fixes, backfill)
            .await
        {
            Ok(()) => {
                metrics::counter!("telematics_fixes_total").increment(fixes.len() as u64);
                self.answer(header, Ack::Ok).await
            }
            // No answer: the terminal keeps the report and sends it again.
            Err(err) => {
                tracing::warn!(error = %err, "Fixes not stored; the terminal will resend.");
                Ok(())
            }
        }
    }

    async fn answer(&mut self, header: &Header, result: Ack) -> std::io::Result<()> {
        let reply = PlatformMessage::GeneralResponse {
            reply_serial: header.serial,
            reply_id: header.msg_id,
            result,
        };
        self.send(header, &reply).await
    }

    /// Writes a platform message in the version the terminal speaks.
    async fn send(&mut self, to: &Header, message: &PlatformMessage) -> std::io::Result<()> {
        let version: Version = to.version;
        let (msg_id, body) = message.encode(version);
        debug_assert!(msg_id != id::TERMINAL_GENERAL_RESPONSE);
        let header = Header {
            msg_id,
            version,
            phone: to.phone.clone(),
            serial: self.serial,
            package: None,
        };
        self.serial = self.serial.wrapping_add(1);
        let bytes = frame(&header, &body).map_err(std::io::Error::other)?;
        self.stream.write_all(&bytes).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_limit_allows_a_burst_then_refuses() {
        let mut limit = RateLimit::new(5);
        let allowed = (0..20).filter(|_| limit.allow()).count();
        assert_eq!(allowed, 10);
    }
}

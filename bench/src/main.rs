//! `fleetdesk-bench`: the bare baselines and load generators of `make bench`.
//!
//! Every benchmark figure is reported as a ratio to a bare baseline on the
//! same machine in the same run, so machine noise and load cancel out.
//! `baseline` serves a fixed JSON body of the size of the answer being
//! measured: no auth, no gRPC, no database — the floor the gateway stands on.
//! The telemetry figures (f)–(h) bring their own baselines (`ingest`,
//! `track`, `sse` with its `relay`), the energy figures (i)–(j) a bare
//! hot-row update (`energy-captures`, `energy-allocations`); the list and
//! report figures (a), (b) and (k) pgbench of their own transactions
//! (`vehicle-list`, `vehicle-batch`, `monthly-log`); the video figure (m) a bare TCP relay of
//! the camera's bytes (`video-relay`); the finance figure (n) pgbench of a
//! bare hot-row update (`finance-payments`); the export at a million rows
//! COPY of the same rows (`export-million`).

mod ceiling;
mod energy;
mod export;
mod finance;
mod fleet;
mod ingest;
mod jt808;
mod list;
mod reports;
mod sse;
mod track;
mod video;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(name = "fleetdesk-bench")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// A read through the edge measured against pgbench of its statements.
#[derive(Debug, clap::Args)]
struct EdgeRead {
    #[arg(long, env = "DATABASE_URL")]
    database_url: String,
    #[arg(long)]
    base_url: String,
    #[arg(long)]
    token: String,
    #[arg(long)]
    gateway_pid: u32,
    #[arg(long)]
    vehicle_pid: u32,
    /// Clients of both sides (the vehicle process's pool).
    #[arg(long, default_value_t = 16)]
    connections: usize,
    #[arg(long, default_value_t = 8)]
    seconds: u64,
    #[arg(long, default_value_t = 2)]
    rounds: usize,
}

impl From<EdgeRead> for ceiling::Args {
    fn from(read: EdgeRead) -> Self {
        ceiling::Args {
            database_url: read.database_url,
            base_url: read.base_url,
            token: read.token,
            gateway_pid: read.gateway_pid,
            service_pid: read.vehicle_pid,
            connections: read.connections.max(1),
            seconds: read.seconds,
            rounds: read.rounds.max(1),
        }
    }
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve `GET /json`: a JSON list body of about `body_bytes` bytes.
    Baseline {
        /// Address to listen on.
        #[arg(long, default_value = "127.0.0.1:8099")]
        addr: String,
        /// Size of the body to answer, in bytes.
        #[arg(long, default_value_t = 8192)]
        body_bytes: usize,
    },
    /// Write an xlsx vehicle import of `rows` valid, distinct vehicles of
    /// organisation `org` (code or name), in the import template's columns.
    ImportFile {
        #[arg(long, default_value_t = 10_000)]
        rows: u32,
        #[arg(long)]
        org: String,
        /// Put in every row's 备注, so the bench can remove what it imported.
        #[arg(long, default_value = "bench import")]
        remark: String,
        #[arg(long)]
        out: std::path::PathBuf,
    },
    /// (e) JT/T 808 location frames decoded and published (acked) on one
    /// core, against raw JetStream publishes of the same bytes.
    Jt808 {
        /// NATS server (JetStream) to publish to; best a private one.
        #[arg(long)]
        nats_url: String,
        /// Frames per round.
        #[arg(long, default_value_t = 100_000)]
        frames: usize,
        /// Terminals publishing at once (each waits for its ack).
        #[arg(long, default_value_t = 256)]
        connections: usize,
        #[arg(long, default_value_t = 2)]
        rounds: usize,
    },
    /// (f) Ingest of the demo fleet's fixes from the stack's telemetry
    /// stream into Postgres, against COPY of the same rows.
    Ingest {
        #[arg(long, env = "DATABASE_URL")]
        database_url: String,
        /// The stack's NATS server (its vehicle process consumes the stream).
        #[arg(long)]
        nats_url: String,
        #[arg(long, default_value_t = 10_000)]
        vehicles: usize,
        /// Fixes per vehicle and round (one every 10 s).
        #[arg(long, default_value_t = 10)]
        fixes: usize,
        /// Geofences in the enterprise.
        #[arg(long, default_value_t = 1_000)]
        fences: usize,
        /// The stack's vehicle process: paused while a round is published,
        /// so the ingest is timed from a full stream.
        #[arg(long)]
        vehicle_pid: Option<u32>,
        #[arg(long, default_value_t = 2)]
        rounds: usize,
        /// (l) Every round also with the enterprise's alarm rules disabled,
        /// and the rules' share of ingest throughput printed.
        #[arg(long)]
        compare_rules: bool,
    },
    /// (g) One vehicle's 7-day track through the edge against the bare select.
    Track {
        #[arg(long, env = "DATABASE_URL")]
        database_url: String,
        /// The gateway's base URL.
        #[arg(long)]
        base_url: String,
        #[arg(long)]
        token: String,
        #[arg(long, default_value_t = 4)]
        connections: usize,
        #[arg(long, default_value_t = 8)]
        seconds: u64,
        #[arg(long, default_value_t = 2)]
        rounds: usize,
    },
    /// (h) SSE streams of the monitoring map while the fleet moves, against
    /// the bare relay (`relay`, started beforehand).
    Sse {
        #[arg(long, env = "DATABASE_URL")]
        database_url: String,
        #[arg(long)]
        nats_url: String,
        #[arg(long)]
        base_url: String,
        #[arg(long)]
        token: String,
        /// The relay's stream URL.
        #[arg(long)]
        relay_url: String,
        #[arg(long)]
        relay_pid: u32,
        #[arg(long)]
        gateway_pid: u32,
        #[arg(long)]
        vehicle_pid: u32,
        #[arg(long, default_value_t = 10_000)]
        vehicles: usize,
        #[arg(long, default_value_t = 100)]
        streams: usize,
        /// Measured seconds per phase (after `warmup`).
        #[arg(long, default_value_t = 20)]
        seconds: u64,
        #[arg(long, default_value_t = 5)]
        warmup: u64,
    },
    /// (i) Charging-session captures on one hot account (the ledger's
    /// settlement) against bare single-row updates, same concurrency.
    EnergyCaptures {
        #[arg(long, env = "DATABASE_URL")]
        database_url: String,
        #[arg(long, default_value_t = 2_000)]
        sessions: usize,
        /// Cards the sessions charge on (their holds return there).
        #[arg(long, default_value_t = 64)]
        cards: usize,
        #[arg(long, default_value_t = 16)]
        connections: usize,
        #[arg(long, default_value_t = 2)]
        rounds: usize,
    },
    /// (j) Allocation and reclaim latency on one account tree through the
    /// stack's energy process, at the acceptance test's concurrency.
    EnergyAllocations {
        #[arg(long, env = "DATABASE_URL")]
        database_url: String,
        /// The energy process's gRPC URL.
        #[arg(long, env = "FLEETDESK_ENERGY_URL")]
        energy_url: String,
        /// The stack's internal signing key (base64 seed).
        #[arg(long, env = "FLEETDESK_INTERNAL_SIGNING_KEY", hide_env_values = true)]
        signing_key: String,
        #[arg(long, default_value_t = 1_000)]
        moves: usize,
        /// Calls in flight at once (the acceptance test's 64).
        #[arg(long, default_value_t = 64)]
        in_flight: usize,
        /// Connections of the baseline (the energy process's pool).
        #[arg(long, env = "FLEETDESK_DB_MAX_CONNECTIONS", default_value_t = 16)]
        pool: u32,
        #[arg(long, default_value_t = 2)]
        rounds: usize,
    },
    /// (a) The vehicle list of the 100,000-vehicle enterprise (page of 20
    /// and total) through the edge against pgbench of the same transaction.
    VehicleList(EdgeRead),
    /// (b) The same list filtered by 250 of its plates through the edge
    /// against pgbench of the same transaction.
    VehicleBatch(EdgeRead),
    /// (k) The monthly operation log of the 100,000-vehicle enterprise
    /// through the edge against pgbench of the same transaction.
    MonthlyLog(EdgeRead),
    /// (m) One camera's live video fanned out to `viewers` through the
    /// gateway, against a bare TCP relay of the same 1078 bytes.
    Video {
        #[arg(long, env = "DATABASE_URL")]
        database_url: String,
        #[arg(long)]
        base_url: String,
        #[arg(long)]
        token: String,
        /// The device edge's JT/T 808 address.
        #[arg(long)]
        edge_addr: String,
        #[arg(long)]
        gateway_pid: u32,
        /// The device edge (telematics) process.
        #[arg(long)]
        edge_pid: u32,
        #[arg(long, default_value_t = 50)]
        viewers: usize,
        /// Measured seconds per phase (after `warmup`).
        #[arg(long, default_value_t = 20)]
        seconds: u64,
        #[arg(long, default_value_t = 3)]
        warmup: u64,
        #[arg(long, default_value = "ffmpeg")]
        ffmpeg: String,
    },
    /// (n) Bill payments from one enterprise's main account through the
    /// stack's finance process, against pgbench of a bare hot-row update.
    FinancePayments {
        #[arg(long, env = "DATABASE_URL")]
        database_url: String,
        /// The finance process's gRPC URL.
        #[arg(long, env = "FLEETDESK_FINANCE_URL")]
        finance_url: String,
        /// The stack's internal signing key (base64 seed).
        #[arg(long, env = "FLEETDESK_INTERNAL_SIGNING_KEY", hide_env_values = true)]
        signing_key: String,
        #[arg(long)]
        finance_pid: u32,
        /// Payers at once, and pgbench's clients.
        #[arg(long, default_value_t = 64)]
        payers: usize,
        /// Unpaid bills written per round.
        #[arg(long, default_value_t = 20_000)]
        bills: usize,
        #[arg(long, default_value_t = 8)]
        seconds: u64,
        #[arg(long, default_value_t = 2)]
        rounds: usize,
    },
    /// The baseline of (m), started by `video`: copies the bytes of a
    /// terminal connecting to one port to every client of another; prints
    /// `ingest=ADDR viewers=ADDR`.
    VideoRelay,
    /// (c) at a million rows: the kit's export worker in this process
    /// against COPY of the same rows, and this process's peak RSS.
    ExportMillion {
        #[arg(long, env = "DATABASE_URL")]
        database_url: String,
        #[arg(long, default_value_t = 1_000_000)]
        rows: i64,
        #[arg(long, default_value_t = 1)]
        rounds: usize,
    },
    /// The baseline of (h): a bare SSE relay of one enterprise's fixes.
    Relay {
        #[arg(long)]
        addr: String,
        #[arg(long)]
        nats_url: String,
        #[arg(long)]
        enterprise: uuid::Uuid,
    },
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    match Cli::parse().command {
        Command::Baseline { addr, body_bytes } => serve_baseline(&addr, body_bytes).await,
        Command::ImportFile {
            rows,
            org,
            remark,
            out,
        } => write_import_file(rows, &org, &remark, &out).map_err(std::io::Error::other),
        Command::Jt808 {
            nats_url,
            frames,
            connections,
            rounds,
        } => tokio::task::spawn_blocking(move || {
            jt808::run(&nats_url, frames, connections.max(1), rounds.max(1))
        })
        .await?
        .map_err(std::io::Error::other),
        Command::Ingest {
            database_url,
            nats_url,
            vehicles,
            fixes,
            fences,
            vehicle_pid,
            rounds,
            compare_rules,
        } => ingest::run(ingest::Args {
            database_url,
            nats_url,
            vehicles,
            fixes,
            fences,
            vehicle_pid,
            rounds: rounds.max(1),
            compare_rules,
        })
        .await
        .map_err(io),
        Command::Track {
            database_url,
            base_url,
            token,
            connections,
            seconds,
            rounds,
        } => track::run(track::Args {
            database_url,
            base_url,
            token,
            connections: connections.max(1),
            seconds,
            rounds: rounds.max(1),
        })
        .await
        .map_err(io),
        Command::Sse {
            database_url,
            nats_url,
            base_url,
            token,
            relay_url,
            relay_pid,
            gateway_pid,
            vehicle_pid,
            vehicles,
            streams,
            seconds,
            warmup,
        } => sse::run(sse::Args {
            database_url,
            nats_url,
            base_url,
            token,
            relay_url,
            relay_pid,
            gateway_pid,
            vehicle_pid,
            vehicles,
            streams,
            seconds,
            warmup,
        })
        .await
        .map_err(io),
        Command::EnergyCaptures {
            database_url,
            sessions,
            cards,
            connections,
            rounds,
        } => energy::captures(energy::CaptureArgs {
            database_url,
            sessions: sessions.max(1),
            cards: cards.max(1),
            connections: connections.max(1),
            rounds: rounds.max(1),
        })
        .await
        .map_err(io),
        Command::EnergyAllocations {
            database_url,
            energy_url,
            signing_key,
            moves,
            in_flight,
            pool,
            rounds,
        } => energy::allocations(energy::AllocationArgs {
            database_url,
            energy_url,
            signing_key,
            moves: moves.max(1),
            in_flight: in_flight.max(1),
            pool: pool.max(1),
            rounds: rounds.max(1),
        })
        .await
        .map_err(io),
        Command::VehicleList(read) => list::run(read.into()).await.map_err(io),
        Command::VehicleBatch(read) => list::run_batch(read.into()).await.map_err(io),
        Command::ExportMillion {
            database_url,
            rows,
            rounds,
        } => export::run(export::Args {
            database_url,
            rows,
            rounds,
        })
        .await
        .map_err(io),
        Command::MonthlyLog(read) => reports::run(read.into()).await.map_err(io),
        Command::Video {
            database_url,
            base_url,
            token,
            edge_addr,
            gateway_pid,
            edge_pid,
            viewers,
            seconds,
            warmup,
            ffmpeg,
        } => video::run(video::Args {
            database_url,
            base_url,
            token,
            edge_addr,
            gateway_pid,
            edge_pid,
            viewers: viewers.max(1),
            seconds: seconds.max(1),
            warmup,
            ffmpeg,
        })
        .await
        .map_err(io),
        Command::FinancePayments {
            database_url,
            finance_url,
            signing_key,
            finance_pid,
            payers,
            bills,
            seconds,
            rounds,
        } => finance::run(finance::Args {
            database_url,
            finance_url,
            signing_key,
            finance_pid,
            payers: payers.max(1),
            bills: bills.max(payers.max(1) * 2),
            seconds: seconds.max(1),
            rounds: rounds.max(1),
        })
        .await
        .map_err(io),
        Command::VideoRelay => video::relay().await.map_err(io),
        Command::Relay {
            addr,
            nats_url,
            enterprise,
        } => sse::relay(&addr, &nats_url, enterprise).await.map_err(io),
    }
}

/// An error with its causes, as the process's error.
#[allow(clippy::needless_pass_by_value)] // the shape `map_err` hands over
fn io(err: anyhow::Error) -> std::io::Error {
    std::io::Error::other(format!("{err:#}"))
}

/// A body shaped like the edge's list envelope, padded to `bytes`.
fn list_body(bytes: usize) -> String {
    let row = |i: usize, pad: usize| serde_json::json!({"id": i, "plateNumber": "粤B00000D", "pad": "x".repeat(pad)});
    let envelope = |pad: usize| {
        serde_json::json!({
            "code": 200, "msg": "success",
            "data": {"list": (0..20).map(|i| row(i, pad)).collect::<Vec<_>>(), "total": 100_000}
        })
        .to_string()
    };
    let bare = envelope(0).len();
    envelope(bytes.saturating_sub(bare) / 20)
}

/// The template's example row with a distinct plate and VIN per row (Sichuan
/// plates, VIN plant code `B`: neither occurs in the seeded data).
fn write_import_file(
    rows: u32,
    org: &str,
    remark: &str,
    out: &std::path::Path,
) -> Result<(), rust_xlsxwriter::XlsxError> {
    use fleetdesk_seed::vehicle as seed;
    use fleetdesk_vehicle::vehicles::import::COLUMNS;
    let mut book = rust_xlsxwriter::Workbook::new();
    let sheet = book.add_worksheet_with_constant_memory()?;
    for (col, column) in (0u16..).zip(COLUMNS) {
        sheet.write_string(0, col, column.title)?;
    }
    for n in 0..rows {
        let model = &seed::MODELS[n as usize % seed::MODELS.len()];
        let plate = seed::plate("川A", false, false, n);
        let vin = seed::vin(model, 'R', 'B', n);
        for (col, column) in (0u16..).zip(COLUMNS) {
            let value = match column.title {
                "车牌号" => plate.as_str(),
                "车架号(VIN)" => vin.as_str(),
                "所属组织" => org,
                "备注" => remark,
                _ => column.example,
            };
            sheet.write_string(n + 1, col, value)?;
        }
    }
    book.save(out)
}

async fn serve_baseline(addr: &str, body_bytes: usize) -> std::io::Result<()> {
    let body: &'static str = Box::leak(list_body(body_bytes).into_boxed_str());
    let app = axum::Router::new().route(
        "/json",
        axum::routing::get(move || async move {
            (
                [(axum::http::header::CONTENT_TYPE, "application/json")],
                body,
            )
        }),
    );
    let listener = tokio::net::TcpListener::bind(addr).await?;
    axum::serve(listener, app).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_baseline_body_has_the_asked_size_and_is_json() {
        for size in [2_000, 8_192, 20_000] {
            let body = list_body(size);
            assert!(body.len().abs_diff(size) < 40, "{size} -> {}", body.len());
            let v: serde_json::Value = serde_json::from_str(&body).unwrap();
            assert_eq!(v["data"]["list"].as_array().unwrap().len(), 20);
        }
    }
}

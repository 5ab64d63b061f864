//! The drill harness: each drill gets a PostgreSQL cluster and a NATS
//! server of its own (the drills stop and restart them; every other test
//! shares the machine's), and runs the `fleetdesk` binary's targets as real
//! child processes, each in its own process group so a kill reaches its
//! children too. Everything is torn down on drop: processes first, then the
//! scratch directory.

use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use async_nats::jetstream;
use chrono::{DateTime, Utc};
use fleetdesk_testkit::NatsServer;
use futures::StreamExt as _;
use prost::Message as _;
use sqlx::Connection as _;
use uuid::Uuid;

/// The database the stack of a drill uses.
pub const DATABASE: &str = "fleetdesk";
/// `fleetdesk_kit::subjects`: the telemetry stream and its fix subjects.
pub const TELEMETRY_STREAM: &str = "FLEETDESK_TELEMETRY";
pub const FIX_SUBJECTS: &str = "telemetry.*.*";

pub use fleetdesk_testkit::free_port;

/// Polls `check` every 200 ms until it answers `Some`, or panics naming
/// `what` after `within`.
pub async fn eventually<T, F, Fut>(within: Duration, what: &str, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let started = Instant::now();
    loop {
        if let Some(value) = check().await {
            return value;
        }
        assert!(started.elapsed() < within, "{what}: not within {within:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Sends `signal` to the process group `pgid` (every process of it).
fn signal_group(pgid: u32, signal: &str) {
    let _ = Command::new("kill")
        .args([&format!("-{signal}"), "--", &format!("-{pgid}")])
        .stderr(Stdio::null())
        .status();
}

/// Waits up to `within` for `child` to exit.
fn wait_exit(child: &mut Child, within: Duration) -> bool {
    let started = Instant::now();
    while started.elapsed() < within {
        if matches!(child.try_wait(), Ok(Some(_))) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

/// The last `lines` lines of a log, less the frames of any backtrace: an
/// error's message and causes come before its frames, which would
/// otherwise fill the tail on their own.
pub fn log_tail(path: &Path, lines: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let all = without_backtraces(&text);
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// The lines of `text` less each backtrace's frames (`  12: a::function`
/// and `      at src/file.rs:3:5` after a `Stack backtrace:` line); an
/// error's `Caused by:` list, numbered the same way, stays.
fn without_backtraces(text: &str) -> Vec<&str> {
    let mut kept = Vec::new();
    let mut in_backtrace = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.eq_ignore_ascii_case("stack backtrace:") {
            in_backtrace = true;
            continue;
        }
        let frame = trimmed.starts_with("at ")
            || trimmed.split_once(": ").is_some_and(|(index, _)| {
                !index.is_empty() && index.bytes().all(|b| b.is_ascii_digit())
            });
        if in_backtrace && frame {
            continue;
        }
        in_backtrace = false;
        kept.push(line);
    }
    kept
}

#[test]
fn a_log_tail_keeps_the_error_and_its_causes_and_drops_the_frames() {
    let log = "INFO started\nError: bind 127.0.0.1:8080\n\nCaused by:\n    0: Address in use\n\n\
               Stack backtrace:\n   0: anyhow::error::new\n             at src/error.rs:1:2\n  \
               1: fleetdesk::main\n             at src/main.rs:3:4\nafter";
    assert_eq!(
        without_backtraces(log),
        [
            "INFO started",
            "Error: bind 127.0.0.1:8080",
            "",
            "Caused by:",
            "    0: Address in use",
            "",
            "after"
        ]
    );
}

/// A directory of the drill's own, removed on drop.
pub struct Scratch {
    pub path: PathBuf,
}

impl Scratch {
    fn new(name: &str) -> Scratch {
        let path = std::env::temp_dir().join(format!(
            "fleetdesk-drill-{name}-{}",
            Uuid::new_v4().simple()
        ));
        std::fs::create_dir_all(&path).expect("scratch dir");
        Scratch { path }
    }

    /// Whether the drill runs as root (PostgreSQL then runs as `postgres`).
    fn owned_by_root(&self) -> bool {
        std::fs::metadata(&self.path).is_ok_and(|m| m.uid() == 0)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// A PostgreSQL cluster of the drill's own (initdb, trust auth, a free port).
pub struct Postgres {
    pub port: u16,
    data: PathBuf,
    dir: PathBuf,
    /// The first postmaster; after `pg_ctl restart` the server is pg_ctl's.
    first: Child,
    as_root: bool,
}

impl Postgres {
    /// A program of the PostgreSQL server, run as `postgres` when the drill
    /// runs as root (initdb and the postmaster refuse root).
    fn command(&self, program: &str) -> Command {
        server_command(program, self.as_root)
    }

    fn start(scratch: &Scratch) -> Postgres {
        let as_root = scratch.owned_by_root();
        let dir = scratch.path.join("postgres");
        std::fs::create_dir_all(&dir).expect("postgres dir");
        // The server's user writes its data, socket and log here.
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777))
            .expect("postgres dir mode");
        let data = dir.join("data");
        let out = server_command("initdb", as_root)
            .arg("-D")
            .arg(&data)
            .args([
                "-U",
                "postgres",
                "--auth=trust",
                "--no-sync",
                "-E",
                "UTF8",
                "--locale=C.UTF-8",
            ])
            .output()
            .expect("initdb runs");
        assert!(
            out.status.success(),
            "initdb failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let port = free_port();
        let log = std::fs::File::create(dir.join("postmaster.log")).expect("log");
        let first = server_command("postgres", as_root)
            .arg("-D")
            .arg(&data)
            .args(["-p", &port.to_string(), "-k"])
            .arg(&dir)
            .args([
                "-c",
                "listen_addresses=127.0.0.1",
                // Every target keeps a pool; `all` alone holds dozens.
                "-c",
                "max_connections=300",
                // The drills kill processes, not the machine: the page
                // cache keeps what was written, and the shared 2 cores
                // are spared the flushes.
                "-c",
                "fsync=off",
            ])
            .stdout(log.try_clone().expect("log"))
            .stderr(log)
            .process_group(0)
            .spawn()
            .expect("postgres starts");
        Postgres {
            port,
            data,
            dir,
            first,
            as_root,
        }
    }

    pub fn admin_url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{DATABASE}", self.port)
    }

    /// Whether the server accepts a session now.
    pub async fn accepts(&self) -> bool {
        let connect = sqlx_postgres::PgConnection::connect(&self.admin_url());
        match tokio::time::timeout(Duration::from_secs(2), connect).await {
            Ok(Ok(conn)) => {
                let _ = sqlx::Connection::close(conn).await;
                true
            }
            _ => false,
        }
    }

    /// `pg_ctl stop -m fast`, `down` of nothing (a failover's seconds), then
    /// `pg_ctl start`: sessions are cut and the server comes back. Answers
    /// how long it took.
    pub fn restart_fast(&mut self, down: Duration) -> Duration {
        let started = Instant::now();
        self.pg_ctl(&["-m", "fast", "-w", "-t", "60", "stop"]);
        // The first postmaster has exited: reap it.
        let _ = self.first.try_wait();
        std::thread::sleep(down);
        // The first postmaster's options (pg_ctl start does not reuse
        // them as restart would).
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off",
            self.port,
            self.dir.display()
        );
        self.pg_ctl(&["-w", "-t", "60", "-o", &options, "start"]);
        started.elapsed()
    }

    fn pg_ctl(&self, args: &[&str]) {
        let out = self
            .command("pg_ctl")
            .arg("-D")
            .arg(&self.data)
            .arg("-l")
            .arg(self.dir.join("pg_ctl.log"))
            .args(args)
            .output()
            .expect("pg_ctl runs");
        assert!(
            out.status.success(),
            "pg_ctl {args:?} failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// The running postmaster's pid (its process group: it leads one).
    fn postmaster_pid(&self) -> Option<u32> {
        let text = std::fs::read_to_string(self.data.join("postmaster.pid")).ok()?;
        text.lines().next()?.trim().parse().ok()
    }
}

/// `program`, as the `postgres` user when `as_root`.
fn server_command(program: &str, as_root: bool) -> Command {
    if as_root {
        let mut command = Command::new("setpriv");
        command.args([
            "--reuid=postgres",
            "--regid=postgres",
            "--init-groups",
            "--",
            program,
        ]);
        command
    } else {
        Command::new(program)
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let pid = self.postmaster_pid();
        let _ = self
            .command("pg_ctl")
            .arg("-D")
            .arg(&self.data)
            .args(["-m", "immediate", "-w", "-t", "10", "stop"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        if let Some(pid) = pid {
            signal_group(pid, "KILL");
        }
        signal_group(self.first.id(), "KILL");
        let _ = self.first.wait();
    }
}

/// A `fleetdesk` target running as a child process.
pub struct Process {
    pub name: String,
    pub log: PathBuf,
    child: Option<Child>,
}

impl Process {
    /// SIGKILL to the whole process group, as a node losing a pod does.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            signal_group(child.id(), "KILL");
            let _ = child.wait();
        }
    }

    /// SIGTERM, then SIGKILL after 15 s.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            signal_group(child.id(), "TERM");
            if !wait_exit(&mut child, Duration::from_secs(15)) {
                signal_group(child.id(), "KILL");
                let _ = child.wait();
            }
        }
    }

    /// Panics with its log when the process has exited.
    pub fn assert_running(&mut self) {
        if let Some(child) = &mut self.child
            && let Ok(Some(status)) = child.try_wait()
        {
            panic!(
                "{} exited ({status}):\n{}",
                self.name,
                log_tail(&self.log, 40)
            );
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill();
    }
}

/// One drill's world: its own PostgreSQL and NATS, a signing key its
/// targets share, and a scratch directory (dropped last).
pub struct Drill {
    pub nats: NatsServer,
    pub postgres: Postgres,
    signing_key: String,
    started: Vec<String>,
    pub scratch: Scratch,
    /// Drills take turns (each runs a whole stack on shared cores).
    _turn: std::fs::File,
}

impl Drill {
    pub async fn new(name: &str) -> Drill {
        let turn = take_turn().await;
        let scratch = Scratch::new(name);
        let postgres = Postgres::start(&scratch);
        let nats = NatsServer::start().await;
        let server = &postgres;
        eventually(
            Duration::from_secs(30),
            "PostgreSQL accepts",
            || async move { server.accepts().await.then_some(()) },
        )
        .await;
        let seed: Vec<u8> = Uuid::new_v4()
            .as_bytes()
            .iter()
            .chain(Uuid::new_v4().as_bytes())
            .copied()
            .collect();
        let signing_key = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, seed);
        std::fs::create_dir_all(scratch.path.join("objects")).expect("objects dir");
        Drill {
            nats,
            postgres,
            signing_key,
            started: Vec::new(),
            scratch,
            _turn: turn,
        }
    }

    /// `fleetdesk <args>` with the drill's database, NATS and key.
    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_fleetdesk"));
        command
            .args(args)
            .env("DATABASE_URL", self.postgres.url())
            .env("NATS_URL", self.nats.url())
            .env("FLEETDESK_ENV", "development")
            .env("FLEETDESK_INTERNAL_SIGNING_KEY", &self.signing_key)
            .env(
                "FLEETDESK_OBJECT_STORE_DIR",
                self.scratch.path.join("objects"),
            )
            .env("FLEETDESK_LOG_FORMAT", "text")
            .env("RUST_LOG", "info")
            .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT");
        command
    }

    /// Runs `fleetdesk <args>` to its end; panics with its output on failure.
    pub fn run(&self, args: &[&str]) {
        let out = self.command(args).output().expect("fleetdesk runs");
        assert!(
            out.status.success(),
            "fleetdesk {args:?} failed:\n{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }

    /// Migrates and loads the demo data (a fleet with bound terminals).
    pub fn migrate_and_seed(&self) {
        self.run(&["migrate"]);
        self.run(&["seed"]);
    }

    /// Starts `fleetdesk <args>` in the background with `env` added; its
    /// output goes to `<name>.log` in the scratch directory (appended, so a
    /// restarted target keeps one log).
    pub fn spawn(&mut self, name: &str, args: &[&str], env: &[(&str, String)]) -> Process {
        let log = self.scratch.path.join(format!("{name}.log"));
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
            .expect("log file");
        let mut command = self.command(args);
        for (key, value) in env {
            command.env(key, value);
        }
        let child = command
            .stdout(file.try_clone().expect("log"))
            .stderr(file)
            .process_group(0)
            .spawn()
            .expect("fleetdesk starts");
        self.started.push(name.to_owned());
        Process {
            name: name.to_owned(),
            log,
            child: Some(child),
        }
    }

    /// The tails of every log of the drill, for a failure's message.
    pub fn logs(&self) -> String {
        let mut out = String::new();
        for name in &self.started {
            let path = self.scratch.path.join(format!("{name}.log"));
            out.push_str(&format!("--- {name} ---\n{}\n", log_tail(&path, 25)));
        }
        out
    }

    /// A pool on the drill's database as the superuser (row-level security
    /// does not hide other tenants' rows from it).
    pub async fn pool(&self) -> sqlx_postgres::PgPool {
        sqlx_postgres::PgPoolOptions::new()
            .max_connections(2)
            .acquire_timeout(Duration::from_secs(5))
            .connect(&self.postgres.url())
            .await
            .expect("connect to the drill's database")
    }

    pub async fn jetstream(&self) -> jetstream::Context {
        let client = async_nats::ConnectOptions::new()
            .retry_on_initial_connect()
            .connect(self.nats.url())
            .await
            .expect("connect to the drill's NATS");
        jetstream::new(client)
    }
}

/// Waits for the other drills of this machine to finish (a file lock).
async fn take_turn() -> std::fs::File {
    let path = std::env::temp_dir().join("fleetdesk-drills.lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .expect("drill lock file");
    tokio::task::spawn_blocking(move || {
        file.lock().expect("drill lock");
        file
    })
    .await
    .expect("drill lock")
}

/// A fix as the telemetry stream holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamFix {
    pub lat: f64,
    pub lng: f64,
    /// Messages the stream holds for this (vehicle, fix time).
    pub copies: u32,
}

/// (vehicle, fix time in seconds).
pub type FixKey = (Uuid, i64);

/// Every fix the telemetry stream holds, read back with an ephemeral
/// consumer: the independent count the stored history must equal.
pub async fn stream_fixes(js: &jetstream::Context) -> BTreeMap<FixKey, StreamFix> {
    let stream = js
        .get_stream(TELEMETRY_STREAM)
        .await
        .expect("telemetry stream");
    let consumer = stream
        .create_consumer(jetstream::consumer::pull::Config {
            filter_subject: FIX_SUBJECTS.to_owned(),
            deliver_policy: jetstream::consumer::DeliverPolicy::All,
            ack_policy: jetstream::consumer::AckPolicy::None,
            inactive_threshold: Duration::from_secs(60),
            ..Default::default()
        })
        .await
        .expect("reading consumer");
    let mut pending = consumer.cached_info().num_pending;
    let mut fixes: BTreeMap<FixKey, StreamFix> = BTreeMap::new();
    while pending > 0 {
        let mut batch = consumer
            .fetch()
            .max_messages(500)
            .expires(Duration::from_secs(2))
            .messages()
            .await
            .expect("fetch");
        let mut got = 0;
        while let Some(message) = batch.next().await {
            let message = message.expect("message");
            let fix = fleetdesk_proto::telematics::v1::Fix::decode(message.payload.as_ref())
                .expect("a Fix");
            let vehicle = Uuid::parse_str(&fix.vehicle_id).expect("vehicle id");
            let time = fix.fix_time.expect("fix time").seconds;
            fixes
                .entry((vehicle, time))
                .and_modify(|f| f.copies += 1)
                .or_insert(StreamFix {
                    lat: fix.latitude,
                    lng: fix.longitude,
                    copies: 1,
                });
            got += 1;
        }
        assert!(got > 0, "the stream stopped answering with {pending} left");
        pending = pending.saturating_sub(got as u64);
    }
    fixes
}

/// The position history written since `since` (received then or later),
/// with how many rows each (vehicle, fix time) has.
pub async fn stored_fixes(
    pool: &sqlx_postgres::PgPool,
    since: DateTime<Utc>,
) -> BTreeMap<FixKey, i64> {
    let rows: Vec<(Uuid, i64, i64)> = sqlx::query_as(
        "select vehicle_id, extract(epoch from fix_time)::bigint, count(*) \
         from vehicle.position where receive_time >= $1 group by 1, 2",
    )
    .bind(since)
    .fetch_all(pool)
    .await
    .expect("read position history");
    rows.into_iter().map(|(v, t, n)| ((v, t), n)).collect()
}

/// The latest position of each vehicle: (fix time in seconds, lat, lng).
pub async fn latest_positions(pool: &sqlx_postgres::PgPool) -> BTreeMap<Uuid, (i64, f64, f64)> {
    let rows: Vec<(Uuid, i64, f64, f64)> = sqlx::query_as(
        "select vehicle_id, extract(epoch from fix_time)::bigint, lat, lng \
         from vehicle.latest_position",
    )
    .fetch_all(pool)
    .await
    .expect("read latest positions");
    rows.into_iter()
        .map(|(v, t, a, b)| (v, (t, a, b)))
        .collect()
}

/// What the stored history gets wrong against the stream.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Discrepancies {
    /// In the stream, not stored.
    pub missing: Vec<FixKey>,
    /// Stored (since the drill began), not in the stream.
    pub extra: Vec<FixKey>,
    /// Stored more than once.
    pub doubled: Vec<FixKey>,
    /// In the stream more than once: the edge's deduplication failed.
    pub published_twice: Vec<FixKey>,
}

impl Discrepancies {
    pub fn is_empty(&self) -> bool {
        *self == Discrepancies::default()
    }
}

/// Compares the stream's fixes with the stored history.
pub fn discrepancies(
    published: &BTreeMap<FixKey, StreamFix>,
    stored: &BTreeMap<FixKey, i64>,
) -> Discrepancies {
    Discrepancies {
        missing: published
            .keys()
            .filter(|k| !stored.contains_key(k))
            .copied()
            .collect(),
        extra: stored
            .keys()
            .filter(|k| !published.contains_key(k))
            .copied()
            .collect(),
        doubled: stored
            .iter()
            .filter(|(_, n)| **n > 1)
            .map(|(k, _)| *k)
            .collect(),
        published_twice: published
            .iter()
            .filter(|(_, f)| f.copies > 1)
            .map(|(k, _)| *k)
            .collect(),
    }
}

/// Waits until the history holds every fix of the stream, then checks the
/// ingest guarantees: each fix stored exactly once, none missing, none
/// extra, and each vehicle's latest position its newest fix. Answers the
/// number of fixes checked.
pub async fn assert_stream_stored_once(
    drill: &Drill,
    js: &jetstream::Context,
    since: DateTime<Utc>,
    within: Duration,
) -> usize {
    let published = stream_fixes(js).await;
    let pool = drill.pool().await;
    let started = Instant::now();
    let found = loop {
        let found = discrepancies(&published, &stored_fixes(&pool, since).await);
        if found.missing.is_empty() || started.elapsed() > within {
            break found;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    let first = |keys: &[FixKey]| keys[..keys.len().min(10)].to_vec();
    assert!(
        found.is_empty(),
        "{} fixes in the stream: missing {} {:?}, not in the stream {} {:?}, stored twice {:?}, \
         published twice {:?}\n{}",
        published.len(),
        found.missing.len(),
        first(&found.missing),
        found.extra.len(),
        first(&found.extra),
        first(&found.doubled),
        first(&found.published_twice),
        drill.logs()
    );
    // The newest fix of each vehicle of the stream is its latest position.
    let mut newest: BTreeMap<Uuid, (i64, f64, f64)> = BTreeMap::new();
    for ((vehicle, time), fix) in &published {
        let entry = newest.entry(*vehicle).or_insert((*time, fix.lat, fix.lng));
        if *time >= entry.0 {
            *entry = (*time, fix.lat, fix.lng);
        }
    }
    let latest = latest_positions(&pool).await;
    for (vehicle, newest) in &newest {
        assert_eq!(
            latest.get(vehicle),
            Some(newest),
            "the latest position of {vehicle} is not its newest fix (time, lat, lng)"
        );
    }
    pool.close().await;
    published.len()
}

//! Test helpers over real components: a fresh PostgreSQL database per test and
//! private `nats-server` processes a test can stop and start again, and
//! [`run_scenarios`] for a test file whose parts share one stack.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command};
use std::time::Duration;

pub use fleetdesk_kit::service::Schema;
use sqlx::Connection as _;
use sqlx_postgres::PgConnectOptions;
use sqlx_postgres::PgConnection;

mod template;
pub use template::{Template, TemplateName, template_name};

/// The server tests create their databases on.
pub fn admin_database_url() -> String {
    std::env::var("TEST_DATABASE_URL")
        .or_else(|_| std::env::var("DATABASE_URL"))
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_owned())
}

/// The shared NATS server tests may use (JetStream enabled).
pub fn nats_url() -> String {
    std::env::var("NATS_URL").unwrap_or_else(|_| "nats://127.0.0.1:4222".to_owned())
}

/// Logs for tests, shown with `TEST_LOG=1`.
pub fn init_test_logs() {
    if std::env::var("TEST_LOG").is_ok() {
        let _ = tracing_subscriber::fmt()
            .with_env_filter("info")
            .with_test_writer()
            .try_init();
    }
}

/// A database created for one test and dropped when the value is dropped.
#[derive(Debug)]
pub struct TestDb {
    pub name: String,
    pub url: String,
    admin: PgConnectOptions,
}

impl TestDb {
    /// An empty database, for tests of migrations themselves; others take
    /// [`TestDb::migrated`].
    pub async fn new() -> TestDb {
        let admin = template::admin_options();
        let name = format!("fd_test_{}", uuid::Uuid::new_v4().simple());
        let mut conn = PgConnection::connect_with(&admin)
            .await
            .expect("connect to test PostgreSQL");
        sqlx::query(&format!("create database {name}"))
            .execute(&mut conn)
            .await
            .expect("create test database");
        let url = template::database_url(&admin, &name);
        TestDb { name, url, admin }
    }

    /// A database with `schemas` migrated (kit's, the org replica's and each
    /// service's migrations, as [`Schema::migrate`] applies them), copied
    /// from a template that the first test process to need it builds once.
    pub async fn migrated(schemas: &[&Schema]) -> TestDb {
        Self::migrated_reporting(schemas).await.0
    }

    /// [`TestDb::migrated`], also telling which template it copied and
    /// whether this call built it.
    pub async fn migrated_reporting(schemas: &[&Schema]) -> (TestDb, Template) {
        if std::env::var("FLEETDESK_TEST_TEMPLATES").as_deref() == Ok("off") {
            return Self::migrated_in_place(schemas).await;
        }
        let admin = template::admin_options();
        let mut lease = template::lease_template(&admin, schemas)
            .await
            .unwrap_or_else(|e| panic!("build the test template database: {e:#}"));
        let name = format!("fd_test_{}", uuid::Uuid::new_v4().simple());
        sqlx::query(&format!(
            "create database {name} template {} strategy = {}",
            lease.template.name.as_str(),
            template::CLONE_STRATEGY
        ))
        .execute(&mut lease.conn)
        .await
        .unwrap_or_else(|e| panic!("copy template {}: {e}", lease.template.name.as_str()));
        // Housekeeping must never fail a test: a template left today goes next time.
        if let Err(e) = template::drop_stale_templates(&mut lease.conn, &lease.template.name).await
        {
            tracing::warn!("dropping stale test templates: {e:#}");
        }
        let _ = lease.conn.close().await;
        let url = template::database_url(&admin, &name);
        restamp_migrations(&admin, &name).await;
        (TestDb { name, url, admin }, lease.template)
    }

    /// The way before templates (`FLEETDESK_TEST_TEMPLATES=off`): an empty
    /// database migrated by this test, to compare timings or rule templates out.
    async fn migrated_in_place(schemas: &[&Schema]) -> (TestDb, Template) {
        let db = TestDb::new().await;
        for schema in schemas {
            let owner = fleetdesk_kit::db::connect_owner(&db.url, schema.name, 1)
                .await
                .expect("connect to the test database");
            schema
                .migrate(&owner)
                .await
                .expect("migrate the test database");
            owner.close().await;
        }
        let template = Template {
            name: template_name(schemas),
            built: true,
        };
        (db, template)
    }
}

/// A copy's migrations are dated now, as if migrated by this test: a new
/// event consumer starts at the deployment's first migration
/// (`fleetdesk_kit::events::deployment_epoch`), and the template's date
/// would have it read every other test's events since the template was built.
async fn restamp_migrations(admin: &PgConnectOptions, database: &str) {
    let mut conn = PgConnection::connect_with(&admin.clone().database(database))
        .await
        .expect("connect to the copied test database");
    let histories: Vec<String> = sqlx::query_scalar(
        "select format('update %I._sqlx_migrations set installed_on = now()', schemaname) \
         from pg_tables where tablename = '_sqlx_migrations'",
    )
    .fetch_all(&mut conn)
    .await
    .expect("find the migration histories");
    for update in histories {
        sqlx::query(&update)
            .execute(&mut conn)
            .await
            .expect("date the copy's migrations");
    }
    let _ = conn.close().await;
}

impl Drop for TestDb {
    fn drop(&mut self) {
        let admin = self.admin.clone();
        let name = self.name.clone();
        // Drop runs outside async; use a short-lived runtime on its own thread.
        let _ = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            rt.block_on(async move {
                if let Ok(mut conn) = PgConnection::connect_with(&admin).await {
                    let _ = sqlx::query(&format!("drop database if exists {name} with (force)"))
                        .execute(&mut conn)
                        .await;
                }
            });
        })
        .join();
    }
}

/// A port nobody listens on right now, for a process the test starts to
/// bind later. Picked below the kernel's ephemeral range: a port the kernel
/// hands out (`bind` to port 0, or the local end of any outgoing
/// connection) could otherwise be taken by another process of a busy test
/// run between this pick and that bind, and the process would exit with
/// "address in use".
pub fn free_port() -> u16 {
    let ephemeral_low = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|range| range.split_whitespace().next()?.parse::<u16>().ok())
        .unwrap_or(32768);
    let low = 10_000u16;
    if ephemeral_low > low + 1_000 {
        for _ in 0..100 {
            let random = u16::from_le_bytes(
                uuid::Uuid::new_v4().as_bytes()[..2]
                    .try_into()
                    .expect("2 bytes"),
            );
            let port = low + random % (ephemeral_low - low);
            if TcpListener::bind(("127.0.0.1", port)).is_ok() {
                return port;
            }
        }
    }
    TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port()
}

/// A private `nats-server` with JetStream, on its own port and store directory,
/// that a test can stop and start again (same port, same store). Its output
/// goes to a log file beside the store ([`NatsServer::log_tail`]).
#[derive(Debug)]
pub struct NatsServer {
    pub port: u16,
    store: PathBuf,
    log: PathBuf,
    child: Option<Child>,
}

fn nats_server_binary() -> String {
    std::env::var("NATS_SERVER_BIN").unwrap_or_else(|_| {
        [
            "/usr/sbin/nats-server",
            "/usr/bin/nats-server",
            "/usr/local/bin/nats-server",
        ]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())
        .unwrap_or("nats-server")
        .to_owned()
    })
}

impl NatsServer {
    pub async fn start() -> NatsServer {
        let store = std::env::temp_dir().join(format!("fd-nats-{}", uuid::Uuid::new_v4().simple()));
        let mut server = NatsServer {
            port: free_port(),
            log: store.with_extension("log"),
            store,
            child: None,
        };
        server.resume().await;
        server
    }

    pub fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    /// Starts (again) on the same port and store; waits until it accepts connections.
    pub async fn resume(&mut self) {
        assert!(self.child.is_none(), "already running");
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .expect("nats-server log");
        let child = Command::new(nats_server_binary())
            .args([
                "-a",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-js",
                "-sd",
            ])
            .arg(&self.store)
            .stdout(log.try_clone().expect("nats-server log"))
            .stderr(log)
            .spawn()
            .expect("start nats-server (install Debian's nats-server)");
        self.child = Some(child);
        for _ in 0..300 {
            if tokio::net::TcpStream::connect(("127.0.0.1", self.port))
                .await
                .is_ok()
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!(
            "nats-server did not start on port {}: {}",
            self.port,
            self.log_tail(20)
        );
    }

    /// Kills the server; clients see the connection drop.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Stops the server as an operator does: SIGTERM, then up to 15 s for
    /// it to go (killed after that).
    pub fn terminate(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        let _ = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status();
        for _ in 0..300 {
            if matches!(child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = child.kill();
        let _ = child.wait();
    }

    /// The last `lines` of the server's log, to show beside a failure.
    pub fn log_tail(&self, lines: usize) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let all: Vec<&str> = text.lines().collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }
}

impl Drop for NatsServer {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.store);
        let _ = std::fs::remove_file(&self.log);
    }
}

/// One part of a test file that runs on the file's shared stack.
pub type Scenario<'a> = (
    &'static str,
    std::pin::Pin<Box<dyn std::future::Future<Output = ()> + 'a>>,
);

/// Runs the scenarios one after another on one shared stack (each makes its
/// own tenants, so none sees another's rows). A failing scenario does not
/// stop the rest; the test fails at the end naming every one that failed.
/// See [`scenarios!`].
pub async fn run_scenarios(scenarios: Vec<Scenario<'_>>) {
    use futures::FutureExt as _;
    let mut failed = Vec::new();
    for (name, scenario) in scenarios {
        let started = std::time::Instant::now();
        match std::panic::AssertUnwindSafe(scenario).catch_unwind().await {
            Ok(()) => eprintln!("scenario {name}: ok in {:.1?}", started.elapsed()),
            Err(_) => {
                eprintln!("scenario {name}: FAILED");
                failed.push(name);
            }
        }
    }
    assert!(failed.is_empty(), "failed scenarios: {failed:?}");
}

/// `scenarios!(&stack; a, b, c)` runs the async fns `a(&stack)`, `b(&stack)`
/// … with [`run_scenarios`], each named after its function.
#[macro_export]
macro_rules! scenarios {
    ($stack:expr; $($scenario:ident),+ $(,)?) => {
        $crate::run_scenarios(vec![$(
            (
                stringify!($scenario),
                Box::pin($scenario($stack))
                    as ::std::pin::Pin<Box<dyn ::std::future::Future<Output = ()> + '_>>,
            )
        ),+])
        .await
    };
}

/// A metric's value as this process's `/metrics` shows it, 0 when absent:
/// `series` is `name` or `name{key="value",…}` with the labels sorted by
/// key, as the exporter writes them. Installs the recorder on first use
/// (under nextest each test is its own process, so the values are its own).
pub fn metric(series: &str) -> f64 {
    static RECORDER: std::sync::OnceLock<metrics_exporter_prometheus::PrometheusHandle> =
        std::sync::OnceLock::new();
    let handle = RECORDER.get_or_init(|| {
        metrics_exporter_prometheus::PrometheusBuilder::new()
            .install_recorder()
            .expect("install the metrics recorder")
    });
    let prefix = format!("{series} ");
    handle
        .render()
        .lines()
        .find_map(|l| l.strip_prefix(&prefix).and_then(|v| v.trim().parse().ok()))
        .unwrap_or(0.0)
}

/// Waits (up to 10 s) until a consumer of the schema `pool` serves has
/// applied event `id` (its once-only row is there); panics otherwise.
pub async fn event_applied(pool: &sqlx_postgres::PgPool, id: uuid::Uuid) {
    for _ in 0..100 {
        let mut tx = fleetdesk_kit::db::begin_service(pool).await.expect("begin");
        let done: bool =
            sqlx::query_scalar("select exists (select 1 from processed_event where event_id = $1)")
                .bind(id)
                .fetch_one(&mut *tx)
                .await
                .expect("read processed_event");
        if done {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("event {id} was not applied");
}

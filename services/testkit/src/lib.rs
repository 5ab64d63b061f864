//! Test helpers over real components: a fresh PostgreSQL database per test and
//! private `nats-server` processes a test can stop and start again, and
//! [`run_scenarios`] for a test file whose parts share one stack.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::str::FromStr;
use std::time::Duration;

use sqlx::postgres::PgConnectOptions;
use sqlx::{Connection as _, PgConnection};

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
    pub async fn new() -> TestDb {
        let admin = PgConnectOptions::from_str(&admin_database_url())
            .expect("database url")
            .database("postgres");
        let name = format!("fd_test_{}", uuid::Uuid::new_v4().simple());
        let mut conn = PgConnection::connect_with(&admin)
            .await
            .expect("connect to test PostgreSQL");
        sqlx::query(&format!("create database {name}"))
            .execute(&mut conn)
            .await
            .expect("create test database");
        let url = format!(
            "postgres://{}@{}:{}/{}",
            admin.get_username(),
            admin.get_host(),
            admin.get_port(),
            name
        );
        TestDb { name, url, admin }
    }
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

/// A port nobody listens on right now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port()
}

/// A private `nats-server` with JetStream, on its own port and store directory,
/// that a test can stop and start again (same port, same store).
#[derive(Debug)]
pub struct NatsServer {
    pub port: u16,
    store: PathBuf,
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
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start nats-server (install Debian's nats-server)");
        self.child = Some(child);
        for _ in 0..100 {
            if tokio::net::TcpStream::connect(("127.0.0.1", self.port))
                .await
                .is_ok()
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("nats-server did not start on port {}", self.port);
    }

    /// Kills the server; clients see the connection drop.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for NatsServer {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.store);
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

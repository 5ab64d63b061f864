//! The `fleetdesk` binary itself: migrate, seed twice, serve, stop on SIGTERM.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use fleetdesk_testkit::{TestDb, free_port};

fn fleetdesk(db: &TestDb) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fleetdesk"));
    cmd.env("DATABASE_URL", &db.url)
        .env("NATS_URL", fleetdesk_testkit::nats_url())
        .env("FLEETDESK_ENV", "development")
        .env_remove("FLEETDESK_INTERNAL_SIGNING_KEY")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    cmd
}

async fn counts(db: &TestDb) -> Vec<i64> {
    let pool = sqlx_postgres::PgPool::connect(&db.url).await.unwrap();
    let mut out = Vec::new();
    for table in [
        "auth.account",
        "org.enterprise",
        "org.org_unit",
        "org.role",
        "org.role_permission",
        "org.member",
        "org.member_role",
    ] {
        out.push(
            sqlx::query_scalar(&format!("select count(*) from {table}"))
                .fetch_one(&pool)
                .await
                .unwrap(),
        );
    }
    pool.close().await;
    out
}

#[tokio::test]
async fn seed_is_idempotent() {
    let db = TestDb::new().await;
    assert!(fleetdesk(&db).arg("migrate").status().unwrap().success());
    assert!(fleetdesk(&db).arg("seed").status().unwrap().success());
    let first = counts(&db).await;
    assert_eq!(&first[..2], &[4, 2], "four demo accounts, two enterprises");
    assert!(fleetdesk(&db).arg("seed").status().unwrap().success());
    assert_eq!(counts(&db).await, first);
}

#[tokio::test]
async fn production_refuses_to_start_without_a_signing_key() {
    let db = TestDb::new().await;
    let output = fleetdesk(&db)
        .args(["org"])
        .env("FLEETDESK_ENV", "production")
        .env("FLEETDESK_GRPC_ADDR", "127.0.0.1:0")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert!(!output.status.success());
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        said.contains("FLEETDESK_INTERNAL_SIGNING_KEY is required in production"),
        "refused for the missing key, not something else: {said}"
    );
}

#[tokio::test]
async fn all_serves_and_stops_cleanly_on_sigterm() {
    let db = TestDb::new().await;
    let port = free_port();
    // Its log, to show when it is not ready in time.
    let log = std::env::temp_dir().join(format!("fleetdesk-all-{port}.log"));
    let mut child = fleetdesk(&db)
        .args(["all", "--demo", "--http-addr", &format!("127.0.0.1:{port}")])
        // Free ports for the device edge and the OCPI receiver: a `make run`
        // on the same machine holds their defaults.
        .env("FLEETDESK_JT808_ADDR", "127.0.0.1:0")
        .env("FLEETDESK_OCPI_ADDR", "127.0.0.1:0")
        .env("FLEETDESK_LOG_FORMAT", "text")
        .stdout(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let http = reqwest::Client::new();
    let started = Instant::now();
    loop {
        let ready = http
            .get(format!("http://127.0.0.1:{port}/readyz"))
            .send()
            .await
            .is_ok_and(|r| r.status() == 200);
        if ready {
            break;
        }
        // `--demo` migrates and loads the whole demo first: a debug build
        // beside other tests takes 20-40 s of it.
        if started.elapsed() > READY_WITHIN {
            let said = std::fs::read_to_string(&log).unwrap_or_default();
            let tail: Vec<&str> = said.lines().rev().take(30).collect();
            let _ = child.kill();
            panic!(
                "not ready in {READY_WITHIN:?}; the end of its log:\n{}",
                tail.into_iter().rev().collect::<Vec<_>>().join("\n")
            );
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let body = serde_json::json!({ "loginType": 1, "username": "demo", "password": "Demo@12345" });
    let login: serde_json::Value = http
        .post(format!("http://127.0.0.1:{port}/api/v1/auth/login"))
        .json(&body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(login["code"], 200);

    assert!(
        Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .unwrap()
            .success()
    );
    let stopping = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            stopping.elapsed() < Duration::from_secs(10),
            "still running 10 s after SIGTERM"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(status.success(), "exit status {status:?}");
    let _ = std::fs::remove_file(&log);
}

/// How long `all --demo` may take to be ready on a fresh database.
const READY_WITHIN: Duration = Duration::from_secs(120);

use std::time::Duration;

use fleetdesk::Stack;
use fleetdesk_kit::Shutdown;
use fleetdesk_kit::config::{CommonConfig, Environment};
use fleetdesk_testkit::TestDb;
use serde_json::{Value, json};

pub const PASSWORD: &str = "Demo@12345";

/// A running stack on a fresh database with the demo data.
pub struct TestApp {
    pub base: String,
    pub http: reqwest::Client,
    pub db: TestDb,
    pub grpc_ports: Vec<(&'static str, u16)>,
    pub common: CommonConfig,
    shutdown: Shutdown,
}

impl Drop for TestApp {
    fn drop(&mut self) {
        self.shutdown.trigger();
    }
}

pub fn common_config(db: &TestDb) -> CommonConfig {
    CommonConfig {
        database_url: db.url.clone(),
        nats_url: fleetdesk_testkit::nats_url(),
        internal_signing_key: None,
        environment: Environment::Development,
        db_max_connections: 5,
    }
}

pub async fn spawn_app() -> TestApp {
    fleetdesk_testkit::init_test_logs();
    let db = TestDb::new().await;
    let common = common_config(&db);
    fleetdesk::migrate(&common).await.expect("migrate");
    fleetdesk::seed(&common).await.expect("seed");
    spawn_on(db, common).await
}

/// Another stack (own gateway and services) on the same database.
pub async fn spawn_second_stack(first: &TestApp) -> (String, Shutdown) {
    let shutdown = Shutdown::new();
    let stack = Stack::start(first.common.clone(), "127.0.0.1:0", None, shutdown.clone())
        .await
        .expect("stack");
    let base = format!("http://{}", stack.http_addr);
    tokio::spawn(stack.wait(shutdown.clone()));
    (base, shutdown)
}

async fn spawn_on(db: TestDb, common: CommonConfig) -> TestApp {
    let shutdown = Shutdown::new();
    let stack = Stack::start(common.clone(), "127.0.0.1:0", None, shutdown.clone())
        .await
        .expect("stack");
    let base = format!("http://{}", stack.http_addr);
    let grpc_ports = stack.grpc_ports.clone();
    tokio::spawn(stack.wait(shutdown.clone()));
    TestApp {
        base,
        http: reqwest::Client::new(),
        db,
        grpc_ports,
        common,
        shutdown,
    }
}

/// (HTTP status, envelope) of an answer.
pub async fn envelope(response: reqwest::Response) -> (u16, Value) {
    let status = response.status().as_u16();
    let body: Value = response.json().await.expect("JSON envelope");
    assert!(
        body.get("code").is_some() && body.get("msg").is_some() && body.get("data").is_some(),
        "{body}"
    );
    (status, body)
}

impl TestApp {
    pub async fn login(&self, username: &str, password: &str) -> (u16, Value) {
        login_at(&self.http, &self.base, username, password).await
    }

    /// The token of a successful sign-in.
    pub async fn token(&self, username: &str) -> String {
        let (status, body) = self.login(username, PASSWORD).await;
        assert_eq!(status, 200, "{body}");
        body["data"]["token"].as_str().expect("token").to_owned()
    }

    pub async fn get(&self, path: &str, token: Option<&str>) -> (u16, Value) {
        get_at(&self.http, &self.base, path, token).await
    }

    pub async fn post(&self, path: &str, token: Option<&str>, body: Value) -> (u16, Value) {
        let mut req = self.http.post(format!("{}{path}", self.base)).json(&body);
        if let Some(t) = token {
            req = req.header("token", t);
        }
        envelope(req.send().await.expect("request")).await
    }

    pub async fn sql(&self, statement: &str) {
        let pool = sqlx::PgPool::connect(&self.db.url).await.expect("connect");
        sqlx::query(statement).execute(&pool).await.expect("sql");
        pool.close().await;
    }
}

pub async fn login_at(
    http: &reqwest::Client,
    base: &str,
    username: &str,
    password: &str,
) -> (u16, Value) {
    let body = json!({ "loginType": 1, "username": username, "password": password });
    envelope(
        http.post(format!("{base}/api/v1/auth/login"))
            .json(&body)
            .send()
            .await
            .expect("login"),
    )
    .await
}

pub async fn get_at(
    http: &reqwest::Client,
    base: &str,
    path: &str,
    token: Option<&str>,
) -> (u16, Value) {
    let mut req = http.get(format!("{base}{path}"));
    if let Some(t) = token {
        req = req.header("token", t);
    }
    envelope(req.send().await.expect("request")).await
}

/// Polls `f` until it returns true or `within` passes.
pub async fn eventually(within: Duration, mut f: impl AsyncFnMut() -> bool) -> bool {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        if f().await {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

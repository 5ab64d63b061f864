use std::time::Duration;

use fleetdesk::{SignInConfig, Stack, WeComStandIn};
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
    /// The WeCom stand-in this stack talks to.
    pub wecom: WeComStandIn,
    /// The gateway's object store directory (removed on drop).
    pub objects: std::path::PathBuf,
    shutdown: Shutdown,
}

impl Drop for TestApp {
    fn drop(&mut self) {
        self.shutdown.trigger();
        let _ = std::fs::remove_dir_all(&self.objects);
    }
}

/// A fresh object store directory under the system's temp dir.
pub fn object_dir() -> std::path::PathBuf {
    std::env::temp_dir().join(format!(
        "fleetdesk-objects-{}",
        uuid::Uuid::new_v4().simple()
    ))
}

pub fn common_config(db: &TestDb) -> CommonConfig {
    CommonConfig {
        database_url: db.url.clone(),
        nats_url: fleetdesk_testkit::nats_url(),
        // A known key, so tests can call services as another service would.
        internal_signing_key: Some(
            fleetdesk_kit::internal_token::TokenSigner::generate().seed_base64(),
        ),
        environment: Environment::Development,
        db_max_connections: 5,
    }
}

pub async fn spawn_app() -> TestApp {
    fleetdesk_testkit::init_test_logs();
    let db = TestDb::migrated(&fleetdesk::SCHEMAS.each_ref()).await;
    let common = common_config(&db);
    fleetdesk::migrate(&common).await.expect("migrate");
    fleetdesk_seed::identity(&common).await.expect("seed");
    spawn_on(db, common).await
}

/// Another stack (own gateway and services) on the same database.
pub async fn spawn_second_stack(first: &TestApp) -> (String, Shutdown) {
    let shutdown = Shutdown::new();
    let stack = Stack::start(
        first.common.clone(),
        SignInConfig::default(),
        "127.0.0.1:0",
        None,
        first.objects.clone(),
        shutdown.clone(),
    )
    .await
    .expect("stack");
    let base = format!("http://{}", stack.http_addr);
    tokio::spawn(stack.wait(shutdown.clone()));
    (base, shutdown)
}

async fn spawn_on(db: TestDb, common: CommonConfig) -> TestApp {
    let shutdown = Shutdown::new();
    let objects = object_dir();
    let stack = Stack::start(
        common.clone(),
        SignInConfig::default(),
        "127.0.0.1:0",
        None,
        objects.clone(),
        shutdown.clone(),
    )
    .await
    .expect("stack");
    let base = format!("http://{}", stack.http_addr);
    let grpc_ports = stack.grpc_ports.clone();
    let wecom = stack.wecom.clone().expect("development stacks play WeCom");
    tokio::spawn(stack.wait(shutdown.clone()));
    TestApp {
        base,
        http: reqwest::Client::new(),
        db,
        grpc_ports,
        common,
        wecom,
        objects,
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

    /// Any method, with a JSON body unless it is GET or DELETE.
    pub async fn send(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Value,
    ) -> (u16, Value) {
        self.send_keyed(method, path, token, body, None).await
    }

    /// [`TestApp::send`] with an `Idempotency-Key` (money moves refuse a
    /// request without one before looking at anything else).
    pub async fn send_keyed(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Value,
        key: Option<&str>,
    ) -> (u16, Value) {
        let method = reqwest::Method::from_bytes(method.as_bytes()).expect("method");
        let mut req = self
            .http
            .request(method.clone(), format!("{}{path}", self.base));
        if method != reqwest::Method::GET && method != reqwest::Method::DELETE {
            req = req.json(&body);
        }
        if let Some(t) = token {
            req = req.header("token", t);
        }
        if let Some(k) = key {
            req = req.header("Idempotency-Key", k);
        }
        envelope(req.send().await.expect("request")).await
    }

    /// [`TestApp::send`] for routes that may answer a file: a body that is
    /// not JSON reads as `null`.
    pub async fn send_any(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Value,
    ) -> (u16, Value) {
        let method = reqwest::Method::from_bytes(method.as_bytes()).expect("method");
        let mut req = self
            .http
            .request(method.clone(), format!("{}{path}", self.base));
        if method != reqwest::Method::GET && method != reqwest::Method::DELETE {
            req = req.json(&body);
        }
        if let Some(t) = token {
            req = req.header("token", t);
        }
        let response = req.send().await.expect("request");
        let status = response.status().as_u16();
        // A live stream (SSE) never ends by itself: its status is the answer.
        let streaming = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .is_some_and(|t| t.as_bytes().starts_with(b"text/event-stream"));
        if streaming {
            return (status, Value::Null);
        }
        let bytes = response.bytes().await.expect("body");
        (
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        )
    }

    /// The one text value `query` selects.
    pub async fn sql_text(&self, query: &str) -> String {
        let pool = sqlx_postgres::PgPool::connect(&self.db.url)
            .await
            .expect("connect");
        let value: String = sqlx::query_scalar(query)
            .fetch_one(&pool)
            .await
            .unwrap_or_else(|e| panic!("{query}: {e}"));
        pool.close().await;
        value
    }

    /// The id of an organisation of demo enterprise A by its code.
    pub async fn org_a(&self, code: &str) -> String {
        self.sql_text(&format!(
            "select o.id::text from org.org_unit o join org.enterprise e on e.id = o.enterprise_id \
             where e.code = 'DEMO-LOGISTICS' and o.org_code = '{code}'"
        ))
        .await
    }

    /// An export record of demo enterprise A requested by `user_name` (the demo
    /// seed has only a failed one): 3 finished with `file_key`, 2 running, … .
    pub async fn export_record(
        &self,
        user_name: &str,
        name: &str,
        status: i16,
        file_key: &str,
    ) -> String {
        self.sql_text(&format!(
            "insert into org.export_record (id, enterprise_id, name, module, status, requested_by, \
             requested_by_name, row_count, file_key, finished_at, expires_at) \
             select gen_random_uuid(), m.enterprise_id, '{name}', 'carFiles', {status}, m.id, m.name, \
             case when {status} = 3 then 128 else 0 end, '{file_key}', \
             case when {status} = 3 then now() end, case when {status} = 3 then now() + interval '7 days' end \
             from org.member m join org.enterprise e on e.id = m.enterprise_id \
             where e.code = 'DEMO-LOGISTICS' and m.user_name = '{user_name}' returning id::text"
        ))
        .await
    }

    pub async fn sql(&self, statement: &str) {
        let pool = sqlx_postgres::PgPool::connect(&self.db.url)
            .await
            .expect("connect");
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

/// What a WeCom QR scan hands back to the console.
#[derive(Debug, Clone)]
pub struct WeComCallback {
    pub code: String,
    pub state: String,
}

impl TestApp {
    /// One number from the database, e.g. `select count(*) from auth.session`.
    pub async fn count(&self, query: &str) -> i64 {
        let pool = sqlx_postgres::PgPool::connect(&self.db.url)
            .await
            .expect("connect");
        let n: i64 = sqlx::query_scalar(query)
            .fetch_one(&pool)
            .await
            .expect("count");
        pool.close().await;
        n
    }

    /// Asks for an SMS code: (status, envelope, Retry-After).
    pub async fn send_code(&self, phone: &str, purpose: &str) -> (u16, Value, Option<u64>) {
        let response = self
            .http
            .post(format!("{}/api/v1/auth/sms-code", self.base))
            .json(&json!({ "phone": phone, "purpose": purpose }))
            .send()
            .await
            .expect("sms-code");
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse().ok());
        let (status, body) = envelope(response).await;
        (status, body, retry_after)
    }

    /// Codes the development sender recorded for `phone`, newest first.
    pub async fn sms_outbox(&self, phone: &str) -> Vec<String> {
        let (status, body) = self
            .get(&format!("/api/v1/dev/sms-outbox?phone={phone}"), None)
            .await;
        assert_eq!(status, 200, "{body}");
        body["data"]
            .as_array()
            .expect("list")
            .iter()
            .map(|m| m["code"].as_str().expect("code").to_owned())
            .collect()
    }

    /// Sends a code and reads it back from the development sender.
    pub async fn fresh_code(&self, phone: &str, purpose: &str) -> String {
        let (status, body, _) = self.send_code(phone, purpose).await;
        assert_eq!(status, 200, "{body}");
        self.sms_outbox(phone).await.remove(0)
    }

    pub async fn login_sms(&self, phone: &str, code: &str) -> (u16, Value) {
        self.post(
            "/api/v1/auth/login",
            None,
            json!({ "loginType": 2, "phone": phone, "verifyCode": code }),
        )
        .await
    }

    /// The QR frame settings, as a browser with `cookie` (if any) asks for
    /// them; returns the data and the binding cookie the gateway set.
    pub async fn wecom_app_info(&self, cookie: Option<&str>) -> (Value, String) {
        let mut req = self
            .http
            .get(format!("{}/api/v1/auth/wecom/app-info", self.base));
        if let Some(c) = cookie {
            req = req.header("cookie", c);
        }
        let response = req.send().await.expect("app-info");
        let set_cookie = response
            .headers()
            .get("set-cookie")
            .and_then(|v| v.to_str().ok())
            .expect("binding cookie")
            .to_owned();
        let (status, body) = envelope(response).await;
        assert_eq!(status, 200, "{body}");
        let cookie = set_cookie.split(';').next().unwrap().to_owned();
        (body["data"].clone(), cookie)
    }

    /// Opens the stand-in's QR page with `info` and picks `userid`, as a
    /// person scanning would; returns what comes back to the console.
    pub async fn wecom_scan(&self, info: &Value, userid: &str) -> WeComCallback {
        let no_redirects = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let page = no_redirects
            .get(info["qrconnect_url"].as_str().unwrap())
            .query(&[
                ("appid", info["appid"].as_str().unwrap()),
                ("agentid", info["agentid"].as_str().unwrap()),
                ("redirect_uri", info["redirect_uri"].as_str().unwrap()),
                ("state", info["state"].as_str().unwrap()),
            ])
            .send()
            .await
            .expect("QR page")
            .text()
            .await
            .unwrap();
        let marker = format!("data-userid=\"{userid}\" href=\"");
        let href = page
            .split(&marker)
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .unwrap_or_else(|| panic!("{userid} not on the QR page: {page}"))
            .replace("&amp;", "&");
        let confirm = no_redirects
            .get(format!("{}{href}", self.wecom.base_url))
            .send()
            .await
            .expect("confirm");
        assert_eq!(confirm.status(), 302);
        let location =
            reqwest::Url::parse(confirm.headers()["location"].to_str().unwrap()).unwrap();
        assert!(
            location
                .as_str()
                .starts_with(info["redirect_uri"].as_str().unwrap()),
            "{location}"
        );
        let param = |name: &str| {
            location
                .query_pairs()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.into_owned())
                .unwrap_or_default()
        };
        WeComCallback {
            code: param("code"),
            state: param("state"),
        }
    }

    /// Signs in with a WeCom callback, as the browser holding `cookie`.
    pub async fn login_wecom(
        &self,
        callback: &WeComCallback,
        cookie: Option<&str>,
    ) -> (u16, Value) {
        let mut req = self
            .http
            .post(format!("{}/api/v1/auth/login", self.base))
            .json(&json!({ "loginType": 3, "authToken": callback.code, "state": callback.state }));
        if let Some(c) = cookie {
            req = req.header("cookie", c);
        }
        envelope(req.send().await.expect("login")).await
    }
}

/// demo2 has not opened charging: its charging routes answer the refusal
/// that says so (4009), which names nothing of any other enterprise and
/// changes nothing. Energy's own tests check an opened tenant B against A.
pub fn charging_not_opened(route: &str, status: u16, body: &Value) -> bool {
    route.starts_with("/api/v1/charging/")
        && status == 409
        && body["code"].as_u64() == Some(4009)
        && body["msg"]
            .as_str()
            .unwrap_or_default()
            .contains("尚未开通")
}

/// A route only some enterprises may call (its `x-enterprise` rule, console
/// spec §6), refused with 9999 to the caller's enterprise before any id is
/// looked at: nothing found, nothing changed.
pub fn enterprise_rule_refused(method: &str, route: &str, status: u16, body: &Value) -> bool {
    static TABLE: std::sync::LazyLock<fleetdesk_gateway::access::AccessTable> =
        std::sync::LazyLock::new(|| {
            fleetdesk_gateway::access::AccessTable::from_openapi(&fleetdesk_gateway::api().1)
                .expect("every route has a decision")
        });
    let method = axum::http::Method::from_bytes(method.as_bytes()).expect("an HTTP method");
    status == 403
        && body["code"].as_u64() == Some(9999)
        && TABLE.enterprise_rule(&method, route).is_some()
}

/// A charging money move refused for its body (the sweep sends no valid
/// one) before any id is looked at: nothing found, nothing changed (the
/// sweep's snapshot checks that).
pub fn charging_body_refused(route: &str, status: u16, body: &Value) -> bool {
    route.starts_with("/api/v1/charging/") && status == 400 && body["code"].as_u64() == Some(4000)
}

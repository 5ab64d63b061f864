//! A local stand-in for the invoicing platform finance issues VAT invoices
//! through (fully digital invoices, 全电发票/数电票): an HTTP API answering
//! the way such a platform does, checks included, so invoices reach the
//! console end to end without the outside service.
//!
//! Every API call is a `POST` of JSON answering
//! `{"code":0,"message":"成功","data":…}`; a refusal answers a non-zero
//! `code`, a Chinese `message` and, for a field's mistake, `field` (as in
//! the JSON: `buyer.taxId`, `lines[0].tax`).
//!
//! - `POST /openapi/v1/invoices/issue` — [`invoice::IssueRequest`]: a blue
//!   invoice, answered as the [`invoice::Invoice`] plus `downloadUrl`. The
//!   request number makes it idempotent: the same number with the same
//!   content answers the same invoice; with other content, 409 (40901).
//!   Checked as the platform checks ([`invoice::check_issue`]; 400, 40010):
//!   tax per line = round(amount × rate) within 1 fen, totals adding up,
//!   the buyer's unified social credit code, the buyer's address, phone,
//!   bank and account on a special invoice. The number is 20 digits:
//!   year, region, `1`, a 15-digit sequence ([`invoice::number`]).
//! - `POST /openapi/v1/invoices/red` — [`invoice::RedRequest`]: reverses a
//!   blue invoice in full with a red-letter one; an invoice is reversed once
//!   (40902), a red one never (40903); the blue one's status becomes
//!   `REVERSED`. Idempotent by request number as issuing is.
//! - `POST /openapi/v1/invoices/query` — `{"invoiceNo"}` or `{"requestNo"}`:
//!   the invoice (404, 40401, when the app has none such).
//! - `GET /files/{invoiceNo}.pdf?expires&sign` — the `downloadUrl`: the
//!   invoice's PDF ([`layout`]), a link signed by the stand-in and valid for
//!   [`Settings::link_ttl`] (403 when altered or expired). Each answer
//!   carries a fresh one; keep the file, not the link.
//! - `POST /admin/faults` (only with [`Settings::admin`]) —
//!   `{"failIssues":N,"code":C,"message":M,"delayMs":D}`: the next N issue
//!   calls answer 503 with the platform error `code` and `message` (nothing
//!   issued; a retry with the same request number may succeed), and every
//!   API answer waits D ms.
//!
//! Every API call is signed: headers `X-App-Id`, `X-Timestamp` (Unix
//! seconds), `X-Nonce` and `X-Signature`, the lowercase hex HMAC-SHA256,
//! under the app's secret, of [`string_to_sign`]:
//! `METHOD\nPATH\nAPP_ID\nTIMESTAMP\nNONCE\nSHA256_HEX(BODY)`. A call
//! unsigned, badly signed, more than [`MAX_SKEW`] from now or repeating a
//! nonce seen within that window answers 401 with its reason.
//!
//! State is in memory: invoices, request numbers and nonces are forgotten
//! when the stand-in stops. Sequences start from the start's Unix
//! milliseconds, so a restarted stand-in does not hand out a number it
//! handed out before. Nothing here logs secrets or signatures.

pub mod capitals;
pub mod credit_code;
pub mod invoice;
pub mod layout;
pub mod pdf;

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use chrono::{DateTime, FixedOffset, Timelike, Utc};
use hmac::{Hmac, Mac};
use serde::Deserialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio::net::TcpListener;

use invoice::{Colour, Invoice, IssueRequest, Issuer, Party, RedRequest, Status};

pub const ISSUE_PATH: &str = "/openapi/v1/invoices/issue";
pub const RED_PATH: &str = "/openapi/v1/invoices/red";
pub const QUERY_PATH: &str = "/openapi/v1/invoices/query";
pub const FAULTS_PATH: &str = "/admin/faults";
/// How far a request's timestamp may be from now (and how long a nonce is kept).
pub const MAX_SKEW: Duration = Duration::from_secs(300);

/// The stand-in's apps, issuer and links.
#[derive(Debug, Clone)]
pub struct Settings {
    /// App id → secret.
    pub apps: HashMap<String, String>,
    /// The seller printed on every invoice, and the drawer.
    pub issuer: Issuer,
    /// The tax bureau's two-digit region code in invoice numbers.
    pub region: String,
    /// Where clients reach the stand-in (download links start with it).
    pub public_url: String,
    /// How long a download link works.
    pub link_ttl: Duration,
    /// Whether `POST /admin/faults` is served.
    pub admin: bool,
}

impl Settings {
    /// One app, the demo seller in Shenzhen (region 44), links valid a day,
    /// no admin endpoint.
    pub fn single(app_id: &str, secret: &str, public_url: &str) -> Settings {
        Settings {
            apps: HashMap::from([(app_id.to_owned(), secret.to_owned())]),
            issuer: demo_issuer(),
            region: "44".to_owned(),
            public_url: public_url.trim_end_matches('/').to_owned(),
            link_ttl: Duration::from_secs(24 * 3600),
            admin: false,
        }
    }
}

/// The operator as seller (its credit code passes GB 32100).
pub fn demo_issuer() -> Issuer {
    Issuer {
        seller: Party {
            name: "深圳市星途新能源运营服务有限公司".to_owned(),
            tax_id: "91440300MA5F000080".to_owned(),
            address: "深圳市南山区粤海街道科苑路15号".to_owned(),
            phone: "0755-86008800".to_owned(),
            bank: "招商银行深圳科技园支行".to_owned(),
            account: "755912345610901".to_owned(),
        },
        drawer: "陈晓敏".to_owned(),
    }
}

/// What the stand-in answered so far, for tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub issued: u64,
    pub reversed: u64,
    /// Refused for their signature.
    pub unauthorized: u64,
    /// Failed on demand.
    pub failed: u64,
}

/// Failures and slowness asked for by a test.
#[derive(Debug, Clone, Default)]
struct Faults {
    fail_issues: u32,
    code: i64,
    message: String,
    delay: Duration,
}

/// What a request number was used for, to answer a retry the same.
#[derive(Debug)]
enum Asked {
    Issue(IssueRequest, String),
    Red(RedRequest, String),
}

#[derive(Debug)]
struct Book {
    settings: Settings,
    nonces: HashMap<String, Instant>,
    invoices: HashMap<String, Invoice>,
    /// (app id, request number) → what it asked and the invoice answered.
    requests: HashMap<(String, String), Asked>,
    sequence: u64,
    /// Signs download links.
    link_key: String,
    faults: Faults,
    counts: Counts,
}

/// The platform. Cheap to clone; clones share their state, so a test can
/// ask for failures or read the counts while it serves.
#[derive(Debug, Clone)]
pub struct StandIn {
    book: Arc<Mutex<Book>>,
}

/// A refusal as the platform answers it.
#[derive(Debug)]
struct Failure {
    status: StatusCode,
    code: i64,
    message: String,
    field: Option<String>,
}

impl Failure {
    fn new(status: StatusCode, code: i64, message: impl Into<String>) -> Failure {
        Failure {
            status,
            code,
            message: message.into(),
            field: None,
        }
    }
}

impl From<invoice::Invalid> for Failure {
    fn from(invalid: invoice::Invalid) -> Failure {
        Failure {
            status: StatusCode::BAD_REQUEST,
            code: 40_010,
            message: format!("{}：{}", invalid.field, invalid.message),
            field: Some(invalid.field),
        }
    }
}

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        let mut body = json!({ "code": self.code, "message": self.message });
        if let Some(field) = self.field {
            body["field"] = Value::String(field);
        }
        (self.status, Json(body)).into_response()
    }
}

fn beijing() -> FixedOffset {
    FixedOffset::east_opt(8 * 3600).expect("UTC+8 is a valid offset")
}

fn hmac_hex(key: &str, text: &str) -> String {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(key.as_bytes()).expect("HMAC takes a key of any length");
    mac.update(text.as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

/// The text a call's signature covers.
pub fn string_to_sign(
    method: &str,
    path: &str,
    app_id: &str,
    timestamp: &str,
    nonce: &str,
    body: &[u8],
) -> String {
    let body_hash = hex::encode(Sha256::digest(body));
    format!("{method}\n{path}\n{app_id}\n{timestamp}\n{nonce}\n{body_hash}")
}

fn header_text<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|v| !v.is_empty())
}

impl Book {
    /// The app that signed the call, once its signature, freshness and
    /// nonce hold.
    fn admit(&mut self, path: &str, headers: &HeaderMap, body: &[u8]) -> Result<String, Failure> {
        let refuse = |code, why: &str| Failure::new(StatusCode::UNAUTHORIZED, code, why);
        let (Some(app_id), Some(timestamp), Some(nonce), Some(signature)) = (
            header_text(headers, "x-app-id"),
            header_text(headers, "x-timestamp"),
            header_text(headers, "x-nonce"),
            header_text(headers, "x-signature"),
        ) else {
            return Err(refuse(
                40_101,
                "缺少签名头（X-App-Id、X-Timestamp、X-Nonce、X-Signature）",
            ));
        };
        let Some(secret) = self.settings.apps.get(app_id) else {
            return Err(refuse(40_102, "应用不存在"));
        };
        let text = string_to_sign("POST", path, app_id, timestamp, nonce, body);
        let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes())
            .expect("HMAC takes a key of any length");
        mac.update(text.as_bytes());
        let valid = hex::decode(signature).is_ok_and(|given| mac.verify_slice(&given).is_ok());
        if !valid {
            return Err(refuse(40_103, "签名错误"));
        }
        let Ok(sent) = timestamp.parse::<i64>() else {
            return Err(refuse(40_104, "时间戳无效"));
        };
        if Utc::now().timestamp().abs_diff(sent) > MAX_SKEW.as_secs() {
            return Err(refuse(40_104, "时间戳已过期"));
        }
        let now = Instant::now();
        self.nonces
            .retain(|_, seen| now.duration_since(*seen) <= MAX_SKEW);
        if self.nonces.contains_key(nonce) {
            return Err(refuse(40_105, "随机数重复（请求重放）"));
        }
        self.nonces.insert(nonce.to_owned(), now);
        Ok(app_id.to_owned())
    }

    fn next_number(&mut self) -> (String, DateTime<FixedOffset>) {
        let now = Utc::now().with_timezone(&beijing());
        let now = now.with_nanosecond(0).unwrap_or(now);
        self.sequence += 1;
        (
            invoice::number(now, &self.settings.region, self.sequence),
            now,
        )
    }

    fn link(&self, invoice_no: &str) -> String {
        let expires = Utc::now().timestamp()
            + i64::try_from(self.settings.link_ttl.as_secs()).unwrap_or(i64::MAX / 2);
        let sign = hmac_hex(&self.link_key, &format!("{invoice_no}\n{expires}"));
        format!(
            "{}/files/{invoice_no}.pdf?expires={expires}&sign={sign}",
            self.settings.public_url
        )
    }

    /// `invoice` as answered: itself and a fresh download link.
    fn view(&self, invoice: &Invoice) -> Value {
        let mut data = serde_json::to_value(invoice).unwrap_or(Value::Null);
        data["downloadUrl"] = Value::String(self.link(&invoice.invoice_no));
        data
    }

    /// The app's invoice `invoice_no`.
    fn own(&self, app_id: &str, invoice_no: &str) -> Result<&Invoice, Failure> {
        self.invoices
            .get(invoice_no)
            .filter(|i| i.app_id == app_id)
            .ok_or_else(|| Failure::new(StatusCode::NOT_FOUND, 40_401, "发票不存在"))
    }

    fn issue(&mut self, app_id: &str, request: &IssueRequest) -> Result<Value, Failure> {
        if self.faults.fail_issues > 0 {
            self.faults.fail_issues -= 1;
            self.counts.failed += 1;
            return Err(Failure::new(
                StatusCode::SERVICE_UNAVAILABLE,
                self.faults.code,
                self.faults.message.clone(),
            ));
        }
        let kind = invoice::check_issue(request)?;
        let key = (app_id.to_owned(), request.request_no.clone());
        match self.requests.get(&key) {
            Some(Asked::Issue(asked, invoice_no)) if asked == request => {
                let invoice = self.own(app_id, invoice_no)?;
                return Ok(self.view(invoice));
            }
            Some(_) => return Err(reused()),
            None => {}
        }
        let numbered = self.next_number();
        let invoice = invoice::blue(request, kind, numbered, &self.settings.issuer, app_id);
        let view = self.view(&invoice);
        self.requests.insert(
            key,
            Asked::Issue(request.clone(), invoice.invoice_no.clone()),
        );
        self.invoices.insert(invoice.invoice_no.clone(), invoice);
        self.counts.issued += 1;
        Ok(view)
    }

    fn reverse(&mut self, app_id: &str, request: &RedRequest) -> Result<Value, Failure> {
        invoice::check_red(request)?;
        let key = (app_id.to_owned(), request.request_no.clone());
        match self.requests.get(&key) {
            Some(Asked::Red(asked, red_no)) if asked == request => {
                let invoice = self.own(app_id, red_no)?;
                return Ok(self.view(invoice));
            }
            Some(_) => return Err(reused()),
            None => {}
        }
        let original = self.own(app_id, &request.invoice_no)?;
        if original.colour == Colour::Red {
            return Err(Failure::new(
                StatusCode::CONFLICT,
                40_903,
                "红字发票不能红冲",
            ));
        }
        if let Some(red_no) = &original.red_invoice_no {
            return Err(Failure::new(
                StatusCode::CONFLICT,
                40_902,
                format!("该发票已红冲，红字发票号码 {red_no}"),
            ));
        }
        let original = original.clone();
        let numbered = self.next_number();
        let red = invoice::red(&original, request, numbered);
        let red_no = red.invoice_no.clone();
        let view = self.view(&red);
        if let Some(blue) = self.invoices.get_mut(&original.invoice_no) {
            blue.status = Status::Reversed;
            blue.red_invoice_no = Some(red_no.clone());
            blue.reversal_reason = Some(request.reason.clone());
        }
        self.requests
            .insert(key, Asked::Red(request.clone(), red_no.clone()));
        self.invoices.insert(red_no, red);
        self.counts.reversed += 1;
        Ok(view)
    }

    fn query(&self, app_id: &str, by: &QueryRequest) -> Result<Value, Failure> {
        let invoice_no = match (&by.invoice_no, &by.request_no) {
            (Some(no), _) if !no.is_empty() => no.clone(),
            (_, Some(request_no)) if !request_no.is_empty() => {
                let key = (app_id.to_owned(), request_no.clone());
                match self.requests.get(&key) {
                    Some(Asked::Issue(_, no) | Asked::Red(_, no)) => no.clone(),
                    None => {
                        return Err(Failure::new(StatusCode::NOT_FOUND, 40_401, "发票不存在"));
                    }
                }
            }
            _ => {
                return Err(Failure {
                    field: Some("invoiceNo".to_owned()),
                    ..Failure::new(
                        StatusCode::BAD_REQUEST,
                        40_010,
                        "invoiceNo：发票号码或请求流水号须填写其一",
                    )
                });
            }
        };
        let invoice = self.own(app_id, &invoice_no)?;
        Ok(self.view(invoice))
    }
}

fn reused() -> Failure {
    Failure {
        field: Some("requestNo".to_owned()),
        ..Failure::new(
            StatusCode::CONFLICT,
            40_901,
            "requestNo：请求流水号已用于内容不同的请求",
        )
    }
}

impl StandIn {
    pub fn new(settings: Settings) -> StandIn {
        let started_ms = u64::try_from(Utc::now().timestamp_millis()).unwrap_or(0);
        StandIn {
            book: Arc::new(Mutex::new(Book {
                settings,
                nonces: HashMap::new(),
                invoices: HashMap::new(),
                requests: HashMap::new(),
                sequence: started_ms,
                link_key: uuid::Uuid::new_v4().simple().to_string(),
                faults: Faults::default(),
                counts: Counts::default(),
            })),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Book> {
        self.book.lock().expect("invoice stand-in state")
    }

    /// The next `n` issue calls answer 503 with `code` and `message`.
    pub fn fail_next_issues(&self, n: u32, code: i64, message: &str) {
        let mut book = self.lock();
        book.faults.fail_issues = n;
        book.faults.code = code;
        book.faults.message = message.to_owned();
    }

    /// Every API answer waits `delay` first.
    pub fn set_delay(&self, delay: Duration) {
        self.lock().faults.delay = delay;
    }

    pub fn counts(&self) -> Counts {
        self.lock().counts
    }

    /// An issued invoice, whichever app asked for it.
    pub fn invoice(&self, invoice_no: &str) -> Option<Invoice> {
        self.lock().invoices.get(invoice_no).cloned()
    }

    pub fn router(&self) -> axum::Router {
        let admin = self.lock().settings.admin;
        let router = axum::Router::new()
            .route(ISSUE_PATH, post(issue))
            .route(RED_PATH, post(reverse))
            .route(QUERY_PATH, post(query))
            .route("/files/{file}", get(download));
        let router = if admin {
            router.route(FAULTS_PATH, post(faults))
        } else {
            router
        };
        router.with_state(self.clone())
    }

    /// A signed call: waits any asked delay, admits it, parses its body and
    /// runs `then` on the book.
    async fn call<T: for<'de> Deserialize<'de>>(
        &self,
        path: &str,
        headers: &HeaderMap,
        body: &[u8],
        then: impl FnOnce(&mut Book, &str, &T) -> Result<Value, Failure>,
    ) -> Response {
        let delay = self.lock().faults.delay;
        if !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
        let mut book = self.lock();
        let app_id = match book.admit(path, headers, body) {
            Ok(app_id) => app_id,
            Err(failure) => {
                book.counts.unauthorized += 1;
                return failure.into_response();
            }
        };
        let request: T = match serde_json::from_slice(body) {
            Ok(request) => request,
            Err(err) => {
                return Failure::new(
                    StatusCode::BAD_REQUEST,
                    40_001,
                    format!("请求体不是合法的 JSON：{err}"),
                )
                .into_response();
            }
        };
        match then(&mut book, &app_id, &request) {
            Ok(data) => Json(json!({ "code": 0, "message": "成功", "data": data })).into_response(),
            Err(failure) => failure.into_response(),
        }
    }
}

/// Serves the platform on `listener` until `shutdown` completes.
pub async fn serve(
    listener: TcpListener,
    standin: StandIn,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    tracing::info!(addr = %listener.local_addr()?, "Invoicing platform stand-in listening.");
    axum::serve(listener, standin.router())
        .with_graceful_shutdown(shutdown)
        .await
}

async fn issue(State(s): State<StandIn>, headers: HeaderMap, body: Bytes) -> Response {
    s.call(ISSUE_PATH, &headers, &body, Book::issue).await
}

async fn reverse(State(s): State<StandIn>, headers: HeaderMap, body: Bytes) -> Response {
    s.call(RED_PATH, &headers, &body, Book::reverse).await
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct QueryRequest {
    invoice_no: Option<String>,
    request_no: Option<String>,
}

async fn query(State(s): State<StandIn>, headers: HeaderMap, body: Bytes) -> Response {
    s.call(QUERY_PATH, &headers, &body, |book: &mut Book, app, by| {
        book.query(app, by)
    })
    .await
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Link {
    expires: i64,
    sign: String,
}

async fn download(
    State(s): State<StandIn>,
    Path(file): Path<String>,
    Query(link): Query<Link>,
) -> Response {
    let forbidden = || Failure::new(StatusCode::FORBIDDEN, 40_301, "下载链接无效或已过期");
    let Some(invoice_no) = file.strip_suffix(".pdf") else {
        return Failure::new(StatusCode::NOT_FOUND, 40_401, "发票不存在").into_response();
    };
    let invoice = {
        let book = s.lock();
        let expected = hmac_hex(&book.link_key, &format!("{invoice_no}\n{}", link.expires));
        if expected != link.sign || link.expires < Utc::now().timestamp() {
            return forbidden().into_response();
        }
        match book.invoices.get(invoice_no) {
            Some(invoice) => invoice.clone(),
            None => {
                return Failure::new(StatusCode::NOT_FOUND, 40_401, "发票不存在").into_response();
            }
        }
    };
    let pdf = layout::render(&invoice);
    (
        [
            (header::CONTENT_TYPE, "application/pdf".to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!("inline; filename=\"{invoice_no}.pdf\""),
            ),
        ],
        pdf,
    )
        .into_response()
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct FaultsRequest {
    fail_issues: u32,
    code: i64,
    message: String,
    delay_ms: u64,
}

async fn faults(State(s): State<StandIn>, Json(asked): Json<FaultsRequest>) -> Response {
    let FaultsRequest {
        fail_issues,
        code,
        message,
        delay_ms,
    } = asked;
    let message = if message.is_empty() {
        "税务数字账户服务繁忙，请稍后重试".to_owned()
    } else {
        message
    };
    s.fail_next_issues(fail_issues, if code == 0 { 70_001 } else { code }, &message);
    s.set_delay(Duration::from_millis(delay_ms));
    Json(json!({ "code": 0, "message": "成功" })).into_response()
}

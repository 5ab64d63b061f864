//! A local stand-in for WeCom (企业微信): the QR sign-in page and the two
//! server API calls the auth service makes, answering the way WeCom does
//! (HTTP 200 with `errcode`), so the QR flow runs end to end without the
//! internet.
//!
//! - `GET /wwopen/sso/qrConnect?appid&agentid&redirect_uri&state` — the QR
//!   frame. Instead of a QR code it lists the corp's users; choosing one is
//!   "scanning": `GET /wwopen/sso/confirm` issues a code and redirects the top
//!   window to `redirect_uri?code=…&state=…&appid=…`. The same page answers
//!   `/connect/oauth2/authorize` (sign-in from inside the WeCom client).
//! - `GET /cgi-bin/gettoken?corpid&corpsecret` — an access token (7200 s).
//! - `GET /cgi-bin/auth/getuserinfo?access_token&code` — who the code belongs
//!   to: `userid` for a member of the token's corp, `openid` for anyone else;
//!   a code works once, for 5 minutes.
//!
//! Nothing here logs codes or tokens.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Json;
use axum::extract::{Query, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use rand::RngCore as _;
use serde::Deserialize;
use serde_json::json;
use tokio::net::TcpListener;

/// How long a code may be exchanged (WeCom: 5 minutes).
const CODE_TTL: Duration = Duration::from_secs(5 * 60);
/// How long an access token lives (WeCom: 7200 seconds).
const TOKEN_TTL: Duration = Duration::from_secs(7200);

#[derive(Debug, Clone)]
struct User {
    userid: String,
    name: String,
}

#[derive(Debug)]
struct Corp {
    secret: String,
    users: Vec<User>,
}

#[derive(Debug)]
struct Grant {
    corp_id: String,
    userid: String,
    issued: Instant,
}

#[derive(Debug, Default)]
struct Directory {
    corps: HashMap<String, Corp>,
    /// Unused codes; a code leaves the map when it is exchanged.
    codes: HashMap<String, Grant>,
    /// Access token → (corp id, expiry).
    tokens: HashMap<String, (String, Instant)>,
}

/// The stand-in's directory of corps, users, codes and tokens. Cheap to clone;
/// clones share the directory, so a test can add users or codes while it serves.
#[derive(Debug, Clone, Default)]
pub struct StandIn {
    directory: Arc<Mutex<Directory>>,
}

fn random_text(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    rand::rngs::OsRng.fill_bytes(&mut buf);
    B64.encode(buf)
}

impl StandIn {
    pub fn new() -> StandIn {
        StandIn::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Directory> {
        self.directory.lock().expect("stand-in directory")
    }

    /// Adds a corp (or changes its secret).
    pub fn add_corp(&self, corp_id: &str, secret: &str) {
        let mut dir = self.lock();
        let corp = dir.corps.entry(corp_id.to_owned()).or_insert(Corp {
            secret: String::new(),
            users: Vec::new(),
        });
        corp.secret = secret.to_owned();
    }

    /// Adds a user to a corp's directory (shown on the QR page).
    pub fn add_user(&self, corp_id: &str, userid: &str, name: &str) {
        let mut dir = self.lock();
        let corp = dir.corps.entry(corp_id.to_owned()).or_insert(Corp {
            secret: String::new(),
            users: Vec::new(),
        });
        corp.users.retain(|u| u.userid != userid);
        corp.users.push(User {
            userid: userid.to_owned(),
            name: name.to_owned(),
        });
    }

    /// Makes `code` stand for (corp, user), as if that user had just scanned.
    pub fn register_code(&self, code: &str, corp_id: &str, userid: &str) {
        self.lock().codes.insert(
            code.to_owned(),
            Grant {
                corp_id: corp_id.to_owned(),
                userid: userid.to_owned(),
                issued: Instant::now(),
            },
        );
    }

    /// A fresh code for (corp, user).
    pub fn issue_code(&self, corp_id: &str, userid: &str) -> String {
        let code = random_text(24);
        self.register_code(&code, corp_id, userid);
        code
    }

    /// The stand-in's HTTP routes.
    pub fn router(&self) -> axum::Router {
        axum::Router::new()
            .route("/cgi-bin/gettoken", get(get_token))
            .route("/cgi-bin/auth/getuserinfo", get(get_user_info))
            .route("/wwopen/sso/qrConnect", get(qr_page))
            .route("/connect/oauth2/authorize", get(qr_page))
            .route("/wwopen/sso/confirm", get(confirm))
            .with_state(self.clone())
    }
}

/// Serves the stand-in on `listener` until `shutdown` completes.
pub async fn serve(
    listener: TcpListener,
    standin: StandIn,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    tracing::info!(addr = %listener.local_addr()?, "WeCom stand-in listening.");
    axum::serve(listener, standin.router())
        .with_graceful_shutdown(shutdown)
        .await
}

/// WeCom's error answer: HTTP 200 with a non-zero `errcode`.
fn wecom_error(errcode: i64, errmsg: &str) -> Json<serde_json::Value> {
    Json(json!({ "errcode": errcode, "errmsg": errmsg }))
}

#[derive(Debug, Deserialize)]
struct TokenQuery {
    #[serde(default)]
    corpid: String,
    #[serde(default)]
    corpsecret: String,
}

async fn get_token(
    State(s): State<StandIn>,
    Query(q): Query<TokenQuery>,
) -> Json<serde_json::Value> {
    let mut dir = s.lock();
    let Some(corp) = dir.corps.get(&q.corpid) else {
        return wecom_error(40013, "invalid corpid");
    };
    if corp.secret.is_empty() || corp.secret != q.corpsecret {
        return wecom_error(40001, "invalid credential");
    }
    let token = random_text(32);
    let now = Instant::now();
    dir.tokens.retain(|_, (_, expires)| *expires > now);
    dir.tokens
        .insert(token.clone(), (q.corpid.clone(), now + TOKEN_TTL));
    Json(json!({
        "errcode": 0,
        "errmsg": "ok",
        "access_token": token,
        "expires_in": TOKEN_TTL.as_secs(),
    }))
}

#[derive(Debug, Deserialize)]
struct UserInfoQuery {
    #[serde(default)]
    access_token: String,
    #[serde(default)]
    code: String,
}

async fn get_user_info(
    State(s): State<StandIn>,
    Query(q): Query<UserInfoQuery>,
) -> Json<serde_json::Value> {
    let mut dir = s.lock();
    let corp_id = match dir.tokens.get(&q.access_token) {
        Some((corp, expires)) if *expires > Instant::now() => corp.clone(),
        Some(_) => return wecom_error(42001, "access_token expired"),
        None => return wecom_error(40014, "invalid access_token"),
    };
    // A code is spent by its first exchange, whatever the answer.
    let Some(grant) = dir.codes.remove(&q.code) else {
        return wecom_error(40029, "invalid code");
    };
    if grant.issued.elapsed() > CODE_TTL {
        return wecom_error(40029, "invalid code");
    }
    if grant.corp_id == corp_id {
        Json(json!({
            "errcode": 0,
            "errmsg": "ok",
            "userid": grant.userid,
            "user_ticket": random_text(16),
            "expires_in": 1800,
        }))
    } else {
        // Not a member of the app's corp: WeCom gives an openid only.
        let openid = B64.encode(format!("{}:{}", grant.corp_id, grant.userid));
        Json(json!({ "errcode": 0, "errmsg": "ok", "openid": openid }))
    }
}

#[derive(Debug, Deserialize)]
struct QrQuery {
    #[serde(default)]
    appid: String,
    #[serde(default)]
    agentid: String,
    #[serde(default)]
    redirect_uri: String,
    #[serde(default)]
    state: String,
}

/// Escapes text for HTML element content and attribute values.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn is_web_url(url: &str) -> bool {
    url.starts_with("http://") || url.starts_with("https://")
}

async fn qr_page(State(s): State<StandIn>, Query(q): Query<QrQuery>) -> Response {
    if !is_web_url(&q.redirect_uri) {
        return (StatusCode::BAD_REQUEST, "redirect_uri 参数错误").into_response();
    }
    let users = s
        .lock()
        .corps
        .get(&q.appid)
        .map(|c| c.users.clone())
        .unwrap_or_default();
    let mut items = String::new();
    for user in &users {
        let query = serde_urlencoded::to_string([
            ("appid", q.appid.as_str()),
            ("agentid", q.agentid.as_str()),
            ("userid", user.userid.as_str()),
            ("redirect_uri", q.redirect_uri.as_str()),
            ("state", q.state.as_str()),
        ])
        .unwrap_or_default();
        items.push_str(&format!(
            "<li><a target=\"_top\" data-userid=\"{userid}\" href=\"/wwopen/sso/confirm?{query}\">{name}（{userid}）</a></li>\n",
            userid = escape(&user.userid),
            name = escape(&user.name),
            query = escape(&query),
        ));
    }
    if users.is_empty() {
        items.push_str("<li>该企业没有可登录的成员</li>\n");
    }
    let page = format!(
        "<!doctype html>\n<html lang=\"zh-CN\"><head><meta charset=\"utf-8\">\
         <title>企业微信扫码登录（本地模拟）</title>\
         <style>body{{font-family:sans-serif;margin:12px;font-size:14px}}\
         ul{{list-style:none;padding:0}}li{{margin:8px 0}}\
         a{{display:block;padding:8px;border:1px solid #ccc;border-radius:4px;text-decoration:none;color:#0a5}}</style>\
         </head><body>\n<p>企业微信扫码登录（本地模拟）<br>选择一名成员即视为扫码确认：</p>\n<ul>\n{items}</ul>\n</body></html>\n"
    );
    Html(page).into_response()
}

#[derive(Debug, Deserialize)]
struct ConfirmQuery {
    #[serde(default)]
    appid: String,
    #[serde(default)]
    userid: String,
    #[serde(default)]
    redirect_uri: String,
    #[serde(default)]
    state: String,
}

async fn confirm(State(s): State<StandIn>, Query(q): Query<ConfirmQuery>) -> Response {
    if !is_web_url(&q.redirect_uri) {
        return (StatusCode::BAD_REQUEST, "redirect_uri 参数错误").into_response();
    }
    let known = s
        .lock()
        .corps
        .get(&q.appid)
        .is_some_and(|c| c.users.iter().any(|u| u.userid == q.userid));
    if !known {
        return (StatusCode::NOT_FOUND, "成员不存在").into_response();
    }
    let code = s.issue_code(&q.appid, &q.userid);
    let query = serde_urlencoded::to_string([
        ("code", code.as_str()),
        ("state", q.state.as_str()),
        ("appid", q.appid.as_str()),
    ])
    .unwrap_or_default();
    let separator = if q.redirect_uri.contains('?') {
        '&'
    } else {
        '?'
    };
    let location = format!("{}{separator}{query}", q.redirect_uri);
    (StatusCode::FOUND, [(header::LOCATION, location)]).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn spawn(standin: StandIn) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(serve(listener, standin, std::future::pending()));
        base
    }

    async fn get_json(url: &str) -> serde_json::Value {
        reqwest::get(url).await.unwrap().json().await.unwrap()
    }

    #[test]
    fn html_special_characters_are_escaped() {
        assert_eq!(
            escape("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }

    #[tokio::test]
    async fn a_code_names_its_member_once_and_strangers_get_only_an_openid() {
        let standin = StandIn::new();
        standin.add_corp("wwA", "secret-a");
        standin.add_user("wwA", "zhangsan", "张三");
        let base = spawn(standin.clone()).await;

        let bad = get_json(&format!(
            "{base}/cgi-bin/gettoken?corpid=wwA&corpsecret=nope"
        ))
        .await;
        assert_eq!(bad["errcode"], 40001);
        let token = get_json(&format!(
            "{base}/cgi-bin/gettoken?corpid=wwA&corpsecret=secret-a"
        ))
        .await;
        assert_eq!(token["errcode"], 0);
        let token = token["access_token"].as_str().unwrap();

        let code = standin.issue_code("wwA", "zhangsan");
        let url = format!("{base}/cgi-bin/auth/getuserinfo?access_token={token}&code={code}");
        let first = get_json(&url).await;
        assert_eq!(
            (first["errcode"].as_i64(), first["userid"].as_str()),
            (Some(0), Some("zhangsan"))
        );
        assert_eq!(get_json(&url).await["errcode"], 40029, "a code works once");

        standin.register_code("from-b", "wwB", "wangwu");
        let stranger = get_json(&format!(
            "{base}/cgi-bin/auth/getuserinfo?access_token={token}&code=from-b"
        ))
        .await;
        assert_eq!(stranger["errcode"], 0);
        assert!(stranger.get("userid").is_none() && stranger.get("openid").is_some());

        let wrong_token = get_json(&format!(
            "{base}/cgi-bin/auth/getuserinfo?access_token=forged&code=x"
        ))
        .await;
        assert_eq!(wrong_token["errcode"], 40014);
    }

    #[tokio::test]
    async fn choosing_a_user_on_the_qr_page_redirects_with_code_and_state() {
        let standin = StandIn::new();
        standin.add_corp("wwA", "secret-a");
        standin.add_user("wwA", "zhangsan", "张三<b>");
        let base = spawn(standin).await;
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let page = http
            .get(format!("{base}/wwopen/sso/qrConnect"))
            .query(&[
                ("appid", "wwA"),
                ("agentid", "1000002"),
                ("redirect_uri", "http://console.test/login?from=qr"),
                ("state", "s1"),
            ])
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(page.contains("张三&lt;b&gt;"), "{page}");
        let href = page
            .split("href=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .unwrap()
            .replace("&amp;", "&");
        let answer = http.get(format!("{base}{href}")).send().await.unwrap();
        assert_eq!(answer.status(), 302);
        let location = answer.headers()["location"].to_str().unwrap();
        assert!(
            location.starts_with("http://console.test/login?from=qr&code="),
            "{location}"
        );
        assert!(location.contains("&state=s1&appid=wwA"), "{location}");
    }
}

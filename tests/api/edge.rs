//! The edge as a browser and a fuzzer meet it: what it does not serve answers
//! 404/405 in the envelope (never 500), a NUL anywhere is a 4000 naming the
//! field, security headers and the CORS policy, and the console served
//! precompressed with its cache policy.

use fleetdesk::{SignInConfig, Stack, StackParts};
use fleetdesk_kit::Shutdown;
use serde_json::{Value, json};

use crate::helpers::{TestApp, envelope, object_dir, spawn_app};

/// A raw request (any method, optional body and headers) and its answer.
async fn raw(
    app: &TestApp,
    method: &str,
    path: &str,
    token: Option<&str>,
    headers: &[(&str, &str)],
) -> reqwest::Response {
    let method = reqwest::Method::from_bytes(method.as_bytes()).expect("method");
    let mut req = app.http.request(method, format!("{}{path}", app.base));
    if let Some(t) = token {
        req = req.header("token", t);
    }
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    req.send().await.expect("request")
}

#[tokio::test]
async fn what_the_edge_does_not_serve_is_404_or_405_in_the_envelope() {
    let app = spawn_app().await;
    let token = app.token("demo").await;

    for path in [
        "/api/v1/nothing-here",
        "/api/v2/me",
        "/api",
        "/api/v1/system/orgs/x/y/z",
    ] {
        for method in ["GET", "POST", "DELETE"] {
            let (status, body) = envelope(raw(&app, method, path, Some(&token), &[]).await).await;
            assert_eq!(
                (status, body["code"].as_u64()),
                (404, Some(4004)),
                "{method} {path}: {body}"
            );
        }
    }

    // A declared path with a method it does not answer; this one was a 500.
    let (status, body) = app.get("/api/v1/system/orgs/simple", Some(&token)).await;
    assert_eq!((status, body["code"].as_u64()), (405, Some(4005)), "{body}");
    for method in ["TRACE", "OPTIONS", "PATCH", "PUT"] {
        let response = raw(&app, method, "/api/v1/me", Some(&token), &[]).await;
        let allow = response
            .headers()
            .get("allow")
            .map(|v| v.to_str().unwrap().to_owned());
        let (status, body) = envelope(response).await;
        assert_eq!(
            (status, body["code"].as_u64()),
            (405, Some(4005)),
            "{method}: {body}"
        );
        assert_eq!(allow.as_deref(), Some("GET"), "{method}");
    }
    // Without a session too: the method is refused before anything else.
    let (status, _) = envelope(raw(&app, "TRACE", "/api/v1/auth/login", None, &[]).await).await;
    assert_eq!(status, 405);
    // HEAD is served like GET.
    let head = raw(&app, "HEAD", "/api/v1/me", Some(&token), &[]).await;
    assert_eq!(head.status().as_u16(), 200);
}

#[tokio::test]
async fn a_nul_in_a_query_body_or_path_value_is_4000_naming_the_field() {
    let app = spawn_app().await;
    let token = app.token("demo").await;

    for (path, field) in [
        ("/api/v1/dicts?type=a%00b", "type"),
        // Lists read their query their own way; the refusal comes first.
        ("/api/v1/vehicle-bindings?vin=ok&vin=%12%009", "vin"),
    ] {
        let (status, body) = app.get(path, Some(&token)).await;
        assert_eq!(
            (status, body["code"].as_u64()),
            (400, Some(4000)),
            "{path}: {body}"
        );
        assert_eq!(body["data"]["fields"][0]["field"], field, "{path}: {body}");
    }

    let (status, body) = app
        .post(
            "/api/v1/system/orgs",
            Some(&token),
            json!({ "name": "有\u{0}空字符", "orgCode": "NUL-1", "parentId": "" }),
        )
        .await;
    assert_eq!((status, body["code"].as_u64()), (400, Some(4000)), "{body}");
    assert_eq!(body["data"]["fields"][0]["field"], "name", "{body}");

    let (status, body) = app.get("/api/v1/system/roles/a%00b", Some(&token)).await;
    assert_eq!((status, body["code"].as_u64()), (400, Some(4000)), "{body}");

    assert_eq!(
        app.count("select count(*) from org.org_unit where org_code = 'NUL-1'")
            .await,
        0
    );
}

#[tokio::test]
async fn moving_an_organisation_needs_its_new_parent() {
    let app = spawn_app().await;
    let token = app.token("demo").await;
    let org = app.org_a("A0102").await;
    let parent_before = app
        .sql_text(&format!(
            "select coalesce(parent_id::text, '') from org.org_unit where id = '{org}'"
        ))
        .await;
    assert!(!parent_before.is_empty(), "A0102 sits below A01");

    let path = format!("/api/v1/system/orgs/{org}/move");
    let no_body = raw(&app, "POST", &path, Some(&token), &[]).await;
    let (status, body) = envelope(no_body).await;
    assert_eq!((status, body["code"].as_u64()), (400, Some(4000)), "{body}");
    assert_eq!(body["data"]["fields"][0]["field"], "body", "{body}");
    let (status, body) = app.post(&path, Some(&token), json!({})).await;
    assert_eq!((status, body["code"].as_u64()), (400, Some(4000)), "{body}");
    assert_eq!(body["data"]["fields"][0]["field"], "parentId", "{body}");

    let parent_after = app
        .sql_text(&format!(
            "select coalesce(parent_id::text, '') from org.org_unit where id = '{org}'"
        ))
        .await;
    assert_eq!(parent_after, parent_before, "nothing moved");
}

fn header(response: &reqwest::Response, name: &str) -> String {
    response
        .headers()
        .get(name)
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default()
}

#[tokio::test]
async fn api_answers_carry_the_security_headers_and_hsts_only_over_tls() {
    let app = spawn_app().await;
    let response = raw(&app, "GET", "/api/v1/me", None, &[]).await;
    assert_eq!(header(&response, "x-content-type-options"), "nosniff");
    assert_eq!(header(&response, "x-frame-options"), "DENY");
    assert!(header(&response, "content-security-policy").contains("frame-ancestors 'none'"));
    assert_eq!(
        header(&response, "referrer-policy"),
        "strict-origin-when-cross-origin"
    );
    assert_eq!(header(&response, "strict-transport-security"), "");
    // The test stack does not trust a proxy: a forged X-Forwarded-Proto is ignored.
    let forged = raw(
        &app,
        "GET",
        "/healthz",
        None,
        &[("x-forwarded-proto", "https")],
    )
    .await;
    assert_eq!(header(&forged, "strict-transport-security"), "");
}

#[tokio::test]
async fn a_preflight_from_another_origin_is_refused_cleanly_by_default() {
    let app = spawn_app().await;
    let preflight = [
        ("origin", "https://elsewhere.example"),
        ("access-control-request-method", "GET"),
        ("access-control-request-headers", "token"),
    ];
    let response = raw(&app, "OPTIONS", "/api/v1/me", None, &preflight).await;
    assert_eq!(header(&response, "access-control-allow-origin"), "");
    let (status, body) = envelope(response).await;
    assert_eq!((status, body["code"].as_u64()), (403, Some(9999)), "{body}");

    // A simple cross-origin call gets its answer but no permission to read it.
    let response = raw(
        &app,
        "GET",
        "/api/v1/me",
        None,
        &[("origin", "https://elsewhere.example")],
    )
    .await;
    assert_eq!(header(&response, "access-control-allow-origin"), "");
}

/// A stack serving a small console build (with precompressed files) and
/// allowing one other origin.
async fn console_stack(app: &TestApp) -> (String, Shutdown, std::path::PathBuf) {
    let dir = object_dir();
    std::fs::create_dir_all(dir.join("assets")).unwrap();
    std::fs::write(
        dir.join("index.html"),
        "<!doctype html><title>console</title>",
    )
    .unwrap();
    std::fs::write(dir.join("index.html.gz"), "gzip of index").unwrap();
    std::fs::write(dir.join("assets/app-abc123.js"), "console.log('plain')").unwrap();
    std::fs::write(dir.join("assets/app-abc123.js.br"), "brotli bytes").unwrap();
    std::fs::write(dir.join("assets/app-abc123.js.gz"), "gzip bytes").unwrap();
    let shutdown = Shutdown::new();
    let parts = StackParts {
        sign_in: SignInConfig::default(),
        console_dir: Some(dir.clone()),
        object_store_dir: app.objects.clone(),
        edge: fleetdesk_gateway::EdgeSettings {
            cors_origins: vec!["https://ops.example.com".to_owned()],
            map_tile_origin: "https://tiles.example.com".to_owned(),
        },
        jt808_addr: None,
        charging: Default::default(),
    };
    let stack = Stack::start_with(app.common.clone(), parts, "127.0.0.1:0", shutdown.clone())
        .await
        .expect("stack");
    let base = format!("http://{}", stack.http_addr);
    tokio::spawn(stack.wait(shutdown.clone()));
    (base, shutdown, dir)
}

#[tokio::test]
async fn the_console_is_served_precompressed_with_its_cache_policy_and_csp() {
    let app = spawn_app().await;
    let (base, shutdown, dir) = console_stack(&app).await;
    // No automatic decompression: the bytes on the wire are what we check.
    let http = reqwest::Client::builder()
        .no_gzip()
        .no_brotli()
        .build()
        .unwrap();
    let get = |path: &str, encoding: &str| {
        http.get(format!("{base}{path}"))
            .header("accept-encoding", encoding)
            .send()
    };

    let br = get("/assets/app-abc123.js", "gzip, br").await.unwrap();
    assert_eq!(br.status().as_u16(), 200);
    assert_eq!(header(&br, "content-encoding"), "br");
    assert_eq!(
        header(&br, "cache-control"),
        "public, max-age=31536000, immutable"
    );
    assert!(
        header(&br, "content-type").contains("javascript"),
        "{:?}",
        br.headers()
    );
    assert_eq!(br.text().await.unwrap(), "brotli bytes");
    let gz = get("/assets/app-abc123.js", "gzip").await.unwrap();
    assert_eq!(header(&gz, "content-encoding"), "gzip");
    assert_eq!(gz.text().await.unwrap(), "gzip bytes");
    let plain = get("/assets/app-abc123.js", "identity").await.unwrap();
    assert_eq!(header(&plain, "content-encoding"), "");
    assert_eq!(plain.text().await.unwrap(), "console.log('plain')");

    // A hashed file that is not there is a 404, never index.html for a year.
    let missing = get("/assets/gone-000.js", "gzip").await.unwrap();
    assert_eq!(missing.status().as_u16(), 404);
    assert_ne!(
        header(&missing, "cache-control"),
        "public, max-age=31536000, immutable"
    );

    for path in ["/", "/index.html", "/dashboard", "/system/org"] {
        let page = get(path, "gzip").await.unwrap();
        assert_eq!(page.status().as_u16(), 200, "{path}");
        assert_eq!(header(&page, "cache-control"), "no-cache", "{path}");
        assert_eq!(header(&page, "content-encoding"), "gzip", "{path}");
        let csp = header(&page, "content-security-policy");
        assert!(csp.contains("script-src 'self';"), "{csp}");
        assert!(
            csp.contains("img-src 'self' data: blob: https://tiles.example.com;"),
            "{csp}"
        );
        // The development stack plays WeCom on a loopback port.
        assert!(csp.contains("frame-src http://127.0.0.1:"), "{csp}");
        assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
        assert_eq!(header(&page, "x-frame-options"), "DENY");
    }

    // The configured origin may call the API from a browser.
    let preflight = http
        .request(reqwest::Method::OPTIONS, format!("{base}/api/v1/me"))
        .header("origin", "https://ops.example.com")
        .header("access-control-request-method", "GET")
        .send()
        .await
        .unwrap();
    assert_eq!(preflight.status().as_u16(), 204);
    assert_eq!(
        header(&preflight, "access-control-allow-origin"),
        "https://ops.example.com"
    );
    let answer: reqwest::Response = http
        .get(format!("{base}/api/v1/me"))
        .header("origin", "https://ops.example.com")
        .send()
        .await
        .unwrap();
    assert_eq!(
        header(&answer, "access-control-allow-origin"),
        "https://ops.example.com"
    );
    let body: Value = answer.json().await.unwrap();
    assert_eq!(body["code"], 1001);

    shutdown.trigger();
    let _ = std::fs::remove_dir_all(dir);
}

/// The page a list answers to `query` (status 200 required).
async fn list_page(app: &TestApp, token: &str, path: &str, query: &str) -> Value {
    let (status, body) = app.get(&format!("{path}?{query}"), Some(token)).await;
    assert_eq!(status, 200, "{path}?{query}: {body}");
    body["data"].clone()
}

#[tokio::test]
async fn an_empty_query_value_is_the_filter_left_out_whatever_its_type() {
    let app = spawn_app().await;
    let token = app.token("demo").await;
    let org = crate::drivers::root_org(&app, &token).await;
    let form = crate::vehicles::vehicle_form(
        &org,
        "粤BD12001",
        &crate::vehicles::vin("LGXCE4CB0P0012001"),
    );
    let (status, created) = app.post("/api/v1/vehicles", Some(&token), form).await;
    assert_eq!(status, 200, "{created}");

    // Enums (repeated and single), dates, flags and text given empty: the
    // same page as without them, while a value given does filter.
    let vehicles = list_page(&app, &token, "/api/v1/vehicles", "").await;
    assert_eq!(vehicles["total"], 1, "{vehicles}");
    for empty in [
        "status=",
        "keyword=+",
        "sort=",
        "registerTimeStart=&registerTimeEnd=",
        "hasDriver=",
        "keyword=",
        "page=&size=",
        "status=&sort=&createTimeStart=&hasTerminal=&plate=",
    ] {
        let page = list_page(&app, &token, "/api/v1/vehicles", empty).await;
        assert_eq!(page, vehicles, "{empty}");
    }
    for filtering in [
        "status=RETIRED",
        "registerTimeStart=2099-01-01",
        "hasTerminal=true",
    ] {
        let page = list_page(&app, &token, "/api/v1/vehicles", filtering).await;
        assert_eq!(page["total"], 0, "{filtering}: {page}");
    }
    let page = list_page(
        &app,
        &token,
        "/api/v1/vehicles",
        "status=IN_SERVICE&status=",
    )
    .await;
    assert_eq!(page, vehicles);
    // Spaces only are no cleared filter where the key is not text: refused.
    for blank in ["status=+", "page=+", "hasDriver=%20"] {
        let (status, body) = app
            .get(&format!("/api/v1/vehicles?{blank}"), Some(&token))
            .await;
        assert_eq!(
            (status, body["code"].as_u64()),
            (400, Some(4000)),
            "{blank}: {body}"
        );
    }

    // An integer and a flag: the sign-in above is an account sign-in (1).
    let logs = list_page(&app, &token, "/api/v1/auth/login-logs", "").await;
    assert!(logs["total"].as_i64().unwrap() > 0, "{logs}");
    for empty in [
        "loginType=",
        "succeeded=",
        "startTime=&endTime=",
        "loginType=&succeeded=&principal=",
    ] {
        let page = list_page(&app, &token, "/api/v1/auth/login-logs", empty).await;
        assert_eq!(page, logs, "{empty}");
    }
    let by_phone = list_page(&app, &token, "/api/v1/auth/login-logs", "loginType=2").await;
    assert_eq!(by_phone["total"], 0, "{by_phone}");

    // The probe filter schemathesis found: empty is every probe.
    let alarms = list_page(&app, &token, "/api/v1/temperature/alarms", "").await;
    let page = list_page(&app, &token, "/api/v1/temperature/alarms", "probeNo=").await;
    assert_eq!(page, alarms);

    // A value that is there and does not read is refused, in Chinese.
    for (path, query, field, message) in [
        (
            "/api/v1/temperature/alarms",
            "probeNo=abc",
            "probeNo",
            "探头编号应为数字",
        ),
        (
            "/api/v1/vehicles",
            "status=PARKED",
            "status",
            "筛选条件的取值无效",
        ),
        (
            "/api/v1/vehicles",
            "hasDriver=maybe",
            "hasDriver",
            "请输入 true 或 false",
        ),
        (
            "/api/v1/auth/login-logs",
            "loginType=abc",
            "loginType",
            "查询参数格式有误",
        ),
    ] {
        let (status, body) = app.get(&format!("{path}?{query}"), Some(&token)).await;
        assert_eq!(
            (status, body["code"].as_u64()),
            (400, Some(4000)),
            "{query}: {body}"
        );
        assert_eq!(body["data"]["fields"][0]["field"], field, "{query}: {body}");
        assert_eq!(
            body["data"]["fields"][0]["message"], message,
            "{query}: {body}"
        );
    }
}

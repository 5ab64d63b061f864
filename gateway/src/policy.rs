//! What every answer says about itself to the browser: the security headers
//! (CSP, nosniff, no framing, referrer policy, HSTS over TLS) and the CORS
//! policy of the API.
//!
//! CORS: the console is served by this gateway, so it calls the API from its
//! own origin and needs no CORS at all. Other origins are refused unless the
//! operator lists them (`FLEETDESK_CORS_ORIGINS`); a refused preflight answers
//! 403 in the envelope, an allowed one 204 with the usual headers.

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use fleetdesk_kit::{ErrorCode, ServiceError};

use crate::envelope::ApiError;

/// WeCom's QR sign-in page, which the login page embeds in a frame.
pub const WECOM_QR_CONNECT_URL: &str = "https://open.work.weixin.qq.com/wwopen/sso/qrConnect";

/// Settings of the browser-facing policy.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct EdgeSettings {
    /// Other origins allowed to call the API from a browser (CORS), comma
    /// separated, e.g. `https://ops.example.com`. Empty: own origin only.
    #[arg(
        long = "cors-origins",
        env = "FLEETDESK_CORS_ORIGINS",
        value_delimiter = ',',
        default_value = ""
    )]
    pub cors_origins: Vec<String>,

    /// Origin of the map tile server the console loads tiles from, e.g.
    /// `https://tiles.example.com`; allowed by the Content-Security-Policy.
    /// Empty: none.
    #[arg(
        long = "map-tile-origin",
        env = "FLEETDESK_MAP_TILE_ORIGIN",
        default_value = ""
    )]
    pub map_tile_origin: String,
}

/// The headers, computed once at start-up.
#[derive(Debug, Clone)]
pub struct Policy {
    console_csp: HeaderValue,
    api_csp: HeaderValue,
    cors_origins: Vec<String>,
    trust_forwarded: bool,
}

/// The scheme, host and port of a URL (`https://a.b:8443`), if it has them.
pub fn origin_of(url: &str) -> Option<String> {
    let uri: axum::http::Uri = url.trim().parse().ok()?;
    let scheme = uri.scheme_str()?;
    let authority = uri.authority()?;
    Some(format!("{scheme}://{authority}"))
}

impl Policy {
    pub fn new(settings: &EdgeSettings, wecom_qr_url: &str, trust_forwarded: bool) -> Policy {
        let tiles = origin_of(&settings.map_tile_origin);
        let wecom = origin_of(wecom_qr_url);
        let with = |base: &str, extra: &Option<String>| match extra {
            Some(origin) => format!("{base} {origin}"),
            None => base.to_owned(),
        };
        // style-src needs 'unsafe-inline': antd (CSS-in-JS) injects <style>
        // elements and sets style attributes at run time. Scripts stay 'self'
        // only: the build has no inline script.
        let console_csp = [
            "default-src 'self'".to_owned(),
            "script-src 'self'".to_owned(),
            "style-src 'self' 'unsafe-inline'".to_owned(),
            with("img-src 'self' data: blob:", &tiles),
            "font-src 'self' data:".to_owned(),
            // The video pages play a MediaSource through a blob: URL (MSE).
            "media-src 'self' blob:".to_owned(),
            with("connect-src 'self'", &tiles),
            match &wecom {
                Some(origin) => format!("frame-src {origin}"),
                None => "frame-src 'none'".to_owned(),
            },
            "object-src 'none'".to_owned(),
            "base-uri 'self'".to_owned(),
            "form-action 'self'".to_owned(),
            "frame-ancestors 'none'".to_owned(),
        ]
        .join("; ");
        Policy {
            console_csp: HeaderValue::from_str(&console_csp).expect("CSP is ASCII"),
            api_csp: HeaderValue::from_static("default-src 'none'; frame-ancestors 'none'"),
            cors_origins: settings
                .cors_origins
                .iter()
                .filter_map(|o| origin_of(o))
                .collect(),
            trust_forwarded,
        }
    }

    /// Whether the request reached us over TLS (as the trusted proxy says).
    fn over_tls(&self, headers: &HeaderMap) -> bool {
        self.trust_forwarded
            && headers
                .get("x-forwarded-proto")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.split(',').next())
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("https"))
    }

    /// The request's `Origin` when it is another origin than the one it was sent to.
    fn foreign_origin(&self, headers: &HeaderMap) -> Option<String> {
        let origin = headers.get(header::ORIGIN)?.to_str().ok()?;
        let host = headers
            .get(header::HOST)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        let scheme = if self.over_tls(headers) {
            "https"
        } else {
            "http"
        };
        let own = format!("{scheme}://{host}");
        (!origin.eq_ignore_ascii_case(&own)).then(|| origin.to_owned())
    }

    fn allows(&self, origin: &str) -> bool {
        self.cors_origins
            .iter()
            .any(|o| o.eq_ignore_ascii_case(origin))
    }
}

/// Answers CORS preflights by the policy, marks allowed cross-origin answers
/// and sets the security headers on every answer.
pub async fn apply(
    State(policy): State<std::sync::Arc<Policy>>,
    req: Request,
    next: Next,
) -> Response {
    let api = req.uri().path().starts_with("/api");
    let asset = req.uri().path().starts_with("/assets/");
    let tls = policy.over_tls(req.headers());
    let foreign = policy.foreign_origin(req.headers());
    let preflight = req.method() == Method::OPTIONS
        && req
            .headers()
            .contains_key(header::ACCESS_CONTROL_REQUEST_METHOD);
    let mut response = match (&foreign, preflight) {
        (Some(origin), true) if policy.allows(origin) => {
            let mut answer = StatusCode::NO_CONTENT.into_response();
            let headers = answer.headers_mut();
            headers.insert(
                header::ACCESS_CONTROL_ALLOW_METHODS,
                HeaderValue::from_static("GET, POST, PUT, DELETE"),
            );
            headers.insert(
                header::ACCESS_CONTROL_ALLOW_HEADERS,
                HeaderValue::from_static(
                    "content-type, token, authorization, platformid, idempotency-key",
                ),
            );
            headers.insert(header::ACCESS_CONTROL_MAX_AGE, HeaderValue::from(600));
            answer
        }
        (Some(origin), true) => {
            tracing::info!(%origin, "CORS preflight refused.");
            ApiError(ServiceError::new(
                ErrorCode::Forbidden,
                "不允许从该来源跨域访问",
            ))
            .into_response()
        }
        (Some(_), false) | (None, _) => next.run(req).await,
    };
    let headers = response.headers_mut();
    if let Some(origin) = foreign.filter(|o| policy.allows(o))
        && let Ok(value) = HeaderValue::from_str(&origin)
    {
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, value);
        headers.insert(
            header::ACCESS_CONTROL_EXPOSE_HEADERS,
            HeaderValue::from_static("retry-after, content-disposition"),
        );
        headers.append(header::VARY, HeaderValue::from_static("origin"));
    }
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    // The policy, framing and referrer headers act on documents (the console's
    // pages, an API answer opened directly); a hashed script or style sheet
    // gains nothing from them, and /login loads 35 of those.
    if !asset {
        let csp = if api {
            policy.api_csp.clone()
        } else {
            policy.console_csp.clone()
        };
        headers.insert(header::CONTENT_SECURITY_POLICY, csp);
        headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
        headers.insert(
            header::REFERRER_POLICY,
            HeaderValue::from_static("strict-origin-when-cross-origin"),
        );
    }
    if tls {
        headers.insert(
            header::STRICT_TRANSPORT_SECURITY,
            HeaderValue::from_static("max-age=31536000; includeSubDomains"),
        );
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            map.insert(*k, HeaderValue::from_static(v));
        }
        map
    }

    #[test]
    fn origins_are_scheme_host_and_port() {
        assert_eq!(
            origin_of(WECOM_QR_CONNECT_URL).as_deref(),
            Some("https://open.work.weixin.qq.com")
        );
        assert_eq!(
            origin_of("http://127.0.0.1:8090/wwopen/sso/qrConnect").as_deref(),
            Some("http://127.0.0.1:8090")
        );
        assert_eq!(origin_of(""), None);
        assert_eq!(origin_of("tiles.example.com"), None);
    }

    #[test]
    fn the_csp_names_the_tile_host_and_the_wecom_frame_only_when_configured() {
        let bare = Policy::new(&EdgeSettings::default(), "", false);
        let csp = bare.console_csp.to_str().unwrap().to_owned();
        assert!(csp.contains("frame-src 'none'"), "{csp}");
        assert!(csp.contains("connect-src 'self';"), "{csp}");
        assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
        assert!(csp.contains("media-src 'self' blob:;"), "MSE video: {csp}");

        let settings = EdgeSettings {
            cors_origins: vec![],
            map_tile_origin: "https://tiles.example.com/".to_owned(),
        };
        let csp = Policy::new(&settings, WECOM_QR_CONNECT_URL, false).console_csp;
        let csp = csp.to_str().unwrap();
        assert!(
            csp.contains("img-src 'self' data: blob: https://tiles.example.com;"),
            "{csp}"
        );
        assert!(
            csp.contains("frame-src https://open.work.weixin.qq.com;"),
            "{csp}"
        );
    }

    #[test]
    fn tls_is_believed_only_from_a_trusted_proxy() {
        let over_tls = headers(&[("x-forwarded-proto", "https")]);
        let trusting = Policy::new(&EdgeSettings::default(), "", true);
        let not_trusting = Policy::new(&EdgeSettings::default(), "", false);
        assert!(trusting.over_tls(&over_tls));
        assert!(!not_trusting.over_tls(&over_tls));
        assert!(!trusting.over_tls(&headers(&[("x-forwarded-proto", "http")])));
    }

    #[test]
    fn only_another_origin_is_foreign_and_only_listed_ones_are_allowed() {
        let settings = EdgeSettings {
            cors_origins: vec!["https://ops.example.com".to_owned()],
            map_tile_origin: String::new(),
        };
        let policy = Policy::new(&settings, "", false);
        let same = headers(&[
            ("origin", "http://console.local"),
            ("host", "console.local"),
        ]);
        assert_eq!(policy.foreign_origin(&same), None);
        let other = headers(&[
            ("origin", "https://evil.example"),
            ("host", "console.local"),
        ]);
        assert_eq!(
            policy.foreign_origin(&other).as_deref(),
            Some("https://evil.example")
        );
        assert!(!policy.allows("https://evil.example"));
        assert!(policy.allows("https://ops.example.com"));
    }
}

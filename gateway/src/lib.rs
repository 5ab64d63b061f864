//! The edge HTTP API of Fleetdesk: the `{code,msg,data}` envelope and codes,
//! session tokens, per-route permissions, JSON to gRPC, OpenAPI, metrics and
//! the console's files.

pub mod access;
mod config;
mod console;
mod edge;
pub mod envelope;
mod error_docs;
mod extract;
pub mod files;
mod guard;
mod idempotency;
pub mod imports;
mod live;
mod ops;
pub mod policy;
mod public_limit;
mod routes;
mod session;
mod state;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::DefaultBodyLimit;
use axum::response::IntoResponse;
use axum::routing::any;
use fleetdesk_kit::config::Environment;
use fleetdesk_kit::internal_token::TokenSigner;
use fleetdesk_kit::{ErrorCode, Shutdown, events, grpc};
use tokio::net::TcpListener;
use tower_http::trace::TraceLayer;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, SecurityScheme};
use utoipa_axum::router::OpenApiRouter;

pub use config::Config;
pub use policy::EdgeSettings;

use crate::access::AccessTable;
use crate::envelope::ApiError;
use crate::session::cache::SessionCache;
use crate::state::{AppState, Upstreams};

#[derive(utoipa::OpenApi)]
#[openapi(
    info(title = "Fleetdesk edge API", version = "1", description = "Every answer is {code, msg, data}; see the codes in the README."),
    modifiers(&TokenScheme)
)]
struct ApiDoc;

struct TokenScheme;

impl utoipa::Modify for TokenScheme {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            access::SCHEME,
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "token",
                "An enterprise session token.",
            ))),
        );
        components.add_security_scheme(
            access::PERSONAL_SCHEME,
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "token",
                "Any live session token, personal or enterprise.",
            ))),
        );
    }
}

/// The `/api/v1` routes with their OpenAPI document, every operation's error
/// answers included.
pub fn api() -> (axum::Router<AppState>, utoipa::openapi::OpenApi) {
    let (router, doc) = OpenApiRouter::with_openapi(<ApiDoc as utoipa::OpenApi>::openapi())
        .nest("/api/v1", routes::api_v1())
        .split_for_parts();
    let mut json = serde_json::to_value(&doc).expect("OpenAPI serialises");
    error_docs::document(&mut json);
    let mut doc = serde_json::from_value(json).expect("the documented OpenAPI reads back");
    extract::document_empty_query_values(&mut doc);
    (router, doc)
}

/// The OpenAPI document, for generating console types without a server.
pub fn openapi_json() -> String {
    api().1.to_pretty_json().expect("OpenAPI serialises")
}

/// A built gateway: listening, ready to run.
#[derive(Debug)]
pub struct Application {
    listener: TcpListener,
    router: axum::Router,
    nats: async_nats::Client,
    sessions: Arc<SessionCache>,
}

impl Application {
    pub async fn build(config: Config, signer: TokenSigner) -> anyhow::Result<Application> {
        let listener = TcpListener::bind(&config.http_addr).await?;
        Application::build_on(config, signer, listener).await
    }

    /// Like [`Application::build`] on a listener bound beforehand (so its
    /// address is known before the gateway is built).
    pub async fn build_on(
        config: Config,
        signer: TokenSigner,
        listener: TcpListener,
    ) -> anyhow::Result<Application> {
        let (api_router, openapi) = api();
        let access = AccessTable::from_openapi(&openapi).map_err(anyhow::Error::msg)?;
        let upstreams = Upstreams {
            auth: grpc::lazy_channel(&config.auth_url)?,
            org: grpc::lazy_channel(&config.org_url)?,
            vehicle: grpc::lazy_channel(&config.vehicle_url)?,
            energy: grpc::lazy_channel(&config.energy_url)?,
            finance: grpc::lazy_channel(&config.finance_url)?,
            telematics: grpc::lazy_channel(&config.telematics_url)?,
        };
        let sessions = Arc::new(SessionCache::new(Duration::from_secs(
            config.session_cache_secs,
        )));
        let state = AppState {
            upstreams,
            signer: signer.clone(),
            sessions: sessions.clone(),
            access: Arc::new(access),
            trust_forwarded_for: config.trust_forwarded_for,
            development: config.common.environment == Environment::Development,
            files: files::FileStore::local(&config.object_store_dir).map_err(|e| {
                anyhow::anyhow!("object store {}: {e}", config.object_store_dir.display())
            })?,
            links: files::LinkSigner::derive(signer.seed_base64().as_bytes()),
            public_limit: Arc::default(),
            live: Arc::default(),
        };
        let openapi = Arc::new(openapi.to_pretty_json()?);
        // The access check covers the declared routes; the document and the
        // unknown-path answer below are public by nature.
        let api_router = api_router
            .route_layer(axum::middleware::from_fn_with_state(
                state.clone(),
                guard::enforce,
            ))
            .route(
                "/api/openapi.json",
                axum::routing::get(move || async move {
                    (
                        [(axum::http::header::CONTENT_TYPE, "application/json")],
                        openapi.as_str().to_owned(),
                    )
                }),
            )
            .route(
                "/api",
                any(|| async { ApiError::code(ErrorCode::NotFound) }),
            )
            .route(
                "/api/{*rest}",
                any(|| async { ApiError::code(ErrorCode::NotFound) }),
            );
        ops::prometheus();
        let mut router = axum::Router::new()
            .merge(api_router)
            .merge(ops::router())
            .layer(axum::middleware::from_fn(extract::refuse_nul_in_uri))
            .layer(axum::middleware::from_fn(ops::track))
            .layer(DefaultBodyLimit::max(config.body_limit))
            .layer(
                TraceLayer::new_for_http().make_span_with(|req: &axum::http::Request<_>| {
                    // Method and route only: paths and headers may carry tokens.
                    let route = req
                        .extensions()
                        .get::<axum::extract::MatchedPath>()
                        .map(|p| p.as_str().to_owned());
                    let span = tracing::info_span!(
                        "http",
                        method = %req.method(),
                        route = route.unwrap_or_default(),
                        trace_id = tracing::field::Empty
                    );
                    fleetdesk_kit::telemetry::adopt_remote_parent(&span, req.headers());
                    fleetdesk_kit::telemetry::record_trace_id(&span);
                    span
                }),
            )
            .with_state(state);
        if let Some(dir) = config
            .console_dir
            .as_ref()
            .filter(|d| d.join("index.html").exists())
        {
            router = router.merge(console::router(dir));
        } else {
            router = router.fallback(|| async {
                (axum::http::StatusCode::NOT_FOUND, "console not built").into_response()
            });
        }
        let browser_policy = Arc::new(policy::Policy::new(
            &config.edge,
            &config.wecom_qr_url,
            config.trust_forwarded_for,
        ));
        let router = router.layer(axum::middleware::from_fn_with_state(
            browser_policy,
            policy::apply,
        ));
        let nats = events::connect_nats(&config.common.nats_url, "fleetdesk-gateway").await?;
        Ok(Application {
            listener,
            router,
            nats,
            sessions,
        })
    }

    pub fn port(&self) -> u16 {
        self.listener.local_addr().map(|a| a.port()).unwrap_or(0)
    }

    pub async fn run_until_stopped(self, shutdown: Shutdown) -> anyhow::Result<()> {
        tokio::spawn(session::follow_revocations(
            self.nats.clone(),
            self.sessions.clone(),
        ));
        tokio::spawn(session::follow_principal_changes(
            self.nats.clone(),
            self.sessions.clone(),
        ));
        tracing::info!(addr = %self.listener.local_addr()?, "Gateway listening.");
        let service = self
            .router
            .into_make_service_with_connect_info::<SocketAddr>();
        axum::serve(self.listener, service)
            .with_graceful_shutdown(async move { shutdown.wait().await })
            .await?;
        tracing::info!("Gateway stopped.");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    /// utoipa names an operation after its handler function, so two modules'
    /// `list_alarms` would share one id and the generated console types would
    /// silently merge them.
    #[test]
    fn every_operation_id_is_unique() {
        let doc: serde_json::Value =
            serde_json::from_str(&super::openapi_json()).expect("the document is JSON");
        let mut seen: HashMap<String, String> = HashMap::new();
        let mut clashes = Vec::new();
        for (path, item) in doc["paths"].as_object().expect("paths") {
            for (method, op) in item.as_object().expect("path item") {
                let Some(id) = op.get("operationId").and_then(|v| v.as_str()) else {
                    continue;
                };
                let here = format!("{} {path}", method.to_uppercase());
                if let Some(first) = seen.insert(id.to_owned(), here.clone()) {
                    clashes.push(format!("{id}: {first} and {here}"));
                }
            }
        }
        assert!(seen.len() > 100, "only {} operations found", seen.len());
        assert!(clashes.is_empty(), "operation ids used twice: {clashes:#?}");
    }
}

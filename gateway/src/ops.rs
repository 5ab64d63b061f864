//! Operational endpoints: liveness, readiness, Prometheus metrics, and the
//! per-request metrics middleware.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use axum::extract::{MatchedPath, Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

use crate::state::AppState;

pub fn router() -> axum::Router<AppState> {
    axum::Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .route("/readyz", get(readyz))
        .route("/metrics", get(|| async { prometheus().render() }))
}

/// The process-wide Prometheus recorder (one per process, shared by tests).
pub fn prometheus() -> &'static PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE.get_or_init(|| {
        let recorder = PrometheusBuilder::new().build_recorder();
        let handle = recorder.handle();
        // Fails only if another recorder was installed first; then ours just stays empty.
        let _ = metrics::set_global_recorder(recorder);
        handle
    })
}

/// 200 when every upstream answers its gRPC health check, else 503 naming the ones down.
async fn readyz(State(state): State<AppState>) -> Response {
    let checks = state.upstreams.all().map(|(name, channel)| async move {
        let mut client = HealthClient::new(channel);
        let answer = tokio::time::timeout(
            Duration::from_secs(2),
            client.check(HealthCheckRequest {
                service: String::new(),
            }),
        )
        .await;
        let serving =
            matches!(answer, Ok(Ok(r)) if r.get_ref().status == ServingStatus::Serving as i32);
        (name, serving)
    });
    let results = futures::future::join_all(checks).await;
    let down: Vec<&str> = results
        .iter()
        .filter(|(_, ok)| !ok)
        .map(|(name, _)| *name)
        .collect();
    if down.is_empty() {
        (StatusCode::OK, "ready").into_response()
    } else {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("not ready: {}", down.join(", ")),
        )
            .into_response()
    }
}

/// A request whose answer takes longer than this is logged: no page waits
/// this long by design (long work runs as a job), so one that did is a
/// lock wait, a starved pool or a stuck upstream worth a line in the log.
const SLOW_REQUEST: Duration = Duration::from_secs(3);

/// Counts and times every request by route (not by raw path: low cardinality).
pub async fn track(req: Request, next: Next) -> Response {
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_owned(), |p| p.as_str().to_owned());
    let method = req.method().to_string();
    let started = Instant::now();
    let response = next.run(req).await;
    let elapsed = started.elapsed();
    let status = response.status().as_u16().to_string();
    if elapsed >= SLOW_REQUEST {
        tracing::warn!(%method, %route, %status, elapsed_ms = elapsed.as_millis() as u64, "Slow request.");
    }
    let labels = [("method", method), ("route", route), ("status", status)];
    metrics::counter!("http_requests_total", &labels).increment(1);
    metrics::histogram!("http_request_duration_seconds", &labels).record(elapsed.as_secs_f64());
    response
}

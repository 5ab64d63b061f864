//! The bank's callbacks: an HTTP endpoint (`POST /finance/bank/notify`,
//! the path of the configured notify URL) beside the gRPC server. Like the
//! gRPC layer it is thin: it believes only what the bank client verifies
//! (a bad signature, another merchant or a stale timestamp answers 401 and
//! changes nothing), then hands the event to its subject in one
//! service-scoped transaction. It answers 2xx only once the event is
//! recorded, so the bank retries until then; each event id is applied once.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use fleetdesk_kit::{ServiceError, Shutdown, db};
use sqlx_postgres::PgPool;
use tokio::net::TcpListener;

use crate::bank::{Bank, EventType, Notification};
use crate::payments::settle::Applied;
use crate::{payments, refunds};

#[derive(Debug, Clone)]
struct Notified {
    pool: PgPool,
    bank: Bank,
}

/// Serves the notify endpoint on `listener` until shutdown.
pub async fn serve(
    listener: TcpListener,
    pool: PgPool,
    bank: Bank,
    path: String,
    shutdown: Shutdown,
) -> std::io::Result<()> {
    let app = axum::Router::new()
        .route(&path, axum::routing::post(notified))
        .with_state(Notified { pool, bank });
    tracing::info!(addr = %listener.local_addr()?, %path, "Bank notify endpoint listening.");
    axum::serve(listener, app)
        .with_graceful_shutdown(async move { shutdown.wait().await })
        .await
}

async fn notified(State(state): State<Notified>, headers: HeaderMap, body: Bytes) -> StatusCode {
    let notification = match state.bank.verify_notification(&headers, &body) {
        Ok(n) => n,
        Err(err) => {
            tracing::warn!(error = %err, "Bank callback refused.");
            return StatusCode::UNAUTHORIZED;
        }
    };
    match apply(&state.pool, &notification).await {
        Ok(Applied::Settled | Applied::Nothing) => StatusCode::OK,
        Ok(Applied::Unknown) => {
            tracing::warn!(event = %notification.event_id, "Bank callback for nothing known yet.");
            StatusCode::SERVICE_UNAVAILABLE
        }
        Err(err) => {
            tracing::warn!(event = %notification.event_id, error = %err, "Bank callback failed.");
            StatusCode::INTERNAL_SERVER_ERROR
        }
    }
}

/// Applies a verified callback in one transaction.
async fn apply(pool: &PgPool, n: &Notification) -> Result<Applied, ServiceError> {
    let mut tx = db::begin_service(pool).await?;
    let applied = match (n.event_type, &n.order, &n.refund) {
        (EventType::PaymentSuccess, Some(order), _) => {
            payments::settle::apply(&mut tx, n, order, true).await?
        }
        (EventType::PaymentFailed, Some(order), _) => {
            payments::settle::apply(&mut tx, n, order, false).await?
        }
        (EventType::RefundSuccess, _, Some(refund)) => {
            refunds::settle::apply(&mut tx, n, refund, true).await?
        }
        (EventType::RefundFailed, _, Some(refund)) => {
            refunds::settle::apply(&mut tx, n, refund, false).await?
        }
        _ => {
            return Err(ServiceError::invalid("event", "银行通知缺少订单或退款"));
        }
    };
    tx.commit().await?;
    Ok(applied)
}

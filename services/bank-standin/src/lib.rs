//! A local stand-in for the bank's merchant gateway (网银收单): finance pays
//! bills by bank transfer and refunds through it. It answers the way such a
//! gateway does, so payments reach finance end to end without the bank.
//!
//! **Merchant API** (JSON, amounts in integer fen, currency `CNY`), every
//! request signed (see [`signature`]: `X-Merchant-Id`, `X-Timestamp`,
//! `X-Nonce`, `X-Signature` = hex HMAC-SHA256 under the merchant's secret of
//! `METHOD\nPATH\nMERCHANT_ID\nTIMESTAMP\nNONCE\nhex(SHA-256(body))`). A
//! request unsigned (`SIGN_ERROR`), from an unknown merchant
//! (`MERCHANT_NOT_EXIST`), badly signed (`SIGN_ERROR`), more than five
//! minutes from now (`TIMESTAMP_EXPIRED`) or repeating a nonce
//! (`NONCE_REUSED`) answers 401. Refusals are `{"code","message"}` with the
//! HTTP status.
//! - `POST /api/v1/orders` `{merchant_order_no, amount_fen, currency,
//!   notify_url, payer_name?}` → the [`Order`]: `order_id`, `status`
//!   `PENDING`, and `pay_url`, the cashier page where a payer clicks 确认付款
//!   or 支付失败. The same merchant order number with the same amount
//!   answers the same order; with another, 409 `ORDER_NO_CONFLICT`.
//! - `GET /api/v1/orders/{order_id}`: the order (404 `ORDER_NOT_EXIST`,
//!   another merchant's too).
//! - `POST /api/v1/refunds` `{merchant_refund_no, order_id, amount_fen,
//!   notify_url, reason?}` → the [`Refund`], `PROCESSING`. Only a paid order
//!   (else 400 `ORDER_NOT_PAID`), and never past what was paid less the
//!   refunds not failed (400 `REFUND_AMOUNT_EXCEEDED`); the same refund
//!   number answers the same refund, or 409 `REFUND_NO_CONFLICT` when the
//!   order or amount differs.
//! - `GET /api/v1/refunds/{refund_id}`: the refund.
//!
//! **Callbacks** ([`notify`]): each settlement (`PAYMENT.SUCCESS`,
//! `PAYMENT.FAILED`, `REFUND.SUCCESS`, `REFUND.FAILED`) is POSTed to the
//! `notify_url` as a [`Notification`] `{event_id, event_type, created_at,
//! order | refund}`, signed with the same headers (PATH: the notify URL's
//! path and query), retried on [`notify::SCHEDULE`] (0 s, 1 s, 2 s, 5 s, …)
//! until the merchant answers 2xx; every attempt carries the same body.
//!
//! **Settlement**: by the payer on the cashier page, by the admin API, or
//! by itself [`Settings::auto_settle_after`] after creation (default
//! three seconds, so a demo pays without anyone; refunds likewise).
//!
//! **Admin API** (unsigned; only with [`Settings::admin`], on in development
//! and tests): `POST /admin/orders/{id}/settle` and
//! `/admin/refunds/{id}/settle` `{"outcome":"SUCCESS"|"FAILED","reason"?}`;
//! `PUT /admin/auto-settle` `{"after_ms": n | null}`;
//! `POST /admin/fail-next-orders` `{"count"}` (they settle by themselves as
//! FAILED); `POST /admin/error-next-requests` `{"count"}` (500
//! `SYSTEM_ERROR`); `PUT /admin/response-delay` `{"ms"}`;
//! `POST /admin/orders/{id}/replay` and `/admin/refunds/{id}/replay`
//! `{"times"}` (the latest callback sent that many more times at once);
//! `POST /admin/orders/{id}/forge` (a callback claiming the order paid,
//! signed with the wrong secret); `GET /admin/orders`,
//! `GET /admin/notifications` (every event and its attempts).
//!
//! The books live in memory: a restart starts empty. Nothing here logs
//! secrets or signatures.

pub mod bank;
pub mod notify;
mod routes;
pub mod signature;

use std::future::Future;

use tokio::net::TcpListener;

pub use bank::{
    CURRENCY, DEFAULT_AUTO_SETTLE, Faults, NewOrder, NewRefund, Order, OrderStatus, Outcome,
    Refund, RefundStatus, Refusal, Settings, StandIn,
};
pub use notify::{Attempt, EventRecord, EventType, Notification, OnDemand};
pub use routes::{ORDERS_PATH, REFUNDS_PATH};

/// Serves the bank on `listener` until `shutdown` completes.
pub async fn serve(
    listener: TcpListener,
    standin: StandIn,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    tracing::info!(addr = %listener.local_addr()?, "Bank stand-in listening.");
    axum::serve(listener, standin.router())
        .with_graceful_shutdown(shutdown)
        .await
}

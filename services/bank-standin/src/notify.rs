//! Callbacks: each settlement raises one event, POSTed as JSON to the
//! merchant's `notify_url`, signed like a request (see [`crate::signature`];
//! the path is the notify URL's), and retried on [`SCHEDULE`] until the
//! merchant answers 2xx. Every attempt of one event carries the same body,
//! so its `event_id` is the merchant's key to answer a repeat once.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use tokio::task::JoinSet;

use crate::bank::{Order, OrderStatus, Refund, RefundStatus, Refusal, StandIn};
use crate::signature::Signed;

/// Waits before each attempt of a callback, counted from the previous one
/// (about forty minutes in all); after the last the bank gives up.
pub const SCHEDULE: [Duration; 10] = [
    Duration::from_secs(0),
    Duration::from_secs(1),
    Duration::from_secs(2),
    Duration::from_secs(5),
    Duration::from_secs(10),
    Duration::from_secs(30),
    Duration::from_secs(60),
    Duration::from_secs(300),
    Duration::from_secs(600),
    Duration::from_secs(1800),
];

/// The secret a forged callback is signed with: not the merchant's.
const FORGER_SECRET: &str = "not-the-merchant-secret";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum EventType {
    #[serde(rename = "PAYMENT.SUCCESS")]
    PaymentSuccess,
    #[serde(rename = "PAYMENT.FAILED")]
    PaymentFailed,
    #[serde(rename = "REFUND.SUCCESS")]
    RefundSuccess,
    #[serde(rename = "REFUND.FAILED")]
    RefundFailed,
}

/// A callback's body: the event and the order or refund as it settled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Notification {
    pub event_id: String,
    pub event_type: EventType,
    pub created_at: DateTime<Utc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<Order>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refund: Option<Refund>,
}

/// One attempt to deliver a callback.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Attempt {
    pub at: DateTime<Utc>,
    /// The merchant's HTTP status; `None` when it could not be reached.
    pub status: Option<u16>,
    pub error: Option<String>,
    /// Sent by the admin API's replay or forgery, not the schedule.
    pub on_demand: bool,
}

impl Attempt {
    fn is_success(&self) -> bool {
        self.status.is_some_and(|s| (200..300).contains(&s))
    }
}

/// A raised event and its deliveries.
#[derive(Debug, Clone, Serialize)]
pub struct EventRecord {
    pub event_id: String,
    pub event_type: EventType,
    /// The order or refund it is about.
    pub subject_id: String,
    pub merchant_id: String,
    pub notify_url: String,
    /// The exact body every attempt sends.
    pub body: String,
    pub attempts: Vec<Attempt>,
    /// Whether a scheduled attempt was answered 2xx.
    pub delivered: bool,
    /// Signed with a wrong secret on demand; never scheduled.
    pub forged: bool,
}

fn record(
    notification: &Notification,
    subject_id: &str,
    merchant_id: &str,
    notify_url: String,
) -> EventRecord {
    EventRecord {
        event_id: notification.event_id.clone(),
        event_type: notification.event_type,
        subject_id: subject_id.to_owned(),
        merchant_id: merchant_id.to_owned(),
        notify_url,
        body: serde_json::to_string(notification).unwrap_or_default(),
        attempts: Vec::new(),
        delivered: false,
        forged: false,
    }
}

fn new_event_id() -> String {
    format!("EVT{}", uuid::Uuid::new_v4().simple())
}

/// The event of a settled order (only settlements and forgeries, which
/// claim success, raise one; a pending order never does).
pub(crate) fn payment_event(order: &Order, notify_url: String) -> EventRecord {
    let event_type = match order.status {
        OrderStatus::Success | OrderStatus::Pending => EventType::PaymentSuccess,
        OrderStatus::Failed => EventType::PaymentFailed,
    };
    let notification = Notification {
        event_id: new_event_id(),
        event_type,
        created_at: Utc::now(),
        order: Some(order.clone()),
        refund: None,
    };
    record(
        &notification,
        &order.order_id,
        &order.merchant_id,
        notify_url,
    )
}

/// The event of a settled refund.
pub(crate) fn refund_event(refund: &Refund, notify_url: String) -> EventRecord {
    let event_type = match refund.status {
        RefundStatus::Success | RefundStatus::Processing => EventType::RefundSuccess,
        RefundStatus::Failed => EventType::RefundFailed,
    };
    let notification = Notification {
        event_id: new_event_id(),
        event_type,
        created_at: Utc::now(),
        order: None,
        refund: Some(refund.clone()),
    };
    record(
        &notification,
        &refund.refund_id,
        &refund.merchant_id,
        notify_url,
    )
}

/// The notify URL's path and query: the PATH its signature covers.
pub fn signed_path(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(u) => match u.query() {
            Some(q) => format!("{}?{q}", u.path()),
            None => u.path().to_owned(),
        },
        Err(_) => "/".to_owned(),
    }
}

/// What one callback attempt needs.
#[derive(Debug, Clone)]
struct Outgoing {
    merchant_id: String,
    secret: String,
    notify_url: String,
    body: String,
}

/// A merchant's answer to the admin API's replay or forgery.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OnDemand {
    pub event_id: String,
    /// Each attempt's HTTP status (`None`: unreachable), in the order sent.
    pub statuses: Vec<Option<u16>>,
}

impl StandIn {
    /// Posts one callback, freshly signed.
    async fn post(&self, out: &Outgoing, on_demand: bool) -> Attempt {
        let signed = Signed::now(
            &out.merchant_id,
            &out.secret,
            "POST",
            &signed_path(&out.notify_url),
            out.body.as_bytes(),
        );
        self.send(out, &signed, on_demand).await
    }

    async fn send(&self, out: &Outgoing, signed: &Signed, on_demand: bool) -> Attempt {
        let mut request = self
            .http
            .post(&out.notify_url)
            .header("content-type", "application/json")
            .body(out.body.clone());
        for (name, value) in signed.headers() {
            request = request.header(name, value);
        }
        let (status, error) = match request.send().await {
            Ok(answer) => (Some(answer.status().as_u16()), None),
            Err(e) => (None, Some(e.to_string())),
        };
        Attempt {
            at: Utc::now(),
            status,
            error,
            on_demand,
        }
    }

    fn outgoing(&self, event_id: &str) -> Option<Outgoing> {
        let book = self.lock();
        let event = book.events.iter().find(|e| e.event_id == event_id)?;
        Some(Outgoing {
            secret: book.settings.merchants.get(&event.merchant_id)?.clone(),
            merchant_id: event.merchant_id.clone(),
            notify_url: event.notify_url.clone(),
            body: event.body.clone(),
        })
    }

    fn note(&self, event_id: &str, attempt: Attempt) {
        let mut book = self.lock();
        if let Some(event) = book.events.iter_mut().find(|e| e.event_id == event_id) {
            if !attempt.on_demand && attempt.is_success() {
                event.delivered = true;
            }
            event.attempts.push(attempt);
        }
    }

    /// Delivers `event_id` on `schedule` until the merchant answers 2xx.
    pub(crate) async fn deliver(&self, event_id: &str, schedule: &[Duration]) {
        let Some(out) = self.outgoing(event_id) else {
            return;
        };
        for wait in schedule {
            tokio::time::sleep(*wait).await;
            let attempt = self.post(&out, false).await;
            let delivered = attempt.is_success();
            if !delivered {
                tracing::debug!(
                    event_id,
                    status = ?attempt.status,
                    "Bank stand-in callback not accepted; retrying on schedule."
                );
            }
            self.note(event_id, attempt);
            if delivered {
                return;
            }
        }
        tracing::warn!(event_id, "Bank stand-in gave up a callback.");
    }

    /// The latest event about the order or refund `subject_id`.
    fn latest_event(&self, subject_id: &str) -> Result<String, Refusal> {
        self.lock()
            .events
            .iter()
            .rev()
            .find(|e| e.subject_id == subject_id && !e.forged)
            .map(|e| e.event_id.clone())
            .ok_or_else(|| {
                Refusal::new(
                    axum::http::StatusCode::NOT_FOUND,
                    "EVENT_NOT_EXIST",
                    "该订单或退款尚无通知",
                )
            })
    }

    /// Sends the latest callback about `subject_id` (an order or a refund)
    /// `times` more times at once, each freshly signed with the same body:
    /// a bank's duplicate deliveries.
    pub async fn replay(&self, subject_id: &str, times: u32) -> Result<OnDemand, Refusal> {
        let event_id = self.latest_event(subject_id)?;
        let out = self
            .outgoing(&event_id)
            .ok_or_else(|| Refusal::param("商户不存在"))?;
        let mut sending = JoinSet::new();
        for n in 0..times {
            let bank = self.clone();
            let out = out.clone();
            sending.spawn(async move { (n, bank.post(&out, true).await) });
        }
        let mut attempts = sending.join_all().await;
        attempts.sort_by_key(|(n, _)| *n);
        let statuses = attempts.iter().map(|(_, a)| a.status).collect();
        for (_, attempt) in attempts {
            self.note(&event_id, attempt);
        }
        Ok(OnDemand { event_id, statuses })
    }

    /// Sends the merchant a callback claiming the order `order_id` was paid,
    /// under a new event id, signed with a secret that is not the
    /// merchant's: what a forger would send.
    pub async fn forge(&self, order_id: &str) -> Result<OnDemand, Refusal> {
        let (mut order, notify_url) = {
            let book = self.lock();
            book.order_and_notify_url(order_id)?
        };
        order.status = OrderStatus::Success;
        order.failure_reason = None;
        order.paid_at = Some(Utc::now());
        let mut event = payment_event(&order, notify_url.clone());
        event.forged = true;
        let event_id = event.event_id.clone();
        let out = Outgoing {
            merchant_id: order.merchant_id.clone(),
            secret: FORGER_SECRET.to_owned(),
            notify_url,
            body: event.body.clone(),
        };
        self.lock().events.push(event);
        let attempt = self.post(&out, true).await;
        let statuses = vec![attempt.status];
        self.note(&event_id, attempt);
        Ok(OnDemand { event_id, statuses })
    }

    /// Every event raised and its attempts, oldest first.
    pub fn events(&self) -> Vec<EventRecord> {
        self.lock().events.clone()
    }
}

//! The bank's books, in memory (a restart starts empty, as a stand-in may):
//! payment orders, refunds, the events they raised, and the faults tests
//! ask for. Every write goes through [`StandIn`]'s methods, which the admin
//! API mirrors.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::notify::{self, EventRecord};
use crate::signature::Nonces;

/// The only currency the gateway takes.
pub const CURRENCY: &str = "CNY";
/// The largest single payment, in fen (one hundred million yuan).
pub const MAX_AMOUNT_FEN: i64 = 10_000_000_000;
/// Longest merchant order or refund number.
const MAX_NO_LEN: usize = 32;
/// Why an order settled by itself fails when the tests asked it to.
const INJECTED_FAILURE: &str = "余额不足";

/// The stand-in's merchants and behaviour at start.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Merchant id → shared secret.
    pub merchants: HashMap<String, String>,
    /// Where payers reach the stand-in (the cashier page of `pay_url`).
    pub public_url: String,
    /// How long after its creation an order (or refund) still open settles
    /// successfully by itself; `None`: only by the cashier page or the admin API.
    pub auto_settle_after: Option<Duration>,
    /// Whether the unsigned admin API (`/admin/...`) is served.
    pub admin: bool,
    /// When each callback attempt is made, counted from the previous one.
    pub notify_schedule: Vec<Duration>,
}

impl Settings {
    /// One merchant, settling after [`DEFAULT_AUTO_SETTLE`], admin API on.
    pub fn single(merchant_id: &str, secret: &str, public_url: &str) -> Settings {
        Settings {
            merchants: HashMap::from([(merchant_id.to_owned(), secret.to_owned())]),
            public_url: public_url.trim_end_matches('/').to_owned(),
            auto_settle_after: Some(DEFAULT_AUTO_SETTLE),
            admin: true,
            notify_schedule: notify::SCHEDULE.to_vec(),
        }
    }
}

/// How long an order waits for a payer before it settles by itself.
pub const DEFAULT_AUTO_SETTLE: Duration = Duration::from_secs(3);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum OrderStatus {
    Pending,
    Success,
    Failed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum RefundStatus {
    Processing,
    Success,
    Failed,
}

/// How a settlement ends, given by the payer, the admin API or the clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Outcome {
    Success,
    Failed,
}

/// A payment order as the gateway answers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Order {
    pub order_id: String,
    pub merchant_id: String,
    pub merchant_order_no: String,
    pub amount_fen: i64,
    pub currency: String,
    pub status: OrderStatus,
    /// Refunded so far (successful refunds only).
    pub refunded_fen: i64,
    pub payer_name: Option<String>,
    pub pay_url: String,
    pub failure_reason: Option<String>,
    pub created_at: DateTime<Utc>,
    pub paid_at: Option<DateTime<Utc>>,
}

/// A refund as the gateway answers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refund {
    pub refund_id: String,
    pub merchant_id: String,
    pub merchant_refund_no: String,
    pub order_id: String,
    pub merchant_order_no: String,
    pub amount_fen: i64,
    pub status: RefundStatus,
    pub reason: Option<String>,
    pub failure_reason: Option<String>,
    pub created_at: DateTime<Utc>,
    pub settled_at: Option<DateTime<Utc>>,
}

/// `POST /api/v1/orders`.
#[derive(Debug, Clone, Deserialize)]
pub struct NewOrder {
    pub merchant_order_no: String,
    pub amount_fen: i64,
    pub currency: String,
    pub notify_url: String,
    #[serde(default)]
    pub payer_name: Option<String>,
}

/// `POST /api/v1/refunds`.
#[derive(Debug, Clone, Deserialize)]
pub struct NewRefund {
    pub merchant_refund_no: String,
    pub order_id: String,
    pub amount_fen: i64,
    pub notify_url: String,
    #[serde(default)]
    pub reason: Option<String>,
}

/// A refusal as the gateway words it: HTTP status, code and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
}

impl Refusal {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Refusal {
        Refusal {
            status,
            code,
            message: message.into(),
        }
    }

    pub fn param(message: impl Into<String>) -> Refusal {
        Refusal::new(StatusCode::BAD_REQUEST, "PARAM_ERROR", message)
    }

    fn order_not_found() -> Refusal {
        Refusal::new(StatusCode::NOT_FOUND, "ORDER_NOT_EXIST", "订单不存在")
    }

    fn refund_not_found() -> Refusal {
        Refusal::new(StatusCode::NOT_FOUND, "REFUND_NOT_EXIST", "退款单不存在")
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        (
            self.status,
            axum::Json(json!({ "code": self.code, "message": self.message })),
        )
            .into_response()
    }
}

#[derive(Debug)]
struct StoredOrder {
    order: Order,
    notify_url: String,
    /// Settles FAILED when it settles by itself (the tests' "next N fail").
    fails_by_itself: bool,
}

#[derive(Debug)]
struct StoredRefund {
    refund: Refund,
    notify_url: String,
}

/// Faults the admin API turns on.
#[derive(Debug, Default, Clone, Copy)]
pub struct Faults {
    /// Orders still to be created that fail when they settle by themselves.
    pub fail_next_orders: u32,
    /// Merchant requests still to be answered 500 SYSTEM_ERROR.
    pub error_next_requests: u32,
    /// How long each merchant request waits before it is answered.
    pub response_delay: Duration,
}

#[derive(Debug)]
pub(crate) struct Book {
    pub(crate) settings: Settings,
    pub(crate) nonces: Nonces,
    pub(crate) faults: Faults,
    orders: HashMap<String, StoredOrder>,
    /// (merchant, merchant order no) → order id.
    order_nos: HashMap<(String, String), String>,
    refunds: HashMap<String, StoredRefund>,
    /// (merchant, merchant refund no) → refund id.
    refund_nos: HashMap<(String, String), String>,
    pub(crate) events: Vec<EventRecord>,
}

impl Book {
    /// Any merchant's order and where its callbacks go.
    pub(crate) fn order_and_notify_url(&self, order_id: &str) -> Result<(Order, String), Refusal> {
        self.orders
            .get(order_id)
            .map(|s| (s.order.clone(), s.notify_url.clone()))
            .ok_or_else(Refusal::order_not_found)
    }
}

/// The bank. Cheap to clone; clones share their books, so a test can drive
/// faults and settlements while it serves.
#[derive(Debug, Clone)]
pub struct StandIn {
    book: Arc<Mutex<Book>>,
    pub(crate) http: reqwest::Client,
}

/// A bank-style id: a letter, the time, twelve random digits.
fn new_id(prefix: char) -> String {
    let random = uuid::Uuid::new_v4().as_u128() % 1_000_000_000_000;
    format!("{prefix}{}{random:012}", Utc::now().format("%Y%m%d%H%M%S"))
}

/// A merchant's order or refund number: 1 to 32 letters, digits, `_` or `-`.
fn check_no(field: &str, no: &str) -> Result<(), Refusal> {
    let fine = !no.is_empty()
        && no.len() <= MAX_NO_LEN
        && no
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if fine {
        Ok(())
    } else {
        Err(Refusal::param(format!(
            "{field} 须为 1 至 {MAX_NO_LEN} 位字母、数字、下划线或连字符"
        )))
    }
}

fn check_amount(amount_fen: i64) -> Result<(), Refusal> {
    if (1..=MAX_AMOUNT_FEN).contains(&amount_fen) {
        Ok(())
    } else {
        Err(Refusal::param(format!(
            "amount_fen 须为 1 至 {MAX_AMOUNT_FEN} 之间的整数（分）"
        )))
    }
}

fn check_notify_url(url: &str) -> Result<(), Refusal> {
    match reqwest::Url::parse(url) {
        Ok(u) if matches!(u.scheme(), "http" | "https") => Ok(()),
        _ => Err(Refusal::param("notify_url 须为 http 或 https 地址")),
    }
}

impl StandIn {
    pub fn new(settings: Settings) -> StandIn {
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .build()
            .unwrap_or_default();
        StandIn {
            book: Arc::new(Mutex::new(Book {
                settings,
                nonces: Nonces::default(),
                faults: Faults::default(),
                orders: HashMap::new(),
                order_nos: HashMap::new(),
                refunds: HashMap::new(),
                refund_nos: HashMap::new(),
                events: Vec::new(),
            })),
            http,
        }
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, Book> {
        self.book.lock().expect("bank stand-in state")
    }

    /// The merchant's secret, if the bank knows the merchant.
    pub fn secret_of(&self, merchant_id: &str) -> Option<String> {
        self.lock().settings.merchants.get(merchant_id).cloned()
    }

    pub fn admin_enabled(&self) -> bool {
        self.lock().settings.admin
    }

    /// Creates an order, or answers the one already created under the same
    /// merchant order number when the amount agrees.
    pub fn create_order(&self, merchant_id: &str, new: NewOrder) -> Result<Order, Refusal> {
        let no = new.merchant_order_no.trim().to_owned();
        check_no("merchant_order_no", &no)?;
        check_amount(new.amount_fen)?;
        if new.currency != CURRENCY {
            return Err(Refusal::param("currency 仅支持 CNY"));
        }
        check_notify_url(&new.notify_url)?;
        let payer_name = new
            .payer_name
            .map(|n| n.trim().to_owned())
            .filter(|n| !n.is_empty());
        let (order, settle_after) = {
            let mut book = self.lock();
            let key = (merchant_id.to_owned(), no.clone());
            if let Some(existing) = book.order_nos.get(&key).and_then(|id| book.orders.get(id)) {
                let order = &existing.order;
                if order.amount_fen != new.amount_fen || order.currency != new.currency {
                    return Err(Refusal::new(
                        StatusCode::CONFLICT,
                        "ORDER_NO_CONFLICT",
                        "商户订单号已使用，且金额与原订单不一致",
                    ));
                }
                return Ok(order.clone());
            }
            let order_id = new_id('P');
            let order = Order {
                pay_url: format!("{}/pay/{order_id}", book.settings.public_url),
                order_id: order_id.clone(),
                merchant_id: merchant_id.to_owned(),
                merchant_order_no: no,
                amount_fen: new.amount_fen,
                currency: new.currency,
                status: OrderStatus::Pending,
                refunded_fen: 0,
                payer_name,
                failure_reason: None,
                created_at: Utc::now(),
                paid_at: None,
            };
            let fails_by_itself = book.faults.fail_next_orders > 0;
            book.faults.fail_next_orders = book.faults.fail_next_orders.saturating_sub(1);
            book.order_nos.insert(key, order_id.clone());
            book.orders.insert(
                order_id,
                StoredOrder {
                    order: order.clone(),
                    notify_url: new.notify_url,
                    fails_by_itself,
                },
            );
            (order, book.settings.auto_settle_after)
        };
        if let Some(after) = settle_after {
            let bank = self.clone();
            let order_id = order.order_id.clone();
            tokio::spawn(async move {
                tokio::time::sleep(after).await;
                bank.settle_order_by_itself(&order_id);
            });
        }
        Ok(order)
    }

    /// The merchant's order `order_id`.
    pub fn order(&self, merchant_id: &str, order_id: &str) -> Result<Order, Refusal> {
        self.lock()
            .orders
            .get(order_id)
            .map(|s| s.order.clone())
            .filter(|o| o.merchant_id == merchant_id)
            .ok_or_else(Refusal::order_not_found)
    }

    /// Any merchant's order (the cashier page and the admin API).
    pub fn any_order(&self, order_id: &str) -> Result<Order, Refusal> {
        self.lock()
            .orders
            .get(order_id)
            .map(|s| s.order.clone())
            .ok_or_else(Refusal::order_not_found)
    }

    /// Every order, newest first.
    pub fn orders(&self) -> Vec<Order> {
        let mut all: Vec<Order> = self
            .lock()
            .orders
            .values()
            .map(|s| s.order.clone())
            .collect();
        all.sort_by_key(|o| std::cmp::Reverse(o.created_at));
        all
    }

    fn settle_order_by_itself(&self, order_id: &str) {
        let fails = self
            .lock()
            .orders
            .get(order_id)
            .is_some_and(|s| s.fails_by_itself);
        let (outcome, reason) = if fails {
            (Outcome::Failed, Some(INJECTED_FAILURE))
        } else {
            (Outcome::Success, None)
        };
        // Settled already by a payer or the admin API: nothing left to do.
        let _ = self.settle_order(order_id, outcome, reason);
    }

    /// Settles a pending order and notifies the merchant.
    pub fn settle_order(
        &self,
        order_id: &str,
        outcome: Outcome,
        reason: Option<&str>,
    ) -> Result<Order, Refusal> {
        let mut book = self.lock();
        let stored = book
            .orders
            .get_mut(order_id)
            .ok_or_else(Refusal::order_not_found)?;
        if stored.order.status != OrderStatus::Pending {
            return Err(Refusal::new(
                StatusCode::CONFLICT,
                "ORDER_CLOSED",
                "订单已支付或已失败，不能再次结算",
            ));
        }
        match outcome {
            Outcome::Success => {
                stored.order.status = OrderStatus::Success;
                stored.order.paid_at = Some(Utc::now());
            }
            Outcome::Failed => {
                stored.order.status = OrderStatus::Failed;
                stored.order.failure_reason = Some(reason.unwrap_or("支付失败").to_owned());
            }
        }
        let order = stored.order.clone();
        let notify_url = stored.notify_url.clone();
        let event = notify::payment_event(&order, notify_url);
        self.raise(&mut book, event);
        Ok(order)
    }

    /// Creates a refund of a paid order, or answers the one already created
    /// under the same merchant refund number when it agrees. The refunds of
    /// an order (those not failed) never exceed what was paid.
    pub fn create_refund(&self, merchant_id: &str, new: NewRefund) -> Result<Refund, Refusal> {
        let no = new.merchant_refund_no.trim().to_owned();
        check_no("merchant_refund_no", &no)?;
        check_amount(new.amount_fen)?;
        check_notify_url(&new.notify_url)?;
        let (refund, settle_after) = {
            let mut book = self.lock();
            let key = (merchant_id.to_owned(), no.clone());
            if let Some(existing) = book
                .refund_nos
                .get(&key)
                .and_then(|id| book.refunds.get(id))
            {
                let refund = &existing.refund;
                if refund.amount_fen != new.amount_fen || refund.order_id != new.order_id {
                    return Err(Refusal::new(
                        StatusCode::CONFLICT,
                        "REFUND_NO_CONFLICT",
                        "商户退款单号已使用，且订单或金额与原退款不一致",
                    ));
                }
                return Ok(refund.clone());
            }
            let order = book
                .orders
                .get(&new.order_id)
                .map(|s| s.order.clone())
                .filter(|o| o.merchant_id == merchant_id)
                .ok_or_else(Refusal::order_not_found)?;
            if order.status != OrderStatus::Success {
                return Err(Refusal::new(
                    StatusCode::BAD_REQUEST,
                    "ORDER_NOT_PAID",
                    "订单未支付成功，不能退款",
                ));
            }
            let committed: i64 = book
                .refunds
                .values()
                .filter(|r| r.refund.order_id == order.order_id)
                .filter(|r| r.refund.status != RefundStatus::Failed)
                .map(|r| r.refund.amount_fen)
                .sum();
            let left = order.amount_fen - committed;
            if new.amount_fen > left {
                return Err(Refusal::new(
                    StatusCode::BAD_REQUEST,
                    "REFUND_AMOUNT_EXCEEDED",
                    format!("退款金额超过可退金额（可退 {left} 分）"),
                ));
            }
            let refund_id = new_id('R');
            let refund = Refund {
                refund_id: refund_id.clone(),
                merchant_id: merchant_id.to_owned(),
                merchant_refund_no: no,
                order_id: order.order_id.clone(),
                merchant_order_no: order.merchant_order_no.clone(),
                amount_fen: new.amount_fen,
                status: RefundStatus::Processing,
                reason: new
                    .reason
                    .map(|r| r.trim().to_owned())
                    .filter(|r| !r.is_empty()),
                failure_reason: None,
                created_at: Utc::now(),
                settled_at: None,
            };
            book.refund_nos.insert(key, refund_id.clone());
            book.refunds.insert(
                refund_id,
                StoredRefund {
                    refund: refund.clone(),
                    notify_url: new.notify_url,
                },
            );
            (refund, book.settings.auto_settle_after)
        };
        if let Some(after) = settle_after {
            let bank = self.clone();
            let refund_id = refund.refund_id.clone();
            tokio::spawn(async move {
                tokio::time::sleep(after).await;
                // Settled already through the admin API: nothing left to do.
                let _ = bank.settle_refund(&refund_id, Outcome::Success, None);
            });
        }
        Ok(refund)
    }

    /// The merchant's refund `refund_id`.
    pub fn refund(&self, merchant_id: &str, refund_id: &str) -> Result<Refund, Refusal> {
        self.lock()
            .refunds
            .get(refund_id)
            .map(|s| s.refund.clone())
            .filter(|r| r.merchant_id == merchant_id)
            .ok_or_else(Refusal::refund_not_found)
    }

    /// Settles a processing refund (a success counts into the order's
    /// `refunded_fen`; a failure frees its amount) and notifies the merchant.
    pub fn settle_refund(
        &self,
        refund_id: &str,
        outcome: Outcome,
        reason: Option<&str>,
    ) -> Result<Refund, Refusal> {
        let mut book = self.lock();
        let stored = book
            .refunds
            .get_mut(refund_id)
            .ok_or_else(Refusal::refund_not_found)?;
        if stored.refund.status != RefundStatus::Processing {
            return Err(Refusal::new(
                StatusCode::CONFLICT,
                "REFUND_CLOSED",
                "退款已完成或已失败，不能再次结算",
            ));
        }
        stored.refund.settled_at = Some(Utc::now());
        match outcome {
            Outcome::Success => stored.refund.status = RefundStatus::Success,
            Outcome::Failed => {
                stored.refund.status = RefundStatus::Failed;
                stored.refund.failure_reason = Some(reason.unwrap_or("退款失败").to_owned());
            }
        }
        let refund = stored.refund.clone();
        let notify_url = stored.notify_url.clone();
        if refund.status == RefundStatus::Success
            && let Some(order) = book.orders.get_mut(&refund.order_id)
        {
            order.order.refunded_fen += refund.amount_fen;
        }
        let event = notify::refund_event(&refund, notify_url);
        self.raise(&mut book, event);
        Ok(refund)
    }

    /// Records `event` and starts delivering it on the schedule.
    fn raise(&self, book: &mut Book, event: EventRecord) {
        let schedule = book.settings.notify_schedule.clone();
        let event_id = event.event_id.clone();
        book.events.push(event);
        let bank = self.clone();
        tokio::spawn(async move { bank.deliver(&event_id, &schedule).await });
    }

    /// Orders settling by themselves wait `after` from now on; `None`:
    /// only the cashier page and the admin API settle.
    pub fn set_auto_settle(&self, after: Option<Duration>) {
        self.lock().settings.auto_settle_after = after;
    }

    /// The next `count` orders fail when they settle by themselves.
    pub fn fail_next_orders(&self, count: u32) {
        self.lock().faults.fail_next_orders = count;
    }

    /// The next `count` merchant requests are answered 500 SYSTEM_ERROR.
    pub fn error_next_requests(&self, count: u32) {
        self.lock().faults.error_next_requests = count;
    }

    /// Every merchant request waits `delay` before it is answered.
    pub fn set_response_delay(&self, delay: Duration) {
        self.lock().faults.response_delay = delay;
    }

    pub fn faults(&self) -> Faults {
        self.lock().faults
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merchant_numbers_are_short_and_plain() {
        assert!(check_no("merchant_order_no", "FD-2026_0001").is_ok());
        assert!(check_no("merchant_order_no", "").is_err());
        assert!(check_no("merchant_order_no", "单号").is_err());
        assert!(check_no("merchant_order_no", &"9".repeat(33)).is_err());
        assert!(check_no("merchant_order_no", &"9".repeat(32)).is_ok());
    }

    #[test]
    fn amounts_are_positive_fen_within_the_limit() {
        assert!(check_amount(0).is_err());
        assert!(check_amount(-1).is_err());
        assert!(check_amount(1).is_ok());
        assert!(check_amount(MAX_AMOUNT_FEN).is_ok());
        assert!(check_amount(MAX_AMOUNT_FEN + 1).is_err());
    }

    #[test]
    fn ids_carry_their_kind_and_differ() {
        let a = new_id('P');
        assert!(a.starts_with('P') && a.len() == 27, "{a}");
        assert_ne!(a, new_id('P'));
    }
}

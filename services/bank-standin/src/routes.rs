//! HTTP: the merchant API behind the signature check, the cashier page
//! payers open from `pay_url`, and the unsigned admin API (served only when
//! [`crate::Settings::admin`] is on) mirroring [`StandIn`]'s methods.

use std::time::Duration;

use axum::body::{Bytes, to_bytes};
use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::{Extension, Json};
use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::bank::{Order, OrderStatus, Outcome, Refusal, StandIn};
use crate::signature::Signed;

/// The merchant API's paths.
pub const ORDERS_PATH: &str = "/api/v1/orders";
pub const REFUNDS_PATH: &str = "/api/v1/refunds";
/// Largest request body the gateway reads.
const MAX_BODY: usize = 64 * 1024;

/// The merchant a request was signed by.
#[derive(Debug, Clone)]
struct Merchant(String);

impl StandIn {
    /// The bank's routes.
    pub fn router(&self) -> axum::Router {
        let merchant = axum::Router::new()
            .route(ORDERS_PATH, post(create_order))
            .route(&format!("{ORDERS_PATH}/{{id}}"), get(order))
            .route(REFUNDS_PATH, post(create_refund))
            .route(&format!("{REFUNDS_PATH}/{{id}}"), get(refund))
            .route_layer(middleware::from_fn_with_state(self.clone(), admit));
        let cashier = axum::Router::new()
            .route("/pay/{id}", get(cashier_page))
            .route("/pay/{id}/confirm", post(cashier_confirm))
            .route("/pay/{id}/fail", post(cashier_fail));
        let mut router = merchant.merge(cashier);
        if self.admin_enabled() {
            router = router.merge(
                axum::Router::new()
                    .route("/admin/orders", get(admin_orders))
                    .route("/admin/orders/{id}/settle", post(admin_settle_order))
                    .route("/admin/orders/{id}/replay", post(admin_replay))
                    .route("/admin/orders/{id}/forge", post(admin_forge))
                    .route("/admin/refunds/{id}/settle", post(admin_settle_refund))
                    .route("/admin/refunds/{id}/replay", post(admin_replay))
                    .route("/admin/auto-settle", put(admin_auto_settle))
                    .route("/admin/fail-next-orders", post(admin_fail_next_orders))
                    .route("/admin/error-next-requests", post(admin_error_next))
                    .route("/admin/response-delay", put(admin_response_delay))
                    .route("/admin/notifications", get(admin_notifications)),
            );
        }
        router.with_state(self.clone())
    }
}

/// The gateway's door: the delay and errors tests asked for, then the
/// signature, its freshness and its nonce. The body is read here (the
/// signature covers it) and handed on unchanged.
async fn admit(State(bank): State<StandIn>, request: Request, next: Next) -> Response {
    let faults = bank.faults();
    if !faults.response_delay.is_zero() {
        tokio::time::sleep(faults.response_delay).await;
    }
    {
        let mut book = bank.lock();
        if book.faults.error_next_requests > 0 {
            book.faults.error_next_requests -= 1;
            return Refusal::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "SYSTEM_ERROR",
                "系统繁忙，请稍后重试",
            )
            .into_response();
        }
    }
    let (parts, body) = request.into_parts();
    let Ok(body) = to_bytes(body, MAX_BODY).await else {
        return Refusal::new(StatusCode::PAYLOAD_TOO_LARGE, "PARAM_ERROR", "请求体过大")
            .into_response();
    };
    let path = parts
        .uri
        .path_and_query()
        .map_or_else(|| parts.uri.path().to_owned(), |p| p.as_str().to_owned());
    let unauthorized = |code, message| Refusal::new(StatusCode::UNAUTHORIZED, code, message);
    let Some(signed) = Signed::from_headers(&parts.headers) else {
        return unauthorized("SIGN_ERROR", "缺少签名信息").into_response();
    };
    let Some(secret) = bank.secret_of(&signed.merchant_id) else {
        return unauthorized("MERCHANT_NOT_EXIST", "商户号不存在").into_response();
    };
    if !signed.is_valid(&secret, parts.method.as_str(), &path, &body) {
        return unauthorized("SIGN_ERROR", "签名错误").into_response();
    }
    if !signed.is_fresh() {
        return unauthorized("TIMESTAMP_EXPIRED", "请求时间戳超出允许范围").into_response();
    }
    if !bank
        .lock()
        .nonces
        .first_use(&signed.merchant_id, &signed.nonce)
    {
        return unauthorized("NONCE_REUSED", "随机串已使用").into_response();
    }
    let mut request = Request::from_parts(parts, axum::body::Body::from(body));
    request
        .extensions_mut()
        .insert(Merchant(signed.merchant_id));
    next.run(request).await
}

/// The JSON body, or the gateway's PARAM_ERROR naming what is wrong.
fn parse<T: DeserializeOwned>(body: &Bytes) -> Result<T, Refusal> {
    serde_json::from_slice(body).map_err(|e| Refusal::param(format!("请求参数错误：{e}")))
}

fn answer<T: serde::Serialize>(result: Result<T, Refusal>) -> Response {
    match result {
        Ok(value) => Json(value).into_response(),
        Err(refusal) => refusal.into_response(),
    }
}

async fn create_order(
    State(bank): State<StandIn>,
    Extension(Merchant(merchant)): Extension<Merchant>,
    body: Bytes,
) -> Response {
    answer(parse(&body).and_then(|new| bank.create_order(&merchant, new)))
}

async fn order(
    State(bank): State<StandIn>,
    Extension(Merchant(merchant)): Extension<Merchant>,
    Path(id): Path<String>,
) -> Response {
    answer(bank.order(&merchant, &id))
}

async fn create_refund(
    State(bank): State<StandIn>,
    Extension(Merchant(merchant)): Extension<Merchant>,
    body: Bytes,
) -> Response {
    answer(parse(&body).and_then(|new| bank.create_refund(&merchant, new)))
}

async fn refund(
    State(bank): State<StandIn>,
    Extension(Merchant(merchant)): Extension<Merchant>,
    Path(id): Path<String>,
) -> Response {
    answer(bank.refund(&merchant, &id))
}

/// Fen as yuan with two decimals.
fn yuan(fen: i64) -> String {
    format!("{}.{:02}", fen / 100, fen % 100)
}

fn status_text(status: OrderStatus) -> &'static str {
    match status {
        OrderStatus::Pending => "待支付",
        OrderStatus::Success => "支付成功",
        OrderStatus::Failed => "支付失败",
    }
}

/// The cashier: the order (its numbers are plain letters and digits, so
/// nothing shown needs escaping) and, while it is pending, the two buttons.
fn cashier(order: &Order, note: &str) -> Html<String> {
    let buttons = if order.status == OrderStatus::Pending {
        format!(
            "<form method=\"post\" action=\"/pay/{id}/confirm\"><button type=\"submit\">确认付款</button></form>\
             <form method=\"post\" action=\"/pay/{id}/fail\"><button type=\"submit\" class=\"fail\">支付失败</button></form>",
            id = order.order_id
        )
    } else {
        String::new()
    };
    Html(format!(
        "<!doctype html>\n<html lang=\"zh-CN\"><head><meta charset=\"utf-8\">\
         <title>网银支付（本地模拟）</title>\
         <style>body{{font-family:sans-serif;margin:24px;font-size:14px}}\
         dt{{color:#666}}dd{{margin:0 0 8px}}form{{display:inline-block;margin-right:12px}}\
         button{{padding:8px 24px;font-size:14px}}.fail{{color:#c00}}</style>\
         </head><body>\n<h1>网银支付（本地模拟）</h1>\n<p>{note}</p>\n<dl>\
         <dt>商户号</dt><dd>{merchant}</dd>\
         <dt>商户订单号</dt><dd>{no}</dd>\
         <dt>银行订单号</dt><dd>{id}</dd>\
         <dt>金额</dt><dd>¥{amount}</dd>\
         <dt>状态</dt><dd id=\"status\">{status}</dd></dl>\n{buttons}\n</body></html>\n",
        merchant = order.merchant_id,
        no = order.merchant_order_no,
        id = order.order_id,
        amount = yuan(order.amount_fen),
        status = status_text(order.status),
    ))
}

fn cashier_missing() -> Response {
    (
        StatusCode::NOT_FOUND,
        Html("<!doctype html>\n<html lang=\"zh-CN\"><head><meta charset=\"utf-8\"><title>订单不存在</title></head><body><p>订单不存在</p></body></html>\n"),
    )
        .into_response()
}

async fn cashier_page(State(bank): State<StandIn>, Path(id): Path<String>) -> Response {
    match bank.any_order(&id) {
        Ok(order) => cashier(&order, "请核对订单后付款。").into_response(),
        Err(_) => cashier_missing(),
    }
}

/// Settles from the cashier; an order settled meanwhile is shown as it is.
fn cashier_settle(bank: &StandIn, id: &str, outcome: Outcome) -> Response {
    let reason = (outcome == Outcome::Failed).then_some("付款人选择支付失败");
    match bank.settle_order(id, outcome, reason) {
        Ok(order) => cashier(&order, "已提交。").into_response(),
        Err(_) => match bank.any_order(id) {
            Ok(order) => cashier(&order, "订单已结束。").into_response(),
            Err(_) => cashier_missing(),
        },
    }
}

async fn cashier_confirm(State(bank): State<StandIn>, Path(id): Path<String>) -> Response {
    cashier_settle(&bank, &id, Outcome::Success)
}

async fn cashier_fail(State(bank): State<StandIn>, Path(id): Path<String>) -> Response {
    cashier_settle(&bank, &id, Outcome::Failed)
}

/// A settlement asked of the admin API.
#[derive(Debug, Deserialize)]
struct Settle {
    outcome: Outcome,
    #[serde(default)]
    reason: Option<String>,
}

/// Reads an admin body, accepting an empty one as `{}`.
fn admin_body<T: DeserializeOwned>(body: &Bytes) -> Result<T, Refusal> {
    if body.iter().all(u8::is_ascii_whitespace) {
        parse(&Bytes::from_static(b"{}"))
    } else {
        parse(body)
    }
}

async fn admin_orders(State(bank): State<StandIn>) -> Response {
    Json(bank.orders()).into_response()
}

async fn admin_settle_order(
    State(bank): State<StandIn>,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    answer(
        admin_body::<Settle>(&body)
            .and_then(|s| bank.settle_order(&id, s.outcome, s.reason.as_deref())),
    )
}

async fn admin_settle_refund(
    State(bank): State<StandIn>,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    answer(
        admin_body::<Settle>(&body)
            .and_then(|s| bank.settle_refund(&id, s.outcome, s.reason.as_deref())),
    )
}

#[derive(Debug, Deserialize)]
struct Times {
    #[serde(default = "one")]
    times: u32,
}

fn one() -> u32 {
    1
}

/// Most duplicates one replay sends.
const MAX_REPLAYS: u32 = 100;

async fn admin_replay(
    State(bank): State<StandIn>,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    let times = match admin_body::<Times>(&body) {
        Ok(t) if (1..=MAX_REPLAYS).contains(&t.times) => t.times,
        Ok(_) => return Refusal::param(format!("times 须为 1 至 {MAX_REPLAYS}")).into_response(),
        Err(refusal) => return refusal.into_response(),
    };
    answer(bank.replay(&id, times).await)
}

async fn admin_forge(State(bank): State<StandIn>, Path(id): Path<String>) -> Response {
    answer(bank.forge(&id).await)
}

#[derive(Debug, Deserialize)]
struct AutoSettle {
    /// `null`: orders wait for the cashier page or the admin API.
    after_ms: Option<u64>,
}

async fn admin_auto_settle(State(bank): State<StandIn>, body: Bytes) -> Response {
    answer(admin_body::<AutoSettle>(&body).map(|a| {
        bank.set_auto_settle(a.after_ms.map(Duration::from_millis));
        serde_json::json!({ "after_ms": a.after_ms })
    }))
}

#[derive(Debug, Deserialize)]
struct Count {
    count: u32,
}

async fn admin_fail_next_orders(State(bank): State<StandIn>, body: Bytes) -> Response {
    answer(admin_body::<Count>(&body).map(|c| {
        bank.fail_next_orders(c.count);
        serde_json::json!({ "count": c.count })
    }))
}

async fn admin_error_next(State(bank): State<StandIn>, body: Bytes) -> Response {
    answer(admin_body::<Count>(&body).map(|c| {
        bank.error_next_requests(c.count);
        serde_json::json!({ "count": c.count })
    }))
}

#[derive(Debug, Deserialize)]
struct Delay {
    ms: u64,
}

async fn admin_response_delay(State(bank): State<StandIn>, body: Bytes) -> Response {
    answer(admin_body::<Delay>(&body).map(|d| {
        bank.set_response_delay(Duration::from_millis(d.ms));
        serde_json::json!({ "ms": d.ms })
    }))
}

async fn admin_notifications(State(bank): State<StandIn>) -> Response {
    Json(bank.events()).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fen_read_as_yuan() {
        assert_eq!(yuan(1), "0.01");
        assert_eq!(yuan(12_345), "123.45");
        assert_eq!(yuan(100), "1.00");
    }
}

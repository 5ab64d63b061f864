//! The client against the bank stand-in over real sockets: orders and
//! refunds as the bank answers them, retries of passing failures, and
//! callbacks verified at a real notify endpoint (repeats with one event id
//! believed, a forgery and a stale one not).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use fleetdesk_bank_standin::signature::{Signed, sign, string_to_sign};
use fleetdesk_bank_standin::{Outcome, Settings, StandIn};

use super::client::{Bank, BankConfig, BankError, EventType, NotifyError, PaymentStatus};

const MERCHANT: &str = "M100200300";
const SECRET: &str = "finance-bank-secret";

/// What the notify endpoint made of each callback.
type Verdicts = Arc<Mutex<Vec<Result<super::Notification, String>>>>;

struct World {
    standin: StandIn,
    bank_url: String,
    bank: Bank,
    verdicts: Verdicts,
}

/// A bank stand-in settling only when told, and finance's notify endpoint
/// answering 200 to callbacks the client believes and 401 to the rest.
async fn world() -> World {
    let bank_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let bank_url = format!("http://{}", bank_listener.local_addr().unwrap());
    let mut settings = Settings::single(MERCHANT, SECRET, &bank_url);
    settings.auto_settle_after = None;
    let standin = StandIn::new(settings);
    let serving = standin.clone();
    tokio::spawn(async move {
        fleetdesk_bank_standin::serve(bank_listener, serving, std::future::pending())
            .await
            .unwrap();
    });
    let notify_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let notify_url = format!(
        "http://{}/finance/bank/notify",
        notify_listener.local_addr().unwrap()
    );
    let bank = Bank::new(BankConfig {
        url: bank_url.clone(),
        merchant_id: MERCHANT.to_owned(),
        secret: SECRET.to_owned(),
        notify_url,
    })
    .unwrap();
    let verdicts = Verdicts::default();
    let app = axum::Router::new()
        .route("/finance/bank/notify", axum::routing::post(notified))
        .with_state((bank.clone(), verdicts.clone()));
    tokio::spawn(async move { axum::serve(notify_listener, app).await.unwrap() });
    World {
        standin,
        bank_url,
        bank,
        verdicts,
    }
}

async fn notified(
    State((bank, verdicts)): State<(Bank, Verdicts)>,
    headers: HeaderMap,
    body: Bytes,
) -> StatusCode {
    let verdict = bank.verify_notification(&headers, &body);
    let status = if verdict.is_ok() {
        StatusCode::OK
    } else {
        StatusCode::UNAUTHORIZED
    };
    verdicts
        .lock()
        .unwrap()
        .push(verdict.map_err(|e| format!("{e:?}")));
    status
}

impl World {
    async fn verdicts(&self, n: usize) -> Vec<Result<super::Notification, String>> {
        for _ in 0..250 {
            if self.verdicts.lock().unwrap().len() >= n {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        self.verdicts.lock().unwrap().clone()
    }
}

fn refused_code(result: Result<impl std::fmt::Debug, BankError>) -> (String, bool) {
    let err = result.unwrap_err();
    (
        err.code().unwrap_or_default().to_owned(),
        err.is_transient(),
    )
}

#[tokio::test]
async fn an_order_is_created_once_per_number() {
    let w = world().await;
    let order = w
        .bank
        .create_order("FIN-1", 9_900, Some("示例物流"))
        .await
        .unwrap();
    assert_eq!(order.status, PaymentStatus::Pending);
    assert_eq!(order.amount_fen, 9_900);
    assert!(order.pay_url.ends_with(&format!("/pay/{}", order.order_id)));
    let again = w.bank.create_order("FIN-1", 9_900, None).await.unwrap();
    assert_eq!(again, order);
    assert_eq!(
        refused_code(w.bank.create_order("FIN-1", 9_901, None).await),
        ("ORDER_NO_CONFLICT".to_owned(), false)
    );
    assert_eq!(w.bank.order(&order.order_id).await.unwrap(), order);
    assert_eq!(
        refused_code(w.bank.order("P-unknown").await),
        ("ORDER_NOT_EXIST".to_owned(), false)
    );
}

#[tokio::test]
async fn passing_failures_are_retried_and_lasting_ones_returned() {
    let w = world().await;
    w.standin.error_next_requests(2);
    assert!(w.bank.create_order("FIN-2", 100, None).await.is_ok());
    w.standin.error_next_requests(3);
    assert_eq!(
        refused_code(w.bank.create_order("FIN-3", 100, None).await),
        ("SYSTEM_ERROR".to_owned(), true)
    );
    assert_eq!(w.standin.faults().error_next_requests, 0);

    let stranger = Bank::new(BankConfig {
        url: w.bank_url.clone(),
        merchant_id: MERCHANT.to_owned(),
        secret: "not-our-secret".to_owned(),
        notify_url: "http://127.0.0.1:1/finance/bank/notify".to_owned(),
    })
    .unwrap();
    assert_eq!(
        refused_code(stranger.create_order("FIN-4", 100, None).await),
        ("SIGN_ERROR".to_owned(), false)
    );
}

#[tokio::test]
async fn a_callback_replayed_ten_times_is_one_event_and_a_forgery_is_not_believed() {
    let w = world().await;
    let order = w.bank.create_order("FIN-5", 20_000, None).await.unwrap();
    w.standin
        .settle_order(&order.order_id, Outcome::Success, None)
        .unwrap();
    assert_eq!(w.verdicts(1).await.len(), 1);
    let replay = w.standin.replay(&order.order_id, 10).await.unwrap();
    assert_eq!(replay.statuses, vec![Some(200); 10]);

    let pending = w.bank.create_order("FIN-6", 30_000, None).await.unwrap();
    let forged = w.standin.forge(&pending.order_id).await.unwrap();
    assert_eq!(forged.statuses, vec![Some(401)]);

    let verdicts = w.verdicts(12).await;
    assert_eq!(verdicts.len(), 12);
    let believed: Vec<&super::Notification> =
        verdicts.iter().filter_map(|v| v.as_ref().ok()).collect();
    assert_eq!(believed.len(), 11);
    assert!(
        believed.iter().all(|n| n == &believed[0]),
        "one event, repeated"
    );
    assert_eq!(believed[0].event_type, EventType::PaymentSuccess);
    let paid = believed[0].order.as_ref().unwrap();
    assert_eq!(
        (paid.order_id.as_str(), paid.amount_fen),
        (order.order_id.as_str(), 20_000)
    );
    assert_eq!(paid.status, PaymentStatus::Success);
    let refused: Vec<&String> = verdicts.iter().filter_map(|v| v.as_ref().err()).collect();
    assert_eq!(refused, [&"BadSignature".to_owned()]);
    assert_eq!(
        w.bank.order(&pending.order_id).await.unwrap().status,
        PaymentStatus::Pending
    );
}

#[tokio::test]
async fn refunds_are_bounded_by_what_was_paid() {
    let w = world().await;
    let order = w.bank.create_order("FIN-7", 10_000, None).await.unwrap();
    assert_eq!(
        refused_code(
            w.bank
                .create_refund("FIN-7-R0", &order.order_id, 1, None)
                .await
        ),
        ("ORDER_NOT_PAID".to_owned(), false)
    );
    w.standin
        .settle_order(&order.order_id, Outcome::Success, None)
        .unwrap();
    let refund = w
        .bank
        .create_refund("FIN-7-R1", &order.order_id, 6_000, Some("多收"))
        .await
        .unwrap();
    assert_eq!(
        w.bank
            .create_refund("FIN-7-R1", &order.order_id, 6_000, None)
            .await
            .unwrap(),
        refund
    );
    assert_eq!(
        refused_code(
            w.bank
                .create_refund("FIN-7-R2", &order.order_id, 4_001, None)
                .await
        ),
        ("REFUND_AMOUNT_EXCEEDED".to_owned(), false)
    );
    w.standin
        .settle_refund(&refund.refund_id, Outcome::Success, None)
        .unwrap();
    let settled = w.bank.refund(&refund.refund_id).await.unwrap();
    assert_eq!(settled.status, super::RefundStatus::Success);
    assert_eq!(
        w.bank.order(&order.order_id).await.unwrap().refunded_fen,
        6_000
    );
    let verdicts = w.verdicts(2).await;
    let refunded = verdicts[1].as_ref().unwrap();
    assert_eq!(refunded.event_type, EventType::RefundSuccess);
    assert_eq!(refunded.refund.as_ref().unwrap().amount_fen, 6_000);
}

/// Headers of a callback to `path` signed by `secret` at `timestamp`.
fn callback_headers(
    merchant: &str,
    secret: &str,
    path: &str,
    timestamp: i64,
    body: &[u8],
) -> HeaderMap {
    let timestamp = timestamp.to_string();
    let text = string_to_sign("POST", path, merchant, &timestamp, "n-1", body);
    let signed = Signed {
        merchant_id: merchant.to_owned(),
        timestamp,
        nonce: "n-1".to_owned(),
        signature: sign(secret, &text),
    };
    let mut headers = HeaderMap::new();
    for (name, value) in signed.headers() {
        headers.insert(name, value.parse().unwrap());
    }
    headers
}

#[tokio::test]
async fn unsigned_stale_foreign_and_misdirected_callbacks_are_not_believed() {
    let w = world().await;
    let body =
        br#"{"event_id":"E1","event_type":"PAYMENT.SUCCESS","created_at":"2026-11-29T00:00:00Z"}"#;
    let path = "/finance/bank/notify";
    let now = chrono::Utc::now().timestamp();
    let verdict = |headers: &HeaderMap| w.bank.verify_notification(headers, body);

    let genuine = verdict(&callback_headers(MERCHANT, SECRET, path, now, body)).unwrap();
    assert_eq!(genuine.event_id, "E1");
    assert!(matches!(
        verdict(&HeaderMap::new()),
        Err(NotifyError::Unsigned)
    ));
    assert!(matches!(
        verdict(&callback_headers(MERCHANT, SECRET, path, now - 301, body)),
        Err(NotifyError::Stale)
    ));
    assert!(matches!(
        verdict(&callback_headers("M999", SECRET, path, now, body)),
        Err(NotifyError::OtherMerchant)
    ));
    assert!(matches!(
        verdict(&callback_headers(MERCHANT, SECRET, "/elsewhere", now, body)),
        Err(NotifyError::BadSignature)
    ));
    let other_body = callback_headers(MERCHANT, SECRET, path, now, b"{}");
    assert!(matches!(
        verdict(&other_body),
        Err(NotifyError::BadSignature)
    ));
}

//! The bank stand-in over HTTP, driven the way finance and its tests drive
//! it: signed merchant requests, callbacks to a real notify endpoint, the
//! admin API for settlements and faults, the cashier page.

mod support;

use std::time::Duration;

use serde_json::{Value, json};
use support::{MERCHANT, SECRET, Signing, merchant, start, start_with};

const ORDERS: &str = "/api/v1/orders";

fn order_body(no: &str, amount_fen: i64) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "merchant_order_no": no,
        "amount_fen": amount_fen,
        "currency": "CNY",
        "notify_url": "http://127.0.0.1:1/notify",
    }))
    .unwrap()
}

#[tokio::test]
async fn unsigned_badly_signed_stale_and_replayed_requests_are_refused() {
    let bank = start(None).await;
    let body = order_body("SIG-1", 100);

    let (status, refusal) = bank.send("POST", ORDERS, &body, None).await;
    assert_eq!(
        (status, refusal["code"].as_str()),
        (401, Some("SIGN_ERROR"))
    );

    let wrong_secret = Signing {
        secret: "another-secret".to_owned(),
        ..Signing::fresh()
    };
    let (status, refusal) = bank.send("POST", ORDERS, &body, Some(&wrong_secret)).await;
    assert_eq!(
        (status, refusal["code"].as_str()),
        (401, Some("SIGN_ERROR"))
    );
    assert!(!refusal["message"].as_str().unwrap().is_empty());

    // The body is signed: a signature over another amount does not carry this one.
    let signing = Signing::fresh();
    let sig_for_other = support::signature(
        SECRET,
        "POST",
        ORDERS,
        MERCHANT,
        &signing.timestamp,
        &signing.nonce,
        &order_body("SIG-1", 1),
    );
    let answer = reqwest::Client::new()
        .post(format!("{}{ORDERS}", bank.base))
        .header("X-Merchant-Id", MERCHANT)
        .header("X-Timestamp", &signing.timestamp)
        .header("X-Nonce", &signing.nonce)
        .header("X-Signature", sig_for_other)
        .body(body.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 401);

    let unknown = Signing {
        merchant: "M999".to_owned(),
        ..Signing::fresh()
    };
    let (status, refusal) = bank.send("POST", ORDERS, &body, Some(&unknown)).await;
    assert_eq!(
        (status, refusal["code"].as_str()),
        (401, Some("MERCHANT_NOT_EXIST"))
    );

    let stale = Signing {
        timestamp: (chrono::Utc::now().timestamp() - 301).to_string(),
        ..Signing::fresh()
    };
    let (status, refusal) = bank.send("POST", ORDERS, &body, Some(&stale)).await;
    assert_eq!(
        (status, refusal["code"].as_str()),
        (401, Some("TIMESTAMP_EXPIRED"))
    );

    let once = Signing::fresh();
    let (status, order) = bank.send("POST", ORDERS, &body, Some(&once)).await;
    assert_eq!(status, 200, "{order}");
    let (status, refusal) = bank.send("POST", ORDERS, &body, Some(&once)).await;
    assert_eq!(
        (status, refusal["code"].as_str()),
        (401, Some("NONCE_REUSED"))
    );
    assert_eq!(bank.standin.orders().len(), 1);
}

#[tokio::test]
async fn an_order_number_answers_its_order_and_refuses_another_amount() {
    let bank = start(None).await;
    let (status, first) = bank.order("FD-0001", 12_345, "http://127.0.0.1:1/n").await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["status"], "PENDING");
    assert_eq!(first["amount_fen"], 12_345);
    assert_eq!(first["currency"], "CNY");
    let id = first["order_id"].as_str().unwrap();
    assert_eq!(
        first["pay_url"].as_str().unwrap(),
        format!("{}/pay/{id}", bank.base)
    );

    let (status, again) = bank.order("FD-0001", 12_345, "http://127.0.0.1:1/n").await;
    assert_eq!(status, 200);
    assert_eq!(again, first);

    let (status, refusal) = bank.order("FD-0001", 12_346, "http://127.0.0.1:1/n").await;
    assert_eq!(
        (status, refusal["code"].as_str()),
        (409, Some("ORDER_NO_CONFLICT"))
    );

    let (status, queried) = bank
        .signed("GET", &format!("{ORDERS}/{id}"), &json!({}))
        .await;
    assert_eq!((status, &queried), (200, &first));
    let (status, missing) = bank
        .signed("GET", &format!("{ORDERS}/P0"), &json!({}))
        .await;
    assert_eq!(
        (status, missing["code"].as_str()),
        (404, Some("ORDER_NOT_EXIST"))
    );

    for (field, value) in [
        ("amount_fen", json!(0)),
        ("currency", json!("USD")),
        ("notify_url", json!("ftp://x")),
        ("merchant_order_no", json!("订单 1")),
    ] {
        let mut body = json!({
            "merchant_order_no": "FD-0002", "amount_fen": 100,
            "currency": "CNY", "notify_url": "http://127.0.0.1:1/n",
        });
        body[field] = value;
        let (status, refusal) = bank.signed("POST", ORDERS, &body).await;
        assert_eq!(
            (status, refusal["code"].as_str()),
            (400, Some("PARAM_ERROR"))
        );
        assert!(
            refusal["message"].as_str().unwrap().contains(field),
            "{field}: {refusal}"
        );
    }
    assert_eq!(bank.standin.orders().len(), 1);
}

#[tokio::test]
async fn a_callback_is_signed_and_retried_until_the_merchant_answers_2xx() {
    let bank = start(None).await;
    let shop = merchant(2).await;
    let paid = bank.paid_order("FD-CB-1", 5_000, &shop.notify_url).await;
    assert_eq!(paid["status"], "SUCCESS");

    let got = shop.wait_for(3, Duration::from_secs(10)).await;
    assert_eq!(got.len(), 3, "two refused, the third accepted");
    // Nothing more once accepted.
    tokio::time::sleep(Duration::from_millis(5_500)).await;
    assert_eq!(shop.callbacks().len(), 3);

    assert!(got.iter().all(support::Callback::is_authentic));
    assert!(
        got.iter().all(|c| c.body == got[0].body),
        "same body each time"
    );
    assert_ne!(
        got[0].headers["x-nonce"], got[1].headers["x-nonce"],
        "each attempt signed afresh"
    );
    assert!(got[1].at - got[0].at >= Duration::from_millis(900));
    assert!(got[2].at - got[1].at >= Duration::from_millis(1_900));
    let event = got[0].json();
    assert_eq!(event["event_type"], "PAYMENT.SUCCESS");
    assert_eq!(event["order"]["order_id"], paid["order_id"]);
    assert_eq!(event["order"]["amount_fen"], 5_000);
    assert_eq!(event["order"]["status"], "SUCCESS");

    let (_, events) = bank.admin("GET", "/admin/notifications", &json!({})).await;
    let record = &events.as_array().unwrap()[0];
    assert_eq!(record["event_id"], event["event_id"]);
    assert_eq!(record["delivered"], true);
    let statuses: Vec<&Value> = record["attempts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| &a["status"])
        .collect();
    assert_eq!(statuses, [&json!(500), &json!(500), &json!(200)]);
}

#[tokio::test]
async fn a_replay_sends_the_same_callback_n_times_and_a_forgery_fails_verification() {
    let bank = start(None).await;
    let shop = merchant(0).await;
    let paid = bank.paid_order("FD-RP-1", 8_800, &shop.notify_url).await;
    let id = paid["order_id"].as_str().unwrap();
    let first = shop.wait_for(1, Duration::from_secs(5)).await;
    assert_eq!(first.len(), 1);

    let (status, replay) = bank
        .admin(
            "POST",
            &format!("/admin/orders/{id}/replay"),
            &json!({"times": 10}),
        )
        .await;
    assert_eq!(status, 200, "{replay}");
    assert_eq!(replay["statuses"].as_array().unwrap().len(), 10);
    let all = shop.wait_for(11, Duration::from_secs(5)).await;
    assert_eq!(all.len(), 11);
    let event_id = first[0].json()["event_id"].clone();
    assert_eq!(replay["event_id"], event_id);
    for callback in &all {
        assert_eq!(callback.body, first[0].body);
        assert!(callback.is_authentic());
    }

    // A pending order's forged success: a new event id, the wrong signature.
    let (_, pending) = bank.order("FD-RP-2", 100, &shop.notify_url).await;
    let pending_id = pending["order_id"].as_str().unwrap();
    let (status, forged) = bank
        .admin(
            "POST",
            &format!("/admin/orders/{pending_id}/forge"),
            &json!({}),
        )
        .await;
    assert_eq!(status, 200, "{forged}");
    let all = shop.wait_for(12, Duration::from_secs(5)).await;
    let forgery = all.last().unwrap();
    let claimed = forgery.json();
    assert_eq!(claimed["event_type"], "PAYMENT.SUCCESS");
    assert_eq!(claimed["order"]["order_id"], pending_id);
    assert_eq!(claimed["event_id"], forged["event_id"]);
    assert_ne!(claimed["event_id"], event_id);
    assert!(!forgery.is_authentic());
    // The bank's own books still say pending.
    let (_, order) = bank
        .signed("GET", &format!("{ORDERS}/{pending_id}"), &json!({}))
        .await;
    assert_eq!(order["status"], "PENDING");
}

#[tokio::test]
async fn refunds_never_exceed_what_was_paid() {
    let bank = start(None).await;
    let shop = merchant(0).await;
    let refund = |no: &str, order_id: &str, amount_fen: i64| {
        json!({
            "merchant_refund_no": no, "order_id": order_id,
            "amount_fen": amount_fen, "notify_url": shop.notify_url, "reason": "多收",
        })
    };
    let (_, pending) = bank.order("FD-RF-0", 1_000, &shop.notify_url).await;
    let (status, refusal) = bank
        .signed(
            "POST",
            "/api/v1/refunds",
            &refund("RF-0", pending["order_id"].as_str().unwrap(), 10),
        )
        .await;
    assert_eq!(
        (status, refusal["code"].as_str()),
        (400, Some("ORDER_NOT_PAID"))
    );

    let paid = bank.paid_order("FD-RF-1", 10_000, &shop.notify_url).await;
    let id = paid["order_id"].as_str().unwrap();
    let (status, first) = bank
        .signed("POST", "/api/v1/refunds", &refund("RF-1", id, 6_000))
        .await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["status"], "PROCESSING");
    let (status, again) = bank
        .signed("POST", "/api/v1/refunds", &refund("RF-1", id, 6_000))
        .await;
    assert_eq!((status, &again), (200, &first));
    let (status, refusal) = bank
        .signed("POST", "/api/v1/refunds", &refund("RF-1", id, 5_000))
        .await;
    assert_eq!(
        (status, refusal["code"].as_str()),
        (409, Some("REFUND_NO_CONFLICT"))
    );
    // 6,000 committed: 4,001 is one fen too many, 4,000 is the rest.
    let (status, refusal) = bank
        .signed("POST", "/api/v1/refunds", &refund("RF-2", id, 4_001))
        .await;
    assert_eq!(
        (status, refusal["code"].as_str()),
        (400, Some("REFUND_AMOUNT_EXCEEDED"))
    );
    let (status, rest) = bank
        .signed("POST", "/api/v1/refunds", &refund("RF-3", id, 4_000))
        .await;
    assert_eq!(status, 200, "{rest}");

    // A failed refund frees its amount; a successful one is counted as refunded.
    let first_id = first["refund_id"].as_str().unwrap();
    let (status, failed) = bank
        .admin(
            "POST",
            &format!("/admin/refunds/{first_id}/settle"),
            &json!({"outcome": "FAILED", "reason": "账户已销户"}),
        )
        .await;
    assert_eq!((status, failed["status"].as_str()), (200, Some("FAILED")));
    let rest_id = rest["refund_id"].as_str().unwrap();
    bank.admin(
        "POST",
        &format!("/admin/refunds/{rest_id}/settle"),
        &json!({"outcome": "SUCCESS"}),
    )
    .await;
    let (status, freed) = bank
        .signed("POST", "/api/v1/refunds", &refund("RF-4", id, 6_000))
        .await;
    assert_eq!(status, 200, "{freed}");
    let (_, order) = bank
        .signed("GET", &format!("{ORDERS}/{id}"), &json!({}))
        .await;
    assert_eq!(order["refunded_fen"], 4_000);
    let (status, queried) = bank
        .signed("GET", &format!("/api/v1/refunds/{rest_id}"), &json!({}))
        .await;
    assert_eq!((status, queried["status"].as_str()), (200, Some("SUCCESS")));

    // Callbacks: the payment, then the two settled refunds.
    let got = shop.wait_for(3, Duration::from_secs(5)).await;
    let mut types: Vec<String> = got
        .iter()
        .map(|c| c.json()["event_type"].as_str().unwrap().to_owned())
        .collect();
    types.sort();
    assert_eq!(
        types,
        ["PAYMENT.SUCCESS", "REFUND.FAILED", "REFUND.SUCCESS"]
    );
}

#[tokio::test]
async fn orders_settle_by_themselves_and_the_next_ones_fail_on_demand() {
    let bank = start(Some(Duration::from_millis(300))).await;
    let shop = merchant(0).await;
    let (status, _) = bank
        .admin("POST", "/admin/fail-next-orders", &json!({"count": 1}))
        .await;
    assert_eq!(status, 200);
    let (_, failing) = bank.order("FD-AU-1", 100, &shop.notify_url).await;
    let (_, paying) = bank.order("FD-AU-2", 200, &shop.notify_url).await;
    let got = shop.wait_for(2, Duration::from_secs(5)).await;
    assert_eq!(got.len(), 2);
    let outcome = |id: &Value| {
        got.iter()
            .map(|c| c.json())
            .find(|e| &e["order"]["order_id"] == id)
            .map(|e| {
                (
                    e["event_type"].clone(),
                    e["order"]["failure_reason"].clone(),
                )
            })
            .unwrap()
    };
    assert_eq!(
        outcome(&failing["order_id"]),
        (json!("PAYMENT.FAILED"), json!("余额不足"))
    );
    assert_eq!(
        outcome(&paying["order_id"]),
        (json!("PAYMENT.SUCCESS"), Value::Null)
    );

    // Settled already: the admin API cannot settle it again.
    let id = paying["order_id"].as_str().unwrap();
    let (status, refusal) = bank
        .admin(
            "POST",
            &format!("/admin/orders/{id}/settle"),
            &json!({"outcome": "FAILED"}),
        )
        .await;
    assert_eq!(
        (status, refusal["code"].as_str()),
        (409, Some("ORDER_CLOSED"))
    );

    // With auto-settlement off, an order waits.
    bank.admin("PUT", "/admin/auto-settle", &json!({"after_ms": null}))
        .await;
    let (_, waiting) = bank.order("FD-AU-3", 300, &shop.notify_url).await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    let (_, order) = bank
        .signed(
            "GET",
            &format!("{ORDERS}/{}", waiting["order_id"].as_str().unwrap()),
            &json!({}),
        )
        .await;
    assert_eq!(order["status"], "PENDING");
}

#[tokio::test]
async fn injected_errors_answer_500_then_the_gateway_recovers() {
    let bank = start(None).await;
    bank.admin("POST", "/admin/error-next-requests", &json!({"count": 2}))
        .await;
    for _ in 0..2 {
        let (status, refusal) = bank.order("FD-ER-1", 100, "http://127.0.0.1:1/n").await;
        assert_eq!(
            (status, refusal["code"].as_str()),
            (500, Some("SYSTEM_ERROR"))
        );
    }
    let (status, _) = bank.order("FD-ER-1", 100, "http://127.0.0.1:1/n").await;
    assert_eq!(status, 200);

    bank.admin("PUT", "/admin/response-delay", &json!({"ms": 400}))
        .await;
    let started = std::time::Instant::now();
    let (status, _) = bank.order("FD-ER-1", 100, "http://127.0.0.1:1/n").await;
    assert_eq!(status, 200);
    assert!(started.elapsed() >= Duration::from_millis(400));
}

#[tokio::test]
async fn a_payer_pays_on_the_cashier_page() {
    let bank = start(None).await;
    let shop = merchant(0).await;
    let (_, order) = bank.order("FD-PG-1", 12_345, &shop.notify_url).await;
    let pay_url = order["pay_url"].as_str().unwrap();
    let page = reqwest::get(pay_url).await.unwrap().text().await.unwrap();
    assert!(
        page.contains("确认付款") && page.contains("支付失败"),
        "{page}"
    );
    assert!(page.contains("¥123.45") && page.contains("FD-PG-1"));

    let client = reqwest::Client::new();
    let done = client
        .post(format!("{pay_url}/confirm"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        done.contains("支付成功") && !done.contains("确认付款"),
        "{done}"
    );
    let got = shop.wait_for(1, Duration::from_secs(5)).await;
    assert_eq!(got[0].json()["event_type"], "PAYMENT.SUCCESS");

    // Clicking again changes nothing.
    let again = client
        .post(format!("{pay_url}/fail"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(again.contains("支付成功"), "{again}");
    assert_eq!(
        bank.standin.orders()[0].status,
        fleetdesk_bank_standin::OrderStatus::Success
    );
}

#[tokio::test]
async fn without_the_flag_there_is_no_admin_api() {
    let bank = start_with(|s| s.admin = false).await;
    let (status, _) = bank
        .admin("POST", "/admin/fail-next-orders", &json!({"count": 1}))
        .await;
    assert_eq!(status, 404);
    let (status, _) = bank.order("FD-NA-1", 100, "http://127.0.0.1:1/n").await;
    assert_eq!(status, 200);
}

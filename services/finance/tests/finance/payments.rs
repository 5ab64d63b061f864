//! Payments over the real gRPC server and the bank stand-in over real
//! sockets: a balance payment under 100 parallel requests with one key
//! (one movement, 100 identical answers), a reused key (4009), a short
//! balance and a changed total (nothing moves), bank payments settled by
//! signed callbacks (repeated ten times and forged: one payment, nothing
//! from the forgery), a failed one (the bills stay payable), the ledger's
//! balances and statement, and another tenant.

use crate::support;

use fleetdesk_bank_standin::Outcome;
use fleetdesk_kit::ErrorCode;
use fleetdesk_proto::finance::v1 as pb;
use support::bank::{a_hundred_at_once, banked};
use support::err;

/// Stored transfer kinds (finance's ledger::TransferKind).
const TOP_UP: i16 = 1;
const BALANCE_PAYMENT: i16 = 2;
const BANK_PAYMENT: i16 = 3;
const COUPON_DISCOUNT: i16 = 4;

#[tokio::test]
async fn a_hundred_parallel_payments_with_one_key_move_money_once_and_answer_alike() {
    let w = banked().await;
    let s = &w.s;
    let a = &s.a;
    s.top_up(a, 1_000_000).await;
    let rent = s.unpaid_bill(a, "p-1", 300_000).await;
    let repair = s.unpaid_bill(a, "p-2", 45_000).await;
    let req = s.pay_request(
        &[&rent, &repair],
        pb::PaymentMethod::PrepaidBalance,
        "pay-once",
    );
    let answers: Vec<pb::PayBillResponse> = a_hundred_at_once(|| {
        let client = s.client.clone();
        let call = s.req(a, req.clone());
        async move { client.clone().pay_bill(call).await.unwrap().into_inner() }
    })
    .await;
    assert!(answers.iter().all(|x| *x == answers[0]));
    let payment = answers[0].payment.clone().unwrap();
    assert_eq!(payment.status, pb::PaymentStatus::Succeeded as i32);
    assert_eq!(payment.amount_fen, 345_000);
    assert_eq!(payment.allocations.len(), 2);
    assert_eq!(s.count(a, "bill_payment").await, 1);
    assert_eq!(s.transfers(a, BALANCE_PAYMENT).await, 1);
    assert_eq!(s.balance(a).await, 1_000_000 - 345_000);
    for bill in [&rent, &repair] {
        let now = s.bill(a, &bill.id).await;
        assert_eq!(now.status, pb::BillStatus::Paid as i32);
        assert_eq!(now.paid_fen, bill.payable_fen);
        assert_eq!(now.outstanding_fen, 0);
    }
    // The bill's detail shows the payment applied to it.
    let detail = s
        .client
        .clone()
        .get_bill(s.req(
            a,
            pb::GetBillRequest {
                bill_id: rent.id.clone(),
            },
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(detail.payments.len(), 1);
    assert_eq!(detail.payments[0].id, payment.id);

    // The same key with another amount: 4009, nothing moves.
    let mut other = req.clone();
    other.bill_ids = vec![rent.id.clone()];
    other.amount_fen = 100;
    other.expected_total_fen = 100;
    let e = err(&s.pay(a, other).await.unwrap_err());
    assert_eq!(e.code.edge_code(), 4009);
    assert_eq!(s.count(a, "bill_payment").await, 1);
    s.books_hold().await;
}

#[tokio::test]
async fn a_short_balance_or_a_changed_total_moves_nothing() {
    let w = banked().await;
    let s = &w.s;
    let a = &s.a;
    s.top_up(a, 10_000).await;
    let bill = s.unpaid_bill(a, "short-1", 50_000).await;
    let short = s
        .pay(
            a,
            s.pay_request(&[&bill], pb::PaymentMethod::PrepaidBalance, "short"),
        )
        .await
        .unwrap_err();
    let e = err(&short);
    assert_eq!(e.code, ErrorCode::Conflict);
    assert!(e.message.contains("预付账户余额不足"), "{}", e.message);

    let mut changed = s.pay_request(&[&bill], pb::PaymentMethod::PrepaidBalance, "changed");
    changed.expected_total_fen = 49_999;
    let e = err(&s.pay(a, changed).await.unwrap_err());
    assert_eq!(e.code, ErrorCode::Conflict);
    assert_eq!(e.fields[0].field, "expectedTotalFen");

    // Part of it, within the balance, pays it partly.
    let mut part = s.pay_request(&[&bill], pb::PaymentMethod::PrepaidBalance, "part");
    part.amount_fen = 8_000;
    part.expected_total_fen = 8_000;
    s.pay(a, part).await.unwrap();
    let now = s.bill(a, &bill.id).await;
    assert_eq!(now.status, pb::BillStatus::PartiallyPaid as i32);
    assert_eq!(now.outstanding_fen, 42_000);
    assert_eq!(s.balance(a).await, 2_000);
    assert_eq!(s.count(a, "bill_payment").await, 1);

    // A key is required for a money write.
    let e = err(&s
        .pay(
            a,
            s.pay_request(&[&bill], pb::PaymentMethod::PrepaidBalance, ""),
        )
        .await
        .unwrap_err());
    assert_eq!(e.code, ErrorCode::BadRequest);
    s.books_hold().await;
}

#[tokio::test]
async fn a_bank_callback_repeated_ten_times_pays_once_and_a_forged_one_changes_nothing() {
    let w = banked().await;
    let s = &w.s;
    let a = &s.a;
    let (bill, pending) = w
        .bank_payment(a, "bank-1", 120_000, pb::PaymentMethod::OnlineBanking)
        .await;
    assert!(pending.pay_url.contains("/pay/"), "{}", pending.pay_url);
    let order = pending.transaction_no.clone();

    // A forgery claiming it paid: refused, nothing moves.
    let forged = w.bank.forge(&order).await.unwrap();
    assert_eq!(forged.statuses, vec![Some(401)]);
    assert_eq!(
        s.payment(a, &pending.id).await.status,
        pb::PaymentStatus::Pending as i32
    );
    // While it is pending, the bill is not paid another way.
    s.top_up(a, 500_000).await;
    let e = err(&s
        .pay(
            a,
            s.pay_request(&[&bill], pb::PaymentMethod::PrepaidBalance, "twice"),
        )
        .await
        .unwrap_err());
    assert_eq!(e.code, ErrorCode::Conflict);

    w.bank.settle_order(&order, Outcome::Success, None).unwrap();
    let paid = s.settled_payment(a, &pending.id).await;
    assert_eq!(paid.status, pb::PaymentStatus::Succeeded as i32);
    let replayed = w.bank.replay(&order, 10).await.unwrap();
    assert!(
        replayed.statuses.iter().all(|s| *s == Some(200)),
        "{replayed:?}"
    );
    assert_eq!(s.transfers(a, BANK_PAYMENT).await, 1);
    assert_eq!(s.count(a, "bank_event").await, 1);
    let now = s.bill(a, &bill.id).await;
    assert_eq!(now.paid_fen, 120_000);
    assert_eq!(now.status, pb::BillStatus::Paid as i32);
    // Only the test's top-up reached the balance.
    assert_eq!(s.transfers(a, TOP_UP).await, 1);
    assert_eq!(s.balance(a).await, 500_000);
    s.books_hold().await;
}

#[tokio::test]
async fn a_failed_bank_payment_leaves_the_bill_payable() {
    let w = banked().await;
    let s = &w.s;
    let a = &s.a;
    let (now, failed) = w
        .settled_bank_payment(a, "fail-1", 30_000, Outcome::Failed, Some("余额不足"))
        .await;
    assert_eq!(failed.status, pb::PaymentStatus::Failed as i32);
    assert_eq!(failed.failure_reason, "余额不足");
    assert_eq!(now.status, pb::BillStatus::Unpaid as i32);
    assert_eq!(s.transfers(a, BANK_PAYMENT).await, 0);
    s.top_up(a, 30_000).await;
    s.pay(
        a,
        s.pay_request(&[&now], pb::PaymentMethod::PrepaidBalance, "then-balance"),
    )
    .await
    .unwrap();
    assert_eq!(s.bill(a, &now.id).await.status, pb::BillStatus::Paid as i32);
    s.books_hold().await;
}

#[tokio::test]
async fn the_statement_lists_the_balance_moves_and_tenant_b_sees_nothing_of_a() {
    let w = banked().await;
    let s = &w.s;
    let (a, b) = (&s.a, &s.b);
    s.top_up(a, 100_000).await;
    let bill = s.unpaid_bill(a, "st-1", 40_000).await;
    let payment = s
        .pay(
            a,
            s.pay_request(&[&bill], pb::PaymentMethod::PrepaidBalance, "st"),
        )
        .await
        .unwrap();
    let entries = s
        .client
        .clone()
        .list_ledger_entries(s.req(a, pb::ListLedgerEntriesRequest::default()))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(entries.page.unwrap().total, 2);
    let paid = &entries.entries[0];
    assert_eq!(paid.direction, pb::LedgerDirection::Debit as i32);
    assert_eq!(paid.amount_fen, 40_000);
    assert_eq!(paid.balance_after_fen, 60_000);
    assert_eq!(
        paid.business_type,
        pb::LedgerBusinessType::BillPayment as i32
    );
    assert_eq!(paid.reference_id, payment.id);
    assert_eq!(paid.reference_no, payment.payment_no);
    let top_ups = s
        .client
        .clone()
        .list_ledger_entries(s.req(
            a,
            pb::ListLedgerEntriesRequest {
                business_types: vec![pb::LedgerBusinessType::TopUp as i32],
                ..Default::default()
            },
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(top_ups.entries.len(), 1);

    // Tenant B: no payments, no balance, A's payment and bill not found.
    let listed = s
        .client
        .clone()
        .list_bill_payments(s.req(b, pb::ListBillPaymentsRequest::default()))
        .await
        .unwrap()
        .into_inner();
    assert!(listed.payments.is_empty());
    assert_eq!(s.balance(b).await, 0);
    let e = s
        .client
        .clone()
        .get_bill_payment(s.req(
            b,
            pb::GetBillPaymentRequest {
                payment_id: payment.id.clone(),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&e).code, ErrorCode::NotFound);
    let mut theirs = s.pay_request(&[&bill], pb::PaymentMethod::PrepaidBalance, "b-pays-a");
    theirs.expected_total_fen = 0;
    let e = s.pay(b, theirs).await.unwrap_err();
    assert_eq!(err(&e).code, ErrorCode::NotFound);
    // A's list, filtered by the bill, finds it.
    let mine = s
        .client
        .clone()
        .list_bill_payments(s.req(
            a,
            pb::ListBillPaymentsRequest {
                bill_id: bill.id.clone(),
                ..Default::default()
            },
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(mine.payments.len(), 1);
    assert_eq!(mine.payments[0].allocations[0].bill_no, bill.bill_no);
}

#[tokio::test]
async fn a_coupon_pays_its_part_from_the_coupon_budget_once() {
    let w = banked().await;
    let s = &w.s;
    let a = &s.a;
    let coupon = s
        .client
        .clone()
        .grant_coupons(s.service(pb::GrantCouponsRequest {
            enterprise_id: a.enterprise.to_string(),
            campaign: "测试活动".into(),
            coupons: vec![pb::CouponGrant {
                coupon_no: "PAY-5000".into(),
                name: "满减券".into(),
                kind: pb::CouponKind::AmountOff as i32,
                face_value_fen: 5_000,
                percent_off_bp: 0,
                max_discount_fen: 0,
                min_spend_fen: 0,
                applicable_bill_kinds: Vec::new(),
                applicable_order_kinds: Vec::new(),
                valid_from: None,
                valid_until: Some(fleetdesk_kit::convert::timestamp(
                    chrono::Utc::now() + chrono::Duration::days(30),
                )),
            }],
        }))
        .await
        .unwrap()
        .into_inner()
        .coupons
        .remove(0);
    s.top_up(a, 25_000).await;
    let bill = s.unpaid_bill(a, "coupon-1", 30_000).await;
    let mut req = s.pay_request(&[&bill], pb::PaymentMethod::PrepaidBalance, "with-coupon");
    req.coupon_id = coupon.id.clone();
    req.expected_total_fen = 25_000;
    let paid = s.pay(a, req.clone()).await.unwrap();
    assert_eq!(paid.amount_fen, 25_000);
    assert_eq!(paid.coupon_deduction_fen, 5_000);
    assert_eq!(paid.allocations[0].amount_fen, 30_000);
    assert_eq!(s.pay(a, req).await.unwrap(), paid);
    assert_eq!(s.transfers(a, COUPON_DISCOUNT).await, 1);
    assert_eq!(s.balance(a).await, 0);
    assert_eq!(
        s.bill(a, &bill.id).await.status,
        pb::BillStatus::Paid as i32
    );

    // Used once: another bill cannot take it, nor can a bank payment.
    s.top_up(a, 30_000).await;
    let other = s.unpaid_bill(a, "coupon-2", 30_000).await;
    let mut again = s.pay_request(&[&other], pb::PaymentMethod::PrepaidBalance, "coupon-again");
    again.coupon_id = coupon.id.clone();
    again.expected_total_fen = 25_000;
    assert_eq!(
        err(&s.pay(a, again).await.unwrap_err()).code,
        ErrorCode::Conflict
    );
    let mut bank = s.pay_request(&[&other], pb::PaymentMethod::OnlineBanking, "coupon-bank");
    bank.coupon_id = coupon.id;
    let e = err(&s.pay(a, bank).await.unwrap_err());
    assert_eq!(e.fields[0].field, "couponId");
    assert_eq!(s.transfers(a, COUPON_DISCOUNT).await, 1);
    s.books_hold().await;
}

//! The enterprise rules of console spec §6 held by the service itself, over
//! the real gRPC server, for a caller that did not come through the
//! gateway: a non-B2B enterprise's token gets 9999 on every B2B-only call
//! and nothing changes, a B2B one's passes; a B2B enterprise gets 9999 on
//! the standard invoice screens; the order centre only for its list or the
//! SF group; service callers pass.

use crate::support;

use fleetdesk_kit::internal_token::enterprise_flag::{B2B, ORDER_CENTER, SF};
use fleetdesk_kit::{ErrorCode, db};
use fleetdesk_proto::finance::v1 as pb;
use support::{PERMISSIONS, Stack, Tenant, err, line, month, new_bill, stack};

/// A published code passing GB 32100.
const TAX_ID: &str = "9144030071526726XG";
/// Every permission the calls below need: the rule, not one missing, refuses.
const PERMS: [&str; 9] = [
    PERMISSIONS[0],
    PERMISSIONS[1],
    PERMISSIONS[2],
    PERMISSIONS[3],
    PERMISSIONS[4],
    PERMISSIONS[5],
    "as:invoice",
    "as:invoice:company",
    "bill:settlement",
];

/// A call of `t`'s user holding [`PERMS`], the enterprise carrying `flags`.
fn user<T>(s: &Stack, t: &Tenant, flags: &[&str], message: T) -> tonic::Request<T> {
    s.req_as(t, &PERMS, flags, message)
}

/// The refusal of an enterprise rule: 9999 with the rule's own message.
fn refused_by_rule<T: std::fmt::Debug>(answer: Result<T, tonic::Status>, message: &str) {
    let e = err(&answer.unwrap_err());
    assert_eq!(e.code, ErrorCode::Forbidden, "{e:?}");
    assert_eq!(e.code.edge_code(), 9999);
    assert_eq!(e.message, message);
}

const B2B_ONLY: &str = "该功能仅对 B2B 企业开放";
const NOT_FOR_B2B: &str = "B2B 企业请在 B2B 页面办理";
const NOT_LISTED: &str = "订单中心未对本企业开放";

/// What money and records `t` has, straight from the tables.
async fn footprint(s: &Stack, t: &Tenant) -> Vec<i64> {
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    let mut all = Vec::new();
    for query in [
        "select count(*) from ledger_transfer where enterprise_id = $1",
        "select count(*) from bill_payment where enterprise_id = $1",
        "select count(*) from invoice_application where enterprise_id = $1",
        "select count(*) from export_job where enterprise_id = $1",
        "select count(*) from enterprise_order where enterprise_id = $1",
        "select coalesce(sum(paid_fen + 7 * refunded_fen + 31 * invoiced_fen + status), 0)::bigint \
         from bill where enterprise_id = $1",
        "select coalesce(sum(status + 7 * refunded_fen), 0)::bigint from refund where enterprise_id = $1",
        "select coalesce(sum(status), 0)::bigint from enterprise_order where enterprise_id = $1",
    ] {
        all.push(
            sqlx::query_scalar(query)
                .bind(t.enterprise)
                .fetch_one(&mut *tx)
                .await
                .unwrap(),
        );
    }
    all
}

async fn bill_of(s: &Stack, t: &Tenant, source: &str, channel: pb::Channel, fen: i64) -> pb::Bill {
    let mut req = new_bill(
        t,
        t.east,
        pb::BillKind::Charging,
        month(2026, 11),
        source,
        vec![line("充电费", "粤B20001", fen)],
    );
    req.channel = channel as i32;
    s.create_bill(req).await.unwrap()
}

fn pay(bill: &pb::Bill, key: &str) -> pb::PayBillRequest {
    pb::PayBillRequest {
        bill_ids: vec![bill.id.clone()],
        amount_fen: 0,
        expected_total_fen: bill.outstanding_fen,
        method: pb::PaymentMethod::PrepaidBalance as i32,
        idempotency_key: key.to_owned(),
        ..Default::default()
    }
}

fn invoice(
    channel: pb::Channel,
    title_id: &str,
    bill: &pb::Bill,
    key: &str,
) -> pb::ApplyInvoiceRequest {
    pb::ApplyInvoiceRequest {
        channel: channel as i32,
        invoice_type: pb::InvoiceType::DigitalGeneral as i32,
        title_id: title_id.to_owned(),
        bills: vec![pb::InvoiceBillAmount {
            bill_id: bill.id.clone(),
            amount_fen: 0,
        }],
        idempotency_key: key.to_owned(),
        ..Default::default()
    }
}

fn refund(bill: &pb::Bill, fen: i64, key: &str) -> pb::CreateRefundRequest {
    pb::CreateRefundRequest {
        channel: pb::Channel::Unspecified as i32,
        bill_id: bill.id.clone(),
        reason: pb::RefundReason::Overpayment as i32,
        reason_detail: "多付".to_owned(),
        amount_fen: fen,
        method: pb::RefundMethod::PrepaidBalance as i32,
        idempotency_key: key.to_owned(),
        ..Default::default()
    }
}

fn confirm_refund(refund: &pb::Refund, key: &str) -> pb::ConfirmRefundRequest {
    pb::ConfirmRefundRequest {
        refund_id: refund.id.clone(),
        expected_amount_fen: refund.requested_fen,
        idempotency_key: key.to_owned(),
        ..Default::default()
    }
}

/// What tenant `t` has for the checks: a paid B2B bill with a B2B refund
/// waiting, a B2B invoice application on another, a bill waiting for
/// reconciliation and one unpaid — made while the enterprise was B2B.
struct B2bBooks {
    unpaid: pb::Bill,
    pending_confirmation: pb::Bill,
    paid: pb::Bill,
    refund: pb::Refund,
    application: pb::InvoiceApplication,
    title_id: String,
}

async fn b2b_books(s: &Stack, t: &Tenant) -> B2bBooks {
    let mut c = s.client.clone();
    s.top_up(t, 100_000).await;
    let unpaid = bill_of(s, t, "unpaid", pb::Channel::B2b, 10_000).await;
    let mut pending = new_bill(
        t,
        t.east,
        pb::BillKind::Charging,
        month(2026, 11),
        "pending",
        vec![line("充电费", "粤B20002", 5_000)],
    );
    pending.channel = pb::Channel::B2b as i32;
    pending.requires_confirmation = true;
    let pending_confirmation = s.create_bill(pending).await.unwrap();
    let refunded = bill_of(s, t, "refunded", pb::Channel::B2b, 20_000).await;
    c.pay_bill(user(s, t, &[B2B], pay(&refunded, "pay-refunded")))
        .await
        .unwrap();
    let refund = c
        .create_refund(user(s, t, &[B2B], refund(&refunded, 5_000, "refund-1")))
        .await
        .unwrap()
        .into_inner()
        .refund
        .unwrap();
    assert_eq!(refund.channel, pb::Channel::B2b as i32);
    let invoiced = bill_of(s, t, "invoiced", pb::Channel::B2b, 30_000).await;
    c.pay_bill(user(s, t, &[B2B], pay(&invoiced, "pay-invoiced")))
        .await
        .unwrap();
    let title_id = title(s, t).await;
    let application = c
        .apply_invoice(user(
            s,
            t,
            &[B2B],
            invoice(pb::Channel::B2b, &title_id, &invoiced, "inv-1"),
        ))
        .await
        .unwrap()
        .into_inner()
        .application
        .unwrap();
    let paid = bill_of(s, t, "paid", pb::Channel::B2b, 15_000).await;
    c.pay_bill(user(s, t, &[B2B], pay(&paid, "pay-paid")))
        .await
        .unwrap();
    B2bBooks {
        unpaid,
        pending_confirmation,
        paid: s.bill(t, &paid.id).await,
        refund,
        application,
        title_id,
    }
}

async fn title(s: &Stack, t: &Tenant) -> String {
    s.client
        .clone()
        .create_invoice_title(s.req_as(
            t,
            &PERMS,
            &[],
            pb::CreateInvoiceTitleRequest {
                title: Some(pb::InvoiceTitleInput {
                    title_type: pb::InvoiceTitleType::Company as i32,
                    name: "深圳市腾讯计算机系统有限公司".to_owned(),
                    tax_number: TAX_ID.to_owned(),
                    is_default: true,
                    ..Default::default()
                }),
                tax_number_confirmed: false,
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .title
        .unwrap()
        .id
}

#[tokio::test]
async fn a_non_b2b_enterprise_gets_9999_on_every_b2b_only_call_and_nothing_changes() {
    let s = stack().await;
    let a = &s.a;
    let books = b2b_books(&s, a).await;
    let before = footprint(&s, a).await;
    let balance = s.balance(a).await;
    let mut c = s.client.clone();

    refused_by_rule(
        c.pay_bill(user(&s, a, &[], pay(&books.unpaid, "plain-pay")))
            .await,
        B2B_ONLY,
    );
    refused_by_rule(
        c.confirm_bills(user(
            &s,
            a,
            &[],
            pb::ConfirmBillsRequest {
                bill_ids: vec![books.pending_confirmation.id.clone()],
                accepted: true,
                expected_total_fen: 5_000,
                dispute_reason: String::new(),
            },
        ))
        .await,
        B2B_ONLY,
    );
    refused_by_rule(
        c.list_monthly_bills(user(&s, a, &[], pb::ListMonthlyBillsRequest::default()))
            .await,
        B2B_ONLY,
    );
    refused_by_rule(
        c.get_monthly_bill(user(
            &s,
            a,
            &[],
            pb::GetMonthlyBillRequest {
                monthly_bill_id: String::new(),
                month: Some(month(2026, 11)),
            },
        ))
        .await,
        B2B_ONLY,
    );
    refused_by_rule(
        c.export_monthly_bills(user(&s, a, &[], pb::ExportMonthlyBillsRequest::default()))
            .await,
        B2B_ONLY,
    );
    refused_by_rule(
        c.apply_invoice(user(
            &s,
            a,
            &[],
            invoice(pb::Channel::B2b, &books.title_id, &books.paid, "plain-inv"),
        ))
        .await,
        B2B_ONLY,
    );
    refused_by_rule(
        c.get_invoice_application(user(
            &s,
            a,
            &[],
            pb::GetInvoiceApplicationRequest {
                application_id: books.application.id.clone(),
            },
        ))
        .await,
        B2B_ONLY,
    );
    refused_by_rule(
        c.confirm_refund(user(
            &s,
            a,
            &[],
            confirm_refund(&books.refund, "plain-confirm"),
        ))
        .await,
        B2B_ONLY,
    );
    assert_eq!(footprint(&s, a).await, before);
    assert_eq!(s.balance(a).await, balance);

    // The same calls of a B2B enterprise pass.
    let paid = c
        .pay_bill(user(&s, a, &[B2B], pay(&books.unpaid, "b2b-pay")))
        .await
        .unwrap()
        .into_inner()
        .payment
        .unwrap();
    assert_eq!(paid.status, pb::PaymentStatus::Succeeded as i32);
    let confirmed = c
        .confirm_bills(user(
            &s,
            a,
            &[B2B],
            pb::ConfirmBillsRequest {
                bill_ids: vec![books.pending_confirmation.id.clone()],
                accepted: true,
                expected_total_fen: 5_000,
                dispute_reason: String::new(),
            },
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(confirmed.bills[0].status, pb::BillStatus::Unpaid as i32);
    let months = c
        .list_monthly_bills(user(&s, a, &[B2B], pb::ListMonthlyBillsRequest::default()))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(months.monthly_bills.len(), 1);
    let detail = c
        .get_monthly_bill(user(
            &s,
            a,
            &[B2B],
            pb::GetMonthlyBillRequest {
                monthly_bill_id: months.monthly_bills[0].id.clone(),
                month: None,
            },
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(detail.bills.len(), 5);
    c.export_monthly_bills(user(
        &s,
        a,
        &[B2B],
        pb::ExportMonthlyBillsRequest::default(),
    ))
    .await
    .unwrap();
    let applied = c
        .apply_invoice(user(
            &s,
            a,
            &[B2B],
            invoice(pb::Channel::B2b, &books.title_id, &books.paid, "b2b-inv"),
        ))
        .await
        .unwrap()
        .into_inner()
        .application
        .unwrap();
    assert_eq!(applied.amount_fen, 15_000);
    let seen = c
        .get_invoice_application(user(
            &s,
            a,
            &[B2B],
            pb::GetInvoiceApplicationRequest {
                application_id: books.application.id.clone(),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .application
        .unwrap();
    assert_eq!(seen.amount_fen, 30_000);
    let done = c
        .confirm_refund(user(
            &s,
            a,
            &[B2B],
            confirm_refund(&books.refund, "b2b-confirm"),
        ))
        .await
        .unwrap()
        .into_inner()
        .refund
        .unwrap();
    assert_eq!(done.status, pb::RefundStatus::Completed as i32);
    assert_eq!(s.balance(a).await, balance - 10_000 + 5_000);
}

#[tokio::test]
async fn a_b2b_enterprise_gets_9999_on_the_standard_invoice_screens_and_confirms_any_refund() {
    let s = stack().await;
    let a = &s.a;
    let mut c = s.client.clone();
    s.top_up(a, 100_000).await;
    let title_id = title(&s, a).await;
    let standard = bill_of(&s, a, "standard", pb::Channel::Standard, 40_000).await;
    c.pay_bill(user(&s, a, &[B2B], pay(&standard, "pay-standard")))
        .await
        .unwrap();
    let standard = s.bill(a, &standard.id).await;

    let before = footprint(&s, a).await;
    refused_by_rule(
        c.apply_invoice(user(
            &s,
            a,
            &[B2B],
            invoice(pb::Channel::Standard, &title_id, &standard, "b2b-standard"),
        ))
        .await,
        NOT_FOR_B2B,
    );
    // An unset channel is the standard one.
    refused_by_rule(
        c.apply_invoice(user(
            &s,
            a,
            &[B2B],
            invoice(pb::Channel::Unspecified, &title_id, &standard, "b2b-unset"),
        ))
        .await,
        NOT_FOR_B2B,
    );
    assert_eq!(footprint(&s, a).await, before);

    // A standard application (made before the enterprise turned B2B) is
    // for the standard screens only.
    let application = c
        .apply_invoice(user(
            &s,
            a,
            &[],
            invoice(
                pb::Channel::Standard,
                &title_id,
                &standard,
                "plain-standard",
            ),
        ))
        .await
        .unwrap()
        .into_inner()
        .application
        .unwrap();
    let get = pb::GetInvoiceApplicationRequest {
        application_id: application.id.clone(),
    };
    refused_by_rule(
        c.get_invoice_application(user(&s, a, &[B2B], get.clone()))
            .await,
        NOT_FOR_B2B,
    );
    c.get_invoice_application(user(&s, a, &[], get))
        .await
        .unwrap();

    // A standard refund is confirmed on either screen: the channel is the
    // bill's, and a B2B enterprise's standard bills are refunded on its own.
    let mut refunds = Vec::new();
    for (i, flags) in [&[B2B][..], &[]].into_iter().enumerate() {
        let r = c
            .create_refund(user(
                &s,
                a,
                &[B2B],
                refund(&standard, 1_000, &format!("r-{i}")),
            ))
            .await
            .unwrap()
            .into_inner()
            .refund
            .unwrap();
        assert_eq!(r.channel, pb::Channel::Standard as i32);
        let done = c
            .confirm_refund(s.req_as(a, &PERMS, flags, confirm_refund(&r, &format!("c-{i}"))))
            .await
            .unwrap()
            .into_inner()
            .refund
            .unwrap();
        refunds.push(done.status);
    }
    assert_eq!(refunds, vec![pb::RefundStatus::Completed as i32; 2]);
    assert_eq!(s.bill(a, &standard.id).await.refunded_fen, 2_000);

    // The screens' channel, not the bill's: a B2B enterprise invoices and
    // refunds its standard-settled bills on the B2B screens, and only a B2B
    // enterprise may ask on them.
    let standard = bill_of(&s, a, "standard-2", pb::Channel::Standard, 10_000).await;
    c.pay_bill(user(&s, a, &[B2B], pay(&standard, "pay-standard-2")))
        .await
        .unwrap();
    let standard = s.bill(a, &standard.id).await;
    let on_b2b = c
        .apply_invoice(user(
            &s,
            a,
            &[B2B],
            invoice(pb::Channel::B2b, &title_id, &standard, "b2b-on-standard"),
        ))
        .await
        .unwrap()
        .into_inner()
        .application
        .unwrap();
    assert_eq!(on_b2b.channel, pb::Channel::B2b as i32);
    let mut b2b_refund = refund(&standard, 500, "r-b2b");
    b2b_refund.channel = pb::Channel::B2b as i32;
    let before = footprint(&s, a).await;
    refused_by_rule(
        c.create_refund(user(&s, a, &[], b2b_refund.clone())).await,
        B2B_ONLY,
    );
    assert_eq!(footprint(&s, a).await, before);
    let r = c
        .create_refund(user(&s, a, &[B2B], b2b_refund))
        .await
        .unwrap()
        .into_inner()
        .refund
        .unwrap();
    assert_eq!(r.channel, pb::Channel::B2b as i32);
}

fn order(t: &Tenant, key: &str) -> pb::CreateOrderRequest {
    pb::CreateOrderRequest {
        enterprise_id: t.enterprise.to_string(),
        org_id: t.shanghai.to_string(),
        kind: pb::OrderKind::ValueAddedService as i32,
        title: format!("视频服务 {key}"),
        items: vec![pb::OrderItem {
            name: "视频流量包".into(),
            sku: "VID-10G".into(),
            quantity: 2,
            unit_price_fen: 5_000,
            amount_fen: 10_000,
            vehicle_id: String::new(),
            plate_number: "粤B10001".into(),
        }],
        ..Default::default()
    }
}

/// [`user`]'s call under idempotency key `key`.
fn keyed<T>(s: &Stack, t: &Tenant, flags: &[&str], key: &str, message: T) -> tonic::Request<T> {
    let mut req = user(s, t, flags, message);
    req.metadata_mut().insert(
        fleetdesk_kit::idempotency::METADATA_KEY,
        key.parse().unwrap(),
    );
    req
}

#[tokio::test]
async fn the_order_centre_is_for_its_list_or_the_sf_group_and_services_pass() {
    let s = stack().await;
    let a = &s.a;
    let mut c = s.client.clone();
    // A service places one for the enterprise whatever its lists.
    let placed = c
        .create_order(s.service(order(a, "by-service")))
        .await
        .unwrap()
        .into_inner()
        .order
        .unwrap();
    let mut user_order = order(a, "by-user");
    user_order.enterprise_id = String::new();

    let before = footprint(&s, a).await;
    for flags in [&[][..], &[B2B]] {
        refused_by_rule(
            c.create_order(keyed(&s, a, flags, "o-1", user_order.clone()))
                .await,
            NOT_LISTED,
        );
        refused_by_rule(
            c.list_orders(keyed(&s, a, flags, "l", pb::ListOrdersRequest::default()))
                .await,
            NOT_LISTED,
        );
        refused_by_rule(
            c.get_order(keyed(
                &s,
                a,
                flags,
                "g",
                pb::GetOrderRequest {
                    order_id: placed.id.clone(),
                },
            ))
            .await,
            NOT_LISTED,
        );
        refused_by_rule(
            c.cancel_order(keyed(
                &s,
                a,
                flags,
                "c",
                pb::CancelOrderRequest {
                    order_id: placed.id.clone(),
                    reason: "不要了".into(),
                },
            ))
            .await,
            NOT_LISTED,
        );
        refused_by_rule(
            c.export_orders(keyed(&s, a, flags, "e", pb::ExportOrdersRequest::default()))
                .await,
            NOT_LISTED,
        );
    }
    assert_eq!(footprint(&s, a).await, before);

    // On the list, or of the SF group: the order centre opens.
    let mine = c
        .create_order(keyed(&s, a, &[ORDER_CENTER], "o-1", user_order))
        .await
        .unwrap()
        .into_inner()
        .order
        .unwrap();
    let listed = c
        .list_orders(keyed(&s, a, &[SF], "l", pb::ListOrdersRequest::default()))
        .await
        .unwrap()
        .into_inner();
    let mut ids: Vec<String> = listed.orders.into_iter().map(|o| o.id).collect();
    ids.sort();
    let mut expected = vec![placed.id.clone(), mine.id.clone()];
    expected.sort();
    assert_eq!(ids, expected);
    let cancelled = c
        .cancel_order(keyed(
            &s,
            a,
            &[SF, B2B],
            "c",
            pb::CancelOrderRequest {
                order_id: placed.id.clone(),
                reason: "不要了".into(),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .order
        .unwrap();
    assert_eq!(cancelled.status, pb::OrderStatus::Cancelled as i32);
}

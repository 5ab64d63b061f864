//! Every finance list's export through the real gRPC server and the export
//! worker, read back from the workbook in the object store: its header,
//! as many rows as the list's total under the same filter, a money cell in
//! yuan, the requester's reach, and nothing of another tenant.

use crate::support;

use chrono::{Duration, Utc};
use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::internal_token::{Claims, enterprise_flag};
use fleetdesk_kit::reach::ReachClaim;
use fleetdesk_kit::{ErrorCode, db, grpc};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::finance::v1 as pb;
use prost::Message;
use support::{Stack, Tenant, err, line, month, new_bill, stack};
use uuid::Uuid;

/// The permissions of every finance list page.
const PERMISSIONS: [&str; 7] = [
    "as:order:center",
    "bill:settlement",
    "bill:biz:pageInfo",
    "oss:bill:reconciliation",
    "as:invoice",
    "as:refund",
    "as:coupon:pageInfo",
];

fn everything() -> ReachClaim {
    ReachClaim {
        all: true,
        ..ReachClaim::default()
    }
}

/// A user call of `t` holding `permissions`, reaching `reach`, its
/// enterprise B2B and on the order-centre list (every list open to it).
fn user<T>(
    s: &Stack,
    t: &Tenant,
    permissions: &[&str],
    reach: ReachClaim,
    message: T,
) -> tonic::Request<T> {
    let claims = Claims {
        iss: "gateway".into(),
        sub: format!("user:{}", t.user),
        ent: Some(t.enterprise.to_string()),
        acc: None,
        perms: permissions.iter().map(|p| (*p).to_owned()).collect(),
        reach: Some(reach),
        flags: vec![
            enterprise_flag::B2B.into(),
            enterprise_flag::ORDER_CENTER.into(),
        ],
        iat: 0,
        exp: 0,
    };
    grpc::outgoing(message, &s.signer, &claims)
}

/// A user call of `t` with every list permission and the whole enterprise.
fn req<T>(s: &Stack, t: &Tenant, message: T) -> tonic::Request<T> {
    user(s, t, &PERMISSIONS, everything(), message)
}

fn page() -> Option<common::PageRequest> {
    Some(common::PageRequest { page: 1, size: 100 })
}

/// The workbook's header row is `header`, and it has `total` rows below it.
fn assert_shape(rows: &[Vec<String>], header: &[&str], total: i64) {
    assert_eq!(rows[0], header);
    assert_eq!(rows.len() as i64 - 1, total, "{rows:?}");
}

/// The row whose first cell is `key`.
fn row<'a>(rows: &'a [Vec<String>], key: &str) -> &'a [String] {
    rows.iter()
        .find(|r| r[0] == key)
        .unwrap_or_else(|| panic!("no row {key} in {rows:?}"))
}

fn firsts(rows: &[Vec<String>]) -> Vec<String> {
    rows[1..].iter().map(|r| r[0].clone()).collect()
}

/// Runs `query` as the owner (rows written as their subjects write them).
async fn exec(
    s: &Stack,
    query: sqlx::query::Query<'_, sqlx_postgres::Postgres, sqlx_postgres::PgArguments>,
) {
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    query.execute(&mut *tx).await.unwrap();
    tx.commit().await.unwrap();
}

/// A bill of `t` (org east, 2026-11) for `amount_fen`: its id and number.
async fn bill(s: &Stack, t: &Tenant, source: &str, amount_fen: i64) -> (Uuid, String) {
    let bill = s
        .create_bill(new_bill(
            t,
            t.east,
            pb::BillKind::Rent,
            month(2026, 11),
            source,
            vec![line("11 月租金", "沪A12345", amount_fen)],
        ))
        .await
        .unwrap();
    (Uuid::parse_str(&bill.id).unwrap(), bill.bill_no)
}

// --- Orders ---------------------------------------------------------------

fn order(t: &Tenant, org: Uuid, kind: pb::OrderKind, source_id: &str) -> pb::CreateOrderRequest {
    let item = |name: &str, quantity: i32, unit_price_fen: i64| pb::OrderItem {
        name: name.into(),
        sku: "SKU-1".into(),
        quantity,
        unit_price_fen,
        amount_fen: i64::from(quantity) * unit_price_fen,
        vehicle_id: String::new(),
        plate_number: "沪A12345".into(),
    };
    pb::CreateOrderRequest {
        enterprise_id: t.enterprise.to_string(),
        org_id: org.to_string(),
        kind: kind as i32,
        title: "视频服务".into(),
        items: vec![item("视频流量包", 3, 5_000), item("安装服务", 1, 20_012)],
        coupon_id: String::new(),
        contract_no: "HT-2026-001".into(),
        source_service: "vehicle".into(),
        source_id: source_id.into(),
        payment_deadline: None,
        remark: String::new(),
    }
}

async fn place(s: &Stack, t: &Tenant, org: Uuid, kind: pb::OrderKind, source: &str) -> pb::Order {
    s.client
        .clone()
        .create_order(s.service(order(t, org, kind, source)))
        .await
        .unwrap()
        .into_inner()
        .order
        .unwrap()
}

#[tokio::test]
async fn the_order_export_is_the_lists_filter_under_the_requesters_reach() {
    let s = stack().await;
    let a = &s.a;
    let east = place(&s, a, a.east, pb::OrderKind::ValueAddedService, "o-1").await;
    let south = place(&s, a, a.south, pb::OrderKind::ValueAddedService, "o-2").await;
    let other_kind = place(&s, a, a.east, pb::OrderKind::Insurance, "o-3").await;
    let theirs = place(&s, &s.b, s.b.east, pb::OrderKind::ValueAddedService, "o-1").await;
    let filter = pb::ListOrdersRequest {
        kinds: vec![pb::OrderKind::ValueAddedService as i32],
        ..Default::default()
    };
    let export = |reach: ReachClaim| {
        let request = user(
            &s,
            a,
            &PERMISSIONS,
            reach,
            pb::ExportOrdersRequest {
                filter: Some(filter.clone()),
            },
        );
        let mut client = s.client.clone();
        async move {
            let answer = client.export_orders(request).await.unwrap().into_inner();
            answer.job.unwrap().id
        }
    };
    let total = s
        .client
        .clone()
        .list_orders(req(
            &s,
            a,
            pb::ListOrdersRequest {
                page: page(),
                ..filter.clone()
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .page
        .unwrap()
        .total;
    assert_eq!(total, 2);
    let rows = s.exported_rows(&export(everything()).await).await;
    assert_shape(&rows, &fleetdesk_finance::orders::export::HEADER, total);
    let exported = firsts(&rows);
    assert!(exported.contains(&south.order_no));
    assert!(!exported.contains(&other_kind.order_no));
    assert!(!exported.contains(&theirs.order_no));
    let r = row(&rows, &east.order_no);
    assert_eq!(r[2], "增值服务");
    assert_eq!(r[3], "华东");
    assert_eq!(r[4], "待支付");
    // 3 × 50.00 + 200.12
    assert_eq!(r[5], "350.12");

    // Reaching the east subtree only: its order alone.
    let rows = s
        .exported_rows(
            &export(ReachClaim {
                subtrees: vec![a.east],
                ..ReachClaim::default()
            })
            .await,
        )
        .await;
    assert_eq!(firsts(&rows), vec![east.order_no]);

    // Without the order centre's permission the export is refused.
    let refused = s
        .client
        .clone()
        .export_orders(user(
            &s,
            a,
            &["as:refund"],
            everything(),
            pb::ExportOrdersRequest { filter: None },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&refused).code, ErrorCode::Forbidden);
}

// --- Payments -------------------------------------------------------------

/// A payment of `t` written as payments record one, paying `bill`.
async fn payment(
    s: &Stack,
    t: &Tenant,
    org: Uuid,
    no: &str,
    (method, status): (i16, i16),
    amount_fen: i64,
    bill: Option<&(Uuid, String)>,
) {
    let id = Uuid::new_v4();
    exec(
        s,
        sqlx::query(
            "insert into bill_payment (id, enterprise_id, org_id, payment_no, method, status, \
         amount_fen, payer_name, payer_bank_name, payer_masked_account, bank_order_id, \
         requested_by_name, paid_time) \
         values ($1, $2, $3, $4, $5, $6, $7, '上海某物流有限公司', '招商银行', '6225 **** **** 1234', \
         'BK-1', '张三', case when $6 = 2 then now() end)",
        )
        .bind(id)
                .bind(t.enterprise)
                .bind(org)
                .bind(no)
                .bind(method)
                .bind(status)
                .bind(amount_fen),
    )
    .await;
    if let Some((bill_id, bill_no)) = bill {
        exec(
            s,
            sqlx::query(
                "insert into bill_payment_allocation (payment_id, enterprise_id, bill_id, bill_no, amount_fen) \
             values ($1, $2, $3, $4, $5)",
            )
            .bind(id)
                    .bind(t.enterprise)
                    .bind(*bill_id)
                    .bind(bill_no.clone())
                    .bind(amount_fen),
        )
        .await;
    }
}

#[tokio::test]
async fn the_payment_export_is_the_lists_filter_with_the_account_masked() {
    let s = stack().await;
    let a = &s.a;
    let paid = bill(&s, a, "b-1", 123_456).await;
    const BALANCE: i16 = 5;
    const BANK: i16 = 2;
    const SUCCEEDED: i16 = 2;
    const FAILED: i16 = 3;
    payment(
        &s,
        a,
        a.east,
        "ZF-A1",
        (BALANCE, SUCCEEDED),
        123_456,
        Some(&paid),
    )
    .await;
    payment(&s, a, a.south, "ZF-A2", (BANK, SUCCEEDED), 5, None).await;
    payment(&s, a, a.east, "ZF-A3", (BANK, FAILED), 700, None).await;
    payment(&s, &s.b, s.b.east, "ZF-B1", (BALANCE, SUCCEEDED), 900, None).await;
    let filter = pb::ListBillPaymentsRequest {
        statuses: vec![pb::PaymentStatus::Succeeded as i32],
        ..Default::default()
    };
    let total = s
        .client
        .clone()
        .list_bill_payments(req(
            &s,
            a,
            pb::ListBillPaymentsRequest {
                page: page(),
                ..filter.clone()
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .page
        .unwrap()
        .total;
    assert_eq!(total, 2);
    let job = s
        .client
        .clone()
        .export_bill_payments(req(
            &s,
            a,
            pb::ExportBillPaymentsRequest {
                filter: Some(filter),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .job
        .unwrap();
    let rows = s.exported_rows(&job.id).await;
    assert_shape(&rows, &fleetdesk_finance::payments::export::HEADER, total);
    let exported = firsts(&rows);
    assert!(!exported.contains(&"ZF-A3".to_owned()));
    assert!(!exported.contains(&"ZF-B1".to_owned()));
    let r = row(&rows, "ZF-A1");
    assert_eq!(r[1], "余额支付");
    assert_eq!(r[2], "成功");
    assert_eq!(r[3], "1234.56");
    assert_eq!(r[5], paid.1);
    assert_eq!(r[8], "6225 **** **** 1234");
    assert_eq!(row(&rows, "ZF-A2")[3], "0.05");
}

// --- Monthly bills --------------------------------------------------------

#[tokio::test]
async fn the_monthly_export_adds_up_the_months_the_list_shows() {
    let s = stack().await;
    let a = &s.a;
    for (t, period, source, fen) in [
        (a, month(2026, 10), "m-1", 100_000),
        (a, month(2026, 10), "m-2", 50_050),
        (a, month(2026, 11), "m-3", 20_000),
        (&s.b, month(2026, 8), "m-1", 70_000),
    ] {
        s.create_bill(new_bill(
            t,
            t.east,
            pb::BillKind::Rent,
            period,
            source,
            vec![line("租金", "沪A12345", fen)],
        ))
        .await
        .unwrap();
    }
    let filter = pb::ListMonthlyBillsRequest::default();
    let total = s
        .client
        .clone()
        .list_monthly_bills(req(
            &s,
            a,
            pb::ListMonthlyBillsRequest {
                page: page(),
                ..filter.clone()
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .page
        .unwrap()
        .total;
    assert_eq!(total, 2);
    let job = s
        .client
        .clone()
        .export_monthly_bills(req(
            &s,
            a,
            pb::ExportMonthlyBillsRequest {
                filter: Some(filter),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .job
        .unwrap();
    let rows = s.exported_rows(&job.id).await;
    assert_shape(&rows, &fleetdesk_finance::monthly::export::HEADER, total);
    // Latest month first; B's August is not A's.
    assert_eq!(firsts(&rows), vec!["2026-11", "2026-10"]);
    let october = row(&rows, "2026-10");
    assert_eq!(october[1], "2");
    assert_eq!(october[2], "1500.50");
    assert_eq!(october[5], "待支付");

    // A range starting after it ends is refused, as the list refuses it.
    let refused = s
        .client
        .clone()
        .export_monthly_bills(req(
            &s,
            a,
            pb::ExportMonthlyBillsRequest {
                filter: Some(pb::ListMonthlyBillsRequest {
                    start_month: Some(month(2026, 11)),
                    end_month: Some(month(2026, 10)),
                    ..Default::default()
                }),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&refused).code, ErrorCode::BadRequest);
}

// --- Invoice applications -------------------------------------------------

/// An application of `t` for `amount_fen` naming buyer `buyer`, issued as
/// `invoice_number` when given.
async fn application(
    s: &Stack,
    t: &Tenant,
    no: &str,
    status: i16,
    amount_fen: i64,
    buyer: &str,
    invoice_number: Option<&str>,
) {
    let id = Uuid::new_v4();
    let title = pb::InvoiceTitle {
        name: buyer.into(),
        tax_number: "9144030071526726XG".into(),
        ..Default::default()
    }
    .encode_to_vec();
    exec(
        s,
        sqlx::query(
            "insert into invoice_application (id, enterprise_id, application_no, channel, \
         invoice_type, status, title, amount_fen, content, applicant_name) \
         values ($1, $2, $3, 1, 2, $4, $5, $6, '*经营租赁*车辆租金', '李四')",
        )
        .bind(id)
        .bind(t.enterprise)
        .bind(no)
        .bind(status)
        .bind(title)
        .bind(amount_fen),
    )
    .await;
    if let Some(number) = invoice_number {
        exec(
            s,
            sqlx::query(
                "insert into issued_invoice (application_id, enterprise_id, invoice_number, request_no, \
             amount_fen, tax_fen, total_fen, tax_rate_bp, issue_time) \
             values ($1, $2, $3, 'RQ-1', $4, 0, $4, 0, now())",
            )
            .bind(id)
            .bind(t.enterprise)
            .bind(number)
            .bind(amount_fen),
        )
        .await;
    }
}

#[tokio::test]
async fn the_invoice_history_export_names_the_buyer_and_the_invoice() {
    let s = stack().await;
    let a = &s.a;
    const ISSUING: i16 = 2;
    const ISSUED: i16 = 3;
    const CANCELLED: i16 = 6;
    let number = "26442000000012345678";
    application(
        &s,
        a,
        "FP-A1",
        ISSUED,
        88_800,
        "上海某物流有限公司",
        Some(number),
    )
    .await;
    application(&s, a, "FP-A2", ISSUING, 100, "上海某物流有限公司", None).await;
    application(&s, a, "FP-A3", CANCELLED, 100, "上海某物流有限公司", None).await;
    application(&s, &s.b, "FP-B1", ISSUED, 100, "别家公司", None).await;
    let filter = pb::ListInvoiceApplicationsRequest {
        statuses: vec![
            pb::InvoiceApplicationStatus::Issued as i32,
            pb::InvoiceApplicationStatus::Issuing as i32,
        ],
        ..Default::default()
    };
    let total = s
        .client
        .clone()
        .list_invoice_applications(req(
            &s,
            a,
            pb::ListInvoiceApplicationsRequest {
                page: page(),
                ..filter.clone()
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .page
        .unwrap()
        .total;
    assert_eq!(total, 2);
    let job = s
        .client
        .clone()
        .export_invoice_applications(req(
            &s,
            a,
            pb::ExportInvoiceApplicationsRequest {
                filter: Some(filter),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .job
        .unwrap();
    let rows = s.exported_rows(&job.id).await;
    assert_shape(&rows, &fleetdesk_finance::invoices::export::HEADER, total);
    let exported = firsts(&rows);
    assert!(!exported.contains(&"FP-A3".to_owned()));
    assert!(!exported.contains(&"FP-B1".to_owned()));
    let issued = row(&rows, "FP-A1");
    assert_eq!(issued[1], "数电普票");
    assert_eq!(issued[2], "上海某物流有限公司");
    assert_eq!(issued[4], "888.00");
    assert_eq!(issued[6], "已开票");
    assert_eq!(issued[7], number);
    assert_eq!(issued[12], "否");
    let issuing = row(&rows, "FP-A2");
    assert_eq!(issuing[4], "1.00");
    assert_eq!(issuing[7], "");
}

// --- Refunds --------------------------------------------------------------

async fn refund(s: &Stack, t: &Tenant, org: Uuid, bill: &(Uuid, String), no: &str, fen: i64) {
    exec(
        s,
        // No applicant id: the reach alone decides (not "own rows").
        sqlx::query(
            "insert into refund (id, enterprise_id, org_id, refund_no, channel, bill_id, bill_no, \
             reason, requested_fen, approved_fen, refunded_fen, method, payee_name, \
             payee_masked_account, status, applicant_name, complete_time) \
             values ($1, $2, $3, $4, 1, $5, $6, 1, $7, $7, $7, 2, '上海某物流有限公司', \
             '6225 **** **** 9876', 4, '王五', now())",
        )
        .bind(Uuid::new_v4())
        .bind(t.enterprise)
        .bind(org)
        .bind(no)
        .bind(bill.0)
        .bind(bill.1.clone())
        .bind(fen),
    )
    .await;
}

#[tokio::test]
async fn the_refund_export_is_the_records_of_the_channel_under_the_reach() {
    let s = stack().await;
    let a = &s.a;
    let paid = bill(&s, a, "b-1", 100_000).await;
    let theirs = bill(&s, &s.b, "b-1", 100_000).await;
    refund(&s, a, a.east, &paid, "TK-A1", 30_001).await;
    refund(&s, a, a.south, &paid, "TK-A2", 100).await;
    refund(&s, &s.b, s.b.east, &theirs, "TK-B1", 100).await;
    let filter = pb::ListRefundsRequest {
        channel: pb::Channel::Standard as i32,
        ..Default::default()
    };
    let east_only = ReachClaim {
        subtrees: vec![a.east],
        ..ReachClaim::default()
    };
    let total = s
        .client
        .clone()
        .list_refunds(user(
            &s,
            a,
            &PERMISSIONS,
            east_only.clone(),
            pb::ListRefundsRequest {
                page: page(),
                ..filter.clone()
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .page
        .unwrap()
        .total;
    assert_eq!(total, 1);
    let job = s
        .client
        .clone()
        .export_refunds(user(
            &s,
            a,
            &PERMISSIONS,
            east_only,
            pb::ExportRefundsRequest {
                filter: Some(filter),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .job
        .unwrap();
    let rows = s.exported_rows(&job.id).await;
    assert_shape(&rows, &fleetdesk_finance::refunds::export::HEADER, total);
    let r = row(&rows, "TK-A1");
    assert_eq!(r[1], paid.1);
    assert_eq!(r[2], "多付退款");
    assert_eq!(r[6], "300.01");
    assert_eq!(r[7], "银行转账");
    assert_eq!(r[10], "6225 **** **** 9876");
    assert_eq!(r[11], "已退款");
}

// --- Coupons --------------------------------------------------------------

fn coupon(no: &str, kind: pb::CouponKind, until: chrono::DateTime<Utc>) -> pb::CouponGrant {
    pb::CouponGrant {
        coupon_no: no.into(),
        name: format!("优惠券 {no}"),
        kind: kind as i32,
        face_value_fen: if kind == pb::CouponKind::AmountOff {
            5_050
        } else {
            0
        },
        percent_off_bp: if kind == pb::CouponKind::PercentOff {
            1_000
        } else {
            0
        },
        max_discount_fen: 0,
        min_spend_fen: 10_000,
        applicable_bill_kinds: vec![pb::BillKind::Rent as i32],
        applicable_order_kinds: Vec::new(),
        valid_from: Some(timestamp(Utc::now() - Duration::days(2))),
        valid_until: Some(timestamp(until)),
    }
}

#[tokio::test]
async fn the_coupon_export_judges_expiry_and_shows_only_the_enterprises_coupons() {
    let s = stack().await;
    let a = &s.a;
    let later = Utc::now() + Duration::days(30);
    let grant = |t: &Tenant, coupons: Vec<pb::CouponGrant>| {
        let request = s.service(pb::GrantCouponsRequest {
            enterprise_id: t.enterprise.to_string(),
            campaign: "2026-双十二".into(),
            coupons,
        });
        let mut client = s.client.clone();
        async move { client.grant_coupons(request).await.unwrap() }
    };
    grant(
        a,
        vec![
            coupon("Q-A1", pb::CouponKind::AmountOff, later),
            coupon("Q-A2", pb::CouponKind::PercentOff, later),
            coupon(
                "Q-A3",
                pb::CouponKind::AmountOff,
                Utc::now() - Duration::days(1),
            ),
        ],
    )
    .await;
    grant(&s.b, vec![coupon("Q-B1", pb::CouponKind::AmountOff, later)]).await;
    let filter = pb::ListCouponsRequest {
        statuses: vec![
            pb::CouponStatus::Available as i32,
            pb::CouponStatus::Expired as i32,
        ],
        ..Default::default()
    };
    let total = s
        .client
        .clone()
        .list_coupons(req(
            &s,
            a,
            pb::ListCouponsRequest {
                page: page(),
                ..filter.clone()
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .page
        .unwrap()
        .total;
    assert_eq!(total, 3);
    let job = s
        .client
        .clone()
        .export_coupons(req(
            &s,
            a,
            pb::ExportCouponsRequest {
                filter: Some(filter),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .job
        .unwrap();
    let rows = s.exported_rows(&job.id).await;
    assert_shape(&rows, &fleetdesk_finance::coupons::export::HEADER, total);
    assert!(!firsts(&rows).contains(&"Q-B1".to_owned()));
    let amount = row(&rows, "Q-A1");
    assert_eq!(amount[2], "满减券");
    assert_eq!(amount[3], "50.50");
    assert_eq!(amount[6], "100.00");
    assert_eq!(amount[7], "租金");
    assert_eq!(amount[10], "可使用");
    assert_eq!(row(&rows, "Q-A2")[4], "减10%");
    assert_eq!(row(&rows, "Q-A3")[10], "已过期");

    // The pay page's filter is not the coupon page's list: refused.
    let refused = s
        .client
        .clone()
        .export_coupons(req(
            &s,
            a,
            pb::ExportCouponsRequest {
                filter: Some(pb::ListCouponsRequest {
                    usable_for_order_kind: pb::OrderKind::Insurance as i32,
                    ..Default::default()
                }),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&refused).code, ErrorCode::BadRequest);
}

//! Bills over the real gRPC server: raising once per source, lines that add
//! up (the domain and the database's commit check), the list's filters,
//! reach and totals, another tenant's bill, B2B reconciliation, the
//! export's rows, and monthly bills and the dashboard on a known set.

use crate::support;

use chrono::{Duration, Utc};
use fleetdesk_finance::calendar::Month;
use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::reach::ReachClaim;
use fleetdesk_kit::{ErrorCode, db};
use fleetdesk_proto::finance::v1 as pb;
use support::{Stack, err, line, month, new_bill, stack};
use uuid::Uuid;

fn this_month() -> fleetdesk_proto::common::v1::YearMonth {
    Month::of(Utc::now()).to_pb()
}

/// Marks `fen` of bill `id` paid, as payments will (they are not built yet).
async fn pay(s: &Stack, id: &str, fen: i64) {
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query(
        "update bill set paid_fen = paid_fen + $2, paid_time = now(), \
         status = case when paid_fen + $2 >= payable_fen then 4 else 3 end where id = $1",
    )
    .bind(Uuid::parse_str(id).unwrap())
    .bind(fen)
    .execute(&mut *tx)
    .await
    .unwrap();
    tx.commit().await.unwrap();
}

#[tokio::test]
async fn a_bill_is_raised_once_per_source_and_its_lines_add_up() {
    let s = stack().await;
    let a = &s.a;
    let req = new_bill(
        a,
        a.shanghai,
        pb::BillKind::Rent,
        month(2026, 10),
        "usage-1",
        vec![
            line("10月租金", "粤B10001", 300_000),
            line("保险分摊", "粤B10001", 20_000),
        ],
    );
    let first = s.create_bill(req.clone()).await.unwrap();
    assert_eq!(first.amount_fen, 320_000);
    assert_eq!(first.payable_fen, 320_000);
    assert_eq!(first.outstanding_fen, 320_000);
    assert_eq!(first.status, pb::BillStatus::Unpaid as i32);
    assert_eq!(first.lines.len(), 2);
    assert_eq!(first.org_name, "上海");
    assert!(first.bill_no.starts_with("ZD202610-"), "{}", first.bill_no);

    // The same source again: the first bill, nothing new.
    let again = s.create_bill(req.clone()).await.unwrap();
    assert_eq!(again.id, first.id);
    assert_eq!(s.bills_of_source(a, "vehicle", "usage-1").await, 1);

    // Racing raises of one new source meet on its key: one bill, every
    // answer naming it.
    let racing = new_bill(
        a,
        a.south,
        pb::BillKind::Rent,
        month(2026, 10),
        "usage-2",
        vec![line("10月租金", "粤B10009", 300_000)],
    );
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..10 {
        let (mut c, req) = (s.client.clone(), s.service(racing.clone()));
        tasks.spawn(async move {
            c.create_bill(req)
                .await
                .unwrap()
                .into_inner()
                .bill
                .unwrap()
                .id
        });
    }
    let mut ids = Vec::new();
    while let Some(id) = tasks.join_next().await {
        ids.push(id.unwrap());
    }
    ids.dedup();
    assert_eq!(ids.len(), 1, "{ids:?}");
    assert_eq!(s.bills_of_source(a, "vehicle", "usage-2").await, 1);

    // Another enterprise's bill of the same source id is its own.
    let mut theirs = req.clone();
    theirs.enterprise_id = s.b.enterprise.to_string();
    theirs.org_id = s.b.root.to_string();
    assert_ne!(s.create_bill(theirs).await.unwrap().id, first.id);

    // The same source with another amount is refused.
    let mut other = req.clone();
    other.lines[0].amount_fen = 310_000;
    other.lines[0].unit_price_fen = 310_000;
    let e = err(&s.create_bill(other).await.unwrap_err());
    assert_eq!(e.code, ErrorCode::Conflict);
    assert_eq!(e.fields[0].field, "sourceId");

    // A line that is not its quantity times its price is refused.
    let mut wrong = new_bill(
        a,
        a.root,
        pb::BillKind::Other,
        month(2026, 10),
        "x-2",
        vec![line("杂费", "", 100)],
    );
    wrong.lines[0].quantity = 2;
    let e = err(&s.create_bill(wrong).await.unwrap_err());
    assert_eq!(e.fields[0].field, "lines[0].amountFen");

    // Users do not raise bills.
    let e = err(&s
        .client
        .clone()
        .create_bill(s.req(a, req))
        .await
        .unwrap_err());
    assert_eq!(e.code, ErrorCode::Forbidden);

    // The database refuses, at commit, lines that do not add up to the amount.
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query(
        "insert into bill_line (bill_id, enterprise_id, line_no, description, amount_fen, source_kind) \
         values ($1, $2, 3, '多出的一行', 1, 5)",
    )
    .bind(Uuid::parse_str(&first.id).unwrap())
    .bind(a.enterprise)
    .execute(&mut *tx)
    .await
    .unwrap();
    let refused = tx.commit().await.unwrap_err();
    assert!(refused.to_string().contains("lines sum"), "{refused}");
}

/// A known set for tenant A (and one bill of B): (shanghai rent, overdue),
/// (south charging), (root repair, pending confirmation), (east rent, paid).
async fn known_set(s: &Stack) -> [pb::Bill; 4] {
    let a = &s.a;
    let mut overdue = new_bill(
        a,
        a.shanghai,
        pb::BillKind::Rent,
        month(2026, 9),
        "rent-9",
        vec![line("9月租金", "粤B10001", 100_000)],
    );
    overdue.due_time = Some(timestamp(Utc::now() - Duration::days(3)));
    let overdue = s.create_bill(overdue).await.unwrap();
    let charging = s
        .create_bill(new_bill(
            a,
            a.south,
            pb::BillKind::Charging,
            month(2026, 10),
            "cs-10",
            vec![line("10月充电", "", 50_000)],
        ))
        .await
        .unwrap();
    let mut pending = new_bill(
        a,
        a.root,
        pb::BillKind::Repair,
        month(2026, 10),
        "rb-10",
        vec![
            line("维修", "粤B10002", 30_000),
            line("配件", "粤B10002", 12_000),
        ],
    );
    pending.requires_confirmation = true;
    pending.channel = pb::Channel::B2b as i32;
    let pending = s.create_bill(pending).await.unwrap();
    let paid = s
        .create_bill(new_bill(
            a,
            a.east,
            pb::BillKind::Rent,
            month(2026, 10),
            "rent-10",
            vec![line("10月租金", "粤B10003", 80_000)],
        ))
        .await
        .unwrap();
    pay(s, &paid.id, 80_000).await;
    s.create_bill(new_bill(
        &s.b,
        s.b.root,
        pb::BillKind::Rent,
        month(2026, 10),
        "rent-10",
        vec![line("10月租金", "沪A00001", 70_000)],
    ))
    .await
    .unwrap();
    [overdue, charging, pending, paid]
}

fn nos(r: &pb::ListBillsResponse) -> Vec<String> {
    let mut nos: Vec<String> = r.bills.iter().map(|b| b.bill_no.clone()).collect();
    nos.sort();
    nos
}

fn sorted(bills: &[&pb::Bill]) -> Vec<String> {
    let mut nos: Vec<String> = bills.iter().map(|b| b.bill_no.clone()).collect();
    nos.sort();
    nos
}

#[tokio::test]
async fn the_list_filters_totals_and_keeps_to_the_callers_reach_and_tenant() {
    let s = stack().await;
    let [overdue, charging, pending, paid] = known_set(&s).await;
    let a = &s.a;

    let all = s.bills(a, pb::ListBillsRequest::default()).await;
    assert_eq!(all.page.unwrap().total, 4);
    let totals = all.totals.unwrap();
    assert_eq!(totals.payable_fen, 100_000 + 50_000 + 42_000 + 80_000);
    assert_eq!(totals.paid_fen, 80_000);
    assert_eq!(totals.outstanding_fen, 100_000 + 50_000 + 42_000);

    let kinds = s
        .bills(
            a,
            pb::ListBillsRequest {
                kinds: vec![pb::BillKind::Rent as i32],
                ..Default::default()
            },
        )
        .await;
    assert_eq!(nos(&kinds), sorted(&[&overdue, &paid]));

    let late = s
        .bills(
            a,
            pb::ListBillsRequest {
                overdue: Some(true),
                ..Default::default()
            },
        )
        .await;
    assert_eq!(nos(&late), sorted(&[&overdue]));
    assert!(late.bills[0].overdue);
    assert_eq!(late.bills[0].overdue_days, 3);

    let plates = s
        .bills(
            a,
            pb::ListBillsRequest {
                plate_numbers: vec!["粤B10002".into()],
                ..Default::default()
            },
        )
        .await;
    assert_eq!(nos(&plates), sorted(&[&pending]));

    let october = s
        .bills(
            a,
            pb::ListBillsRequest {
                start_month: Some(month(2026, 10)),
                end_month: Some(month(2026, 10)),
                statuses: vec![pb::BillStatus::Unpaid as i32, pb::BillStatus::Paid as i32],
                ..Default::default()
            },
        )
        .await;
    assert_eq!(nos(&october), sorted(&[&charging, &paid]));

    // An organisation filter takes its subtree: east holds shanghai.
    let east = s
        .bills(
            a,
            pb::ListBillsRequest {
                org_ids: vec![a.east.to_string()],
                ..Default::default()
            },
        )
        .await;
    assert_eq!(nos(&east), sorted(&[&overdue, &paid]));

    let b2b = s
        .bills(
            a,
            pb::ListBillsRequest {
                channel: pb::Channel::B2b as i32,
                ..Default::default()
            },
        )
        .await;
    assert_eq!(nos(&b2b), sorted(&[&pending]));

    // A caller reaching the south subtree sees only its bill.
    let south = s
        .client
        .clone()
        .list_bills(s.req_reaching(
            a,
            ReachClaim {
                subtrees: vec![a.south],
                ..ReachClaim::default()
            },
            pb::ListBillsRequest::default(),
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(nos(&south), sorted(&[&charging]));
    let e = err(&s
        .client
        .clone()
        .get_bill(s.req_reaching(
            a,
            ReachClaim {
                subtrees: vec![a.south],
                ..ReachClaim::default()
            },
            pb::GetBillRequest {
                bill_id: overdue.id.clone(),
            },
        ))
        .await
        .unwrap_err());
    assert_eq!(e.code, ErrorCode::NotFound);

    // Tenant B sees nothing of A.
    let theirs = s.bills(&s.b, pb::ListBillsRequest::default()).await;
    assert_eq!(theirs.page.unwrap().total, 1);
    let e = err(&s
        .client
        .clone()
        .get_bill(s.req(
            &s.b,
            pb::GetBillRequest {
                bill_id: overdue.id.clone(),
            },
        ))
        .await
        .unwrap_err());
    assert_eq!(e.code, ErrorCode::NotFound);

    // The detail has the lines.
    let detail = s
        .client
        .clone()
        .get_bill(s.req(
            a,
            pb::GetBillRequest {
                bill_id: pending.id.clone(),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .bill
        .unwrap();
    assert_eq!(
        detail.lines.iter().map(|l| l.amount_fen).sum::<i64>(),
        detail.amount_fen
    );
}

#[tokio::test]
async fn reconciliation_confirms_or_disputes_pending_bills_at_the_total_the_user_saw() {
    let s = stack().await;
    let [overdue, _, pending, _] = known_set(&s).await;
    let a = &s.a;
    let confirm =
        |ids: Vec<String>, accepted: bool, total: i64, reason: &str| pb::ConfirmBillsRequest {
            bill_ids: ids,
            accepted,
            expected_total_fen: total,
            dispute_reason: reason.to_owned(),
        };
    let mut c = s.client.clone();
    let e = err(&c
        .confirm_bills(s.req(a, confirm(vec![pending.id.clone()], true, 41_000, "")))
        .await
        .unwrap_err());
    assert_eq!(e.code, ErrorCode::Conflict);
    let e = err(&c
        .confirm_bills(s.req(a, confirm(vec![pending.id.clone()], false, 42_000, " ")))
        .await
        .unwrap_err());
    assert_eq!(e.fields[0].field, "disputeReason");
    // A bill not waiting for confirmation spoils the batch.
    let e = err(&c
        .confirm_bills(s.req(
            a,
            confirm(
                vec![pending.id.clone(), overdue.id.clone()],
                true,
                142_000,
                "",
            ),
        ))
        .await
        .unwrap_err());
    assert_eq!(e.code, ErrorCode::Conflict);

    let disputed = c
        .confirm_bills(s.req(
            a,
            confirm(vec![pending.id.clone()], false, 42_000, "配件价格有误"),
        ))
        .await
        .unwrap()
        .into_inner()
        .bills;
    assert_eq!(
        disputed[0].status,
        pb::BillStatus::PendingConfirmation as i32
    );

    let confirmed = c
        .confirm_bills(s.req(a, confirm(vec![pending.id.clone()], true, 42_000, "")))
        .await
        .unwrap()
        .into_inner()
        .bills;
    assert_eq!(confirmed[0].status, pb::BillStatus::Unpaid as i32);
    assert!(confirmed[0].confirm_time.is_some());
    let e = err(&c
        .confirm_bills(s.req(a, confirm(vec![pending.id.clone()], true, 42_000, "")))
        .await
        .unwrap_err());
    assert_eq!(e.code, ErrorCode::Conflict);
    // Another tenant's bill is not found.
    let e = err(&c
        .confirm_bills(s.req(&s.b, confirm(vec![pending.id.clone()], true, 42_000, "")))
        .await
        .unwrap_err());
    assert_eq!(e.code, ErrorCode::NotFound);
}

#[tokio::test]
async fn the_export_writes_the_lists_rows_under_the_requesters_reach() {
    let s = stack().await;
    let [overdue, charging, pending, paid] = known_set(&s).await;
    let a = &s.a;
    let filter = pb::ListBillsRequest {
        kinds: vec![pb::BillKind::Rent as i32, pb::BillKind::Charging as i32],
        ..Default::default()
    };
    let queue = |reach: ReachClaim| {
        let request = s.req_reaching(
            a,
            reach,
            pb::ExportBillsRequest {
                filter: Some(filter.clone()),
            },
        );
        let mut client = s.client.clone();
        async move {
            let job = client.export_bills(request).await.unwrap().into_inner();
            job.job.unwrap().id
        }
    };
    let job = queue(ReachClaim {
        all: true,
        ..ReachClaim::default()
    })
    .await;
    let rows = s.exported_rows(&job).await;
    assert_eq!(rows[0], fleetdesk_finance::bills::export::HEADER);
    let mut exported: Vec<String> = rows[1..].iter().map(|r| r[0].clone()).collect();
    exported.sort();
    assert_eq!(exported, sorted(&[&overdue, &charging, &paid]));
    assert!(!exported.contains(&pending.bill_no));
    let late = rows.iter().find(|r| r[0] == overdue.bill_no).unwrap();
    assert_eq!(late[1], overdue.title);
    assert_eq!(late[2], "上海");
    assert_eq!(late[3], "租金");
    assert_eq!(late[4], "2026-09");
    assert_eq!(late[5], "待支付");
    assert_eq!(late[8], "1000.00");
    assert_eq!(late[14], "是");
    let settled = rows.iter().find(|r| r[0] == paid.bill_no).unwrap();
    assert_eq!(settled[9], "800.00");
    assert_eq!(settled[14], "否");

    // With the south subtree only: the charging bill alone.
    let job = queue(ReachClaim {
        subtrees: vec![a.south],
        ..ReachClaim::default()
    })
    .await;
    let rows = s.exported_rows(&job).await;
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[1][0], charging.bill_no);
}

#[tokio::test]
async fn monthly_bills_and_the_dashboard_add_up_the_known_set() {
    let s = stack().await;
    let a = &s.a;
    let now = this_month();
    let mut soon = new_bill(
        a,
        a.shanghai,
        pb::BillKind::Rent,
        now,
        "rent-now",
        vec![line("本月租金", "粤B10001", 60_000)],
    );
    soon.due_time = Some(timestamp(Utc::now() + Duration::days(3)));
    let soon = s.create_bill(soon).await.unwrap();
    let mut late = new_bill(
        a,
        a.south,
        pb::BillKind::Charging,
        now,
        "cs-now",
        vec![line("本月充电", "", 40_000)],
    );
    late.due_time = Some(timestamp(Utc::now() - Duration::days(1)));
    let late = s.create_bill(late).await.unwrap();
    pay(&s, &late.id, 10_000).await;
    let mut pending = new_bill(
        a,
        a.root,
        pb::BillKind::Repair,
        now,
        "rb-now",
        vec![line("维修", "", 25_000)],
    );
    pending.requires_confirmation = true;
    s.create_bill(pending).await.unwrap();
    let before = Month::of(Utc::now()).plus(-1).to_pb();
    let earlier = s
        .create_bill(new_bill(
            a,
            a.east,
            pb::BillKind::Rent,
            before,
            "rent-before",
            vec![line("上月租金", "粤B10003", 50_000)],
        ))
        .await
        .unwrap();
    pay(&s, &earlier.id, 50_000).await;
    // B's bills count nowhere for A.
    s.create_bill(new_bill(
        &s.b,
        s.b.root,
        pb::BillKind::Rent,
        now,
        "b-now",
        vec![line("租金", "", 99_900)],
    ))
    .await
    .unwrap();

    let mut c = s.client.clone();
    let months = c
        .list_monthly_bills(s.req(a, pb::ListMonthlyBillsRequest::default()))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(months.page.unwrap().total, 2);
    let current = &months.monthly_bills[0];
    assert_eq!(current.month, Some(now));
    assert_eq!(current.bill_count, 3);
    assert_eq!(current.payable_fen, 125_000);
    assert_eq!(current.paid_fen, 10_000);
    assert_eq!(current.outstanding_fen, 115_000);
    assert_eq!(current.status, pb::BillStatus::PartiallyPaid as i32);
    assert!(current.overdue);
    let rent = current
        .by_kind
        .iter()
        .find(|k| k.kind == pb::BillKind::Rent as i32)
        .unwrap();
    assert_eq!((rent.bill_count, rent.amount_fen), (1, 60_000));
    let previous = &months.monthly_bills[1];
    assert_eq!(previous.status, pb::BillStatus::Paid as i32);
    assert!(!previous.overdue);

    let paid_only = c
        .list_monthly_bills(s.req(
            a,
            pb::ListMonthlyBillsRequest {
                statuses: vec![pb::BillStatus::Paid as i32],
                ..Default::default()
            },
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(paid_only.monthly_bills.len(), 1);
    assert_eq!(paid_only.monthly_bills[0].month, Some(before));

    // The month by its id, with its bills; the id names nothing for B.
    let detail = c
        .get_monthly_bill(s.req(
            a,
            pb::GetMonthlyBillRequest {
                monthly_bill_id: current.id.clone(),
                month: None,
            },
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(detail.bills.len(), 3);
    assert_eq!(detail.monthly_bill.unwrap().payable_fen, 125_000);
    assert!(detail.bills.iter().all(|b| b.monthly_bill_id == current.id));
    let listed = s
        .bills(
            a,
            pb::ListBillsRequest {
                monthly_bill_id: current.id.clone(),
                ..Default::default()
            },
        )
        .await;
    assert_eq!(listed.bills.len(), 3);
    let e = err(&c
        .get_monthly_bill(s.req(
            &s.b,
            pb::GetMonthlyBillRequest {
                monthly_bill_id: current.id.clone(),
                month: None,
            },
        ))
        .await
        .unwrap_err());
    assert_eq!(e.code, ErrorCode::NotFound);

    // The dashboard: this year so far, or the current month alone.
    let dashboard = c
        .get_bill_dashboard(s.req(
            a,
            pb::GetBillDashboardRequest {
                start_month: Some(now),
                end_month: Some(now),
                ..Default::default()
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .dashboard
        .unwrap();
    assert_eq!(dashboard.payable_fen, 125_000);
    assert_eq!(dashboard.paid_fen, 10_000);
    assert_eq!(dashboard.outstanding_fen, 115_000);
    assert_eq!(
        (dashboard.overdue_fen, dashboard.overdue_count),
        (30_000, 1)
    );
    assert_eq!(dashboard.due_soon_fen, soon.outstanding_fen);
    assert_eq!(dashboard.unpaid_count, 2);
    assert_eq!(dashboard.pending_confirmation_count, 1);
    assert_eq!(dashboard.invoiceable_fen, 10_000);
    assert_eq!(dashboard.by_kind.len(), 3);
    assert_eq!(dashboard.trend.len(), 12);
    let last = dashboard.trend.last().unwrap();
    assert_eq!((last.payable_fen, last.paid_fen), (125_000, 10_000));
    let prior = &dashboard.trend[10];
    assert_eq!((prior.payable_fen, prior.paid_fen), (50_000, 50_000));

    // By organisation: the south subtree holds the charging bill alone.
    let south = c
        .get_bill_dashboard(s.req(
            a,
            pb::GetBillDashboardRequest {
                org_ids: vec![a.south.to_string()],
                start_month: Some(now),
                end_month: Some(now),
                ..Default::default()
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .dashboard
        .unwrap();
    assert_eq!((south.payable_fen, south.overdue_fen), (40_000, 30_000));
}

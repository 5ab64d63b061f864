//! Demo data of the finance service: a year of demo enterprise A's bills in
//! every state, and orders of the order centre.
//!
//! Rent: the demo rentals (the first [`DEMO_RENTALS`] rent records of the
//! vehicle schema by plate that started within the year or start later,
//! which the vehicle seed writes directly, so no
//! event announces them) become rent schedules through finance's own path
//! (`bills::rent::apply`, as their `UsageRecordChanged` events would), which
//! raises every elapsed month's instalment, the first and last prorated;
//! the hourly tick bills their later months. Each month of the last twelve
//! also has its charging statement and, every other month, a repair
//! statement. Older months are paid (the oldest invoiced), the month four
//! back is partly paid and overdue, last month's rent is owed (overdue once
//! past its billing day), last month's charging bill waits for B2B
//! reconciliation, this month's bills are owed and not yet due, and one
//! traffic fine was cancelled. Bills are raised through the finance
//! service's own rule (`bills::handlers::raise`: lines adding up, one bill
//! per source); their history (issue and due times, what was paid) is then
//! set as payments leave it, and `finance_payments` then records the
//! balance payment behind each paid amount on the ledger.
//! Orders: one waiting for payment, one paid, one cancelled, each with its
//! ORDER bill.
//!
//! Deterministic (sources named by month and organisation, amounts from
//! the demo plates); idempotent: an enterprise with demo bills is skipped
//! whole, and everything is one transaction.

use chrono::{DateTime, Duration, Utc};
use fleetdesk_finance::bills::domain::{BillKind, Channel, Line, LineSource, NewBill, Source};
use fleetdesk_finance::bills::handlers::raise;
use fleetdesk_finance::bills::rent::{self, Lease};
use fleetdesk_finance::calendar::Month;
use fleetdesk_finance::orders::domain::{Item, NewOrder, OrderKind};
use fleetdesk_finance::orders::{convert as order_convert, store as orders};
use fleetdesk_kit::{db, demo_id};
use sqlx_postgres::{PgConnection, PgPool};
use uuid::Uuid;

/// The `source_service` of demo bills and orders.
const DEMO: &str = "demo";
/// How many of the demo rentals finance bills.
const DEMO_RENTALS: i64 = 24;

/// What the run wrote.
#[derive(Debug, Clone, Copy, Default)]
pub struct Report {
    pub bills: usize,
    pub orders: usize,
}

/// How a demo bill's history left it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    /// Paid in full a week after issue; `invoiced` when its invoice went out.
    Paid {
        invoiced: bool,
    },
    /// Part paid, the rest overdue.
    PartlyPaid,
    /// Owed; overdue when its due time has passed.
    Owed,
    /// B2B, waiting for reconciliation.
    Pending,
    Cancelled,
}

/// Loads enterprise A's demo bills and orders into the finance schema
/// (`finance`), for the vehicles of the vehicle schema (`vehicle`).
pub async fn run(finance: &PgPool, vehicle: &PgPool, now: DateTime<Utc>) -> anyhow::Result<Report> {
    let enterprise = demo_id("enterprise:a");
    let mut tx = db::begin_service(finance).await?;
    db::enter_tenant(&mut tx, enterprise).await?;
    let exists: bool = sqlx::query_scalar(
        "select exists(select 1 from bill where enterprise_id = $1 and source_service = $2)",
    )
    .bind(enterprise)
    .bind(DEMO)
    .fetch_one(&mut *tx)
    .await?;
    if exists {
        return Ok(Report::default());
    }
    let mut vtx = db::begin_service(vehicle).await?;
    let fleet: Vec<(Uuid, Uuid, String)> = sqlx::query_as(
        "select id, org_id, plate_number from vehicle where enterprise_id = $1 \
         order by plate_number limit 12",
    )
    .bind(enterprise)
    .fetch_all(&mut *vtx)
    .await?;
    drop(vtx);
    let root = demo_id("org:a-root");
    let mut orgs: Vec<Uuid> = fleet.iter().map(|(_, org, _)| *org).collect();
    orgs.sort_unstable();
    orgs.dedup();
    orgs.truncate(3);
    if orgs.is_empty() {
        orgs.push(root);
    }
    let actor = fleetdesk_finance::Actor {
        name: "系统".to_owned(),
        user_id: None,
        ..crate::demo_admin()
    };
    let this_month = Month::of(now);
    let mut report = Report::default();
    let since = this_month.plus(-11).start();
    for lease in rentals(vehicle, enterprise, since).await? {
        for raised in rent::apply(&mut tx, &lease, now).await? {
            let back = months_between(raised.period.month, this_month);
            // Issued when its period closed (the tick's first round after
            // it), due on the contract's billing day.
            let issued = (rent::midnight(raised.period.end) + Duration::hours(1))
                .min(now - Duration::hours(1));
            let due = rent::billing_due(raised.period.month, lease.payment_day);
            history(
                &mut tx,
                raised.bill_id,
                issued,
                due,
                fate_of(back, Fate::Owed),
            )
            .await?;
            report.bills += 1;
        }
    }
    for back in (0..12).rev() {
        let month = this_month.plus(-back);
        let fate = |owed_late: Fate| fate_of(back, owed_late);
        let charging_fen = 180_000 + i64::from(month.code() % 7) * 23_456;
        let mut charging = new_bill(
            root,
            BillKind::Charging,
            month,
            format!("{} 充电费用", month.label()),
            vec![line(
                format!("充电对账单 CS{}", month.code()),
                charging_fen,
                LineSource::ChargingStatement,
                &demo_id(&format!("statement:{}", month.code())).to_string(),
            )],
            &format!("charging:{}", month.code()),
        );
        if back == 1 {
            charging.channel = Channel::B2b;
            charging.requires_confirmation = true;
        }
        settle(&mut tx, &actor, charging, month, now, fate(Fate::Pending)).await?;
        report.bills += 1;
        if back % 2 == 0 {
            let repair_fen = 56_800 + i64::from(back) * 4_100;
            let repair = new_bill(
                orgs[0],
                BillKind::Repair,
                month,
                format!("{} 维修费用", month.label()),
                vec![line(
                    format!("维修账单 WX{}", month.code()),
                    repair_fen,
                    LineSource::RepairBill,
                    &demo_id(&format!("repair-bill:{}", month.code())).to_string(),
                )],
                &format!("repair:{}", month.code()),
            );
            settle(&mut tx, &actor, repair, month, now, fate(Fate::Owed)).await?;
            report.bills += 1;
        }
        if back == 3 {
            let fine = new_bill(
                orgs[0],
                BillKind::ViolationFine,
                month,
                format!("{} 违章代缴", month.label()),
                vec![line(
                    "违章罚款代缴（已撤销）".to_owned(),
                    20_000,
                    LineSource::Other,
                    "",
                )],
                &format!("fine:{}", month.code()),
            );
            settle(&mut tx, &actor, fine, month, now, Fate::Cancelled).await?;
            report.bills += 1;
        }
    }
    report.orders = place_orders(&mut tx, &actor, orgs[0], now).await?;
    tx.commit().await?;
    Ok(report)
}

/// A demo bill's fate by how many months back its period is.
fn fate_of(back: i32, owed_late: Fate) -> Fate {
    match back {
        ..=0 => Fate::Owed,
        1 => owed_late,
        4 => Fate::PartlyPaid,
        b => Fate::Paid { invoiced: b >= 6 },
    }
}

/// Months from `from` to `to`.
fn months_between(from: Month, to: Month) -> i32 {
    (to.year() - from.year()) * 12 + (to.to_pb().month - from.to_pb().month)
}

/// The first demo rentals (by plate) that started `since` (a year of
/// bills, no more) or start later, as finance bills them: their record's
/// state as the vehicle seed wrote it.
async fn rentals(
    vehicle: &PgPool,
    enterprise: Uuid,
    since: DateTime<Utc>,
) -> anyhow::Result<Vec<Lease>> {
    type Row = (
        Uuid,
        Uuid,
        Uuid,
        String,
        String,
        DateTime<Utc>,
        Option<DateTime<Utc>>,
        Option<DateTime<Utc>>,
        Option<i64>,
        Option<i32>,
        DateTime<Utc>,
    );
    let mut vtx = db::begin_service(vehicle).await?;
    let rows: Vec<Row> = sqlx::query_as(
        "select id, org_id, vehicle_id, plate_number, contract_no, start_time, end_time,          ended_at, monthly_rent_fen, payment_day, updated_at from usage_record          where enterprise_id = $1 and kind = 1 and start_time >= $2 \
         order by plate_number, start_time, id limit $3",
    )
    .bind(enterprise)
    .bind(since)
    .bind(DEMO_RENTALS)
    .fetch_all(&mut *vtx)
    .await?;
    drop(vtx);
    Ok(rows
        .into_iter()
        .map(
            |(id, org, vehicle, plate, contract, start, end, ended_at, rent, day, updated)| Lease {
                usage_record_id: id,
                enterprise_id: enterprise,
                org_id: org,
                vehicle_id: vehicle,
                plate_number: plate,
                contract_no: contract,
                start_time: start,
                end_time: ended_at.or(end),
                ended: ended_at.is_some(),
                monthly_rent_fen: rent.unwrap_or(0),
                payment_day: day.unwrap_or(1).clamp(1, 28),
                revision: updated,
            },
        )
        .collect())
}

fn line(description: String, amount_fen: i64, source: LineSource, source_id: &str) -> Line {
    Line {
        description,
        vehicle_id: None,
        plate_number: String::new(),
        period_start: None,
        period_end: None,
        quantity: 1,
        unit_price_fen: amount_fen,
        amount_fen,
        tax_rate_bp: 600,
        source,
        source_id: source_id.to_owned(),
    }
}

fn new_bill(
    org: Uuid,
    kind: BillKind,
    month: Month,
    title: String,
    lines: Vec<Line>,
    source: &str,
) -> NewBill {
    NewBill {
        org_id: org,
        channel: Channel::Standard,
        kind,
        title,
        period: month,
        order_id: None,
        lines,
        discount_fen: 0,
        due_time: None,
        requires_confirmation: false,
        source: Source {
            service: DEMO.to_owned(),
            id: source.to_owned(),
        },
        attachments: serde_json::json!([]),
        remark: String::new(),
    }
}

/// Raises `bill` and gives it its history: issued on the month's last day
/// (this month's: now), due 15 days later, paid a week after issue as its
/// fate says.
async fn settle(
    tx: &mut PgConnection,
    actor: &fleetdesk_finance::Actor,
    bill: NewBill,
    month: Month,
    now: DateTime<Utc>,
    fate: Fate,
) -> anyhow::Result<()> {
    let id = raise(tx, actor, bill)
        .await
        .map_err(|e| anyhow::anyhow!("raise a demo bill: {}", e.message))?;
    let issued = (month.plus(1).start() - Duration::days(1)).min(now - Duration::hours(1));
    history(tx, id, issued, issued + Duration::days(15), fate).await
}

/// Gives bill `id` its history: issued at `issued`, due at `due`, paid a
/// week after issue as its fate says.
async fn history(
    tx: &mut PgConnection,
    id: Uuid,
    issued: DateTime<Utc>,
    due: DateTime<Utc>,
    fate: Fate,
) -> anyhow::Result<()> {
    let paid_at = issued + Duration::days(7);
    let (status, paid_share, invoiced) = match fate {
        Fate::Paid { invoiced } => (4_i16, 100, invoiced),
        Fate::PartlyPaid => (3, 40, false),
        Fate::Owed => (2, 0, false),
        Fate::Pending => (1, 0, false),
        Fate::Cancelled => (5, 0, false),
    };
    sqlx::query(
        "update bill set issue_time = $2, due_time = $3, created_at = $2, status = $4, \
         paid_fen = payable_fen * $5 / 100, \
         paid_time = case when $5 > 0 then $6 end, \
         invoiced_fen = case when $7 then payable_fen else 0 end \
         where id = $1",
    )
    .bind(id)
    .bind(issued)
    .bind(due)
    .bind(status)
    .bind(paid_share)
    .bind(paid_at)
    .bind(invoiced)
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// Three orders of the order centre, each with its ORDER bill: waiting for
/// payment, paid (bill paid) and cancelled (bill cancelled).
async fn place_orders(
    tx: &mut PgConnection,
    actor: &fleetdesk_finance::Actor,
    org: Uuid,
    now: DateTime<Utc>,
) -> anyhow::Result<usize> {
    let orders_of: [(&str, OrderKind, &str, &str, i32, i64, i16); 3] = [
        (
            "order:video",
            OrderKind::ValueAddedService,
            "视频监控服务",
            "视频流量包 10G",
            5,
            5_000,
            1,
        ),
        (
            "order:terminal",
            OrderKind::ValueAddedService,
            "车载终端",
            "4G 车载终端",
            3,
            68_000,
            2,
        ),
        (
            "order:insurance",
            OrderKind::Insurance,
            "车辆保险",
            "交强险",
            2,
            95_000,
            5,
        ),
    ];
    for (i, &(source, kind, title, item, quantity, unit, status)) in orders_of.iter().enumerate() {
        let placed = now - Duration::days(i64::try_from(i).unwrap_or(0) * 9 + 1);
        let order = NewOrder {
            org_id: org,
            kind,
            title: title.to_owned(),
            items: vec![Item {
                name: item.to_owned(),
                sku: String::new(),
                quantity,
                unit_price_fen: unit,
                amount_fen: 0,
                vehicle_id: None,
                plate_number: String::new(),
            }],
            contract_no: format!("HT-DEMO-{:03}", i + 1),
            source: Source {
                service: DEMO.to_owned(),
                id: source.to_owned(),
            },
            payment_deadline: None,
            remark: String::new(),
        }
        .check(now)
        .map_err(|e| anyhow::anyhow!("a demo order: {}", e.message))?;
        let id = demo_id(&format!("finance-{source}"));
        let order_no = format!("DD{}-{:08}", Month::of(placed).code(), i + 1);
        orders::insert(tx, actor, id, &order_no, &order)
            .await
            .map_err(|e| anyhow::anyhow!("insert a demo order: {}", e.message))?;
        raise(tx, actor, order_convert::order_bill(id, &order_no, &order))
            .await
            .map_err(|e| anyhow::anyhow!("raise a demo order's bill: {}", e.message))?;
        let deadline = placed + Duration::minutes(30);
        let deadline = if status == 1 {
            now + Duration::minutes(30)
        } else {
            deadline
        };
        sqlx::query(
            "update enterprise_order set placed_at = $2, created_at = $2, payment_deadline = $3, \
             status = $4, paid_fen = case when $4 = 2 then total_fen else 0 end, \
             paid_at = case when $4 = 2 then $2 + interval '5 minutes' end, \
             cancel_reason = case when $4 = 5 then '超时未支付' else '' end where id = $1",
        )
        .bind(id)
        .bind(placed)
        .bind(deadline)
        .bind(status)
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "update bill set issue_time = $2, created_at = $2, due_time = $3, \
             status = case $4 when 2 then 4 when 5 then 5 else status end, \
             paid_fen = case when $4 = 2 then payable_fen else 0 end, \
             paid_time = case when $4 = 2 then $2 + interval '5 minutes' end \
             where order_id = $1",
        )
        .bind(id)
        .bind(placed)
        .bind(deadline)
        .bind(status)
        .execute(&mut *tx)
        .await?;
    }
    Ok(orders_of.len())
}

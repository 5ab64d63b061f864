//! Demo repair orders (maintainment): enterprise A's suppliers, item
//! catalogue and approval threshold, and a year of orders — every month's
//! completed ones on their supplier's statement (earlier months confirmed
//! with their bills, most of them paid; this month's pending), and this
//! month's in every other state (in repair, awaiting approval, quoted,
//! awaiting a quote, cancelled). Amounts come from the repair rules
//! (quantity × unit price in fen). Deterministic ids from the demo names;
//! idempotent: a second run finds the suppliers and changes nothing.

use chrono::{DateTime, Datelike, Duration, Utc};
use fleetdesk_kit::{db, demo_id};
use fleetdesk_maintenance::repairs::domain::{self, ItemKind, Kind, Line, State};
use sqlx_postgres::{PgConnection, PgPool};
use uuid::Uuid;

/// What the run wrote.
#[derive(Debug, Clone, Copy, Default)]
pub struct Report {
    pub orders: usize,
    pub statements: usize,
}

const SUPPLIERS: [(&str, &str, &str, &str); 3] = [
    (
        "深圳市鹏程汽车维修有限公司",
        "深圳市南山区科技园南区12号",
        "王建国",
        "13800138001",
    ),
    (
        "广州市骏达新能源汽车服务有限公司",
        "广州市天河区黄埔大道西88号",
        "陈志强",
        "13900139002",
    ),
    (
        "东莞市安途汽车修理厂",
        "东莞市南城区宏远路6号",
        "刘伟",
        "13700137003",
    ),
];

/// (name, kind, part number, unit, unit price in fen).
const CATALOGUE: [(&str, ItemKind, &str, &str, i64); 10] = [
    ("机油", ItemKind::Material, "OIL-5W30", "升", 6_800),
    ("机油滤芯", ItemKind::Part, "FLT-OIL-01", "个", 4_500),
    ("空气滤芯", ItemKind::Part, "FLT-AIR-01", "个", 8_800),
    ("前刹车片", ItemKind::Part, "BRK-F-02", "套", 38_000),
    ("轮胎 215/65R16", ItemKind::Part, "TYR-21565", "条", 52_000),
    ("冷却液", ItemKind::Material, "CLT-02", "升", 3_500),
    ("动力电池模组", ItemKind::Part, "BAT-MOD-08", "个", 320_000),
    ("钣金喷漆", ItemKind::Labour, "", "面", 45_000),
    ("保养工时", ItemKind::Labour, "", "工时", 12_000),
    ("维修工时", ItemKind::Labour, "", "工时", 15_000),
];

/// Each kind's lines: (catalogue index, quantity).
fn lines_of(kind: Kind, turn: usize) -> Vec<Line> {
    let picks: &[(usize, f64)] = match kind {
        Kind::Maintenance => &[(0, 4.0), (1, 1.0), (2, 1.0), (8, 1.0)],
        Kind::Repair => &[(3, 1.0), (9, 1.5)],
        Kind::AccidentRepair => &[(7, 2.0), (9, 3.0)],
        Kind::Tire => &[(4, 2.0), (9, 0.5)],
        Kind::Battery => &[(6, 1.0), (5, 4.0), (9, 4.0)],
    };
    picks
        .iter()
        .map(|&(i, quantity)| {
            let (name, kind, part_no, _, unit_price_fen) = CATALOGUE[i];
            Line {
                name: name.to_owned(),
                kind: kind.into(),
                part_no: part_no.to_owned(),
                quantity,
                unit_price_fen,
                amount_fen: domain::amount(quantity, unit_price_fen),
                // Now and then a part under warranty.
                warranty: turn % 7 == 3 && i == 1,
            }
        })
        .collect()
}

const KINDS: [Kind; 5] = [
    Kind::Maintenance,
    Kind::Repair,
    Kind::Tire,
    Kind::AccidentRepair,
    Kind::Battery,
];

const FAULTS: [&str; 5] = [
    "到期常规保养",
    "刹车异响，制动距离变长",
    "左前轮胎鼓包",
    "倒车剐蹭后保险杠",
    "续航明显下降，电池包告警",
];

/// This month's orders that are not done, by the state they stand in.
const OPEN: [State; 5] = [
    State::InRepair,
    State::AwaitingApproval,
    State::Quoted,
    State::AwaitingQuote,
    State::Cancelled,
];

pub async fn run(pool: &PgPool, now: DateTime<Utc>) -> anyhow::Result<Report> {
    let actor = crate::demo_admin();
    let enterprise = actor.enterprise_id;
    let mut tx = db::begin_tenant(pool, enterprise).await?;
    let exists: bool =
        sqlx::query_scalar("select exists(select 1 from repair_supplier where enterprise_id = $1)")
            .bind(enterprise)
            .fetch_one(&mut *tx)
            .await?;
    if exists {
        return Ok(Report::default());
    }
    // The demo's head office (org's replica may not be filled yet).
    let root = demo_id("org:a-root");
    let vehicles: Vec<(Uuid, Uuid, String)> = sqlx::query_as(
        "select id, org_id, plate_number from vehicle where enterprise_id = $1 \
         order by plate_number limit 40",
    )
    .bind(enterprise)
    .fetch_all(&mut *tx)
    .await?;
    if vehicles.is_empty() {
        return Ok(Report::default());
    }
    sqlx::query(
        "insert into repair_config (enterprise_id, approval_threshold_fen, updated_by_name) \
         values ($1, $2, $3) on conflict do nothing",
    )
    .bind(enterprise)
    .bind(domain::DEFAULT_THRESHOLD_FEN)
    .bind(&actor.name)
    .execute(&mut *tx)
    .await?;
    let mut shops = Vec::new();
    for (name, address, contact, phone) in SUPPLIERS {
        let id = demo_id(&format!("repair-supplier:{enterprise}:{name}"));
        sqlx::query(
            "insert into repair_supplier (id, enterprise_id, org_id, name, address, contact_name, \
             contact_phone, created_by_name, updated_by_name) \
             values ($1, $2, $3, $4, $5, $6, $7, $8, $8)",
        )
        .bind(id)
        .bind(enterprise)
        .bind(root)
        .bind(name)
        .bind(address)
        .bind(contact)
        .bind(phone)
        .bind(&actor.name)
        .execute(&mut *tx)
        .await?;
        shops.push(id);
    }
    for (name, kind, part_no, unit, price) in CATALOGUE {
        sqlx::query(
            "insert into repair_catalogue_item (id, enterprise_id, org_id, name, kind, part_no, \
             unit, unit_price_fen, created_by_name, updated_by_name) \
             values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)",
        )
        .bind(demo_id(&format!("repair-item:{enterprise}:{name}")))
        .bind(enterprise)
        .bind(root)
        .bind(name)
        .bind(i16::from(kind))
        .bind(part_no)
        .bind(unit)
        .bind(price)
        .bind(&actor.name)
        .execute(&mut *tx)
        .await?;
    }

    // Five orders a month for the past year, done two days after intake;
    // this month's first is done, the others stand in every open state.
    let mut report = Report::default();
    let mut turn = 0usize;
    for months_ago in (0..12i64).rev() {
        for i in 0..6usize {
            let this_month = months_ago == 0;
            let created = if this_month && i == 0 {
                now - Duration::hours(54)
            } else if this_month {
                now - Duration::hours(6 + 20 * i as i64)
            } else {
                now - Duration::days(30 * months_ago) + Duration::days(i as i64 * 4 - 12)
            };
            let state = match (this_month, i) {
                (false, 5) => continue,
                (false, _) | (true, 0) => State::Completed,
                (true, n) => OPEN[n - 1],
            };
            let (vehicle, org, plate) = &vehicles[turn % vehicles.len()];
            let kind = if state == State::AwaitingApproval {
                Kind::Battery
            } else {
                KINDS[turn % 4]
            };
            let shop = shops[turn % shops.len()];
            order(
                &mut tx,
                &actor,
                NewDemoOrder {
                    id: demo_id(&format!("repair-order:{enterprise}:{turn}")),
                    no: format!("WX{}{:04}", created.format("%Y%m%d"), turn % 10_000 + 1),
                    vehicle: *vehicle,
                    org: *org,
                    plate,
                    shop,
                    kind,
                    state,
                    created,
                    turn,
                },
            )
            .await?;
            report.orders += 1;
            turn += 1;
        }
    }
    report.statements = statements(&mut tx, enterprise, &actor.name, now).await?;
    tx.commit().await?;
    Ok(report)
}

struct NewDemoOrder<'a> {
    id: Uuid,
    no: String,
    vehicle: Uuid,
    org: Uuid,
    plate: &'a str,
    shop: Uuid,
    kind: Kind,
    state: State,
    created: DateTime<Utc>,
    turn: usize,
}

/// One order as the workflow would have left it in `o.state`.
async fn order(
    tx: &mut PgConnection,
    actor: &fleetdesk_kit::actor::Actor,
    o: NewDemoOrder<'_>,
) -> anyhow::Result<()> {
    let lines = lines_of(o.kind, o.turn);
    let total = domain::total(&lines);
    let quoted = !matches!(o.state, State::AwaitingQuote | State::Cancelled);
    let confirmed = matches!(o.state, State::InRepair | State::Completed);
    let done = o.state == State::Completed;
    let odometer = 20_000_000 + (o.turn as i64 * 1_234_567) % 80_000_000;
    let items = serde_json::to_value(if quoted { lines.clone() } else { Vec::new() })?;
    let quote_at = quoted.then(|| o.created + Duration::hours(3));
    let confirm_at = confirmed.then(|| o.created + Duration::hours(5));
    let completed_at = done.then(|| o.created + Duration::days(2));
    let record = done.then(|| demo_id(&format!("repair-record:{}", o.id)));
    sqlx::query(
        "insert into repair_order (id, enterprise_id, org_id, order_no, vehicle_id, plate_number, \
           contact_name, contact_phone, kind, state, fault_description, odometer_m, shop_id, \
           quote_items, quote_total_fen, quote_at, quote_round, confirmed_total_fen, \
           confirmed_by_name, confirm_at, final_items, final_total_fen, completed_at, \
           completed_odometer_m, record_id, cancel_reason, created_by, created_by_name, \
           updated_by_name, created_at) \
         values ($1, $2, $3, $4, $5, $6, '调度员', '13600136000', $7, $8, $9, $10, $11, $12, $13, \
           $14, $15, $16, $17, $18, $19, $20, $21, $22, null, $23, $24, $25, $25, $26)",
    )
    .bind(o.id)
    .bind(actor.enterprise_id)
    .bind(o.org)
    .bind(&o.no)
    .bind(o.vehicle)
    .bind(o.plate)
    .bind(i16::from(o.kind))
    .bind(i16::from(o.state))
    .bind(FAULTS[o.turn % 4 + usize::from(o.kind == Kind::Battery)])
    .bind(odometer)
    .bind(o.shop)
    .bind(&items)
    .bind(if quoted { total } else { 0 })
    .bind(quote_at)
    .bind(i32::from(quoted))
    .bind(if confirmed { total } else { 0 })
    .bind(if confirmed { actor.name.as_str() } else { "" })
    .bind(confirm_at)
    .bind(if done {
        items.clone()
    } else {
        serde_json::json!([])
    })
    .bind(if done { total } else { 0 })
    .bind(completed_at)
    .bind(if done { odometer + 15_000 } else { 0 })
    .bind(if o.state == State::Cancelled {
        "车辆已调往外地，暂不维修"
    } else {
        ""
    })
    .bind(actor.user_id)
    .bind(&actor.name)
    .bind(o.created)
    .execute(&mut *tx)
    .await?;
    if o.state == State::AwaitingApproval {
        // Org raises the approval once the stack relays the request.
        let row = fleetdesk_maintenance::repairs::store::get(tx, actor, o.id, false).await?;
        fleetdesk_maintenance::repairs::approval::request(
            tx,
            actor,
            &row,
            domain::DEFAULT_THRESHOLD_FEN,
        )
        .await?;
    }
    if let (Some(record), Some(at)) = (record, completed_at) {
        sqlx::query(
            "insert into repair_record (id, enterprise_id, org_id, repair_order_id, order_no, \
               vehicle_id, plate_number, kind, shop_id, completed_at, odometer_m, items, \
               total_fen, created_by, created_by_name, created_at) \
             values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $10)",
        )
        .bind(record)
        .bind(actor.enterprise_id)
        .bind(o.org)
        .bind(o.id)
        .bind(&o.no)
        .bind(o.vehicle)
        .bind(o.plate)
        .bind(i16::from(o.kind))
        .bind(o.shop)
        .bind(at)
        .bind(odometer + 15_000)
        .bind(&items)
        .bind(total)
        .bind(actor.user_id)
        .bind(&actor.name)
        .execute(&mut *tx)
        .await?;
        sqlx::query("update repair_order set record_id = $2 where id = $1")
            .bind(o.id)
            .bind(record)
            .execute(&mut *tx)
            .await?;
    }
    let log = format!(
        "创建维修单{}；当前状态：{}{}",
        o.no,
        o.state.label(),
        if quoted {
            format!("，报价{}", domain::yuan(total))
        } else {
            String::new()
        }
    );
    sqlx::query(
        "insert into operation_log (id, enterprise_id, business_type, business_id, remark, \
         operator_id, operator_name, created_at) values ($1, $2, 5, $3, $4, $5, $6, $7)",
    )
    .bind(demo_id(&format!("repair-log:{}", o.id)))
    .bind(actor.enterprise_id)
    .bind(o.id)
    .bind(log)
    .bind(actor.user_id)
    .bind(&actor.name)
    .bind(o.created)
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// Each supplier's statement of each month with completed orders: before
/// this month confirmed and billed (bills older than two months paid),
/// this month's pending. Answers how many.
async fn statements(
    tx: &mut PgConnection,
    enterprise: Uuid,
    operator: &str,
    now: DateTime<Utc>,
) -> anyhow::Result<usize> {
    let groups: Vec<(Uuid, Uuid, chrono::NaiveDate, i32, i64)> = sqlx::query_as(
        "select r.shop_id, s.org_id, \
           date_trunc('month', r.completed_at at time zone 'Asia/Shanghai')::date as period, \
           count(*)::int, sum(r.final_total_fen)::bigint \
         from repair_order r join repair_supplier s on s.id = r.shop_id \
         where r.enterprise_id = $1 and r.state = 4 group by 1, 2, 3 order by 3, 1",
    )
    .bind(enterprise)
    .fetch_all(&mut *tx)
    .await?;
    let this_month =
        chrono::NaiveDate::from_ymd_opt(now.year(), now.month(), 1).unwrap_or_default();
    for (n, (shop, org, period, count, total)) in groups.iter().enumerate() {
        let id = demo_id(&format!("repair-statement:{enterprise}:{shop}:{period}"));
        let billed = *period < this_month;
        let issued = period.and_hms_opt(9, 0, 0).unwrap_or_default().and_utc()
            + Duration::days(if billed { 32 } else { 0 });
        let issued = issued.min(now);
        let no = format!("JS{}{:04}", issued.format("%Y%m%d"), n + 1);
        let bill = billed.then(|| demo_id(&format!("repair-bill:{id}")));
        sqlx::query(
            "insert into repair_statement (id, enterprise_id, org_id, statement_no, shop_id, \
               period, order_count, total_fen, state, issued_at, confirmed_by_name, confirm_at) \
             values ($1, $2, $3, $4, $5, $6, $7, $8, 1, $9, '', null)",
        )
        .bind(id)
        .bind(enterprise)
        .bind(org)
        .bind(&no)
        .bind(shop)
        .bind(period)
        .bind(count)
        .bind(total)
        .bind(issued)
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "update repair_order set statement_id = $4 where enterprise_id = $1 and shop_id = $2 \
             and state = 4 and date_trunc('month', completed_at at time zone 'Asia/Shanghai')::date = $3",
        )
        .bind(enterprise)
        .bind(shop)
        .bind(period)
        .bind(id)
        .execute(&mut *tx)
        .await?;
        let Some(bill) = bill else { continue };
        let confirm_at = (issued + Duration::days(3)).min(now);
        let paid = (now - issued).num_days() > 60;
        sqlx::query(
            "insert into repair_bill (id, enterprise_id, org_id, bill_no, statement_id, shop_id, \
               period, amount_fen, paid_fen, state, issued_at, due_at, paid_at) \
             values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11 + interval '30 days', $12)",
        )
        .bind(bill)
        .bind(enterprise)
        .bind(org)
        .bind(format!("ZD{}{:04}", confirm_at.format("%Y%m%d"), n + 1))
        .bind(id)
        .bind(shop)
        .bind(period)
        .bind(total)
        .bind(if paid { *total } else { 0 })
        .bind(if paid { 3i16 } else { 1i16 })
        .bind(confirm_at)
        .bind(paid.then(|| confirm_at + Duration::days(20)))
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "update repair_statement set state = 4, confirmed_by_name = $2, confirm_at = $3, \
             bill_id = $4 where id = $1",
        )
        .bind(id)
        .bind(operator)
        .bind(confirm_at)
        .bind(bill)
        .execute(&mut *tx)
        .await?;
        sqlx::query("update repair_order set state = 5 where statement_id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
    }
    Ok(groups.len())
}

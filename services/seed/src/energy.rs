//! Demo data of the energy service: demo enterprise A has charging opened
//! (its application approved), a seeded main balance, money allocated down
//! its organisation tree with the allocation record, and cards for part of
//! its fleet and drivers, each topped up with an amount-change record.
//! Demo enterprise B is left unopened, so the apply flow can be tried.
//!
//! The accounts of A's organisations are opened from the demo tree org's
//! seed writes (ids from `kit::demo_id`), since the org_unit replica fills
//! only once the service runs; it then finds them already there.
//! Idempotent: an enterprise whose charging state exists is skipped whole,
//! and everything is one transaction.

use fleetdesk_kit::{db, demo_id};
use sqlx_postgres::{PgConnection, PgPool};
use uuid::Uuid;

use fleetdesk_energy::Actor;
use fleetdesk_energy::accounts::domain::AccountKind;
use fleetdesk_energy::allocations::domain::Direction;
use fleetdesk_energy::allocations::store::{self as allocations, NewAllocation, Side};
use fleetdesk_energy::card_changes::domain::ChangeKind;
use fleetdesk_energy::card_changes::store::{self as changes, NewChange};
use fleetdesk_energy::cards::domain::{BudgetPeriod, CardKind, CardSpec, HolderKind};
use fleetdesk_energy::cards::store::{self as cards, Holder};
use fleetdesk_energy::ledger::{self, Transfer, TransferKind};
use fleetdesk_energy::opening::domain::{ApplicationStatus, OPERATOR_NAME, OpenState};
use fleetdesk_energy::opening::store as opening;

/// A demo vehicle a card is bound to.
#[derive(Debug, Clone)]
pub struct DemoVehicle {
    pub id: Uuid,
    pub plate_number: String,
    pub org_id: Uuid,
}

/// A demo driver a card is bound to.
#[derive(Debug, Clone)]
pub struct DemoDriver {
    pub id: Uuid,
    pub name: String,
    pub org_id: Uuid,
}

/// Demo enterprise A's organisation tree (org's seed): (key, parent, name,
/// money allocated to it from its parent, fen).
const TREE: [(&str, Option<&str>, &str, i64); 7] = [
    ("a-root", None, "演示物流有限公司", 0),
    ("a-east", Some("a-root"), "华东大区", 12_000_000),
    ("a-south", Some("a-root"), "华南大区", 12_000_000),
    ("a-shanghai", Some("a-east"), "上海运营中心", 5_000_000),
    ("a-hangzhou", Some("a-east"), "杭州运营中心", 3_000_000),
    ("a-guangzhou", Some("a-south"), "广州运营中心", 4_000_000),
    ("a-shenzhen", Some("a-south"), "深圳运营中心", 5_000_000),
];

/// What the main account is seeded with: 500,000.00 元.
pub const MAIN_BALANCE_FEN: i64 = 50_000_000;
/// Put on each demo card: 800.00 元.
const CARD_BALANCE_FEN: i64 = 80_000;

fn org(key: &str) -> Uuid {
    demo_id(&format!("org:{key}"))
}

/// Loads the demo charging data of enterprise A (idempotent).
pub async fn run(
    pool: &PgPool,
    vehicles: &[DemoVehicle],
    drivers: &[DemoDriver],
) -> anyhow::Result<()> {
    let eid = demo_id("enterprise:a");
    let mut tx = db::begin_service(pool).await?;
    // One seed at a time, and no tree sync beside it (see `lock_tree`).
    fleetdesk_energy::accounts::store::lock_tree(&mut tx, eid).await?;
    let seeded: bool = sqlx::query_scalar(
        "select exists(select 1 from charging_opening where enterprise_id = $1)",
    )
    .bind(eid)
    .fetch_one(&mut *tx)
    .await?;
    if seeded {
        tracing::info!("Demo charging data already there.");
        return Ok(());
    }
    let actor = crate::demo_admin();
    open(&mut tx, &actor).await?;
    let accounts = tree(&mut tx, &actor).await?;
    let mut cards_made = 0;
    for (i, v) in vehicles.iter().enumerate() {
        let holder = Holder {
            plate_number: v.plate_number.clone(),
            driver_name: String::new(),
        };
        let spec = spec(
            &accounts,
            v.org_id,
            CardKind::Physical,
            format!("88000{i:07}"),
        );
        let spec = CardSpec {
            holder_kind: HolderKind::Vehicle,
            vehicle_id: Some(v.id),
            ..spec
        };
        card(
            &mut tx,
            &actor,
            &format!("vehicle:{}", v.id),
            &spec,
            &holder,
        )
        .await?;
        cards_made += 1;
    }
    for d in drivers {
        let holder = Holder {
            plate_number: String::new(),
            driver_name: d.name.clone(),
        };
        let spec = CardSpec {
            holder_kind: HolderKind::Driver,
            driver_id: Some(d.id),
            budget_period: BudgetPeriod::Monthly,
            budget_limit_fen: 300_000,
            ..spec(&accounts, d.org_id, CardKind::Virtual, String::new())
        };
        card(&mut tx, &actor, &format!("driver:{}", d.id), &spec, &holder).await?;
        cards_made += 1;
    }
    tx.commit().await?;
    tracing::info!(cards = cards_made, "Demo charging data loaded.");
    Ok(())
}

/// The approved application, the OPENED state (announced to org) and MAIN
/// with its seeded balance.
async fn open(conn: &mut PgConnection, actor: &Actor) -> anyhow::Result<()> {
    let id = opening::insert(
        conn,
        &opening::NewApplication {
            enterprise_id: actor.enterprise_id,
            enterprise_name: TREE[0].2,
            applicant_id: actor.user_id,
            applicant_name: &actor.name,
            remark: "",
        },
    )
    .await?;
    opening::decide(
        conn,
        id,
        opening::Decision {
            status: ApplicationStatus::Approved,
            handler_name: OPERATOR_NAME,
            reject_reason: "",
            approve_remark: "",
        },
    )
    .await?;
    opening::set_state(conn, actor.enterprise_id, OpenState::Opened).await?;
    let main = fleetdesk_energy::accounts::store::open_main(conn, actor.enterprise_id, 0).await?;
    sqlx::query("update charging_account set org_id = $2 where id = $1 and org_id is null")
        .bind(main)
        .bind(org("a-root"))
        .execute(&mut *conn)
        .await?;
    ledger::top_up(
        conn,
        actor.enterprise_id,
        main,
        MAIN_BALANCE_FEN,
        "demo:seed",
        "演示初始余额",
    )
    .await?;
    fleetdesk_energy::accounts::store::add_received(
        conn,
        actor.enterprise_id,
        &[(main, MAIN_BALANCE_FEN)],
    )
    .await?;
    Ok(())
}

/// The organisation accounts of the demo tree, each allocated its money
/// from its parent: (org id, account id) in tree order.
async fn tree(conn: &mut PgConnection, actor: &Actor) -> anyhow::Result<Vec<(Uuid, Uuid)>> {
    let eid = actor.enterprise_id;
    let main = fleetdesk_energy::accounts::store::require_opened(conn, eid).await?;
    let mut accounts: Vec<(Uuid, Uuid, &str)> = vec![(org("a-root"), main, TREE[0].2)];
    for (key, parent, name, amount) in TREE.iter().skip(1) {
        let org_id = org(key);
        let id = ledger::open_account(conn, eid, ledger::AccountKind::Organization, Some(org_id))
            .await?;
        let (_, parent_account, parent_name) = *accounts
            .iter()
            .find(|a| Some(a.0) == parent.map(org))
            .ok_or_else(|| anyhow::anyhow!("demo tree out of order at {key}"))?;
        sqlx::query(
            "insert into charging_account (id, enterprise_id, kind, org_id, parent_id) \
             values ($1, $2, $3, $4, $5) on conflict (id) do nothing",
        )
        .bind(id)
        .bind(eid)
        .bind(i16::from(AccountKind::Organization))
        .bind(org_id)
        .bind(parent_account)
        .execute(&mut *conn)
        .await?;
        let transfer = Transfer::between(
            eid,
            TransferKind::Allocate,
            format!("demo:allocate:{key}"),
            parent_account,
            id,
            *amount,
        )
        .by(actor.user_id, &actor.name);
        let posted = ledger::transfer(conn, &transfer).await?;
        fleetdesk_energy::accounts::store::add_received(conn, eid, &[(id, *amount)]).await?;
        let side = |account: Uuid, org_id: Uuid, name: &str| Side {
            account_id: account,
            org_id: Some(org_id),
            org_name: name.to_owned(),
            balance_after_fen: posted.balance_after(account).unwrap_or_default(),
        };
        let parent_org = parent.map(org).unwrap_or_default();
        allocations::insert(
            conn,
            actor,
            &[NewAllocation {
                transfer_id: posted.transfer_id,
                direction: Direction::Allocate,
                from: &side(parent_account, parent_org, parent_name),
                to: &side(id, org_id, name),
                amount_fen: *amount,
                remark: "演示数据",
            }],
        )
        .await?;
        accounts.push((org_id, id, name));
    }
    Ok(accounts.into_iter().map(|(o, a, _)| (o, a)).collect())
}

/// A card of the organisation's account (MAIN's for an organisation the
/// demo tree does not name).
fn spec(accounts: &[(Uuid, Uuid)], org_id: Uuid, kind: CardKind, card_no: String) -> CardSpec {
    let (org_id, account_id) = accounts
        .iter()
        .find(|a| a.0 == org_id)
        .copied()
        .unwrap_or(accounts[0]);
    CardSpec {
        org_id,
        account_id,
        kind,
        card_no,
        holder_kind: HolderKind::Vehicle,
        vehicle_id: None,
        driver_id: None,
        budget_period: BudgetPeriod::None,
        budget_limit_fen: 0,
        per_session_limit_fen: 0,
        remark: String::new(),
        station_ids: Vec::new(),
    }
}

/// Issues a card and tops it up from its account, with the change record.
async fn card(
    conn: &mut PgConnection,
    actor: &Actor,
    key: &str,
    spec: &CardSpec,
    holder: &Holder,
) -> anyhow::Result<()> {
    let id = demo_id(&format!("card:{key}"));
    let mut spec = spec.clone();
    if spec.card_no.is_empty() {
        spec.card_no = fleetdesk_energy::cards::domain::virtual_card_no(id);
    }
    let eid = actor.enterprise_id;
    let ledger_account =
        ledger::open_account(conn, eid, ledger::AccountKind::Card, Some(id)).await?;
    cards::insert(conn, actor, id, ledger_account, &spec, holder).await?;
    let transfer = Transfer::between(
        eid,
        TransferKind::CardChange,
        format!("demo:card:{id}"),
        spec.account_id,
        ledger_account,
        CARD_BALANCE_FEN,
    )
    .by(actor.user_id, &actor.name);
    let posted = ledger::transfer(conn, &transfer).await?;
    let row = cards::get(conn, actor, id, false).await?;
    changes::record(
        conn,
        actor,
        &NewChange {
            card: &row,
            kind: ChangeKind::TopUp,
            amount_fen: CARD_BALANCE_FEN,
            balance_after_fen: posted.balance_after(ledger_account).unwrap_or_default(),
            transfer_id: posted.transfer_id,
            session_id: None,
            remark: "演示数据",
        },
    )
    .await?;
    Ok(())
}

//! Bills raised from other domains' events, each a durable JetStream
//! consumer applying an event id once (kit's `processed_event`), and each
//! bill raised once per source besides (`handlers::raise`), so an event
//! published again under a new id finds the first bill:
//!
//! - energy's `ReconciliationStatementConfirmed` → the month's CHARGING
//!   bill, its line linking the statement. The event carries the
//!   statement's total only (no parts), so the bill has one line; the
//!   statement is enterprise-wide, so the bill belongs to the root of the
//!   organisation tree (the nil organisation while the replica does not
//!   know the tree: then only callers reaching the whole enterprise see it).
//! - vehicle's `RepairBillIssued` → a REPAIR bill of the shop's
//!   organisation, its line linking vehicle's repair bill (which lists the
//!   repair orders of the statement).
//!
//! An event whose source was billed with another amount is logged and
//! dropped: redelivering it cannot change the answer.
//!
//! Rent instalments from vehicle's usage records have their own module
//! ([`super::rent`]): they need a schedule and a periodic tick.

use chrono::{DateTime, Utc};
use fleetdesk_kit::convert::datetime;
use fleetdesk_kit::reach::ResolvedReach;
use fleetdesk_kit::{ErrorCode, db, events, subjects};
use fleetdesk_proto::energy::v1::ReconciliationStatementConfirmed;
use fleetdesk_proto::vehicle::v1::RepairBillIssued;
use sqlx_postgres::{PgConnection, PgPool};
use uuid::Uuid;

use super::domain::{BillKind, Channel, Line, LineSource, NewBill, Source};
use super::{handlers, store};
use crate::calendar::Month;
use crate::context::Actor;

/// The consumers' names (with the schema and deployment, their durable names).
pub const STATEMENTS: &str = "charging-statements";
pub const REPAIRS: &str = "repair-bills";

/// The system acting for `enterprise_id` (a consumer's transaction is
/// service-scoped; it narrows to the tenant first).
pub(crate) async fn system(conn: &mut PgConnection, enterprise_id: Uuid) -> anyhow::Result<Actor> {
    db::enter_tenant(conn, enterprise_id).await?;
    Ok(Actor {
        enterprise_id,
        user_id: None,
        name: "系统".to_owned(),
        reach: ResolvedReach {
            all: true,
            org_ids: Vec::new(),
            own: None,
        },
        idempotency_key: None,
    })
}

/// Raises `new`; a conflicting raise of the same source is logged, not retried.
async fn raise_once(conn: &mut PgConnection, actor: &Actor, new: NewBill) -> anyhow::Result<()> {
    let source = format!("{}/{}", new.source.service, new.source.id);
    match handlers::raise(conn, actor, new).await {
        Ok(_) => Ok(()),
        Err(err) if matches!(err.code, ErrorCode::Conflict | ErrorCode::BadRequest) => {
            tracing::warn!(%source, error = %err.message, "Bill not raised from the event.");
            Ok(())
        }
        Err(err) => Err(anyhow::anyhow!("raise bill of {source}: {}", err.message)),
    }
}

fn one_line(description: String, amount_fen: i64, source: LineSource, source_id: &str) -> Line {
    Line {
        description,
        vehicle_id: None,
        plate_number: String::new(),
        period_start: None,
        period_end: None,
        quantity: 1,
        unit_price_fen: amount_fen,
        amount_fen,
        tax_rate_bp: 0,
        source,
        source_id: source_id.to_owned(),
    }
}

fn when(at: Option<&prost_types::Timestamp>) -> Option<DateTime<Utc>> {
    at.and_then(datetime)
}

/// Raises the CHARGING bill of confirmed charging statements.
#[derive(Debug, Clone, Copy)]
pub struct ConfirmedStatements;

impl events::Handler for ConfirmedStatements {
    type Event = ReconciliationStatementConfirmed;

    async fn handle(
        &self,
        tx: &mut PgConnection,
        event: ReconciliationStatementConfirmed,
    ) -> anyhow::Result<()> {
        let ReconciliationStatementConfirmed {
            statement_id,
            enterprise_id,
            statement_no,
            month,
            session_count,
            energy_wh,
            total_fen,
            confirmed_by: _,
            confirm_time,
        } = event;
        let (Ok(enterprise_id), Some(month)) = (
            Uuid::parse_str(&enterprise_id),
            month.and_then(|m| Month::new(m.year, m.month)),
        ) else {
            tracing::warn!(statement = %statement_id, "Confirmed statement without its enterprise or month ignored.");
            return Ok(());
        };
        let actor = system(tx, enterprise_id).await?;
        // Without a replicated tree the bill is the enterprise's alone
        // (seen by whoever reaches the whole enterprise).
        let org_id = store::root_org(tx, enterprise_id).await?.unwrap_or_else(|| {
            tracing::warn!(enterprise = %enterprise_id, "No replicated organisation tree: the charging bill has no organisation.");
            Uuid::nil()
        });
        let kwh = energy_wh / 1000;
        let new = NewBill {
            org_id,
            channel: Channel::Standard,
            kind: BillKind::Charging,
            title: format!("{} 充电费用", month.label()),
            period: month,
            order_id: None,
            lines: vec![one_line(
                format!("充电对账单 {statement_no}：{session_count} 次充电，{kwh} kWh"),
                total_fen,
                LineSource::ChargingStatement,
                &statement_id,
            )],
            discount_fen: 0,
            due_time: None,
            requires_confirmation: false,
            source: Source {
                service: "energy".to_owned(),
                id: statement_id,
            },
            attachments: serde_json::json!([]),
            remark: when(confirm_time.as_ref())
                .map(|t| format!("对账单确认于 {}", crate::calendar::day_of(t)))
                .unwrap_or_default(),
        };
        raise_once(tx, &actor, new).await
    }
}

/// Raises the REPAIR bill of issued repair bills.
#[derive(Debug, Clone, Copy)]
pub struct IssuedRepairBills;

impl events::Handler for IssuedRepairBills {
    type Event = RepairBillIssued;

    async fn handle(&self, tx: &mut PgConnection, event: RepairBillIssued) -> anyhow::Result<()> {
        let RepairBillIssued {
            bill_id,
            enterprise_id,
            bill_no,
            statement_id: _,
            statement_no,
            shop_id: _,
            shop_name,
            period,
            order_count,
            amount_fen,
            issued_time: _,
            due_time,
            org_id,
        } = event;
        let (Ok(enterprise_id), Ok(org_id), Some(month)) = (
            Uuid::parse_str(&enterprise_id),
            Uuid::parse_str(&org_id),
            period.and_then(|m| Month::new(m.year, m.month)),
        ) else {
            tracing::warn!(bill = %bill_id, "Repair bill without its enterprise, organisation or period ignored.");
            return Ok(());
        };
        let actor = system(tx, enterprise_id).await?;
        let new = NewBill {
            org_id,
            channel: Channel::Standard,
            kind: BillKind::Repair,
            title: format!("{} {shop_name} 维修费用", month.label()),
            period: month,
            order_id: None,
            lines: vec![one_line(
                format!("维修账单 {bill_no}（对账单 {statement_no}，{order_count} 张维修单）"),
                amount_fen,
                LineSource::RepairBill,
                &bill_id,
            )],
            discount_fen: 0,
            due_time: when(due_time.as_ref()),
            requires_confirmation: false,
            source: Source {
                service: "vehicle".to_owned(),
                id: bill_id,
            },
            attachments: serde_json::json!([]),
            remark: String::new(),
        };
        raise_once(tx, &actor, new).await
    }
}

/// The target's consumer of confirmed charging statements.
pub async fn statements(
    pool: PgPool,
    nats: async_nats::Client,
) -> anyhow::Result<events::Consumer<ConfirmedStatements>> {
    events::Consumer::new(
        pool,
        nats,
        STATEMENTS,
        subjects::ENERGY_STATEMENT_CONFIRMED,
        ConfirmedStatements,
    )
    .await
}

/// The target's consumer of issued repair bills.
pub async fn repairs(
    pool: PgPool,
    nats: async_nats::Client,
) -> anyhow::Result<events::Consumer<IssuedRepairBills>> {
    events::Consumer::new(
        pool,
        nats,
        REPAIRS,
        subjects::VEHICLE_REPAIR_BILL_ISSUED,
        IssuedRepairBills,
    )
    .await
}

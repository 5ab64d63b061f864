//! The price approval through org: accepting a quote above the threshold
//! asks org for an approval through the outbox (`ApprovalRequested`, once
//! per quote round), and the target's consumer of org's `ApprovalDecided`
//! moves the order on: approved → IN_REPAIR, rejected → AWAITING_QUOTE
//! (the shop quotes again: the price was refused, so the same quote cannot
//! be confirmed again), withdrawn → QUOTED. A decision about an order no
//! longer AWAITING_APPROVAL (cancelled meanwhile, a stale round) changes
//! nothing.

use fleetdesk_kit::actor::Actor;
use fleetdesk_kit::reach::ResolvedReach;
use fleetdesk_kit::{ServiceError, db, events, subjects};
use fleetdesk_proto::org::v1 as org;
use sqlx_postgres::{PgConnection, PgPool};
use uuid::Uuid;

use super::domain::{self, Move, State};
use super::store::{self, Change, OrderRow};

/// The domain the requests are published under.
const DOMAIN: &str = "vehicle";
/// The consumer's name (with the schema and deployment, its durable name).
pub const CONSUMER: &str = "repair-approvals";
/// Who the log names for a decision taken in org's approval centre.
const APPROVAL_CENTRE: &str = "审批中心";

/// Asks org for an approval of `row`'s quote (in the caller's transaction).
pub async fn request(
    conn: &mut PgConnection,
    actor: &Actor,
    row: &OrderRow,
    threshold_fen: i64,
) -> Result<(), ServiceError> {
    let content = format!(
        "车辆{}送修{}，维修厂：{}；报价合计{}，超过审批阈值{}。故障描述：{}",
        row.plate_number,
        row.order_no,
        row.shop_name,
        domain::yuan(row.quote_total_fen),
        domain::yuan(threshold_fen),
        row.fault_description
    );
    let request = org::ApprovalRequested {
        enterprise_id: actor.enterprise_id.to_string(),
        request_key: format!("repair-price:{}:{}", row.id, row.quote_round),
        kind: org::ApprovalKind::RepairPrice as i32,
        business_id: row.id.to_string(),
        applicant_id: actor.user_id.map(|u| u.to_string()).unwrap_or_default(),
        applicant_name: actor.name.clone(),
        title: format!("维修报价审批：{}（{}）", row.order_no, row.plate_number),
        content,
        organisation_id: row.org_id.to_string(),
        plate_number: row.plate_number.clone(),
    };
    events::enqueue(conn, &subjects::approval_requested(DOMAIN), &request).await?;
    Ok(())
}

/// What a decision does to an order AWAITING_APPROVAL.
fn outcome(status: i32) -> Option<Move> {
    match org::ApprovalStatus::try_from(status).ok()? {
        org::ApprovalStatus::Approved => Some(Move::Approved),
        org::ApprovalStatus::Rejected => Some(Move::Disapproved),
        org::ApprovalStatus::Withdrawn => Some(Move::Withdrawn),
        org::ApprovalStatus::Pending | org::ApprovalStatus::Unspecified => None,
    }
}

/// Applies one decision in `tx` (the consumer records its event id).
pub async fn apply(tx: &mut PgConnection, event: org::ApprovalDecided) -> anyhow::Result<()> {
    let org::ApprovalDecided {
        approval_id,
        enterprise_id,
        kind,
        business_id,
        status,
        operator_id,
    } = event;
    if kind != org::ApprovalKind::RepairPrice as i32 {
        return Ok(());
    }
    let (Ok(enterprise), Ok(order)) = (
        Uuid::parse_str(&enterprise_id),
        Uuid::parse_str(&business_id),
    ) else {
        tracing::warn!(approval = %approval_id, "Repair approval decision with a bad id ignored.");
        return Ok(());
    };
    let Some(action) = outcome(status) else {
        return Ok(());
    };
    db::enter_tenant(&mut *tx, enterprise).await?;
    let Some(row) = store::lock_for_service(tx, enterprise, order).await? else {
        tracing::warn!(approval = %approval_id, order = %order, "Repair approval decision of an unknown order ignored.");
        return Ok(());
    };
    let Ok(to) = row.state()?.apply(action) else {
        tracing::info!(approval = %approval_id, order = %order, "Repair approval decision of an order no longer awaiting it ignored.");
        return Ok(());
    };
    let actor = Actor {
        enterprise_id: enterprise,
        user_id: Uuid::parse_str(&operator_id).ok(),
        name: APPROVAL_CENTRE.to_owned(),
        reach: ResolvedReach {
            all: true,
            org_ids: Vec::new(),
            own: None,
        },
        idempotency_key: None,
    };
    let (change, remark) = match to {
        State::InRepair => (
            Change::Approved(&approval_id),
            format!(
                "报价审批通过，确认价格{}",
                domain::yuan(row.quote_total_fen)
            ),
        ),
        State::AwaitingQuote => (
            Change::Disapproved(&approval_id),
            "报价审批未通过，待维修厂重新报价".to_owned(),
        ),
        State::Quoted
        | State::AwaitingApproval
        | State::Completed
        | State::Settled
        | State::Cancelled => (Change::Nothing, "报价审批已撤回".to_owned()),
    };
    store::moved(tx, &actor, &row, to, change, &remark).await?;
    tracing::info!(approval = %approval_id, order = %order, state = i16::from(to), "Repair approval decision applied.");
    Ok(())
}

/// The target's handler of org's decisions.
#[derive(Debug, Clone, Copy)]
pub struct Decisions;

impl events::Handler for Decisions {
    type Event = org::ApprovalDecided;

    async fn handle(
        &self,
        tx: &mut PgConnection,
        event: org::ApprovalDecided,
    ) -> anyhow::Result<()> {
        apply(tx, event).await
    }
}

/// The target's durable consumer of org's approval decisions; `ensure` it
/// before serving (a new consumer starts with the events published from then on).
pub async fn consumer(
    pool: PgPool,
    nats: async_nats::Client,
) -> anyhow::Result<events::Consumer<Decisions>> {
    events::Consumer::new(
        pool,
        nats,
        CONSUMER,
        subjects::ORG_APPROVAL_DECIDED,
        Decisions,
    )
    .await
}

//! Allocation RPCs: allocate down to direct children, reclaim up to the
//! parent, the record list and its export. A move checks both sides (the
//! caller reaches them, they are parent and direct child, the receiving
//! and paying accounts are active), then posts one ledger transfer under
//! the request's key and writes one record row per child, all in one
//! transaction whose answer the key replays.

use fleetdesk_kit::idempotency::{self, Claim};
use fleetdesk_kit::list::Paging;
use fleetdesk_kit::{ServiceError, convert, db};
use fleetdesk_proto::energy::v1 as pb;
use std::collections::HashMap;

use sqlx_postgres::PgConnection;
use tonic::Request;
use uuid::Uuid;

use super::domain::{self, Direction};
use super::store::{self, NewAllocation, Side};
use super::{convert as to_pb, export};
use crate::accounts::domain::{AccountStatus, require_active};
use crate::accounts::{self, PERMISSION};
use crate::context::{Actor, Context};
use crate::ledger::{self, Leg, Transfer, TransferKind};
use crate::{exports, filters};

/// The accounts a move touches, each one the caller reaches.
async fn reached(
    conn: &mut PgConnection,
    actor: &Actor,
    ids: &[Uuid],
) -> Result<Vec<accounts::store::Brief>, ServiceError> {
    let briefs = accounts::store::briefs(conn, actor.enterprise_id, ids).await?;
    ids.iter()
        .map(|id| {
            briefs
                .iter()
                .find(|b| b.id == *id && actor.reach.sees(b.org_id, None))
                .copied()
                .ok_or_else(ServiceError::not_found)
        })
        .collect()
}

fn status(brief: &accounts::store::Brief) -> Result<AccountStatus, ServiceError> {
    crate::codes::known(brief.status)
}

/// Names of the accounts' organisations.
async fn names(
    conn: &mut PgConnection,
    briefs: &[accounts::store::Brief],
) -> Result<HashMap<Uuid, String>, ServiceError> {
    let orgs: Vec<Uuid> = briefs.iter().filter_map(|b| b.org_id).collect();
    accounts::store::org_names(conn, &orgs).await
}

/// The record sides of accounts after a posted transfer.
fn sides(
    briefs: &[accounts::store::Brief],
    names: &HashMap<Uuid, String>,
    posted: &ledger::Posted,
) -> Vec<Side> {
    briefs
        .iter()
        .map(|b| Side {
            account_id: b.id,
            org_id: b.org_id,
            org_name: b
                .org_id
                .and_then(|o| names.get(&o).cloned())
                .unwrap_or_default(),
            balance_after_fen: posted.balance_after(b.id).unwrap_or_default(),
        })
        .collect()
}

fn remark(remark: &str) -> Result<String, ServiceError> {
    let remark = remark.trim();
    if remark.chars().count() > 200 {
        return Err(ServiceError::invalid("remark", "备注不能超过 200 个字"));
    }
    Ok(remark.to_owned())
}

pub async fn allocate(
    ctx: &Context,
    req: Request<pb::AllocateBalanceRequest>,
) -> Result<pb::AllocateBalanceResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    accounts::store::require_opened(&mut tx, actor.enterprise_id).await?;
    let key = crate::context::money_key(&actor, &req.get_ref().idempotency_key)?;
    let request = req.into_inner();
    let reservation = match idempotency::claim::<pb::AllocateBalanceResponse>(
        &mut tx,
        actor.enterprise_id,
        "AllocateBalance",
        Some(key.clone()),
        &request,
    )
    .await?
    {
        Claim::Replay(answer) => return Ok(answer),
        Claim::Fresh(reservation) => reservation,
    };
    let from_id = convert::id(&request.from_account_id)?;
    let (targets, total) = domain::targets(&request.targets)?;
    let remark = remark(&request.remark)?;
    let mut ids = vec![from_id];
    ids.extend(targets.iter().map(|t| t.0));
    let briefs = reached(&mut tx, &actor, &ids).await?;
    let (from, children) = briefs.split_first().ok_or_else(ServiceError::not_found)?;
    if children.iter().any(|c| c.parent_id != Some(from.id)) {
        return Err(domain::not_a_child());
    }
    require_active(status(from)?, "转出账户")?;
    for child in children {
        require_active(status(child)?, "转入账户")?;
    }

    // Everything read before the transfer: from it to the commit the
    // source account's row is locked, and every move of it waits.
    let names = names(&mut tx, &briefs).await?;
    let mut from_row = accounts::store::get(&mut tx, &actor, from.id).await?;
    let mut legs = vec![Leg::debit(from.id, total)];
    legs.extend(targets.iter().map(|(id, amount)| Leg::credit(*id, *amount)));
    let transfer = Transfer {
        enterprise_id: actor.enterprise_id,
        kind: TransferKind::Allocate,
        key: format!("allocate:{key}"),
        legs,
        actor_id: actor.user_id,
        actor_name: actor.name.clone(),
        memo: remark.clone(),
    };
    let posted = ledger::transfer(&mut tx, &transfer).await?;
    accounts::store::add_received(&mut tx, actor.enterprise_id, &targets).await?;
    let sides = sides(&briefs, &names, &posted);
    let rows: Vec<NewAllocation<'_>> = targets
        .iter()
        .zip(&sides[1..])
        .map(|((_, amount_fen), to)| NewAllocation {
            transfer_id: posted.transfer_id,
            direction: Direction::Allocate,
            from: &sides[0],
            to,
            amount_fen: *amount_fen,
            remark: &remark,
        })
        .collect();
    let rows = store::insert(&mut tx, &actor, &rows).await?;
    from_row.balance_fen = posted
        .balance_after(from.id)
        .unwrap_or(from_row.balance_fen);
    let answer = pb::AllocateBalanceResponse {
        allocations: rows
            .into_iter()
            .map(|r| to_pb::allocation(r, actor.enterprise_id))
            .collect(),
        from_account: Some(accounts::convert::account(from_row, actor.enterprise_id)),
    };
    reservation.complete(&mut tx, &answer).await?;
    tx.commit().await?;
    Ok(answer)
}

pub async fn reclaim(
    ctx: &Context,
    req: Request<pb::ReclaimBalanceRequest>,
) -> Result<pb::ReclaimBalanceResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    accounts::store::require_opened(&mut tx, actor.enterprise_id).await?;
    let key = crate::context::money_key(&actor, &req.get_ref().idempotency_key)?;
    let request = req.into_inner();
    let reservation = match idempotency::claim::<pb::ReclaimBalanceResponse>(
        &mut tx,
        actor.enterprise_id,
        "ReclaimBalance",
        Some(key.clone()),
        &request,
    )
    .await?
    {
        Claim::Replay(answer) => return Ok(answer),
        Claim::Fresh(reservation) => reservation,
    };
    let child_id = convert::id(&request.from_account_id)?;
    if request.amount_fen <= 0 {
        return Err(ServiceError::invalid("amountFen", "回收金额必须大于 0"));
    }
    let remark = remark(&request.remark)?;
    let child = reached(&mut tx, &actor, &[child_id]).await?[0];
    let parent_id = child.parent_id.ok_or_else(domain::not_a_child)?;
    let parent = reached(&mut tx, &actor, &[parent_id]).await?[0];
    require_active(status(&parent)?, "上级账户")?;

    let names = names(&mut tx, &[child, parent]).await?;
    let transfer = Transfer::between(
        actor.enterprise_id,
        TransferKind::Reclaim,
        format!("reclaim:{key}"),
        child.id,
        parent.id,
        request.amount_fen,
    )
    .by(actor.user_id, &actor.name)
    .memo(&remark);
    let posted = ledger::transfer(&mut tx, &transfer).await?;
    let sides = sides(&[child, parent], &names, &posted);
    let row = NewAllocation {
        transfer_id: posted.transfer_id,
        direction: Direction::Reclaim,
        from: &sides[0],
        to: &sides[1],
        amount_fen: request.amount_fen,
        remark: &remark,
    };
    let row = store::insert(&mut tx, &actor, &[row]).await?.pop();
    let answer = pb::ReclaimBalanceResponse {
        allocation: row.map(|r| to_pb::allocation(r, actor.enterprise_id)),
    };
    reservation.complete(&mut tx, &answer).await?;
    tx.commit().await?;
    Ok(answer)
}

pub async fn list(
    ctx: &Context,
    req: Request<pb::ListBalanceAllocationsRequest>,
) -> Result<pb::ListBalanceAllocationsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    accounts::store::require_opened(&mut tx, actor.enterprise_id).await?;
    let paging = Paging::parse(req.get_ref().page.as_ref())?;
    let mut query = to_pb::query(req.get_ref())?;
    query.org_ids = filters::org_subtrees(&mut tx, query.org_ids).await?;
    let (rows, total) = store::list(&mut tx, &actor, &query, paging).await?;
    db::end_read(tx);
    Ok(pb::ListBalanceAllocationsResponse {
        allocations: rows
            .into_iter()
            .map(|r| to_pb::allocation(r, actor.enterprise_id))
            .collect(),
        page: Some(paging.info(total)),
    })
}

/// `ExportBalanceAllocations`: queues the export of the record's filter
/// under the caller's reach and answers the job at once.
pub async fn export(
    ctx: &Context,
    req: Request<pb::ExportBalanceAllocationsRequest>,
) -> Result<pb::ExportBalanceAllocationsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    accounts::store::require_opened(&mut tx, actor.enterprise_id).await?;
    let filter = req.into_inner().filter.unwrap_or_default();
    let job = exports::start(&mut tx, &actor, export::job(&filter)?).await?;
    tx.commit().await?;
    Ok(pb::ExportBalanceAllocationsResponse { job: Some(job) })
}

//! Charging-account RPCs: the main account, the tree, one account, its
//! threshold and status, and the tree's export.

use fleetdesk_kit::{ServiceError, db, reach};
use fleetdesk_proto::energy::v1 as pb;
use sqlx_postgres::PgConnection;
use tonic::Request;

use super::domain::{AccountKind, AccountStatus, settable_status};
use super::{PERMISSION, convert, export, store};
use crate::context::{Actor, Context};
use crate::exports;
use crate::filters;

pub async fn main(
    ctx: &Context,
    req: Request<pb::GetMainChargingAccountRequest>,
) -> Result<pb::GetMainChargingAccountResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let id = store::require_opened(&mut tx, actor.enterprise_id).await?;
    let row = store::get(&mut tx, &actor, id).await?;
    db::end_read(tx);
    Ok(pb::GetMainChargingAccountResponse {
        account: Some(convert::account(row, actor.enterprise_id)),
    })
}

/// The checked filter of the account list, organisations expanded.
pub async fn query(
    conn: &mut PgConnection,
    actor: &Actor,
    request: &pb::ListChargingAccountsRequest,
) -> Result<store::AccountQuery, ServiceError> {
    let pb::ListChargingAccountsRequest {
        root_account_id,
        direct_children_only,
        org_ids,
        statuses,
        low_balance_only,
    } = request;
    let root = match filters::optional_id(root_account_id)? {
        Some(id) => Some(store::get(conn, actor, id).await?),
        None => None,
    };
    let org_ids = filters::ids("orgIds", org_ids, "所选组织不存在")?;
    let mut query = store::AccountQuery {
        subtree_org_ids: None,
        parent_id: None,
        org_ids: filters::org_subtrees(conn, org_ids).await?,
        statuses: filters::codes("statuses", statuses, AccountStatus::from_pb)?,
        low_balance_only: *low_balance_only,
    };
    if let Some(root) = root {
        if *direct_children_only {
            query.parent_id = Some(root.id);
        } else {
            let mut subtree = match root.org_id {
                Some(org) => reach::subtrees(conn, &[org]).await?,
                None => Vec::new(),
            };
            subtree.extend(root.org_id);
            query.subtree_org_ids = Some(subtree);
        }
    }
    Ok(query)
}

pub async fn list(
    ctx: &Context,
    req: Request<pb::ListChargingAccountsRequest>,
) -> Result<pb::ListChargingAccountsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    store::require_opened(&mut tx, actor.enterprise_id).await?;
    store::sync_tree(&mut tx, actor.enterprise_id).await?;
    let query = query(&mut tx, &actor, req.get_ref()).await?;
    let rows = store::list(&mut tx, &actor, &query).await?;
    tx.commit().await?;
    Ok(pb::ListChargingAccountsResponse {
        accounts: rows
            .into_iter()
            .map(|r| convert::account(r, actor.enterprise_id))
            .collect(),
    })
}

pub async fn get(
    ctx: &Context,
    req: Request<pb::GetChargingAccountRequest>,
) -> Result<pb::GetChargingAccountResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    store::require_opened(&mut tx, actor.enterprise_id).await?;
    let id = fleetdesk_kit::convert::id(&req.get_ref().account_id)?;
    let row = store::get(&mut tx, &actor, id).await?;
    db::end_read(tx);
    Ok(pb::GetChargingAccountResponse {
        account: Some(convert::account(row, actor.enterprise_id)),
    })
}

pub async fn update(
    ctx: &Context,
    req: Request<pb::UpdateChargingAccountRequest>,
) -> Result<pb::UpdateChargingAccountResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    store::require_opened(&mut tx, actor.enterprise_id).await?;
    let pb::UpdateChargingAccountRequest {
        account_id,
        low_balance_threshold_fen,
        status,
    } = req.into_inner();
    let id = fleetdesk_kit::convert::id(&account_id)?;
    let row = store::get(&mut tx, &actor, id).await?;
    if low_balance_threshold_fen < 0 {
        return Err(ServiceError::invalid(
            "lowBalanceThresholdFen",
            "余额预警值不能为负数",
        ));
    }
    let kind: AccountKind = crate::codes::known(row.kind)?;
    let status = settable_status(kind, AccountStatus::from_pb(status))?;
    store::update(&mut tx, &actor, id, low_balance_threshold_fen, status).await?;
    let row = store::get(&mut tx, &actor, id).await?;
    tx.commit().await?;
    Ok(pb::UpdateChargingAccountResponse {
        account: Some(convert::account(row, actor.enterprise_id)),
    })
}

/// `ExportChargingAccounts`: queues the export of the tree's filter under
/// the caller's reach and answers the job at once.
pub async fn export(
    ctx: &Context,
    req: Request<pb::ExportChargingAccountsRequest>,
) -> Result<pb::ExportChargingAccountsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    store::require_opened(&mut tx, actor.enterprise_id).await?;
    let filter = req.into_inner().filter.unwrap_or_default();
    query(&mut tx, &actor, &filter).await?;
    let job = exports::start(&mut tx, &actor, export::job(&filter)).await?;
    tx.commit().await?;
    Ok(pb::ExportChargingAccountsResponse { job: Some(job) })
}

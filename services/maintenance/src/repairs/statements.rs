//! Statement and bill RPCs: the lists, the details, confirming (which
//! raises the bill, `settle::confirmed`) or disputing a statement.

use fleetdesk_kit::convert::id;
use fleetdesk_kit::list::Paging;
use fleetdesk_kit::{ErrorCode, ServiceError, db};
use fleetdesk_proto::vehicle::v1 as pb;
use tonic::Request;

use super::domain::{self, StatementState};
use super::handlers::logs;
use super::settle::{self, STATEMENT_LOG};
use super::{PERMISSION, convert, export, store};
use crate::context::{Actor, Context};
use crate::exports;
use fleetdesk_kit::codes::known;

pub async fn list(
    ctx: &Context,
    req: Request<pb::ListRepairStatementsRequest>,
) -> Result<pb::ListRepairStatementsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin_list(&ctx.pool, &req, PERMISSION).await?;
    let message = req.into_inner();
    let paging = Paging::parse(message.page.as_ref())?;
    let query = convert::statement_filter(&message)?;
    let (rows, count) = settle::statements(&mut tx, &actor, &query, Some(paging)).await?;
    db::end_read(tx);
    Ok(pb::ListRepairStatementsResponse {
        statements: rows
            .into_iter()
            .map(|row| convert::statement(row, actor.enterprise_id, &[]))
            .collect::<Result<_, _>>()?,
        page: Some(paging.info(count)),
    })
}

/// A statement with its order ids, as the wire's.
async fn full(
    conn: &mut sqlx_postgres::PgConnection,
    actor: &Actor,
    row: settle::StatementRow,
) -> Result<pb::RepairStatement, ServiceError> {
    let orders = settle::order_ids(conn, row.id).await?;
    convert::statement(row, actor.enterprise_id, &orders)
}

pub async fn get(
    ctx: &Context,
    req: Request<pb::GetRepairStatementRequest>,
) -> Result<pb::GetRepairStatementResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::GetRepairStatementRequest { statement_id } = req.into_inner();
    let row = settle::statement(&mut tx, &actor, id(&statement_id)?, false).await?;
    // The statement's orders whatever the caller's reach: the statement is the supplier's.
    let everyone = Actor {
        reach: fleetdesk_kit::reach::ResolvedReach {
            all: true,
            org_ids: Vec::new(),
            own: None,
        },
        ..actor.clone()
    };
    let orders = store::list(
        &mut tx,
        &everyone,
        &store::OrderQuery {
            statement_id: Some(row.id),
            ..Default::default()
        },
        Paging { page: 1, size: 100 },
    )
    .await?
    .0;
    let entries = logs(&mut tx, &actor, STATEMENT_LOG, row.id).await?;
    let statement = full(&mut tx, &actor, row).await?;
    db::end_read(tx);
    Ok(pb::GetRepairStatementResponse {
        statement: Some(statement),
        orders: orders
            .into_iter()
            .map(|o| convert::order(o, actor.enterprise_id))
            .collect::<Result<_, _>>()?,
        logs: entries,
    })
}

pub async fn confirm(
    ctx: &Context,
    req: Request<pb::ConfirmRepairStatementRequest>,
) -> Result<pb::ConfirmRepairStatementResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::ConfirmRepairStatementRequest {
        statement_id,
        accepted,
        expected_total_fen,
        dispute_reason,
    } = req.into_inner();
    let row = settle::statement(&mut tx, &actor, id(&statement_id)?, true).await?;
    let state: StatementState = known(row.state)?;
    if accepted {
        state.confirm()?;
        if expected_total_fen != row.total_fen {
            return Err(ServiceError::new(
                ErrorCode::Conflict,
                "对账单金额已变更，请刷新后重新确认",
            ));
        }
        settle::confirmed(&mut tx, &actor, &row).await?;
    } else {
        state.dispute()?;
        let reason = domain::required("disputeReason", "异议原因", &dispute_reason)?;
        settle::disputed(&mut tx, &actor, &row, &reason).await?;
    }
    let row = settle::statement(&mut tx, &actor, row.id, false).await?;
    let statement = full(&mut tx, &actor, row).await?;
    tx.commit().await?;
    Ok(pb::ConfirmRepairStatementResponse {
        statement: Some(statement),
    })
}

pub async fn export(
    ctx: &Context,
    req: Request<pb::ExportRepairStatementsRequest>,
) -> Result<pb::ExportRepairStatementsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::ExportRepairStatementsRequest { filter } = req.into_inner();
    let job = exports::start(
        &mut tx,
        &actor,
        export::statements_job(&filter.unwrap_or_default())?,
    )
    .await?;
    tx.commit().await?;
    Ok(pb::ExportRepairStatementsResponse { job: Some(job) })
}

pub async fn list_bills(
    ctx: &Context,
    req: Request<pb::ListRepairBillsRequest>,
) -> Result<pb::ListRepairBillsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin_list(&ctx.pool, &req, PERMISSION).await?;
    let message = req.into_inner();
    let paging = Paging::parse(message.page.as_ref())?;
    let query = convert::bill_filter(&message)?;
    let (rows, (count, amount, outstanding)) =
        settle::bills(&mut tx, &actor, &query, Some(paging)).await?;
    db::end_read(tx);
    Ok(pb::ListRepairBillsResponse {
        bills: rows
            .into_iter()
            .map(|row| convert::bill(row, actor.enterprise_id))
            .collect::<Result<_, _>>()?,
        page: Some(paging.info(count)),
        total_amount_fen: amount,
        total_outstanding_fen: outstanding,
    })
}

pub async fn get_bill(
    ctx: &Context,
    req: Request<pb::GetRepairBillRequest>,
) -> Result<pb::GetRepairBillResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::GetRepairBillRequest { repair_bill_id } = req.into_inner();
    let bill = settle::bill(&mut tx, &actor, id(&repair_bill_id)?).await?;
    let statement = settle::statement(&mut tx, &actor, bill.statement_id, false).await?;
    let statement = full(&mut tx, &actor, statement).await?;
    db::end_read(tx);
    Ok(pb::GetRepairBillResponse {
        bill: Some(convert::bill(bill, actor.enterprise_id)?),
        statement: Some(statement),
    })
}

pub async fn export_bills(
    ctx: &Context,
    req: Request<pb::ExportRepairBillsRequest>,
) -> Result<pb::ExportRepairBillsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::ExportRepairBillsRequest { filter } = req.into_inner();
    let job = exports::start(
        &mut tx,
        &actor,
        export::bills_job(&filter.unwrap_or_default())?,
    )
    .await?;
    tx.commit().await?;
    Ok(pb::ExportRepairBillsResponse { job: Some(job) })
}

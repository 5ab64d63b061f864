//! Statement RPCs: list, get (by id or month), card lines, generate (a
//! draft now, or a closed month's statement), confirm or dispute (once,
//! announced to finance through the outbox) and the list's export.

use fleetdesk_kit::convert::{id, timestamp};
use fleetdesk_kit::list::Paging;
use fleetdesk_kit::{ErrorCode, ServiceError, db, events, grpc, subjects};
use fleetdesk_proto::energy::v1 as pb;
use tonic::Request;

use super::domain::{self, StatementStatus};
use super::store::{self, StatementRow};
use super::{PERMISSION, build, convert, export};
use crate::calendar::Month;
use crate::context::{Actor, Context};
use crate::{accounts, exports, filters};

pub async fn list(
    ctx: &Context,
    req: Request<pb::ListReconciliationStatementsRequest>,
) -> Result<pb::ListReconciliationStatementsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    accounts::store::require_opened(&mut tx, actor.enterprise_id).await?;
    let paging = Paging::parse(req.get_ref().page.as_ref())?;
    let query = convert::query(req.get_ref())?;
    let rows = store::list(&mut tx, actor.enterprise_id, &query, paging).await?;
    let total = store::count(&mut tx, actor.enterprise_id, &query).await?;
    let lines = store::org_lines(&mut tx, &convert::ids(&rows), &actor.reach).await?;
    db::end_read(tx);
    Ok(pb::ListReconciliationStatementsResponse {
        statements: rows
            .into_iter()
            .map(|r| convert::statement(r, &lines, &actor.reach))
            .collect(),
        page: Some(paging.info(total)),
    })
}

/// A statement as the caller sees it (its lines read under their reach).
async fn seen(
    conn: &mut sqlx_postgres::PgConnection,
    actor: &Actor,
    row: StatementRow,
) -> Result<pb::ReconciliationStatement, ServiceError> {
    let lines = store::org_lines(conn, &[row.id], &actor.reach).await?;
    Ok(convert::statement(row, &lines, &actor.reach))
}

pub async fn get(
    ctx: &Context,
    req: Request<pb::GetReconciliationStatementRequest>,
) -> Result<pb::GetReconciliationStatementResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    accounts::store::require_opened(&mut tx, actor.enterprise_id).await?;
    let r = req.get_ref();
    let row = match (r.statement_id.trim(), r.month.as_ref()) {
        ("", Some(month)) => {
            let month = Month::parse("month", Some(month))?;
            store::of_month(&mut tx, actor.enterprise_id, month)
                .await?
                .ok_or_else(|| ServiceError::new(ErrorCode::NotFound, "该月对账单尚未生成"))?
        }
        (statement_id, None) if !statement_id.is_empty() => {
            store::get(&mut tx, actor.enterprise_id, id(statement_id)?).await?
        }
        _ => {
            return Err(ServiceError::invalid(
                "statementId",
                "请指定对账单编号或月份中的一项",
            ));
        }
    };
    let statement = seen(&mut tx, &actor, row).await?;
    db::end_read(tx);
    Ok(pb::GetReconciliationStatementResponse {
        statement: Some(statement),
    })
}

pub async fn card_lines(
    ctx: &Context,
    req: Request<pb::ListReconciliationCardLinesRequest>,
) -> Result<pb::ListReconciliationCardLinesResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    accounts::store::require_opened(&mut tx, actor.enterprise_id).await?;
    let r = req.get_ref();
    let paging = Paging::parse(r.page.as_ref())?;
    let mut query = convert::card_line_query(r)?;
    query.org_ids = filters::org_subtrees(&mut tx, query.org_ids).await?;
    let statement = store::get(&mut tx, actor.enterprise_id, id(&r.statement_id)?).await?;
    let (rows, total) =
        store::card_lines(&mut tx, &statement, &actor.reach, &query, paging).await?;
    db::end_read(tx);
    Ok(pb::ListReconciliationCardLinesResponse {
        lines: rows.into_iter().map(convert::card_line).collect(),
        page: Some(paging.info(total)),
    })
}

pub async fn generate(
    ctx: &Context,
    req: Request<pb::GenerateReconciliationStatementRequest>,
) -> Result<pb::GenerateReconciliationStatementResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    accounts::store::require_opened(&mut tx, actor.enterprise_id).await?;
    db::end_read(tx);
    let month = Month::parse("month", req.get_ref().month.as_ref())?;
    // Operator tools call as a service: they may reissue a disputed statement.
    let operator = grpc::caller(&req)?.is_service();
    let row = build::build(&ctx.pool, &ctx.files, actor.enterprise_id, month, operator).await?;
    let mut tx = db::begin_tenant(&ctx.pool, actor.enterprise_id).await?;
    let statement = seen(&mut tx, &actor, row).await?;
    db::end_read(tx);
    Ok(pb::GenerateReconciliationStatementResponse {
        statement: Some(statement),
    })
}

pub async fn confirm(
    ctx: &Context,
    req: Request<pb::ConfirmReconciliationStatementRequest>,
) -> Result<pb::ConfirmReconciliationStatementResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    accounts::store::require_opened(&mut tx, actor.enterprise_id).await?;
    let r = req.get_ref();
    let row = store::lock(&mut tx, actor.enterprise_id, id(&r.statement_id)?).await?;
    let status: StatementStatus = crate::codes::known(row.status)?;
    let decision = domain::decide(
        status,
        actor.reach.all,
        row.figures.total_fen,
        r.expected_total_fen,
        r.accepted,
        &r.dispute_reason,
    )?;
    let next = if decision.accepted {
        StatementStatus::Confirmed
    } else {
        StatementStatus::Disputed
    };
    store::decide(
        &mut tx,
        row.id,
        next,
        actor.user_id,
        &actor.name,
        &decision.dispute_reason,
    )
    .await?;
    let month = Month::from_code(row.month).map(Month::to_pb);
    let now = Some(timestamp(chrono::Utc::now()));
    let by = actor.user_id.map(|u| u.to_string()).unwrap_or_default();
    if decision.accepted {
        let event = pb::ReconciliationStatementConfirmed {
            statement_id: row.id.to_string(),
            enterprise_id: row.enterprise_id.to_string(),
            statement_no: row.statement_no.clone(),
            month,
            session_count: row.figures.session_count,
            energy_wh: row.figures.energy_wh,
            total_fen: row.figures.total_fen,
            confirmed_by: by,
            confirm_time: now,
        };
        events::enqueue(&mut tx, subjects::ENERGY_STATEMENT_CONFIRMED, &event).await?;
    } else {
        let event = pb::ReconciliationStatementDisputed {
            statement_id: row.id.to_string(),
            enterprise_id: row.enterprise_id.to_string(),
            statement_no: row.statement_no.clone(),
            month,
            dispute_reason: decision.dispute_reason.clone(),
            disputed_by: by,
            dispute_time: now,
        };
        events::enqueue(&mut tx, subjects::ENERGY_STATEMENT_DISPUTED, &event).await?;
    }
    let row = store::get(&mut tx, actor.enterprise_id, row.id).await?;
    let statement = seen(&mut tx, &actor, row).await?;
    tx.commit().await?;
    tracing::info!(statement = %statement.id, accepted = decision.accepted, "Statement decided.");
    Ok(pb::ConfirmReconciliationStatementResponse {
        statement: Some(statement),
    })
}

pub async fn export(
    ctx: &Context,
    req: Request<pb::ExportReconciliationStatementsRequest>,
) -> Result<pb::ExportReconciliationStatementsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    accounts::store::require_opened(&mut tx, actor.enterprise_id).await?;
    let filter = req.into_inner().filter.unwrap_or_default();
    let job = exports::start(&mut tx, &actor, export::job(&filter)?).await?;
    tx.commit().await?;
    Ok(pb::ExportReconciliationStatementsResponse { job: Some(job) })
}

//! Opening RPCs: the state, applying, the application list and its
//! export, and the operator's approve and reject.

use fleetdesk_kit::list::Paging;
use fleetdesk_kit::{ErrorCode, ServiceError, convert, db, grpc};
use fleetdesk_proto::energy::v1 as pb;
use tonic::Request;

use super::domain::{self, ApplicationStatus, OpenState, PERMISSION};
use super::{convert as to_pb, export, store};
use crate::accounts;
use crate::context::{Actor, Context};
use crate::exports;

pub async fn status(
    ctx: &Context,
    req: Request<pb::GetChargingOpenStatusRequest>,
) -> Result<pb::GetChargingOpenStatusResponse, ServiceError> {
    // The blacklist flag is a courtesy here (applying checks it for real):
    // org being unreachable must not hide the state.
    let enterprise = super::org::enterprise(ctx, grpc::tenant(&req)?)
        .await
        .unwrap_or_else(|e| {
            tracing::warn!(error = %e, "Enterprise flags not read; blacklist shown as off.");
            super::org::Enterprise::default()
        });
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let state = store::state(&mut tx, actor.enterprise_id).await?;
    let latest = store::latest(&mut tx, actor.enterprise_id).await?;
    db::end_read(tx);
    Ok(pb::GetChargingOpenStatusResponse {
        state: state.pb(),
        latest_application: latest.map(to_pb::application),
        blacklisted: enterprise.charge_blacklisted,
    })
}

pub async fn apply(
    ctx: &Context,
    req: Request<pb::ApplyChargingOpenRequest>,
) -> Result<pb::ApplyChargingOpenResponse, ServiceError> {
    let enterprise = super::org::enterprise(ctx, grpc::tenant(&req)?).await?;
    if enterprise.charge_blacklisted {
        return Err(ServiceError::new(
            ErrorCode::Forbidden,
            "贵企业暂不支持开通充电服务，请联系客服",
        ));
    }
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let remark = req.get_ref().remark.trim().to_owned();
    if remark.chars().count() > domain::REMARK_MAX {
        return Err(ServiceError::invalid("remark", "备注不能超过 200 个字"));
    }
    let state = store::lock_state(&mut tx, actor.enterprise_id).await?;
    if let Some(refused) = domain::refuse_application(state) {
        return Err(refused);
    }
    let id = store::insert(
        &mut tx,
        &store::NewApplication {
            enterprise_id: actor.enterprise_id,
            enterprise_name: &enterprise.name,
            applicant_id: actor.user_id,
            applicant_name: &actor.name,
            remark: &remark,
        },
    )
    .await?;
    store::set_state(&mut tx, actor.enterprise_id, OpenState::Applying).await?;
    let row = store::get(&mut tx, id).await?;
    tx.commit().await?;
    tracing::info!(enterprise = %actor.enterprise_id, application = %id, "Charging applied for.");
    Ok(pb::ApplyChargingOpenResponse {
        application: Some(to_pb::application(row)),
    })
}

pub async fn list(
    ctx: &Context,
    req: Request<pb::ListChargingOpenApplicationsRequest>,
) -> Result<pb::ListChargingOpenApplicationsResponse, ServiceError> {
    let operator = domain::is_operator(&req);
    let request = req.get_ref();
    let paging = Paging::parse(request.page.as_ref())?;
    let mut query = to_pb::query(request)?;
    let enterprise_id = request.enterprise_id.clone();
    let mut tx = if operator {
        if !enterprise_id.trim().is_empty() {
            query.enterprise_id = Some(convert::id(&enterprise_id)?);
        }
        db::begin_service(&ctx.pool).await?
    } else {
        // An enterprise sees its own applications only, whatever it asks.
        let (actor, tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
        query.enterprise_id = Some(actor.enterprise_id);
        tx
    };
    let (rows, total) = store::list(&mut tx, &query, paging).await?;
    db::end_read(tx);
    Ok(pb::ListChargingOpenApplicationsResponse {
        applications: rows.into_iter().map(to_pb::application).collect(),
        page: Some(paging.info(total)),
    })
}

/// `ExportChargingOpenApplications`: queues the export of the caller's own
/// applications under the list's filter and answers the job at once. The
/// operator, who acts for no enterprise, has no export record to keep it.
pub async fn export(
    ctx: &Context,
    req: Request<pb::ExportChargingOpenApplicationsRequest>,
) -> Result<pb::ExportChargingOpenApplicationsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let filter = req.into_inner().filter.unwrap_or_default();
    let job = exports::start(&mut tx, &actor, export::job(&filter)?).await?;
    tx.commit().await?;
    Ok(pb::ExportChargingOpenApplicationsResponse { job: Some(job) })
}

/// The application `id` locked with its enterprise's state, refused when
/// already decided. Operator only; a service-scoped transaction.
async fn open_application(
    ctx: &Context,
    application_id: &str,
) -> Result<
    (
        store::ApplicationRow,
        sqlx::Transaction<'static, sqlx_postgres::Postgres>,
    ),
    ServiceError,
> {
    let id = convert::id(application_id)?;
    let mut tx = db::begin_service(&ctx.pool).await?;
    let row = store::get(&mut tx, id).await?;
    // The state row first: the applicant's transaction takes it first too.
    store::lock_state(&mut tx, row.enterprise_id).await?;
    let row = store::get(&mut tx, id).await?;
    let status: ApplicationStatus = crate::codes::known(row.status)?;
    if !status.is_open() {
        return Err(domain::already_decided());
    }
    Ok((row, tx))
}

pub async fn approve(
    ctx: &Context,
    req: Request<pb::ApproveChargingOpenApplicationRequest>,
) -> Result<pb::ApproveChargingOpenApplicationResponse, ServiceError> {
    domain::require_operator(&req)?;
    let pb::ApproveChargingOpenApplicationRequest {
        application_id,
        credit_limit_fen,
        remark,
    } = req.into_inner();
    if credit_limit_fen < 0 {
        return Err(ServiceError::invalid(
            "creditLimitFen",
            "授信额度不能为负数",
        ));
    }
    let remark = remark.trim();
    if remark.chars().count() > domain::REMARK_MAX {
        return Err(ServiceError::invalid("remark", "备注不能超过 200 个字"));
    }
    let (row, mut tx) = open_application(ctx, &application_id).await?;
    let enterprise_id = row.enterprise_id;
    let main = accounts::store::open_main(&mut tx, enterprise_id, credit_limit_fen).await?;
    store::decide(
        &mut tx,
        row.id,
        store::Decision {
            status: ApplicationStatus::Approved,
            handler_name: domain::OPERATOR_NAME,
            reject_reason: "",
            approve_remark: remark,
        },
    )
    .await?;
    store::set_state(&mut tx, enterprise_id, OpenState::Opened).await?;
    let row = store::get(&mut tx, row.id).await?;
    let account = accounts::store::get_any(&mut tx, enterprise_id, main).await?;
    tx.commit().await?;
    tracing::info!(enterprise = %enterprise_id, application = %row.id, "Charging opened.");
    Ok(pb::ApproveChargingOpenApplicationResponse {
        application: Some(to_pb::application(row)),
        main_account: Some(accounts::convert::account(account, enterprise_id)),
    })
}

pub async fn reject(
    ctx: &Context,
    req: Request<pb::RejectChargingOpenApplicationRequest>,
) -> Result<pb::RejectChargingOpenApplicationResponse, ServiceError> {
    domain::require_operator(&req)?;
    let pb::RejectChargingOpenApplicationRequest {
        application_id,
        reason,
    } = req.into_inner();
    let reason = reason.trim();
    if reason.is_empty() || reason.chars().count() > 200 {
        return Err(ServiceError::invalid(
            "reason",
            "请填写 200 字以内的驳回原因",
        ));
    }
    let (row, mut tx) = open_application(ctx, &application_id).await?;
    store::decide(
        &mut tx,
        row.id,
        store::Decision {
            status: ApplicationStatus::Rejected,
            handler_name: domain::OPERATOR_NAME,
            reject_reason: reason,
            approve_remark: "",
        },
    )
    .await?;
    store::set_state(&mut tx, row.enterprise_id, OpenState::NotOpened).await?;
    let row = store::get(&mut tx, row.id).await?;
    tx.commit().await?;
    Ok(pb::RejectChargingOpenApplicationResponse {
        application: Some(to_pb::application(row)),
    })
}

//! Sensitive-data RPCs: reveal (value and audit in one transaction), record
//! another service's reveal, and read the audit.

use fleetdesk_kit::{ServiceError, convert as kit_convert, db, grpc};
use fleetdesk_proto::org::v1 as pb;
use tonic::Request;

use super::domain::MAX_TEXT;
use super::store::{self, View};
use super::{PERM_SENSITIVE, convert};
use crate::context::{self, Context};
use crate::validate::limit;

pub async fn reveal(
    ctx: &Context,
    request: Request<pb::RevealSensitiveRequest>,
) -> Result<pb::RevealSensitiveResponse, ServiceError> {
    grpc::require_permission(&request, PERM_SENSITIVE)?;
    let actor = context::actor(&request)?;
    let viewer = context::member(&actor)?;
    let pb::RevealSensitiveRequest {
        sensitive_type,
        subject_kind,
        subject_id,
        page_url,
        source_module,
        ip,
    } = request.into_inner();
    let kind = convert::sensitive_type(sensitive_type)?;
    let subject = convert::reveal_subject(subject_kind)?;
    let subject_id = kit_convert::id(&subject_id)?;
    let (page_url, module) = (page_url.trim(), source_module.trim());
    limit("pageUrl", page_url, MAX_TEXT)?;
    limit("sourceModule", module, MAX_TEXT)?;

    let mut tx = db::begin_tenant(&ctx.pool, actor.enterprise_id).await?;
    let value = store::value_of(&mut tx, actor.enterprise_id, subject, subject_id, kind).await?;
    let viewer_name = context::member_name(&mut tx, &actor).await?;
    let log_id = store::write_log(
        &mut tx,
        View {
            enterprise_id: actor.enterprise_id,
            viewer,
            viewer_name: &viewer_name,
            kind,
            subject,
            subject_id,
            value: &value,
            page_url,
            module,
            ip: ip.trim(),
        },
    )
    .await?;
    // The value leaves only once its audit row is durable.
    tx.commit().await?;
    tracing::info!(%log_id, sensitive_type = kind.pb(), %subject_id, "Sensitive value revealed.");
    Ok(pb::RevealSensitiveResponse {
        value,
        needs_confirmation: kind.is_image(),
        log_id: log_id.to_string(),
    })
}

/// The audit of a value another service revealed (a driver's): written and
/// committed before the gateway lets the value out.
pub async fn record(
    ctx: &Context,
    request: Request<pb::RecordSensitiveViewRequest>,
) -> Result<pb::RecordSensitiveViewResponse, ServiceError> {
    grpc::require_permission(&request, PERM_SENSITIVE)?;
    let actor = context::actor(&request)?;
    let viewer = context::member(&actor)?;
    let pb::RecordSensitiveViewRequest {
        sensitive_type,
        subject_kind,
        subject_id,
        value,
        page_url,
        source_module,
        ip,
    } = request.into_inner();
    let kind = convert::sensitive_type(sensitive_type)?;
    let subject = convert::recorded_subject(subject_kind)?;
    let subject_id = kit_convert::id(&subject_id)?;
    let (page_url, module) = (page_url.trim(), source_module.trim());
    limit("pageUrl", page_url, MAX_TEXT)?;
    limit("sourceModule", module, MAX_TEXT)?;
    let mut tx = db::begin_tenant(&ctx.pool, actor.enterprise_id).await?;
    let viewer_name = context::member_name(&mut tx, &actor).await?;
    let log_id = store::write_log(
        &mut tx,
        View {
            enterprise_id: actor.enterprise_id,
            viewer,
            viewer_name: &viewer_name,
            kind,
            subject,
            subject_id,
            value: &value,
            page_url,
            module,
            ip: ip.trim(),
        },
    )
    .await?;
    tx.commit().await?;
    tracing::info!(%log_id, sensitive_type = kind.pb(), %subject_id, "Sensitive value recorded.");
    Ok(pb::RecordSensitiveViewResponse {
        needs_confirmation: kind.is_image(),
        log_id: log_id.to_string(),
    })
}

pub async fn list_logs(
    ctx: &Context,
    request: Request<pb::ListSensitiveViewLogsRequest>,
) -> Result<pb::ListSensitiveViewLogsResponse, ServiceError> {
    grpc::require_permission(&request, PERM_SENSITIVE)?;
    let actor = context::actor(&request)?;
    let pb::ListSensitiveViewLogsRequest {
        page,
        sensitive_type,
    } = request.into_inner();
    let kind = match sensitive_type {
        0 => None,
        t => Some(convert::sensitive_type(t)?),
    };
    let (page, size) = kit_convert::page(page.as_ref());
    let mut tx = db::begin_tenant(&ctx.pool, actor.enterprise_id).await?;
    let (rows, total) = store::logs(&mut tx, actor.enterprise_id, kind, (page, size)).await?;
    tx.commit().await?;
    Ok(pb::ListSensitiveViewLogsResponse {
        logs: rows.into_iter().map(convert::log).collect(),
        page: Some(kit_convert::page_info(page, size, total)),
    })
}

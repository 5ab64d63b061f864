//! Export record RPCs: the member's list and detail within their reach,
//! and a requested export recorded as PENDING.

use fleetdesk_kit::{ServiceError, convert as kit_convert, db};
use fleetdesk_proto::org::v1 as pb;
use tonic::Request;

use super::convert;
use super::domain::MAX_NAME;
use super::store::{self, NewRecord, RecordFilter};
use crate::context::{self, Context};
use crate::validate::limit;

pub async fn list(
    ctx: &Context,
    request: Request<pb::ListExportRecordsRequest>,
) -> Result<pb::ListExportRecordsResponse, ServiceError> {
    let mut actor = context::actor(&request)?;
    let pb::ListExportRecordsRequest {
        page,
        module,
        status,
    } = request.into_inner();
    let (page, size) = kit_convert::page(page.as_ref());
    let filter = RecordFilter {
        module: module.trim(),
        status: convert::status_filter(status)?,
    };
    let mut tx = db::begin_tenant(&ctx.pool, actor.enterprise_id).await?;
    context::resolve(&mut tx, &mut actor).await?;
    let (rows, total) = store::page(
        &mut tx,
        actor.enterprise_id,
        &actor.reach,
        &filter,
        (page, size),
    )
    .await?;
    tx.commit().await?;
    Ok(pb::ListExportRecordsResponse {
        records: rows.into_iter().map(convert::record).collect(),
        page: Some(kit_convert::page_info(page, size, total)),
    })
}

pub async fn get(
    ctx: &Context,
    request: Request<pb::GetExportRecordRequest>,
) -> Result<pb::GetExportRecordResponse, ServiceError> {
    let mut actor = context::actor(&request)?;
    let id = kit_convert::id(&request.get_ref().id)?;
    let mut tx = db::begin_tenant(&ctx.pool, actor.enterprise_id).await?;
    context::resolve(&mut tx, &mut actor).await?;
    let row = store::get(&mut tx, actor.enterprise_id, &actor.reach, id)
        .await?
        .ok_or_else(ServiceError::not_found)?;
    tx.commit().await?;
    let record = convert::record(row);
    Ok(pb::GetExportRecordResponse {
        download_url: convert::download_url(&record),
        record: Some(record),
    })
}

/// Records a requested export as PENDING, for the job to pick up.
pub async fn create(
    ctx: &Context,
    request: Request<pb::CreateExportRecordRequest>,
) -> Result<pb::CreateExportRecordResponse, ServiceError> {
    let actor = context::actor(&request)?;
    let pb::CreateExportRecordRequest {
        name,
        module,
        filters_json,
    } = request.into_inner();
    let (name, module) = (name.trim(), module.trim());
    if name.is_empty() {
        return Err(ServiceError::invalid("name", "请输入导出名称"));
    }
    if module.is_empty() {
        return Err(ServiceError::invalid("module", "请输入导出模块"));
    }
    limit("name", name, MAX_NAME)?;
    limit("module", module, MAX_NAME)?;
    let filters: serde_json::Value = if filters_json.trim().is_empty() {
        serde_json::json!({})
    } else {
        serde_json::from_str(&filters_json)
            .map_err(|_| ServiceError::invalid("filtersJson", "筛选条件不是有效的 JSON"))?
    };
    let mut tx = db::begin_tenant(&ctx.pool, actor.enterprise_id).await?;
    let requested_by_name = context::member_name(&mut tx, &actor).await?;
    let row = store::insert(
        &mut tx,
        NewRecord {
            tenant: actor.enterprise_id,
            name,
            module,
            requested_by: actor.user_id,
            requested_by_name: &requested_by_name,
            filters: &filters,
        },
    )
    .await?;
    tx.commit().await?;
    Ok(pb::CreateExportRecordResponse {
        record: Some(convert::record(row)),
    })
}

//! Notice RPCs: each for the calling member, in one tenant transaction.

use fleetdesk_kit::{ServiceError, convert as kit_convert, db, grpc};
use fleetdesk_proto::org::v1 as pb;
use tonic::Request;
use uuid::Uuid;

use super::store::{self, NoticeFilter};
use super::{PERM_NOTICES, convert};
use crate::context::{self, Context};

pub async fn count_unread(
    ctx: &Context,
    request: Request<pb::CountUnreadNoticesRequest>,
) -> Result<pb::CountUnreadNoticesResponse, ServiceError> {
    let actor = context::actor(&request)?;
    let member = context::member(&actor)?;
    let mut tx = db::begin_tenant(&ctx.pool, actor.enterprise_id).await?;
    let count = store::count_unread(&mut tx, actor.enterprise_id, member).await?;
    tx.commit().await?;
    Ok(pb::CountUnreadNoticesResponse { count })
}

pub async fn list(
    ctx: &Context,
    request: Request<pb::ListNoticesRequest>,
) -> Result<pb::ListNoticesResponse, ServiceError> {
    grpc::require_permission(&request, PERM_NOTICES)?;
    let actor = context::actor(&request)?;
    let member = context::member(&actor)?;
    let pb::ListNoticesRequest {
        page,
        read,
        category,
    } = request.into_inner();
    let (page, size) = kit_convert::page(page.as_ref());
    let filter = NoticeFilter {
        read,
        category: category.trim(),
    };
    let mut tx = db::begin_tenant(&ctx.pool, actor.enterprise_id).await?;
    let (rows, total) =
        store::page(&mut tx, actor.enterprise_id, member, &filter, (page, size)).await?;
    tx.commit().await?;
    Ok(pb::ListNoticesResponse {
        notices: rows.into_iter().map(convert::notice).collect(),
        page: Some(kit_convert::page_info(page, size, total)),
    })
}

pub async fn get(
    ctx: &Context,
    request: Request<pb::GetNoticeRequest>,
) -> Result<pb::GetNoticeResponse, ServiceError> {
    grpc::require_permission(&request, PERM_NOTICES)?;
    let actor = context::actor(&request)?;
    let member = context::member(&actor)?;
    let id = kit_convert::id(&request.get_ref().id)?;
    let mut tx = db::begin_tenant(&ctx.pool, actor.enterprise_id).await?;
    let row = store::get(&mut tx, actor.enterprise_id, member, id)
        .await?
        .ok_or_else(ServiceError::not_found)?;
    tx.commit().await?;
    Ok(pb::GetNoticeResponse {
        notice: Some(convert::notice(row)),
    })
}

/// Marks the listed notices (or, with `all`, every visible one) read. Any
/// id the member cannot see makes the whole call not found and changes nothing.
pub async fn mark_read(
    ctx: &Context,
    request: Request<pb::MarkNoticesReadRequest>,
) -> Result<pb::MarkNoticesReadResponse, ServiceError> {
    grpc::require_permission(&request, PERM_NOTICES)?;
    let actor = context::actor(&request)?;
    let member = context::member(&actor)?;
    let pb::MarkNoticesReadRequest { ids, all } = request.into_inner();
    let ids = ids
        .iter()
        .map(|id| kit_convert::id(id))
        .collect::<Result<Vec<Uuid>, _>>()?;
    if !all && ids.is_empty() {
        return Err(ServiceError::invalid("ids", "请选择要标记为已读的消息"));
    }
    let tenant = actor.enterprise_id;
    let mut tx = db::begin_tenant(&ctx.pool, tenant).await?;
    if !all {
        let visible = store::count_visible(&mut tx, tenant, member, &ids).await?;
        let mut distinct = ids.clone();
        distinct.sort_unstable();
        distinct.dedup();
        if visible != distinct.len() as i64 {
            return Err(ServiceError::not_found());
        }
    }
    let updated = store::mark_read(&mut tx, tenant, member, all, &ids).await?;
    tx.commit().await?;
    Ok(pb::MarkNoticesReadResponse {
        updated: i64::try_from(updated).unwrap_or(i64::MAX),
    })
}

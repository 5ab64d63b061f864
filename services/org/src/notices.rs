//! Notices to the members of an enterprise: unread count, list, detail and
//! read marks. A notice addressed to nobody in particular is for everyone.

use chrono::{DateTime, Utc};
use fleetdesk_kit::convert::{self, timestamp};
use fleetdesk_kit::{ServiceError, db, grpc};
use fleetdesk_proto::org::v1 as pb;
use sqlx::{FromRow, PgPool};
use tonic::{Request, Response};
use uuid::Uuid;

use crate::actor;

/// Permission of the notice pages.
pub const PERM_NOTICES: &str = "as:message:pageInfo";

/// Notices the member may see: theirs and the enterprise-wide ones.
const VISIBLE: &str = "n.enterprise_id = $1 and (n.recipient_id is null or n.recipient_id = $2)";

#[derive(Debug, FromRow)]
struct NoticeRow {
    id: Uuid,
    enterprise_id: Uuid,
    title: String,
    content: String,
    category: String,
    published_at: DateTime<Utc>,
    read_at: Option<DateTime<Utc>>,
}

fn notice_pb(row: NoticeRow) -> pb::Notice {
    pb::Notice {
        id: row.id.to_string(),
        enterprise_id: row.enterprise_id.to_string(),
        title: row.title,
        content: row.content,
        category: row.category,
        read: row.read_at.is_some(),
        publish_time: Some(timestamp(row.published_at)),
        read_time: row.read_at.map(timestamp),
    }
}

const SELECT: &str = "select n.id, n.enterprise_id, n.title, n.content, n.category, n.published_at, r.read_at \
     from notice n left join notice_read r on r.notice_id = n.id and r.member_id = $2";

pub async fn count_unread(
    pool: &PgPool,
    request: Request<pb::CountUnreadNoticesRequest>,
) -> Result<Response<pb::CountUnreadNoticesResponse>, ServiceError> {
    let actor = actor::of(&request)?;
    let member = actor.member()?;
    let mut tx = db::begin_tenant(pool, actor.enterprise_id).await?;
    let count: i64 = sqlx::query_scalar(&format!(
        "select count(*) from notice n where {VISIBLE} and not exists \
         (select 1 from notice_read r where r.notice_id = n.id and r.member_id = $2)"
    ))
    .bind(actor.enterprise_id)
    .bind(member)
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Response::new(pb::CountUnreadNoticesResponse { count }))
}

pub async fn list(
    pool: &PgPool,
    request: Request<pb::ListNoticesRequest>,
) -> Result<Response<pb::ListNoticesResponse>, ServiceError> {
    grpc::require_permission(&request, PERM_NOTICES)?;
    let actor = actor::of(&request)?;
    let member = actor.member()?;
    let req = request.into_inner();
    let (page, size) = convert::page(req.page.as_ref());
    let filter = format!(
        "{VISIBLE} and ($3::bool is null or (r.read_at is not null) = $3) \
         and ($4 = '' or n.category = $4)"
    );
    let mut tx = db::begin_tenant(pool, actor.enterprise_id).await?;
    let rows: Vec<NoticeRow> = sqlx::query_as(&format!(
        "{SELECT} where {filter} order by n.published_at desc, n.id limit $5 offset $6"
    ))
    .bind(actor.enterprise_id)
    .bind(member)
    .bind(req.read)
    .bind(req.category.trim())
    .bind(size)
    .bind((page - 1) * size)
    .fetch_all(&mut *tx)
    .await?;
    let total: i64 = sqlx::query_scalar(&format!(
        "select count(*) from notice n left join notice_read r \
         on r.notice_id = n.id and r.member_id = $2 where {filter}"
    ))
    .bind(actor.enterprise_id)
    .bind(member)
    .bind(req.read)
    .bind(req.category.trim())
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Response::new(pb::ListNoticesResponse {
        notices: rows.into_iter().map(notice_pb).collect(),
        page: Some(convert::page_info(page, size, total)),
    }))
}

pub async fn get(
    pool: &PgPool,
    request: Request<pb::GetNoticeRequest>,
) -> Result<Response<pb::GetNoticeResponse>, ServiceError> {
    grpc::require_permission(&request, PERM_NOTICES)?;
    let actor = actor::of(&request)?;
    let member = actor.member()?;
    let id = convert::id(&request.get_ref().id)?;
    let mut tx = db::begin_tenant(pool, actor.enterprise_id).await?;
    let row: NoticeRow = sqlx::query_as(&format!("{SELECT} where {VISIBLE} and n.id = $3"))
        .bind(actor.enterprise_id)
        .bind(member)
        .bind(id)
        .fetch_optional(&mut *tx)
        .await?
        .ok_or_else(ServiceError::not_found)?;
    tx.commit().await?;
    Ok(Response::new(pb::GetNoticeResponse {
        notice: Some(notice_pb(row)),
    }))
}

/// Marks the listed notices (or, with `all`, every visible one) read. Any
/// id the member cannot see makes the whole call not found and changes nothing.
pub async fn mark_read(
    pool: &PgPool,
    request: Request<pb::MarkNoticesReadRequest>,
) -> Result<Response<pb::MarkNoticesReadResponse>, ServiceError> {
    grpc::require_permission(&request, PERM_NOTICES)?;
    let actor = actor::of(&request)?;
    let member = actor.member()?;
    let req = request.into_inner();
    let ids = req
        .ids
        .iter()
        .map(|id| convert::id(id))
        .collect::<Result<Vec<Uuid>, _>>()?;
    if !req.all && ids.is_empty() {
        return Err(ServiceError::invalid("ids", "请选择要标记为已读的消息"));
    }
    let mut tx = db::begin_tenant(pool, actor.enterprise_id).await?;
    if !req.all {
        let visible: i64 = sqlx::query_scalar(&format!(
            "select count(distinct n.id) from notice n where {VISIBLE} and n.id = any($3)"
        ))
        .bind(actor.enterprise_id)
        .bind(member)
        .bind(&ids)
        .fetch_one(&mut *tx)
        .await?;
        let mut distinct = ids.clone();
        distinct.sort_unstable();
        distinct.dedup();
        if visible != distinct.len() as i64 {
            return Err(ServiceError::not_found());
        }
    }
    let updated = sqlx::query(&format!(
        "insert into notice_read (enterprise_id, notice_id, member_id) \
         select n.enterprise_id, n.id, $2 from notice n where {VISIBLE} and ($3 or n.id = any($4)) \
         on conflict do nothing"
    ))
    .bind(actor.enterprise_id)
    .bind(member)
    .bind(req.all)
    .bind(&ids)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    tx.commit().await?;
    Ok(Response::new(pb::MarkNoticesReadResponse {
        updated: i64::try_from(updated).unwrap_or(i64::MAX),
    }))
}

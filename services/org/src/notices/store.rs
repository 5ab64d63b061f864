//! Queries of notices and read marks, each on the caller's tenant
//! transaction and limited to what the member may see: theirs and the
//! enterprise-wide ones.

use chrono::{DateTime, Utc};
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

/// Notices the member may see: theirs and the enterprise-wide ones.
const VISIBLE: &str = "n.enterprise_id = $1 and (n.recipient_id is null or n.recipient_id = $2)";

const SELECT: &str = "select n.id, n.enterprise_id, n.title, n.content, n.category, n.link, n.published_at, r.read_at \
     from notice n left join notice_read r on r.notice_id = n.id and r.member_id = $2";

#[derive(Debug, FromRow)]
pub struct NoticeRow {
    pub id: Uuid,
    pub enterprise_id: Uuid,
    pub title: String,
    pub content: String,
    pub category: String,
    pub link: String,
    pub published_at: DateTime<Utc>,
    pub read_at: Option<DateTime<Utc>>,
}

pub async fn count_unread(
    conn: &mut PgConnection,
    tenant: Uuid,
    member: Uuid,
) -> sqlx::Result<i64> {
    sqlx::query_scalar(&format!(
        "select count(*) from notice n where {VISIBLE} and not exists \
         (select 1 from notice_read r where r.notice_id = n.id and r.member_id = $2)"
    ))
    .bind(tenant)
    .bind(member)
    .fetch_one(conn)
    .await
}

/// What a notice list is narrowed to.
pub struct NoticeFilter<'a> {
    pub read: Option<bool>,
    pub category: &'a str,
}

/// One page of the member's notices, newest first, and the total.
pub async fn page(
    conn: &mut PgConnection,
    tenant: Uuid,
    member: Uuid,
    filter: &NoticeFilter<'_>,
    (page, size): (i64, i64),
) -> sqlx::Result<(Vec<NoticeRow>, i64)> {
    let NoticeFilter { read, category } = filter;
    let condition = format!(
        "{VISIBLE} and ($3::bool is null or (r.read_at is not null) = $3) \
         and ($4 = '' or n.category = $4)"
    );
    let rows: Vec<NoticeRow> = sqlx::query_as(&format!(
        "{SELECT} where {condition} order by n.published_at desc, n.id limit $5 offset $6"
    ))
    .bind(tenant)
    .bind(member)
    .bind(*read)
    .bind(*category)
    .bind(size)
    .bind((page - 1) * size)
    .fetch_all(&mut *conn)
    .await?;
    let total: i64 = sqlx::query_scalar(&format!(
        "select count(*) from notice n left join notice_read r \
         on r.notice_id = n.id and r.member_id = $2 where {condition}"
    ))
    .bind(tenant)
    .bind(member)
    .bind(*read)
    .bind(*category)
    .fetch_one(&mut *conn)
    .await?;
    Ok((rows, total))
}

pub async fn get(
    conn: &mut PgConnection,
    tenant: Uuid,
    member: Uuid,
    id: Uuid,
) -> sqlx::Result<Option<NoticeRow>> {
    sqlx::query_as(&format!("{SELECT} where {VISIBLE} and n.id = $3"))
        .bind(tenant)
        .bind(member)
        .bind(id)
        .fetch_optional(conn)
        .await
}

/// How many distinct notices of `ids` the member may see.
pub async fn count_visible(
    conn: &mut PgConnection,
    tenant: Uuid,
    member: Uuid,
    ids: &[Uuid],
) -> sqlx::Result<i64> {
    sqlx::query_scalar(&format!(
        "select count(distinct n.id) from notice n where {VISIBLE} and n.id = any($3)"
    ))
    .bind(tenant)
    .bind(member)
    .bind(ids)
    .fetch_one(conn)
    .await
}

/// Marks `ids` (or, with `all`, every visible notice) read; how many were new.
pub async fn mark_read(
    conn: &mut PgConnection,
    tenant: Uuid,
    member: Uuid,
    all: bool,
    ids: &[Uuid],
) -> sqlx::Result<u64> {
    Ok(sqlx::query(&format!(
        "insert into notice_read (enterprise_id, notice_id, member_id) \
         select n.enterprise_id, n.id, $2 from notice n where {VISIBLE} and ($3 or n.id = any($4)) \
         on conflict do nothing"
    ))
    .bind(tenant)
    .bind(member)
    .bind(all)
    .bind(ids)
    .execute(conn)
    .await?
    .rows_affected())
}

//! Queries of manual pages (shared by every enterprise, read on the pool)
//! and of feedback (the caller's tenant transaction).

use chrono::{DateTime, Utc};
use sqlx::FromRow;
use sqlx_postgres::{PgConnection, PgPool};
use uuid::Uuid;

#[derive(Debug, FromRow)]
pub struct ArticleRow {
    pub id: Uuid,
    pub title: String,
    pub category: String,
    pub content_markdown: String,
    pub sort: i32,
    pub updated_at: DateTime<Utc>,
}

/// Manual pages of one category (every one for an empty category), in order.
pub async fn articles(pool: &PgPool, category: &str) -> sqlx::Result<Vec<ArticleRow>> {
    sqlx::query_as(
        "select id, title, category, content_markdown, sort, updated_at from help_article \
         where ($1 = '' or category = $1) order by category, sort, title",
    )
    .bind(category)
    .fetch_all(pool)
    .await
}

pub async fn article(pool: &PgPool, id: Uuid) -> sqlx::Result<Option<ArticleRow>> {
    sqlx::query_as(
        "select id, title, category, content_markdown, sort, updated_at from help_article where id = $1",
    )
    .bind(id)
    .fetch_optional(pool)
    .await
}

#[derive(Debug, FromRow)]
pub struct FeedbackRow {
    pub id: Uuid,
    pub enterprise_id: Uuid,
    pub user_name: String,
    pub content: String,
    pub contact: String,
    pub attachment_keys: Vec<String>,
    pub created_at: DateTime<Utc>,
}

/// A member's feedback as it is kept.
pub struct NewFeedback<'a> {
    pub tenant: Uuid,
    pub member: Uuid,
    pub user_name: &'a str,
    pub content: &'a str,
    pub contact: &'a str,
    pub attachment_keys: &'a [String],
}

pub async fn insert_feedback(
    conn: &mut PgConnection,
    new: NewFeedback<'_>,
) -> sqlx::Result<FeedbackRow> {
    let NewFeedback {
        tenant,
        member,
        user_name,
        content,
        contact,
        attachment_keys,
    } = new;
    sqlx::query_as(
        "insert into feedback (id, enterprise_id, member_id, user_name, content, contact, attachment_keys) \
         values ($1, $2, $3, $4, $5, $6, $7) \
         returning id, enterprise_id, user_name, content, contact, attachment_keys, created_at",
    )
    .bind(Uuid::new_v4())
    .bind(tenant)
    .bind(member)
    .bind(user_name)
    .bind(content)
    .bind(contact)
    .bind(attachment_keys)
    .fetch_one(conn)
    .await
}

/// One page of a member's own feedback, newest first, and the total.
pub async fn feedback_page(
    conn: &mut PgConnection,
    tenant: Uuid,
    member: Uuid,
    (page, size): (i64, i64),
) -> sqlx::Result<(Vec<FeedbackRow>, i64)> {
    let rows: Vec<FeedbackRow> = sqlx::query_as(
        "select id, enterprise_id, user_name, content, contact, attachment_keys, created_at from feedback \
         where enterprise_id = $1 and member_id = $2 order by created_at desc, id limit $3 offset $4",
    )
    .bind(tenant)
    .bind(member)
    .bind(size)
    .bind((page - 1) * size)
    .fetch_all(&mut *conn)
    .await?;
    let total: i64 = sqlx::query_scalar(
        "select count(*) from feedback where enterprise_id = $1 and member_id = $2",
    )
    .bind(tenant)
    .bind(member)
    .fetch_one(&mut *conn)
    .await?;
    Ok((rows, total))
}

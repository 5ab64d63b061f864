//! The operation_log table: append and read one object's page.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::Paging;
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::Business;
use crate::context::Actor;

#[derive(Debug, Clone, FromRow)]
pub struct LogRow {
    pub remark: String,
    pub operator_name: String,
    pub created_at: DateTime<Utc>,
}

pub async fn insert(
    conn: &mut PgConnection,
    actor: &Actor,
    business: Business,
    business_id: Uuid,
    remark: &str,
) -> Result<(), ServiceError> {
    sqlx::query(
        "insert into operation_log (id, enterprise_id, business_type, business_id, remark, \
         operator_id, operator_name) values ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(Uuid::new_v4())
    .bind(actor.enterprise_id)
    .bind(business.code())
    .bind(business_id)
    .bind(remark)
    .bind(actor.user_id)
    .bind(&actor.name)
    .execute(conn)
    .await?;
    Ok(())
}

/// One row per (`business_ids[i]`, `remarks[i]`), in one statement.
pub async fn insert_many(
    conn: &mut PgConnection,
    actor: &Actor,
    business: Business,
    business_ids: &[Uuid],
    remarks: &[String],
) -> Result<(), ServiceError> {
    let ids: Vec<Uuid> = business_ids.iter().map(|_| Uuid::new_v4()).collect();
    sqlx::query(
        "insert into operation_log (id, enterprise_id, business_type, business_id, remark, \
         operator_id, operator_name) \
         select t.id, $1, $2, t.business_id, t.remark, $3, $4 \
         from unnest($5::uuid[], $6::uuid[], $7::text[]) as t(id, business_id, remark)",
    )
    .bind(actor.enterprise_id)
    .bind(business.code())
    .bind(actor.user_id)
    .bind(&actor.name)
    .bind(&ids)
    .bind(business_ids)
    .bind(remarks)
    .execute(conn)
    .await?;
    Ok(())
}

/// One page of an object's log, newest first, and the object's row count.
pub async fn list(
    conn: &mut PgConnection,
    actor: &Actor,
    business: Business,
    business_id: Uuid,
    paging: Paging,
) -> Result<(Vec<LogRow>, i64), ServiceError> {
    let rows: Vec<LogRow> = sqlx::query_as(
        "select remark, operator_name, created_at from operation_log \
         where enterprise_id = $1 and business_id = $2 and business_type = $3 \
         order by created_at desc, id desc limit $4 offset $5",
    )
    .bind(actor.enterprise_id)
    .bind(business_id)
    .bind(business.code())
    .bind(paging.size)
    .bind(paging.offset())
    .fetch_all(&mut *conn)
    .await?;
    // One object's log is short; counting it is an index range scan.
    let total: i64 = sqlx::query_scalar(
        "select count(*) from operation_log \
         where enterprise_id = $1 and business_id = $2 and business_type = $3",
    )
    .bind(actor.enterprise_id)
    .bind(business_id)
    .bind(business.code())
    .fetch_one(&mut *conn)
    .await?;
    Ok((rows, total))
}

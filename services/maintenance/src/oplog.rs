//! The operation log of this crate's subjects (docs/console-spec.md §3
//! operation-log table): a row per change, written in the change's
//! transaction under the subject's business type, and a record's rows newest
//! first for its detail. Subjects call these rather than writing the SQL again.

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::convert::timestamp;
use fleetdesk_proto::common::v1 as common;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use crate::context::Actor;

/// Most log rows a detail shows.
const DETAIL_LIMIT: i64 = 100;

/// Writes a log row about record `id` of `business_type` by `actor`.
pub async fn record(
    conn: &mut PgConnection,
    actor: &Actor,
    business_type: i16,
    id: Uuid,
    remark: &str,
) -> Result<(), ServiceError> {
    sqlx::query(
        "insert into operation_log (id, enterprise_id, business_type, business_id, remark, \
         operator_id, operator_name) values ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(Uuid::new_v4())
    .bind(actor.enterprise_id)
    .bind(business_type)
    .bind(id)
    .bind(remark)
    .bind(actor.user_id)
    .bind(&actor.name)
    .execute(conn)
    .await?;
    Ok(())
}

/// Record `id`'s log, newest first (at most a detail's worth).
pub async fn entries(
    conn: &mut PgConnection,
    actor: &Actor,
    business_type: i16,
    id: Uuid,
) -> Result<Vec<common::OperationLogEntry>, ServiceError> {
    let rows: Vec<(String, String, chrono::DateTime<chrono::Utc>)> = sqlx::query_as(
        "select remark, operator_name, created_at from operation_log \
         where enterprise_id = $1 and business_id = $2 and business_type = $3 \
         order by created_at desc, id desc limit $4",
    )
    .bind(actor.enterprise_id)
    .bind(id)
    .bind(business_type)
    .bind(DETAIL_LIMIT)
    .fetch_all(conn)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(remark, operator_name, at)| common::OperationLogEntry {
            remark,
            operator_name,
            operate_time: Some(timestamp(at)),
        })
        .collect())
}

//! Queries of approvals and their steps, each on the caller's tenant
//! transaction and bounded by the caller's reach over the applicant's
//! organisation (or their own applications).

use chrono::{DateTime, Utc};
use fleetdesk_kit::reach::ResolvedReach;
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::{Kind, State};
use crate::scope::domain::Reach;

#[derive(Debug, FromRow)]
pub struct ApprovalRow {
    pub id: Uuid,
    pub enterprise_id: Uuid,
    pub kind: i16,
    pub title: String,
    pub business_id: String,
    pub applicant_name: String,
    pub applicant_phone: String,
    pub plate_number: String,
    pub status: i16,
    pub detail: serde_json::Value,
    pub applied_at: DateTime<Utc>,
    pub decided_at: Option<DateTime<Utc>>,
}

#[derive(Debug, FromRow)]
pub struct StepRow {
    pub status: i16,
    pub operator_id: Option<Uuid>,
    pub operator_name: String,
    pub comment: String,
    pub created_at: DateTime<Utc>,
}

const SELECT: &str = "select id, enterprise_id, kind, title, business_id, applicant_name, \
     applicant_phone, plate_number, status, detail, applied_at, decided_at from approval";

/// The data-scope condition over approvals, binding the reach from `$first`
/// (see [`Reach::condition`]): the applicant's organisation, or the caller's own.
fn in_reach(first: usize) -> String {
    Reach::condition("org_id", "applicant_id", first)
}

pub async fn count_pending(
    conn: &mut PgConnection,
    tenant: Uuid,
    reach: &ResolvedReach,
) -> sqlx::Result<i64> {
    sqlx::query_scalar(&format!(
        "select count(*) from approval where enterprise_id = $1 and status = 1 and {}",
        in_reach(2)
    ))
    .bind(tenant)
    .bind(reach.all)
    .bind(reach.org_ids.clone())
    .bind(reach.own)
    .fetch_one(conn)
    .await
}

/// What a list of approvals is narrowed to.
pub struct ApprovalFilter<'a> {
    pub status: Option<State>,
    pub kind: Option<Kind>,
    pub plates: &'a [String],
}

/// One page of approvals matching the filter, newest first, and the total.
pub async fn page(
    conn: &mut PgConnection,
    tenant: Uuid,
    reach: &ResolvedReach,
    filter: &ApprovalFilter<'_>,
    (page, size): (i64, i64),
) -> sqlx::Result<(Vec<ApprovalRow>, i64)> {
    let ApprovalFilter {
        status,
        kind,
        plates,
    } = filter;
    let status = status.map(i16::from);
    let kind = kind.map(i16::from);
    let condition = format!(
        "enterprise_id = $1 and ($2::smallint is null or status = $2) \
         and ($3::smallint is null or kind = $3) \
         and (cardinality($4::text[]) = 0 or plate_number = any($4)) and {}",
        in_reach(5)
    );
    let rows: Vec<ApprovalRow> = sqlx::query_as(&format!(
        "{SELECT} where {condition} order by applied_at desc, id limit $8 offset $9"
    ))
    .bind(tenant)
    .bind(status)
    .bind(kind)
    .bind(*plates)
    .bind(reach.all)
    .bind(reach.org_ids.clone())
    .bind(reach.own)
    .bind(size)
    .bind((page - 1) * size)
    .fetch_all(&mut *conn)
    .await?;
    let total: i64 =
        sqlx::query_scalar(&format!("select count(*) from approval where {condition}"))
            .bind(tenant)
            .bind(status)
            .bind(kind)
            .bind(*plates)
            .bind(reach.all)
            .bind(reach.org_ids.clone())
            .bind(reach.own)
            .fetch_one(&mut *conn)
            .await?;
    Ok((rows, total))
}

/// The approval with its history, within the tenant and the caller's reach.
pub async fn load(
    conn: &mut PgConnection,
    tenant: Uuid,
    reach: &ResolvedReach,
    id: Uuid,
) -> sqlx::Result<Option<(ApprovalRow, Vec<StepRow>)>> {
    let Some(row) = sqlx::query_as::<_, ApprovalRow>(&format!(
        "{SELECT} where enterprise_id = $1 and id = $2 and {}",
        in_reach(3)
    ))
    .bind(tenant)
    .bind(id)
    .bind(reach.all)
    .bind(reach.org_ids.clone())
    .bind(reach.own)
    .fetch_optional(&mut *conn)
    .await?
    else {
        return Ok(None);
    };
    let steps: Vec<StepRow> = sqlx::query_as(
        "select status, operator_id, operator_name, comment, created_at from approval_step \
         where enterprise_id = $1 and approval_id = $2 order by created_at, id",
    )
    .bind(tenant)
    .bind(id)
    .fetch_all(&mut *conn)
    .await?;
    Ok(Some((row, steps)))
}

/// An approval as a decision locks it: its status, kind and business id.
#[derive(Debug, FromRow)]
pub struct Current {
    pub status: i16,
    pub kind: i16,
    pub business_id: String,
}

/// Locks the approval for a decision, within the caller's reach.
pub async fn lock(
    conn: &mut PgConnection,
    tenant: Uuid,
    reach: &ResolvedReach,
    id: Uuid,
) -> sqlx::Result<Option<Current>> {
    sqlx::query_as(&format!(
        "select status, kind, business_id from approval where enterprise_id = $1 and id = $2 \
         and {} for update",
        in_reach(3)
    ))
    .bind(tenant)
    .bind(id)
    .bind(reach.all)
    .bind(reach.org_ids.clone())
    .bind(reach.own)
    .fetch_optional(conn)
    .await
}

/// A decision's step: who moved the approval to which state, and why.
pub struct Step<'a> {
    pub status: State,
    pub operator_id: Option<Uuid>,
    pub operator_name: &'a str,
    pub comment: &'a str,
}

/// Moves the approval to the step's state and keeps the step in its history.
pub async fn decide(
    conn: &mut PgConnection,
    tenant: Uuid,
    id: Uuid,
    step: Step<'_>,
) -> sqlx::Result<()> {
    let Step {
        status,
        operator_id,
        operator_name,
        comment,
    } = step;
    sqlx::query(
        "update approval set status = $3, decided_at = now(), updated_at = now() \
         where enterprise_id = $1 and id = $2",
    )
    .bind(tenant)
    .bind(id)
    .bind(i16::from(status))
    .execute(&mut *conn)
    .await?;
    sqlx::query(
        "insert into approval_step (id, enterprise_id, approval_id, status, operator_id, operator_name, comment) \
         values ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(Uuid::new_v4())
    .bind(tenant)
    .bind(id)
    .bind(i16::from(status))
    .bind(operator_id)
    .bind(operator_name)
    .bind(comment)
    .execute(conn)
    .await?;
    Ok(())
}

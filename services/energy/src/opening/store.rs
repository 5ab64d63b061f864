//! The opening tables: the enterprise's state (with the event that
//! announces each change) and the applications.

use chrono::{DateTime, Utc};
use fleetdesk_kit::list::{Cursor, Filters, Paging, Sort, TimeRange};
use fleetdesk_kit::{ServiceError, events, subjects};
use fleetdesk_proto::energy::v1 as pb;
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::{ApplicationStatus, OpenState};
use crate::codes::known;

/// The enterprise's state; NOT_OPENED when it never applied.
pub async fn state(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
) -> Result<OpenState, ServiceError> {
    let code: Option<i16> =
        sqlx::query_scalar("select state from charging_opening where enterprise_id = $1")
            .bind(enterprise_id)
            .fetch_optional(conn)
            .await?;
    code.map_or(Ok(OpenState::NotOpened), known)
}

/// The enterprise's state, locked until the transaction ends (applications
/// and decisions of one enterprise take turns).
pub async fn lock_state(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
) -> Result<OpenState, ServiceError> {
    sqlx::query(
        "insert into charging_opening (enterprise_id, state, version) values ($1, $2, 0) \
         on conflict (enterprise_id) do nothing",
    )
    .bind(enterprise_id)
    .bind(i16::from(OpenState::NotOpened))
    .execute(&mut *conn)
    .await?;
    let code: i16 = sqlx::query_scalar(
        "select state from charging_opening where enterprise_id = $1 for update",
    )
    .bind(enterprise_id)
    .fetch_one(conn)
    .await?;
    known(code)
}

/// Sets the enterprise's state and announces it (outbox, same transaction).
pub async fn set_state(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    state: OpenState,
) -> Result<(), ServiceError> {
    let version: i64 = sqlx::query_scalar(
        "insert into charging_opening (enterprise_id, state, version) values ($1, $2, 1) \
         on conflict (enterprise_id) do update set state = excluded.state, \
         version = charging_opening.version + 1 returning version",
    )
    .bind(enterprise_id)
    .bind(i16::from(state))
    .fetch_one(&mut *conn)
    .await?;
    events::enqueue(
        conn,
        subjects::ENERGY_OPENING_CHANGED,
        &pb::ChargingOpenChanged {
            enterprise_id: enterprise_id.to_string(),
            state: state.pb(),
            version,
        },
    )
    .await?;
    Ok(())
}

const SELECT: &str = "select a.id, a.enterprise_id, a.enterprise_name, a.applicant_id, \
     a.applicant_name, a.status, a.apply_time, a.contact_time, a.handler_name, a.decide_time, \
     a.reject_reason, a.remark, a.approve_remark from charging_open_application a";

#[derive(Debug, Clone, FromRow)]
pub struct ApplicationRow {
    pub id: Uuid,
    pub enterprise_id: Uuid,
    pub enterprise_name: String,
    pub applicant_id: Option<Uuid>,
    pub applicant_name: String,
    pub status: i16,
    pub apply_time: DateTime<Utc>,
    pub contact_time: Option<DateTime<Utc>>,
    pub handler_name: String,
    pub decide_time: Option<DateTime<Utc>>,
    pub reject_reason: String,
    pub remark: String,
    pub approve_remark: String,
}

/// An application to write.
#[derive(Debug, Clone)]
pub struct NewApplication<'a> {
    pub enterprise_id: Uuid,
    pub enterprise_name: &'a str,
    pub applicant_id: Option<Uuid>,
    pub applicant_name: &'a str,
    pub remark: &'a str,
}

pub async fn insert(
    conn: &mut PgConnection,
    application: &NewApplication<'_>,
) -> Result<Uuid, ServiceError> {
    let id = Uuid::new_v4();
    sqlx::query(
        "insert into charging_open_application (id, enterprise_id, enterprise_name, applicant_id, \
         applicant_name, status, remark) values ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(id)
    .bind(application.enterprise_id)
    .bind(application.enterprise_name)
    .bind(application.applicant_id)
    .bind(application.applicant_name)
    .bind(i16::from(ApplicationStatus::Pending))
    .bind(application.remark)
    .execute(conn)
    .await?;
    Ok(id)
}

pub async fn get(conn: &mut PgConnection, id: Uuid) -> Result<ApplicationRow, ServiceError> {
    let mut qb = sqlx::QueryBuilder::new(SELECT);
    qb.push(" where a.id = ").push_bind(id);
    Ok(qb.build_query_as().fetch_one(conn).await?)
}

/// The enterprise's newest application, if any.
pub async fn latest(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
) -> Result<Option<ApplicationRow>, ServiceError> {
    let mut qb = sqlx::QueryBuilder::new(SELECT);
    qb.push(" where a.enterprise_id = ")
        .push_bind(enterprise_id)
        .push(" order by a.apply_time desc, a.id desc limit 1");
    Ok(qb.build_query_as().fetch_optional(conn).await?)
}

/// The operator's decision on an application: the reason of a rejection or
/// the remark of an approval (the other empty).
#[derive(Debug, Clone, Copy)]
pub struct Decision<'a> {
    pub status: ApplicationStatus,
    pub handler_name: &'a str,
    pub reject_reason: &'a str,
    pub approve_remark: &'a str,
}

/// Records the operator's decision on an application.
pub async fn decide(
    conn: &mut PgConnection,
    id: Uuid,
    decision: Decision<'_>,
) -> Result<(), ServiceError> {
    sqlx::query(
        "update charging_open_application set status = $2, handler_name = $3, \
         reject_reason = $4, approve_remark = $5, decide_time = now() where id = $1",
    )
    .bind(id)
    .bind(i16::from(decision.status))
    .bind(decision.handler_name)
    .bind(decision.reject_reason)
    .bind(decision.approve_remark)
    .execute(conn)
    .await?;
    Ok(())
}

/// A checked application-list filter; `enterprise_id` None = every
/// enterprise (the operator's list, in a service-scoped transaction).
#[derive(Debug, Clone, Default)]
pub struct ApplicationQuery {
    pub enterprise_id: Option<Uuid>,
    pub statuses: Vec<i16>,
    pub apply_time: TimeRange,
}

/// Newest application first.
#[derive(Debug, Clone, Copy)]
pub struct NewestFirst;

impl Sort for NewestFirst {
    fn order_by(&self) -> &'static str {
        "a.apply_time desc, a.id desc"
    }
}

/// The list's `where`, which list, count and export share.
fn filtered<'a>(select: &str, query: &ApplicationQuery) -> Filters<'a> {
    let mut f = match query.enterprise_id {
        Some(enterprise) => Filters::new(select, "a.enterprise_id", enterprise),
        None => Filters::across_tenants(select),
    };
    f.any_of("a.status", query.statuses.clone())
        .within("a.apply_time", query.apply_time);
    f
}

pub async fn list(
    conn: &mut PgConnection,
    query: &ApplicationQuery,
    paging: Paging,
) -> Result<(Vec<ApplicationRow>, i64), ServiceError> {
    let mut rows = filtered(SELECT, query).page(&NewestFirst, paging);
    let rows = rows.build_query_as().fetch_all(&mut *conn).await?;
    let total = count(conn, query).await?;
    Ok((rows, total))
}

pub async fn count(conn: &mut PgConnection, query: &ApplicationQuery) -> Result<i64, ServiceError> {
    let mut count = filtered("select count(*) from charging_open_application a", query).finish();
    Ok(count.build_query_scalar().fetch_one(conn).await?)
}

/// One export page: newest first after `cursor`, by keyset on
/// `charging_open_application_newest_idx`.
pub async fn export_page(
    conn: &mut PgConnection,
    query: &ApplicationQuery,
    cursor: Option<Cursor>,
    limit: i64,
) -> Result<Vec<ApplicationRow>, ServiceError> {
    let mut qb = filtered(SELECT, query).keyset("a.apply_time", "a.id", cursor, limit);
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

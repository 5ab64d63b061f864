//! The risk_warning table: the list, acknowledging, and what the daily job
//! reads (expiring licences and ID cards, overdue rent-to-own records) and
//! writes.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::{Filters, Paging, Sort, TimeRange};
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::{Document, Raise, WarningState};
use crate::context::Actor;

const SELECT: &str = "select w.id, w.org_id, w.vehicle_id, v.plate_number, w.driver_id, \
     d.name as driver_name, w.kind, w.level, w.title, w.content, w.warn_time, w.status, \
     w.acknowledged_by, w.acknowledge_time \
     from risk_warning w left join vehicle v on v.id = w.vehicle_id \
     left join driver d on d.id = w.driver_id";

const COUNT: &str =
    "select count(*) from risk_warning w left join vehicle v on v.id = w.vehicle_id";

#[derive(Debug, Clone, FromRow)]
pub struct WarningRow {
    pub id: Uuid,
    pub org_id: Uuid,
    pub vehicle_id: Option<Uuid>,
    pub plate_number: Option<String>,
    pub driver_id: Option<Uuid>,
    pub driver_name: Option<String>,
    pub kind: i16,
    pub level: i16,
    pub title: String,
    pub content: String,
    pub warn_time: DateTime<Utc>,
    pub status: i16,
    pub acknowledged_by: String,
    pub acknowledge_time: Option<DateTime<Utc>>,
}

/// A checked list filter.
#[derive(Debug, Clone, Default)]
pub struct WarningQuery {
    pub plates: Vec<String>,
    /// Organisation subtrees, expanded.
    pub org_ids: Vec<Uuid>,
    pub driver: Option<Uuid>,
    pub kinds: Vec<i16>,
    pub levels: Vec<i16>,
    pub statuses: Vec<i16>,
    pub warn_time: TimeRange,
}

/// Newest warning first.
struct Newest;

impl Sort for Newest {
    fn order_by(&self) -> &'static str {
        "w.warn_time desc, w.id desc"
    }
}

fn scoped<'a>(select: &str, actor: &Actor) -> Filters<'a> {
    let mut f = Filters::new(select, "w.enterprise_id", actor.enterprise_id);
    // Warnings are the platform's: nobody "created" one, only reach counts.
    actor
        .reach
        .push_condition(f.scope(), "w.org_id", "null::uuid");
    f
}

fn filtered<'a>(select: &str, actor: &Actor, q: &WarningQuery) -> Filters<'a> {
    let mut f = scoped(select, actor);
    f.any_of("v.plate_number", q.plates.clone())
        .any_of("w.org_id", q.org_ids.clone())
        .equals("w.driver_id", q.driver)
        .any_of("w.kind", q.kinds.clone())
        .any_of("w.level", q.levels.clone())
        .any_of("w.status", q.statuses.clone())
        .within("w.warn_time", q.warn_time);
    f
}

pub async fn list(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &WarningQuery,
    paging: Paging,
) -> Result<(Vec<WarningRow>, i64), ServiceError> {
    let mut qb = filtered(SELECT, actor, q).page(&Newest, paging);
    let rows = qb.build_query_as().fetch_all(&mut *conn).await?;
    let mut qb = filtered(COUNT, actor, q).finish();
    let total = qb.build_query_scalar().fetch_one(conn).await?;
    Ok((rows, total))
}

/// Warnings by id within the caller's reach, locked when `for_update` (in
/// id order: two batches lock the same warnings in the same order).
pub async fn get_many(
    conn: &mut PgConnection,
    actor: &Actor,
    ids: &[Uuid],
    for_update: bool,
) -> Result<Vec<WarningRow>, ServiceError> {
    let mut f = scoped(SELECT, actor);
    f.any_of("w.id", ids.to_vec());
    let mut qb = f.finish();
    qb.push(" order by w.id");
    if for_update {
        qb.push(" for update of w");
    }
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

/// Marks the unread ones of `ids` acknowledged by the actor.
pub async fn acknowledge(
    conn: &mut PgConnection,
    actor: &Actor,
    ids: &[Uuid],
) -> Result<u64, ServiceError> {
    let done = sqlx::query(
        "update risk_warning set status = $3, acknowledged_by = $4, acknowledged_by_id = $5, \
           acknowledge_time = now() \
         where enterprise_id = $1 and id = any($2) and status = $6",
    )
    .bind(actor.enterprise_id)
    .bind(ids)
    .bind(i16::from(WarningState::Acknowledged))
    .bind(&actor.name)
    .bind(actor.user_id)
    .bind(i16::from(WarningState::Unread))
    .execute(conn)
    .await?;
    Ok(done.rows_affected())
}

// --- The daily job (a service-scoped transaction across tenants) ---

#[derive(Debug, Clone, FromRow)]
pub struct ExpiringRow {
    pub id: Uuid,
    pub enterprise_id: Uuid,
    pub org_id: Uuid,
    pub name: String,
    pub expire_time: DateTime<Utc>,
    /// The vehicle the driver is bound to now, if any.
    pub vehicle_id: Option<Uuid>,
}

/// The driver column holding `document`'s expiry.
fn expiry_column(document: Document) -> &'static str {
    match document {
        Document::Licence => "licence_expire_time",
        Document::IdCard => "id_card_expire_time",
    }
}

/// Drivers still employed whose `document` expires before `until` (a
/// long-term ID card has no expiry and is never read).
pub async fn expiring(
    conn: &mut PgConnection,
    document: Document,
    until: DateTime<Utc>,
) -> Result<Vec<ExpiringRow>, ServiceError> {
    let column = expiry_column(document);
    Ok(sqlx::query_as(&format!(
        "select d.id, d.enterprise_id, d.org_id, d.name, d.{column} as expire_time, \
           (select v.id from vehicle v where v.enterprise_id = d.enterprise_id \
              and v.driver_id = d.id order by v.id limit 1) as vehicle_id \
         from driver d \
         where d.{column} < $1 and d.status <> 3",
    ))
    .bind(until)
    .fetch_all(conn)
    .await?)
}

#[derive(Debug, Clone, FromRow)]
pub struct OverdueRow {
    pub id: Uuid,
    pub enterprise_id: Uuid,
    pub org_id: Uuid,
    pub vehicle_id: Uuid,
    pub plate_number: String,
    pub contract_no: String,
    pub paid_periods: Option<i32>,
    pub overdue_periods: Option<i32>,
    pub monthly_payment_fen: Option<i64>,
}

/// Active rent-to-own records with overdue instalments.
pub async fn overdue_records(conn: &mut PgConnection) -> Result<Vec<OverdueRow>, ServiceError> {
    Ok(sqlx::query_as(
        "select u.id, u.enterprise_id, u.org_id, u.vehicle_id, u.plate_number, u.contract_no, \
           u.paid_periods, u.overdue_periods, u.monthly_payment_fen \
         from usage_record u \
         where u.kind = 4 and u.state = 2 and u.overdue_periods > 0",
    )
    .fetch_all(conn)
    .await?)
}

/// Whom and what a raised warning is about.
#[derive(Debug, Clone)]
pub struct Subject {
    pub enterprise_id: Uuid,
    pub org_id: Uuid,
    /// The driver or usage record (the unique key's subject).
    pub id: Uuid,
    pub vehicle_id: Option<Uuid>,
    pub driver_id: Option<Uuid>,
}

/// Raises `raise` for `subject` unless it has one for the period; whether
/// it was raised now.
pub async fn raise(
    conn: &mut PgConnection,
    subject: &Subject,
    raise: &Raise,
    now: DateTime<Utc>,
) -> Result<bool, ServiceError> {
    let done = sqlx::query(
        "insert into risk_warning (enterprise_id, org_id, kind, level, subject_id, period, \
           vehicle_id, driver_id, title, content, warn_time) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) \
         on conflict (enterprise_id, kind, subject_id, period) do nothing",
    )
    .bind(subject.enterprise_id)
    .bind(subject.org_id)
    .bind(i16::from(raise.kind))
    .bind(i16::from(raise.level))
    .bind(subject.id)
    .bind(&raise.period)
    .bind(subject.vehicle_id)
    .bind(subject.driver_id)
    .bind(&raise.title)
    .bind(&raise.content)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Resolves the warnings whose condition cleared: a licence or ID card
/// renewed (its expiry day is no longer the warning's period; a card made
/// long-term has none) or a driver who left, a rent-to-own record paid up
/// or ended. The number resolved.
pub async fn resolve_cleared(conn: &mut PgConnection) -> Result<u64, ServiceError> {
    let mut documents = 0;
    for document in [Document::Licence, Document::IdCard] {
        let column = expiry_column(document);
        let done = sqlx::query(&format!(
            "update risk_warning w set status = 3 from driver d \
             where w.kind = $1 and w.status <> 3 and d.id = w.subject_id \
               and (d.status = 3 or d.{column} is null \
                 or to_char(d.{column} at time zone 'Asia/Shanghai', 'YYYY-MM-DD') <> w.period)",
        ))
        .bind(i16::from(document.kind()))
        .execute(&mut *conn)
        .await?;
        documents += done.rows_affected();
    }
    let payments = sqlx::query(
        "update risk_warning w set status = 3 from usage_record u \
         where w.kind = 10 and w.status <> 3 and u.id = w.subject_id \
           and (u.state <> 2 or coalesce(u.overdue_periods, 0) = 0)",
    )
    .execute(conn)
    .await?;
    Ok(documents + payments.rows_affected())
}

//! The driver table: list, count, read, insert, update. Every query names
//! the tenant and applies the caller's reach; row-level security is the
//! second line.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::{Cursor, Filters, Paging, Sort, TimeRange};
use sqlx::types::Json;
use sqlx::{FromRow, QueryBuilder};
use sqlx_postgres::{PgConnection, Postgres};
use uuid::Uuid;

use super::domain::{self, DriverDraft, Image};
use crate::context::Actor;

/// Columns of a driver row as the list and detail read it, with the vehicle
/// currently bound to the driver (kept on the vehicle by the binding log).
///
/// The organisation name comes from the org_unit replica, so renames show at once.
const SELECT: &str = "select d.id, d.org_id, coalesce((select o.name from org_unit o where o.id = d.org_id), '') as org_name, d.created_by, d.updated_by, \
     d.name, d.phone, d.id_number, d.employee_no, d.licence_class, d.licence_first_issue_time, \
     d.licence_expire_time, d.address, d.licence_front, d.licence_back, d.id_card_front, \
     d.id_card_back, d.id_card_expire_time, d.id_card_long_term, d.status, d.hire_time, \
     d.remark, d.created_at, d.updated_at, \
     bv.id as bound_vehicle_id, bv.plate_number as bound_plate_number \
     from driver d \
     left join lateral (select v.id, v.plate_number from vehicle v \
        where v.enterprise_id = d.enterprise_id and v.driver_id = d.id \
        order by v.id limit 1) bv on true";

#[derive(Debug, Clone, FromRow)]
pub struct DriverRow {
    pub id: Uuid,
    pub org_id: Uuid,
    pub org_name: String,
    pub created_by: Option<Uuid>,
    pub updated_by: Option<Uuid>,
    pub name: String,
    pub phone: String,
    pub id_number: String,
    pub employee_no: String,
    pub licence_class: i16,
    pub licence_first_issue_time: Option<DateTime<Utc>>,
    pub licence_expire_time: Option<DateTime<Utc>>,
    pub address: String,
    pub licence_front: Option<Json<Image>>,
    pub licence_back: Option<Json<Image>>,
    pub id_card_front: Option<Json<Image>>,
    pub id_card_back: Option<Json<Image>>,
    pub id_card_expire_time: Option<DateTime<Utc>>,
    pub id_card_long_term: bool,
    pub status: i16,
    pub hire_time: Option<DateTime<Utc>>,
    pub remark: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub bound_vehicle_id: Option<Uuid>,
    pub bound_plate_number: Option<String>,
}

/// A checked list filter (from `DriverFilter`).
#[derive(Debug, Clone, Default)]
pub struct DriverQuery {
    pub org_ids: Vec<Uuid>,
    pub name: String,
    pub phone: Option<String>,
    pub employee_no: String,
    pub statuses: Vec<i16>,
    pub licence_classes: Vec<i16>,
    pub has_vehicle: Option<bool>,
    pub licence_expire_time: TimeRange,
    pub plates: Vec<String>,
}

/// The driver list's one order, served by `driver_newest_idx`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DriverOrder {
    #[default]
    Newest,
}

impl Sort for DriverOrder {
    fn order_by(&self) -> &'static str {
        match self {
            DriverOrder::Newest => "d.created_at desc, d.id desc",
        }
    }
}

fn filtered<'a>(select: &str, actor: &Actor, query: &DriverQuery) -> Filters<'a> {
    let mut f = Filters::new(select, "d.enterprise_id", actor.enterprise_id);
    actor
        .reach
        .push_condition(f.scope(), "d.org_id", "d.created_by");
    // `org_ids` arrive expanded to their subtrees (vehicles::store::org_subtrees).
    f.any_of("d.org_id", query.org_ids.clone())
        .contains("d.name", &query.name)
        .equals("d.phone", query.phone.clone())
        .contains("d.employee_no", &query.employee_no)
        .any_of("d.status", query.statuses.clone())
        .any_of("d.licence_class", query.licence_classes.clone())
        .within("d.licence_expire_time", query.licence_expire_time);
    if let Some(has) = query.has_vehicle {
        f.and()
            .push(if has { "exists" } else { "not exists" })
            .push(
                " (select 1 from vehicle hv where hv.enterprise_id = d.enterprise_id \
             and hv.driver_id = d.id)",
            );
    }
    if !query.plates.is_empty() {
        f.and()
            .push("d.id in (select pv.driver_id from vehicle pv where pv.enterprise_id = ")
            .push_bind(actor.enterprise_id)
            .push(" and pv.plate_number = any(")
            .push_bind(query.plates.clone())
            .push("))");
    }
    f
}

/// One page of drivers and the exact number the list matches.
pub async fn list(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &DriverQuery,
    paging: Paging,
) -> Result<(Vec<DriverRow>, i64), ServiceError> {
    let mut qb = filtered(SELECT, actor, query).page(&DriverOrder::Newest, paging);
    let rows: Vec<DriverRow> = qb.build_query_as().fetch_all(&mut *conn).await?;
    let total = count(conn, actor, query).await?;
    Ok((rows, total))
}

/// The exact number of drivers the list matches.
pub async fn count(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &DriverQuery,
) -> Result<i64, ServiceError> {
    let mut count = filtered("select count(*) from driver d", actor, query).finish();
    Ok(count.build_query_scalar().fetch_one(conn).await?)
}

/// One export page under the list's filter and reach: newest first after
/// `cursor` (`created_at`, `id`), by keyset on `driver_newest_idx`.
pub async fn export_page(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &DriverQuery,
    cursor: Option<Cursor>,
    limit: i64,
) -> Result<Vec<DriverRow>, ServiceError> {
    let mut qb = filtered(SELECT, actor, query).keyset("d.created_at", "d.id", cursor, limit);
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

/// One driver the caller may see (locked for change when `for_update`).
pub async fn get_locked(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    for_update: bool,
) -> Result<DriverRow, ServiceError> {
    let mut qb = QueryBuilder::<Postgres>::new(SELECT);
    qb.push(" where d.id = ")
        .push_bind(id)
        .push(" and d.enterprise_id = ")
        .push_bind(actor.enterprise_id);
    if for_update {
        qb.push(" for update of d");
    }
    let row: Option<DriverRow> = qb.build_query_as().fetch_optional(conn).await?;
    row.filter(|r| actor.reach.sees(Some(r.org_id), r.created_by))
        .ok_or_else(ServiceError::not_found)
}

/// One driver the caller may see.
pub async fn get(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
) -> Result<DriverRow, ServiceError> {
    get_locked(conn, actor, id, false).await
}

/// Unique violations of the driver table as the user's field errors.
pub fn conflict(err: sqlx::Error) -> ServiceError {
    fleetdesk_kit::on_constraint(err, |name| match name {
        "driver_phone_key" => Some(domain::phone_taken()),
        "driver_id_number_key" => Some(domain::id_number_taken()),
        _ => None,
    })
}

fn json(image: &Option<Image>) -> Option<Json<&Image>> {
    image.as_ref().map(Json)
}

pub async fn insert(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    draft: &DriverDraft,
) -> Result<(), ServiceError> {
    sqlx::query(
        "insert into driver (id, enterprise_id, org_id, created_by, updated_by, name, phone, \
         id_number, employee_no, licence_class, licence_first_issue_time, licence_expire_time, \
         address, licence_front, licence_back, id_card_front, id_card_back, status, hire_time, \
         remark, id_card_expire_time, id_card_long_term) values ($1, $2, $3, $4, $4, $5, $6, $7, \
         $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)",
    )
    .bind(id)
    .bind(actor.enterprise_id)
    .bind(draft.org_id)
    .bind(actor.user_id)
    .bind(&draft.name)
    .bind(draft.phone.as_str())
    .bind(draft.id_number.as_str())
    .bind(&draft.employee_no)
    .bind(i16::from(draft.licence_class))
    .bind(draft.licence_first_issue_time)
    .bind(draft.licence_expire_time)
    .bind(&draft.address)
    .bind(json(&draft.licence_front))
    .bind(json(&draft.licence_back))
    .bind(json(&draft.id_card_front))
    .bind(json(&draft.id_card_back))
    .bind(i16::from(draft.status))
    .bind(draft.hire_time)
    .bind(&draft.remark)
    .bind(draft.id_card.columns().0)
    .bind(draft.id_card.columns().1)
    .execute(conn)
    .await
    .map_err(conflict)?;
    Ok(())
}

/// Stores many new drivers (no images) in one statement: every column one
/// array, `unnest`ed. Returns how many were written.
pub async fn insert_many(
    conn: &mut PgConnection,
    actor: &Actor,
    ids: &[Uuid],
    drafts: &[DriverDraft],
) -> Result<i64, ServiceError> {
    fn column<T>(drafts: &[DriverDraft], f: impl Fn(&DriverDraft) -> T) -> Vec<T> {
        drafts.iter().map(f).collect()
    }
    let written = sqlx::query(
        "insert into driver (id, enterprise_id, org_id, created_by, updated_by, name, phone, \
         id_number, employee_no, licence_class, licence_first_issue_time, licence_expire_time, \
         address, status, hire_time, remark, id_card_expire_time, id_card_long_term) \
         select t.id, $1, t.org_id, $2, $2, t.name, t.phone, t.id_number, t.employee_no, \
         t.licence_class, t.first_issued, t.expires, t.address, t.status, t.hired, t.remark, \
         t.id_card_expires, t.id_card_long_term \
         from unnest($3::uuid[], $4::uuid[], $5::text[], $6::text[], $7::text[], $8::text[], \
           $9::int2[], $10::timestamptz[], $11::timestamptz[], $12::text[], $13::int2[], \
           $14::timestamptz[], $15::text[], $16::timestamptz[], $17::bool[]) \
         as t(id, org_id, name, phone, id_number, employee_no, licence_class, first_issued, \
           expires, address, status, hired, remark, id_card_expires, id_card_long_term)",
    )
    .bind(actor.enterprise_id)
    .bind(actor.user_id)
    .bind(ids)
    .bind(column(drafts, |d| d.org_id))
    .bind(column(drafts, |d| d.name.clone()))
    .bind(column(drafts, |d| d.phone.as_str().to_owned()))
    .bind(column(drafts, |d| d.id_number.as_str().to_owned()))
    .bind(column(drafts, |d| d.employee_no.clone()))
    .bind(column(drafts, |d| i16::from(d.licence_class)))
    .bind(column(drafts, |d| d.licence_first_issue_time))
    .bind(column(drafts, |d| d.licence_expire_time))
    .bind(column(drafts, |d| d.address.clone()))
    .bind(column(drafts, |d| i16::from(d.status)))
    .bind(column(drafts, |d| d.hire_time))
    .bind(column(drafts, |d| d.remark.clone()))
    .bind(column(drafts, |d| d.id_card.columns().0))
    .bind(column(drafts, |d| d.id_card.columns().1))
    .execute(conn)
    .await
    .map_err(conflict)?;
    Ok(i64::try_from(written.rows_affected()).unwrap_or(i64::MAX))
}

/// Replaces a driver's editable fields, and the name copied onto the vehicle
/// the driver is bound to.
pub async fn update(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    draft: &DriverDraft,
) -> Result<(), ServiceError> {
    sqlx::query(
        "update driver set org_id = $3, updated_by = $4, name = $5, phone = $6, id_number = $7, \
         employee_no = $8, licence_class = $9, licence_first_issue_time = $10, \
         licence_expire_time = $11, address = $12, licence_front = $13, licence_back = $14, \
         id_card_front = $15, id_card_back = $16, status = $17, hire_time = $18, remark = $19, \
         id_card_expire_time = $20, id_card_long_term = $21 \
         where id = $1 and enterprise_id = $2",
    )
    .bind(id)
    .bind(actor.enterprise_id)
    .bind(draft.org_id)
    .bind(actor.user_id)
    .bind(&draft.name)
    .bind(draft.phone.as_str())
    .bind(draft.id_number.as_str())
    .bind(&draft.employee_no)
    .bind(i16::from(draft.licence_class))
    .bind(draft.licence_first_issue_time)
    .bind(draft.licence_expire_time)
    .bind(&draft.address)
    .bind(json(&draft.licence_front))
    .bind(json(&draft.licence_back))
    .bind(json(&draft.id_card_front))
    .bind(json(&draft.id_card_back))
    .bind(i16::from(draft.status))
    .bind(draft.hire_time)
    .bind(&draft.remark)
    .bind(draft.id_card.columns().0)
    .bind(draft.id_card.columns().1)
    .execute(&mut *conn)
    .await
    .map_err(conflict)?;
    sqlx::query(
        "update vehicle set driver_name = $3 \
         where enterprise_id = $1 and driver_id = $2 and driver_name is distinct from $3",
    )
    .bind(actor.enterprise_id)
    .bind(id)
    .bind(&draft.name)
    .execute(conn)
    .await?;
    Ok(())
}

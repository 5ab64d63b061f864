//! The private_car table.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::{Cursor, Filters, Paging, Sort};
use sqlx::{FromRow, QueryBuilder};
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::{PrivateCarDraft, PrivateCarStatus};
use crate::context::Actor;
use crate::vehicles::store::conflict;

// The organisation name comes from the org_unit replica.
const SELECT: &str = "select p.id, p.org_id, coalesce((select o.name from org_unit o where o.id = p.org_id), '') as org_name, p.created_by, p.vehicle_id, \
     p.plate_number, p.plate_color, p.vin, p.brand, p.model, p.energy_type, p.owner_driver_id, \
     p.owner_name, p.owner_phone, p.allowance_fen_per_km, p.status, p.reject_reason, \
     p.licence_images, p.insurance_images, p.remark, p.reviewed_by, p.created_at, p.updated_at \
     from private_car p";

#[derive(Debug, Clone, FromRow)]
pub struct PrivateCarRow {
    pub id: Uuid,
    pub org_id: Uuid,
    pub org_name: String,
    pub created_by: Option<Uuid>,
    pub vehicle_id: Option<Uuid>,
    pub plate_number: String,
    pub plate_color: i16,
    pub vin: String,
    pub brand: String,
    pub model: String,
    pub energy_type: i16,
    pub owner_driver_id: Option<Uuid>,
    pub owner_name: String,
    pub owner_phone: String,
    pub allowance_fen_per_km: i64,
    pub status: i16,
    pub reject_reason: String,
    pub licence_images: serde_json::Value,
    pub insurance_images: serde_json::Value,
    pub remark: String,
    pub reviewed_by: Option<Uuid>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A checked private-car filter.
#[derive(Debug, Clone, Default)]
pub struct PrivateCarQuery {
    pub plates: Vec<String>,
    pub org_ids: Vec<Uuid>,
    pub statuses: Vec<i16>,
    pub owner_name: String,
}

#[derive(Debug, Clone, Copy)]
struct NewestFirst;

impl Sort for NewestFirst {
    fn order_by(&self) -> &'static str {
        "p.created_at desc, p.id desc"
    }
}

fn filtered<'a>(select: &str, actor: &Actor, query: &PrivateCarQuery) -> Filters<'a> {
    let mut f = Filters::new(select, "p.enterprise_id", actor.enterprise_id);
    actor
        .reach
        .push_condition(f.scope(), "p.org_id", "p.created_by");
    f.any_of("p.org_id", query.org_ids.clone())
        .any_of("p.plate_number", query.plates.clone())
        .any_of("p.status", query.statuses.clone())
        .contains("p.owner_name", &query.owner_name);
    f
}

pub async fn list(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &PrivateCarQuery,
    paging: Paging,
) -> Result<(Vec<PrivateCarRow>, i64), ServiceError> {
    let mut rows = filtered(SELECT, actor, query).page(&NewestFirst, paging);
    let rows = rows.build_query_as().fetch_all(&mut *conn).await?;
    let total = count(conn, actor, query).await?;
    Ok((rows, total))
}

/// The exact number of private cars the list matches.
pub async fn count(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &PrivateCarQuery,
) -> Result<i64, ServiceError> {
    let mut count = filtered("select count(*) from private_car p", actor, query).finish();
    Ok(count.build_query_scalar().fetch_one(conn).await?)
}

/// One export page under the list's filter and reach: newest first after
/// `cursor` (`created_at`, `id`), by keyset on `private_car_newest_idx`.
pub async fn export_page(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &PrivateCarQuery,
    cursor: Option<Cursor>,
    limit: i64,
) -> Result<Vec<PrivateCarRow>, ServiceError> {
    let mut qb = filtered(SELECT, actor, query).keyset("p.created_at", "p.id", cursor, limit);
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

pub async fn get(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    for_update: bool,
) -> Result<PrivateCarRow, ServiceError> {
    let mut qb = QueryBuilder::new(SELECT);
    qb.push(" where p.id = ")
        .push_bind(id)
        .push(" and p.enterprise_id = ")
        .push_bind(actor.enterprise_id);
    if for_update {
        qb.push(" for update of p");
    }
    let row: Option<PrivateCarRow> = qb.build_query_as().fetch_optional(conn).await?;
    row.filter(|r| actor.reach.sees(Some(r.org_id), r.created_by))
        .ok_or_else(ServiceError::not_found)
}

pub async fn insert(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    draft: &PrivateCarDraft,
) -> Result<(), ServiceError> {
    sqlx::query(
        "insert into private_car (id, enterprise_id, org_id, created_by, plate_number, \
         plate_color, vin, brand, model, energy_type, owner_driver_id, owner_name, owner_phone, \
         allowance_fen_per_km, status, licence_images, insurance_images, remark) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)",
    )
    .bind(id)
    .bind(actor.enterprise_id)
    .bind(draft.org_id)
    .bind(actor.user_id)
    .bind(draft.plate.as_str())
    .bind(i16::from(draft.plate_color))
    .bind(draft.vin.as_str())
    .bind(&draft.brand)
    .bind(&draft.model)
    .bind(i16::from(draft.energy_type))
    .bind(draft.owner_driver_id)
    .bind(&draft.owner_name)
    .bind(draft.owner_phone.as_str())
    .bind(draft.allowance_fen_per_km)
    .bind(i16::from(PrivateCarStatus::PendingReview))
    .bind(&draft.licence_images)
    .bind(&draft.insurance_images)
    .bind(&draft.remark)
    .execute(conn)
    .await
    .map_err(conflict)?;
    Ok(())
}

/// Records a review decision (and the vehicle an approval created).
pub async fn set_review(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    status: PrivateCarStatus,
    reject_reason: &str,
    vehicle_id: Option<Uuid>,
) -> Result<(), ServiceError> {
    sqlx::query(
        "update private_car set status = $3, reject_reason = $4, vehicle_id = $5, \
         reviewed_by = $6, reviewed_at = now() where id = $1 and enterprise_id = $2",
    )
    .bind(id)
    .bind(actor.enterprise_id)
    .bind(i16::from(status))
    .bind(reject_reason)
    .bind(vehicle_id)
    .bind(actor.user_id)
    .execute(conn)
    .await?;
    Ok(())
}

//! The invoice_address table: the list (default first), one address, and
//! writes that move the default.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::{Filters, Paging, Sort};
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::AddressSpec;
use crate::context::Actor;

#[derive(Debug, Clone, FromRow)]
pub struct AddressRow {
    pub id: Uuid,
    pub enterprise_id: Uuid,
    pub recipient_name: String,
    pub recipient_phone: String,
    pub province_code: String,
    pub province_name: String,
    pub city_code: String,
    pub city_name: String,
    pub district_code: String,
    pub district_name: String,
    pub detail_address: String,
    pub postal_code: String,
    pub email: String,
    pub is_default: bool,
    pub created_by_name: String,
    pub created_at: DateTime<Utc>,
    pub updated_by_name: String,
    pub updated_at: DateTime<Utc>,
}

const SELECT: &str = "select a.id, a.enterprise_id, a.recipient_name, a.recipient_phone, \
     a.province_code, a.province_name, a.city_code, a.city_name, a.district_code, \
     a.district_name, a.detail_address, a.postal_code, a.email, a.is_default, \
     a.created_by_name, a.created_at, a.updated_by_name, a.updated_at from invoice_address a";

#[derive(Debug, Clone, Copy)]
struct DefaultThenNewest;

impl Sort for DefaultThenNewest {
    fn order_by(&self) -> &'static str {
        "a.is_default desc, a.created_at desc, a.id desc"
    }
}

pub async fn list(
    conn: &mut PgConnection,
    actor: &Actor,
    paging: Paging,
) -> Result<(Vec<AddressRow>, i64), ServiceError> {
    let rows = Filters::new(SELECT, "a.enterprise_id", actor.enterprise_id)
        .page(&DefaultThenNewest, paging)
        .build_query_as()
        .fetch_all(&mut *conn)
        .await?;
    let total: i64 =
        sqlx::query_scalar("select count(*) from invoice_address where enterprise_id = $1")
            .bind(actor.enterprise_id)
            .fetch_one(conn)
            .await?;
    Ok((rows, total))
}

/// The tenant's address `id` (4004 otherwise).
pub async fn get(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    id: Uuid,
) -> Result<AddressRow, ServiceError> {
    sqlx::query_as(&format!(
        "{SELECT} where a.enterprise_id = $1 and a.id = $2"
    ))
    .bind(enterprise_id)
    .bind(id)
    .fetch_optional(conn)
    .await?
    .ok_or_else(ServiceError::not_found)
}

async fn move_default(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    id: Uuid,
    spec: &AddressSpec,
) -> Result<(), ServiceError> {
    if spec.is_default {
        sqlx::query(
            "update invoice_address set is_default = false \
             where enterprise_id = $1 and is_default and id <> $2",
        )
        .bind(enterprise_id)
        .bind(id)
        .execute(conn)
        .await?;
    }
    Ok(())
}

/// Binds `$3`..`$14`: the address's fields.
fn bind_spec<'q>(
    query: sqlx::query::Query<'q, sqlx_postgres::Postgres, sqlx_postgres::PgArguments>,
    spec: &'q AddressSpec,
) -> sqlx::query::Query<'q, sqlx_postgres::Postgres, sqlx_postgres::PgArguments> {
    query
        .bind(&spec.recipient_name)
        .bind(&spec.recipient_phone)
        .bind(&spec.province_code)
        .bind(&spec.province_name)
        .bind(&spec.city_code)
        .bind(&spec.city_name)
        .bind(&spec.district_code)
        .bind(&spec.district_name)
        .bind(&spec.detail_address)
        .bind(&spec.postal_code)
        .bind(&spec.email)
        .bind(spec.is_default)
}

pub async fn insert(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    spec: &AddressSpec,
) -> Result<(), ServiceError> {
    move_default(conn, actor.enterprise_id, id, spec).await?;
    let query = sqlx::query(
        "insert into invoice_address (id, enterprise_id, recipient_name, recipient_phone, \
         province_code, province_name, city_code, city_name, district_code, district_name, \
         detail_address, postal_code, email, is_default, created_by, created_by_name, \
         updated_by_name) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $16)",
    )
    .bind(id)
    .bind(actor.enterprise_id);
    bind_spec(query, spec)
        .bind(actor.user_id)
        .bind(&actor.name)
        .execute(conn)
        .await?;
    Ok(())
}

/// Replaces the fields of address `id` (an empty phone keeps the stored
/// one); 4004 when the tenant has none such.
pub async fn update(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    spec: &AddressSpec,
) -> Result<(), ServiceError> {
    move_default(conn, actor.enterprise_id, id, spec).await?;
    let query = sqlx::query(
        "update invoice_address set recipient_name = $3, \
         recipient_phone = coalesce(nullif($4, ''), recipient_phone), province_code = $5, \
         province_name = $6, city_code = $7, city_name = $8, district_code = $9, \
         district_name = $10, detail_address = $11, postal_code = $12, email = $13, \
         is_default = $14, updated_by_name = $15 \
         where id = $1 and enterprise_id = $2",
    )
    .bind(id)
    .bind(actor.enterprise_id);
    let updated = bind_spec(query, spec)
        .bind(&actor.name)
        .execute(conn)
        .await?
        .rows_affected();
    if updated == 0 {
        return Err(ServiceError::not_found());
    }
    Ok(())
}

pub async fn delete(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    id: Uuid,
) -> Result<(), ServiceError> {
    let deleted = sqlx::query("delete from invoice_address where enterprise_id = $1 and id = $2")
        .bind(enterprise_id)
        .bind(id)
        .execute(conn)
        .await?
        .rows_affected();
    if deleted == 0 {
        return Err(ServiceError::not_found());
    }
    Ok(())
}

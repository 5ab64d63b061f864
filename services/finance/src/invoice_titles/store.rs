//! The invoice_title table: the list (default first), one title, and
//! writes that move the default.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::error::ResultExt;
use fleetdesk_kit::list::{Filters, Paging, Sort};
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::TitleSpec;
use crate::context::Actor;

#[derive(Debug, Clone, FromRow)]
pub struct TitleRow {
    pub id: Uuid,
    pub enterprise_id: Uuid,
    pub title_type: i16,
    pub name: String,
    pub tax_number: String,
    pub tax_number_unchecked: bool,
    pub registered_address: String,
    pub registered_phone: String,
    pub bank_name: String,
    pub bank_account: String,
    pub is_default: bool,
    pub created_by_name: String,
    pub created_at: DateTime<Utc>,
    pub updated_by_name: String,
    pub updated_at: DateTime<Utc>,
}

const SELECT: &str = "select t.id, t.enterprise_id, t.title_type, t.name, t.tax_number, \
     t.tax_number_unchecked, t.registered_address, t.registered_phone, t.bank_name, \
     t.bank_account, t.is_default, t.created_by_name, t.created_at, t.updated_by_name, \
     t.updated_at from invoice_title t";

#[derive(Debug, Clone, Copy)]
struct DefaultThenNewest;

impl Sort for DefaultThenNewest {
    fn order_by(&self) -> &'static str {
        "t.is_default desc, t.created_at desc, t.id desc"
    }
}

fn name_taken(name: &str) -> Option<ServiceError> {
    (name == "invoice_title_name_key").then(|| ServiceError::taken("name", "已有同名的开票抬头"))
}

pub async fn list(
    conn: &mut PgConnection,
    actor: &Actor,
    keyword: &str,
    paging: Paging,
) -> Result<(Vec<TitleRow>, i64), ServiceError> {
    let filtered = || {
        let mut f = Filters::new(SELECT, "t.enterprise_id", actor.enterprise_id);
        f.contains_any(&["t.name", "t.tax_number"], keyword);
        f
    };
    let rows = filtered()
        .page(&DefaultThenNewest, paging)
        .build_query_as()
        .fetch_all(&mut *conn)
        .await?;
    let mut count = Filters::new(
        "select count(*) from invoice_title t",
        "t.enterprise_id",
        actor.enterprise_id,
    );
    count.contains_any(&["t.name", "t.tax_number"], keyword);
    let total: i64 = count.finish().build_query_scalar().fetch_one(conn).await?;
    Ok((rows, total))
}

/// The tenant's title `id` (4004 otherwise), optionally locked.
pub async fn get(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    id: Uuid,
    lock: bool,
) -> Result<TitleRow, ServiceError> {
    let lock = if lock { " for update" } else { "" };
    sqlx::query_as(&format!(
        "{SELECT} where t.enterprise_id = $1 and t.id = $2{lock}"
    ))
    .bind(enterprise_id)
    .bind(id)
    .fetch_optional(conn)
    .await?
    .ok_or_else(ServiceError::not_found)
}

/// Clears the default of every other title when `spec` is the default.
async fn move_default(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    id: Uuid,
    spec: &TitleSpec,
) -> Result<(), ServiceError> {
    if spec.is_default {
        sqlx::query(
            "update invoice_title set is_default = false \
             where enterprise_id = $1 and is_default and id <> $2",
        )
        .bind(enterprise_id)
        .bind(id)
        .execute(conn)
        .await?;
    }
    Ok(())
}

pub async fn insert(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    spec: &TitleSpec,
) -> Result<(), ServiceError> {
    move_default(conn, actor.enterprise_id, id, spec).await?;
    sqlx::query(
        "insert into invoice_title (id, enterprise_id, title_type, name, tax_number, \
         tax_number_unchecked, registered_address, registered_phone, bank_name, bank_account, \
         is_default, created_by, created_by_name, updated_by_name) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13)",
    )
    .bind(id)
    .bind(actor.enterprise_id)
    .bind(i16::from(spec.title_type))
    .bind(&spec.name)
    .bind(&spec.tax_number)
    .bind(spec.tax_number_unchecked)
    .bind(&spec.registered_address)
    .bind(&spec.registered_phone)
    .bind(&spec.bank_name)
    .bind(&spec.bank_account)
    .bind(spec.is_default)
    .bind(actor.user_id)
    .bind(&actor.name)
    .execute(conn)
    .await
    .on_constraint(name_taken)?;
    Ok(())
}

/// Replaces every field of title `id` (4004 when the tenant has none such).
pub async fn update(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    spec: &TitleSpec,
) -> Result<(), ServiceError> {
    move_default(conn, actor.enterprise_id, id, spec).await?;
    let updated = sqlx::query(
        "update invoice_title set title_type = $3, name = $4, tax_number = $5, \
         tax_number_unchecked = $6, registered_address = $7, registered_phone = $8, \
         bank_name = $9, bank_account = $10, is_default = $11, updated_by_name = $12 \
         where enterprise_id = $1 and id = $2",
    )
    .bind(actor.enterprise_id)
    .bind(id)
    .bind(i16::from(spec.title_type))
    .bind(&spec.name)
    .bind(&spec.tax_number)
    .bind(spec.tax_number_unchecked)
    .bind(&spec.registered_address)
    .bind(&spec.registered_phone)
    .bind(&spec.bank_name)
    .bind(&spec.bank_account)
    .bind(spec.is_default)
    .bind(&actor.name)
    .execute(conn)
    .await
    .on_constraint(name_taken)?
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
    let deleted = sqlx::query("delete from invoice_title where enterprise_id = $1 and id = $2")
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

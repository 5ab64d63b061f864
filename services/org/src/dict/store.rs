//! Queries of `dict_entry`, shared by every enterprise (read on the pool).

use sqlx::FromRow;
use sqlx_postgres::PgPool;

#[derive(Debug, FromRow)]
pub struct DictRow {
    pub dict_type: String,
    pub value: String,
    pub label: String,
    pub sort: i32,
}

/// Enabled entries of one type (every type when empty), in their order.
pub async fn entries(pool: &PgPool, dict_type: &str) -> sqlx::Result<Vec<DictRow>> {
    sqlx::query_as(
        "select dict_type, value, label, sort from dict_entry \
         where ($1 = '' or dict_type = $1) and status = 1 order by dict_type, sort, value",
    )
    .bind(dict_type)
    .fetch_all(pool)
    .await
}

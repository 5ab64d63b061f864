//! Queries of `operating_area`, the operator's regions and cities (shared
//! by every enterprise, read on the pool).

use sqlx::FromRow;
use sqlx_postgres::PgPool;

#[derive(Debug, FromRow)]
pub struct OperatingAreaRow {
    pub code: String,
    pub parent_code: String,
    pub name: String,
}

/// Areas of one type, below `parent` when one is named, in their order.
pub async fn operating_areas(
    pool: &PgPool,
    type_code: &str,
    parent: &str,
) -> sqlx::Result<Vec<OperatingAreaRow>> {
    sqlx::query_as(
        "select code, parent_code, name from operating_area \
         where type_code = $1 and ($2 = '' or parent_code = $2) order by sort, code",
    )
    .bind(type_code)
    .bind(parent)
    .fetch_all(pool)
    .await
}

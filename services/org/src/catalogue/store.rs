//! Queries of the `permission` table: keeping it in step with the
//! catalogue, and reading it back for the role editor.

use sqlx::FromRow;
use sqlx_postgres::{PgConnection, PgPool};

use super::domain::entries;

/// Upserts every catalogue entry into the `permission` table.
pub async fn sync(pool: &PgPool) -> sqlx::Result<()> {
    let entries = entries();
    let values: Vec<&str> = entries.iter().map(|e| e.value.as_str()).collect();
    let zh: Vec<&str> = entries.iter().map(|e| e.zh.as_str()).collect();
    let en: Vec<&str> = entries.iter().map(|e| e.en.as_str()).collect();
    let ja: Vec<&str> = entries.iter().map(|e| e.ja.as_str()).collect();
    let parents: Vec<Option<&str>> = entries.iter().map(|e| e.parent.as_deref()).collect();
    let sorts: Vec<i32> = (0..entries.len())
        .map(|i| i32::try_from(i).unwrap_or(i32::MAX))
        .collect();
    sqlx::query(
        "insert into permission (value, label_zh, label_en, label_ja, parent_value, sort) \
         select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[]) \
         on conflict (value) do update set label_zh = excluded.label_zh, \
         label_en = excluded.label_en, label_ja = excluded.label_ja, \
         parent_value = excluded.parent_value, sort = excluded.sort",
    )
    .bind(&values)
    .bind(&zh)
    .bind(&en)
    .bind(&ja)
    .bind(&parents)
    .bind(&sorts)
    .execute(pool)
    .await?;
    Ok(())
}

#[derive(Debug, Clone, FromRow)]
pub struct PermissionRow {
    pub value: String,
    pub label_zh: String,
    pub label_en: String,
    pub label_ja: String,
    pub parent_value: Option<String>,
}

/// Every permission in the catalogue's order.
pub async fn permissions(conn: &mut PgConnection) -> sqlx::Result<Vec<PermissionRow>> {
    sqlx::query_as("select value, label_zh, label_en, label_ja, parent_value from permission order by sort, value")
        .fetch_all(conn)
        .await
}

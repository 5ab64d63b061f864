//! Queries of `org_unit_area`, on the caller's tenant transaction.

use sqlx_postgres::PgConnection;
use uuid::Uuid;

/// (unit, city code) of the units `org_ids`, in each unit's order.
pub async fn areas_of(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    org_ids: &[Uuid],
) -> sqlx::Result<Vec<(Uuid, String)>> {
    sqlx::query_as(
        "select org_id, city_code from org_unit_area where enterprise_id = $1 and org_id = any($2) \
         order by org_id, sort, city_code",
    )
    .bind(enterprise_id)
    .bind(org_ids)
    .fetch_all(conn)
    .await
}

/// Replaces the cities `org_id` serves with `city_codes`, their order kept.
pub async fn replace_areas(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    org_id: Uuid,
    city_codes: &[String],
) -> sqlx::Result<()> {
    sqlx::query("delete from org_unit_area where enterprise_id = $1 and org_id = $2")
        .bind(enterprise_id)
        .bind(org_id)
        .execute(&mut *conn)
        .await?;
    sqlx::query(
        "insert into org_unit_area (enterprise_id, org_id, city_code, sort) \
         select $1, $2, code, ord::int from unnest($3::text[]) with ordinality as c(code, ord)",
    )
    .bind(enterprise_id)
    .bind(org_id)
    .bind(city_codes)
    .execute(conn)
    .await?;
    Ok(())
}

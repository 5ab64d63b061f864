//! Queries of `org_unit_area`, on the caller's tenant transaction.

use sqlx::PgConnection;
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

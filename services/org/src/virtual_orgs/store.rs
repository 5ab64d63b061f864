//! Queries of `virtual_org` and `virtual_org_unit`, on the caller's tenant
//! transaction.

use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

#[derive(Debug, FromRow)]
pub struct VirtualOrgRow {
    pub id: Uuid,
    pub code: String,
    pub name: String,
}

/// The tenant's virtual organisations, by sort then code.
pub async fn virtual_orgs(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
) -> sqlx::Result<Vec<VirtualOrgRow>> {
    sqlx::query_as(
        "select id, code, name from virtual_org where enterprise_id = $1 order by sort, code",
    )
    .bind(enterprise_id)
    .fetch_all(conn)
    .await
}

/// (virtual organisation, unit) pairs of the tenant, in grouping order.
pub async fn members(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
) -> sqlx::Result<Vec<(Uuid, Uuid)>> {
    sqlx::query_as(
        "select virtual_org_id, org_id from virtual_org_unit where enterprise_id = $1 \
         order by sort, org_id",
    )
    .bind(enterprise_id)
    .fetch_all(conn)
    .await
}

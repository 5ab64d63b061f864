//! Data-scope queries: the organisation tree, a member's scopes and the
//! reach they make, each on the caller's tenant transaction.

use fleetdesk_kit::ServiceError;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::{self, DataScope, Reach};

/// (id, parent) of every organisation of the transaction's tenant.
pub async fn tree(conn: &mut PgConnection) -> sqlx::Result<Vec<(Uuid, Option<Uuid>)>> {
    sqlx::query_as("select id, parent_id from org_unit")
        .fetch_all(conn)
        .await
}

/// The scopes a member acts with: their own when set, else their enabled roles'.
pub async fn scopes_of_member(
    conn: &mut PgConnection,
    member_id: Uuid,
) -> sqlx::Result<(Option<Uuid>, Vec<DataScope>)> {
    let member: Option<(Option<Uuid>, Option<i16>, Vec<Uuid>)> = sqlx::query_as(
        "select org_id, data_scope_kind, data_scope_org_ids from member where id = $1",
    )
    .bind(member_id)
    .fetch_optional(&mut *conn)
    .await?;
    let Some((org, own_kind, own_orgs)) = member else {
        return Ok((None, Vec::new()));
    };
    if let Some(kind) = own_kind {
        return Ok((org, DataScope::stored(kind, own_orgs).into_iter().collect()));
    }
    let roles: Vec<(i16, Vec<Uuid>)> = sqlx::query_as(
        "select r.data_scope_kind, r.data_scope_org_ids from role r \
         join member_role mr on mr.role_id = r.id where mr.member_id = $1 and r.status = 1",
    )
    .bind(member_id)
    .fetch_all(&mut *conn)
    .await?;
    Ok((
        org,
        roles
            .into_iter()
            .filter_map(|(kind, org_ids)| DataScope::stored(kind, org_ids))
            .collect(),
    ))
}

/// The reach of a member of the transaction's tenant.
pub async fn of_member(conn: &mut PgConnection, member_id: Uuid) -> sqlx::Result<Reach> {
    let (org, scopes) = scopes_of_member(conn, member_id).await?;
    let tree = tree(conn).await?;
    Ok(domain::reach(&scopes, member_id, org, &tree))
}

/// The reach of a caller: a person's from their scopes, a service's everything.
pub async fn of_caller(conn: &mut PgConnection, member_id: Option<Uuid>) -> sqlx::Result<Reach> {
    match member_id {
        Some(id) => of_member(conn, id).await,
        None => Ok(Reach::everything()),
    }
}

/// `roots` and every organisation below them, through the tenant's tree:
/// a list's organisation filter ("this unit and its children").
pub async fn subtrees(conn: &mut PgConnection, roots: &[Uuid]) -> sqlx::Result<Vec<Uuid>> {
    let tree = tree(conn).await?;
    Ok(domain::subtree(&tree, roots).into_iter().collect())
}

/// Every organisation a scope names must be one of the tenant's.
pub async fn check_orgs(conn: &mut PgConnection, scope: &DataScope) -> Result<(), ServiceError> {
    if scope.org_ids.is_empty() {
        return Ok(());
    }
    let found: i64 = sqlx::query_scalar("select count(*) from org_unit where id = any($1)")
        .bind(&scope.org_ids)
        .fetch_one(conn)
        .await?;
    if usize::try_from(found).unwrap_or(0) != scope.org_ids.len() {
        return Err(ServiceError::invalid("dataScopeOrgIds", "组织不存在"));
    }
    Ok(())
}

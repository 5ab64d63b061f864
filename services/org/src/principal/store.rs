//! Queries of enterprises and memberships. They cross tenants (an account's
//! memberships, a WeCom identity), so they run on a service-scoped
//! transaction.

use chrono::{DateTime, Utc};
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

#[derive(Debug, Clone, FromRow)]
pub struct EnterpriseRow {
    pub id: Uuid,
    pub name: String,
    pub code: String,
    pub status: i16,
    pub credit_code: String,
    pub contact_name: String,
    pub contact_phone: String,
    pub wecom_corp_id: Option<String>,
    pub created_at: DateTime<Utc>,
}

pub async fn enterprise(conn: &mut PgConnection, id: Uuid) -> sqlx::Result<Option<EnterpriseRow>> {
    sqlx::query_as(
        "select id, name, code, status, credit_code, contact_name, contact_phone, wecom_corp_id, created_at \
         from enterprise where id = $1",
    )
    .bind(id)
    .fetch_optional(conn)
    .await
}

#[derive(Debug, Clone, FromRow)]
pub struct MembershipRow {
    pub enterprise_id: Uuid,
    pub enterprise_name: String,
    pub member_id: Uuid,
    pub account_id: Uuid,
}

/// Enabled memberships of an account in enabled enterprises.
pub async fn memberships(
    conn: &mut PgConnection,
    account_id: Uuid,
) -> sqlx::Result<Vec<MembershipRow>> {
    sqlx::query_as(
        "select e.id as enterprise_id, e.name as enterprise_name, m.id as member_id, m.account_id \
         from member m join enterprise e on e.id = m.enterprise_id \
         where m.account_id = $1 and m.status = 1 and e.status = 1 order by e.name",
    )
    .bind(account_id)
    .fetch_all(conn)
    .await
}

/// The enabled member with this WeCom user id in the enabled enterprise that
/// owns the corp id.
pub async fn membership_by_wecom_id(
    conn: &mut PgConnection,
    corp_id: &str,
    wecom_user_id: &str,
) -> sqlx::Result<Option<MembershipRow>> {
    sqlx::query_as(
        "select e.id as enterprise_id, e.name as enterprise_name, m.id as member_id, m.account_id \
         from member m join enterprise e on e.id = m.enterprise_id \
         where e.wecom_corp_id = $1 and m.wecom_user_id = $2 and m.status = 1 and e.status = 1",
    )
    .bind(corp_id)
    .bind(wecom_user_id)
    .fetch_optional(conn)
    .await
}

#[derive(Debug, Clone, FromRow)]
pub struct MemberRow {
    pub id: Uuid,
    pub account_id: Uuid,
    pub name: String,
    pub user_name: String,
    pub avatar_url: String,
    pub status: i16,
    /// Status of the member's organisation (enabled when they have none).
    pub org_status: i16,
}

pub async fn member_of_account(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    account_id: Uuid,
) -> sqlx::Result<Option<MemberRow>> {
    sqlx::query_as(
        "select m.id, m.account_id, m.name, m.user_name, m.avatar_url, m.status, \
         coalesce(o.status, 1::smallint) as org_status \
         from member m left join org_unit o on o.id = m.org_id \
         where m.enterprise_id = $1 and m.account_id = $2",
    )
    .bind(enterprise_id)
    .bind(account_id)
    .fetch_optional(conn)
    .await
}

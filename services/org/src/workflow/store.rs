//! Queries of the workflow requests: members as recipients, and the notices
//! and approvals requests write. Each runs in the consumer's transaction,
//! entered into the request's tenant.

use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

/// Whether org knows the enterprise.
pub async fn enterprise_exists(conn: &mut PgConnection, enterprise_id: Uuid) -> sqlx::Result<bool> {
    sqlx::query_scalar("select exists(select 1 from enterprise where id = $1)")
        .bind(enterprise_id)
        .fetch_one(conn)
        .await
}

/// The enabled members of `ids` (in enabled organisations, or none).
pub async fn enabled_members(conn: &mut PgConnection, ids: &[Uuid]) -> sqlx::Result<Vec<Uuid>> {
    sqlx::query_scalar(
        "select m.id from member m left join org_unit o on o.id = m.org_id \
         where m.id = any($1) and m.status = 1 and coalesce(o.status, 1) = 1 order by m.id",
    )
    .bind(ids)
    .fetch_all(conn)
    .await
}

/// A member holding a permission, with the data scope it acts with: its
/// own when set (`own_kind`), else its enabled roles' (`role_scopes`).
#[derive(Debug, Clone, FromRow)]
pub struct Holder {
    pub id: Uuid,
    pub org_id: Option<Uuid>,
    pub own_kind: Option<i16>,
    pub own_org_ids: Vec<Uuid>,
}

/// The enabled members (in enabled organisations, or none) holding
/// `permission` through an enabled role.
pub async fn holders(conn: &mut PgConnection, permission: &str) -> sqlx::Result<Vec<Holder>> {
    sqlx::query_as(
        "select m.id, m.org_id, m.data_scope_kind as own_kind, m.data_scope_org_ids as own_org_ids \
         from member m left join org_unit o on o.id = m.org_id \
         where m.status = 1 and coalesce(o.status, 1) = 1 and exists ( \
           select 1 from member_role mr join role r on r.id = mr.role_id \
           join role_permission rp on rp.role_id = r.id \
           where mr.member_id = m.id and r.status = 1 and rp.permission_value = $1) \
         order by m.id",
    )
    .bind(permission)
    .fetch_all(conn)
    .await
}

/// (member, kind, organisations) of the enabled roles of `members`.
pub async fn role_scopes(
    conn: &mut PgConnection,
    members: &[Uuid],
) -> sqlx::Result<Vec<(Uuid, i16, Vec<Uuid>)>> {
    sqlx::query_as(
        "select mr.member_id, r.data_scope_kind, r.data_scope_org_ids from member_role mr \
         join role r on r.id = mr.role_id where mr.member_id = any($1) and r.status = 1",
    )
    .bind(members)
    .fetch_all(conn)
    .await
}

/// A notice as a request writes it.
pub struct NewNotice<'a> {
    pub source_key: &'a str,
    pub category: &'a str,
    pub title: &'a str,
    pub content: &'a str,
    pub link: &'a str,
}

/// Writes the notice once per recipient (`None`: once for everyone) that
/// has none of this source key yet; how many were written.
pub async fn notify(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    recipients: Option<&[Uuid]>,
    notice: &NewNotice<'_>,
) -> sqlx::Result<u64> {
    let NewNotice {
        source_key,
        category,
        title,
        content,
        link,
    } = notice;
    // One null recipient stands for everyone.
    let recipients: Vec<Option<Uuid>> = match recipients {
        Some(ids) => ids.iter().copied().map(Some).collect(),
        None => vec![None],
    };
    Ok(sqlx::query(
        "insert into notice (id, enterprise_id, recipient_id, category, title, content, link, source_key) \
         select gen_random_uuid(), $1, r, $3, $4, $5, $6, $7 from unnest($2::uuid[]) r \
         on conflict (enterprise_id, source_key, \
           coalesce(recipient_id, '00000000-0000-0000-0000-000000000000'::uuid)) \
           where source_key is not null do nothing",
    )
    .bind(enterprise_id)
    .bind(&recipients)
    .bind(*category)
    .bind(*title)
    .bind(*content)
    .bind(*link)
    .bind(*source_key)
    .execute(conn)
    .await?
    .rows_affected())
}

/// The applicant as org knows them: name, phone and organisation.
#[derive(Debug, Clone, FromRow)]
pub struct Applicant {
    pub name: String,
    pub phone: String,
    pub org_id: Option<Uuid>,
}

pub async fn applicant(conn: &mut PgConnection, member: Uuid) -> sqlx::Result<Option<Applicant>> {
    sqlx::query_as("select name, phone, org_id from member where id = $1")
        .bind(member)
        .fetch_optional(conn)
        .await
}

/// Whether the organisation is one of the tenant's.
pub async fn org_exists(conn: &mut PgConnection, org: Uuid) -> sqlx::Result<bool> {
    sqlx::query_scalar("select exists(select 1 from org_unit where id = $1)")
        .bind(org)
        .fetch_one(conn)
        .await
}

/// An approval as a request raises it.
pub struct NewApproval<'a> {
    pub request_key: Option<&'a str>,
    pub kind: i16,
    pub title: &'a str,
    pub business_id: &'a str,
    pub applicant_id: Option<Uuid>,
    pub applicant: &'a Applicant,
    pub plate_number: &'a str,
    pub detail: serde_json::Value,
}

/// Raises a pending approval with its submission step, unless one of the
/// same request key exists; its id when raised.
pub async fn raise_approval(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    approval: &NewApproval<'_>,
) -> sqlx::Result<Option<Uuid>> {
    let NewApproval {
        request_key,
        kind,
        title,
        business_id,
        applicant_id,
        applicant,
        plate_number,
        detail,
    } = approval;
    let id = Uuid::new_v4();
    let raised: Option<Uuid> = sqlx::query_scalar(
        "insert into approval (id, enterprise_id, kind, title, business_id, applicant_id, \
           applicant_name, applicant_phone, plate_number, status, detail, org_id, request_key) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, 1, $10, $11, $12) \
         on conflict (enterprise_id, request_key) where request_key is not null do nothing \
         returning id",
    )
    .bind(id)
    .bind(enterprise_id)
    .bind(*kind)
    .bind(*title)
    .bind(*business_id)
    .bind(*applicant_id)
    .bind(&applicant.name)
    .bind(&applicant.phone)
    .bind(*plate_number)
    .bind(detail)
    .bind(applicant.org_id)
    .bind(*request_key)
    .fetch_optional(&mut *conn)
    .await?;
    if raised.is_none() {
        return Ok(None);
    }
    sqlx::query(
        "insert into approval_step (id, enterprise_id, approval_id, status, operator_id, \
           operator_name, comment) values ($1, $2, $3, 1, $4, $5, '提交申请')",
    )
    .bind(Uuid::new_v4())
    .bind(enterprise_id)
    .bind(id)
    .bind(*applicant_id)
    .bind(&applicant.name)
    .execute(conn)
    .await?;
    Ok(Some(id))
}

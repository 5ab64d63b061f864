//! Queries of sensitive values (where each subject keeps them) and of the
//! view audit, each on the caller's tenant transaction.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::{SensitiveType, SubjectKind, log_content};

/// The stored value of one subject, within the transaction's tenant.
pub async fn value_of(
    tx: &mut PgConnection,
    enterprise_id: Uuid,
    subject: SubjectKind,
    subject_id: Uuid,
    kind: SensitiveType,
) -> Result<String, ServiceError> {
    let phone_only = || {
        if kind == SensitiveType::Phone {
            Ok(())
        } else {
            Err(ServiceError::invalid(
                "sensitiveType",
                "该对象没有此类敏感信息",
            ))
        }
    };
    let sql = match subject {
        // Kept by the vehicle service: revealed there, recorded by `record`.
        SubjectKind::Driver => return Err(ServiceError::not_found()),
        SubjectKind::Member if kind == SensitiveType::Phone => {
            "select phone from member where enterprise_id = $1 and id = $2".to_owned()
        }
        SubjectKind::Member => format!(
            "select {} from member_identity where enterprise_id = $1 and member_id = $2",
            kind.member_column()
        ),
        SubjectKind::Approval => {
            phone_only()?;
            "select applicant_phone from approval where enterprise_id = $1 and id = $2".to_owned()
        }
        SubjectKind::Feedback => {
            phone_only()?;
            "select contact from feedback where enterprise_id = $1 and id = $2".to_owned()
        }
    };
    let value: Option<String> = sqlx::query_scalar(&sql)
        .bind(enterprise_id)
        .bind(subject_id)
        .fetch_optional(&mut *tx)
        .await?;
    value.ok_or_else(ServiceError::not_found)
}

/// One view to audit: what was viewed (kept masked), by whom, from where.
pub struct View<'a> {
    pub enterprise_id: Uuid,
    pub viewer: Uuid,
    pub viewer_name: &'a str,
    pub kind: SensitiveType,
    pub subject: SubjectKind,
    pub subject_id: Uuid,
    pub value: &'a str,
    pub page_url: &'a str,
    pub module: &'a str,
    pub ip: &'a str,
}

/// Writes one audit row; its id.
pub async fn write_log(tx: &mut PgConnection, view: View<'_>) -> sqlx::Result<Uuid> {
    let View {
        enterprise_id,
        viewer,
        viewer_name,
        kind,
        subject,
        subject_id,
        value,
        page_url,
        module,
        ip,
    } = view;
    let log_id = Uuid::new_v4();
    sqlx::query(
        "insert into sensitive_view_log (id, enterprise_id, sensitive_type, subject_kind, subject_id, \
         log_content, page_url, source_module, viewer_id, viewer_name, ip) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
    )
    .bind(log_id)
    .bind(enterprise_id)
    .bind(i16::from(kind))
    .bind(i16::from(subject))
    .bind(subject_id)
    .bind(log_content(kind, value))
    .bind(page_url)
    .bind(module)
    .bind(viewer)
    .bind(viewer_name)
    .bind(ip)
    .execute(&mut *tx)
    .await?;
    Ok(log_id)
}

#[derive(Debug, FromRow)]
pub struct LogRow {
    pub id: Uuid,
    pub sensitive_type: i16,
    pub subject_kind: i16,
    pub subject_id: Uuid,
    pub log_content: String,
    pub page_url: String,
    pub source_module: String,
    pub viewer_id: Option<Uuid>,
    pub viewer_name: String,
    pub ip: String,
    pub viewed_at: DateTime<Utc>,
}

/// One page of the tenant's audit (of one type when named), newest first, and the total.
pub async fn logs(
    conn: &mut PgConnection,
    tenant: Uuid,
    kind: Option<SensitiveType>,
    (page, size): (i64, i64),
) -> sqlx::Result<(Vec<LogRow>, i64)> {
    let kind = kind.map(i16::from);
    let condition = "enterprise_id = $1 and ($2::smallint is null or sensitive_type = $2)";
    let rows: Vec<LogRow> = sqlx::query_as(&format!(
        "select id, sensitive_type, subject_kind, subject_id, log_content, page_url, source_module, \
         viewer_id, viewer_name, ip, viewed_at from sensitive_view_log where {condition} \
         order by viewed_at desc, id limit $3 offset $4"
    ))
    .bind(tenant)
    .bind(kind)
    .bind(size)
    .bind((page - 1) * size)
    .fetch_all(&mut *conn)
    .await?;
    let total: i64 = sqlx::query_scalar(&format!(
        "select count(*) from sensitive_view_log where {condition}"
    ))
    .bind(tenant)
    .bind(kind)
    .fetch_one(&mut *conn)
    .await?;
    Ok((rows, total))
}

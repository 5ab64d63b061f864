//! Sensitive data: values are masked wherever they are listed; the reveal
//! call returns one unmasked value only together with its audit row, written
//! in the same transaction — no audit row, no value.

use chrono::{DateTime, Utc};
use fleetdesk_kit::convert::{self, timestamp};
use fleetdesk_kit::{ServiceError, db, grpc, mask};
use fleetdesk_proto::org::v1 as pb;
use sqlx::{FromRow, PgConnection, PgPool};
use tonic::{Request, Response};
use uuid::Uuid;

use crate::actor;

/// Permission to reveal a masked value and read the audit.
pub const PERM_SENSITIVE: &str = "as:sensitive:view";
/// Longest page URL and module name kept in the audit.
const MAX_TEXT: usize = 500;

/// The spec §3 sensitive-view types, with what masks each and where it lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kind(pub pb::SensitiveType);

impl Kind {
    pub fn parse(value: i32) -> Result<Kind, ServiceError> {
        match pb::SensitiveType::try_from(value) {
            Ok(pb::SensitiveType::Unspecified) | Err(_) => {
                Err(ServiceError::invalid("sensitiveType", "敏感信息类型无效"))
            }
            Ok(t) => Ok(Kind(t)),
        }
    }

    pub fn label(self) -> &'static str {
        use pb::SensitiveType as T;
        match self.0 {
            T::Unspecified => "",
            T::Phone => "手机号",
            T::IdNumber => "身份证号",
            T::BankCard => "银行卡号",
            T::IdFront => "身份证正面",
            T::IdBack => "身份证反面",
            T::LicenceFront => "驾驶证正面",
            T::LicenceBack => "驾驶证反面",
            T::Address => "地址",
            T::IdPhoto => "身份证照片",
            T::LicencePhoto => "驾驶证照片",
        }
    }

    /// ID and licence images (types 4, 5, 6, 7, 9, 10): the console asks
    /// for confirmation before showing them.
    pub fn is_image(self) -> bool {
        use pb::SensitiveType as T;
        matches!(
            self.0,
            T::IdFront
                | T::IdBack
                | T::LicenceFront
                | T::LicenceBack
                | T::IdPhoto
                | T::LicencePhoto
        )
    }

    /// The masked form (spec §5): centre mode for phone, ID and bank card,
    /// end mode for addresses; images are never shown masked, only named.
    pub fn mask(self, value: &str) -> String {
        use pb::SensitiveType as T;
        match self.0 {
            T::Phone | T::IdNumber | T::BankCard => mask::centre(value),
            T::Address => mask::end(value),
            T::Unspecified
            | T::IdFront
            | T::IdBack
            | T::LicenceFront
            | T::LicenceBack
            | T::IdPhoto
            | T::LicencePhoto => String::new(),
        }
    }

    /// The column of `member_identity` (or `member`) that holds it.
    fn member_column(self) -> Option<&'static str> {
        use pb::SensitiveType as T;
        Some(match self.0 {
            T::Unspecified => return None,
            T::Phone => "phone",
            T::IdNumber => "id_number",
            T::BankCard => "bank_card",
            T::IdFront => "id_front_key",
            T::IdBack => "id_back_key",
            T::LicenceFront => "licence_front_key",
            T::LicenceBack => "licence_back_key",
            T::Address => "address",
            T::IdPhoto => "id_photo_key",
            T::LicencePhoto => "licence_photo_key",
        })
    }
}

/// What the audit says was viewed: the type and the masked value (never the
/// value itself), or the type alone for images.
pub fn log_content(kind: Kind, value: &str) -> String {
    if kind.is_image() {
        format!("查看{}", kind.label())
    } else {
        format!("查看{}：{}", kind.label(), kind.mask(value))
    }
}

/// The stored value of one subject, within the transaction's tenant.
async fn value_of(
    tx: &mut PgConnection,
    enterprise_id: Uuid,
    subject: pb::SensitiveSubjectKind,
    subject_id: Uuid,
    kind: Kind,
) -> Result<String, ServiceError> {
    use pb::SensitiveSubjectKind as S;
    let phone_only = || {
        if kind.0 == pb::SensitiveType::Phone {
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
        S::Driver => return Err(ServiceError::not_found()),
        S::Unspecified | S::Member if kind.0 == pb::SensitiveType::Phone => {
            "select phone from member where enterprise_id = $1 and id = $2".to_owned()
        }
        S::Unspecified | S::Member => format!(
            "select {} from member_identity where enterprise_id = $1 and member_id = $2",
            kind.member_column().ok_or_else(ServiceError::not_found)?
        ),
        S::Approval => {
            phone_only()?;
            "select applicant_phone from approval where enterprise_id = $1 and id = $2".to_owned()
        }
        S::Feedback => {
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

pub async fn reveal(
    pool: &PgPool,
    request: Request<pb::RevealSensitiveRequest>,
) -> Result<Response<pb::RevealSensitiveResponse>, ServiceError> {
    grpc::require_permission(&request, PERM_SENSITIVE)?;
    let actor = actor::of(&request)?;
    let viewer = actor.member()?;
    let req = request.into_inner();
    let kind = Kind::parse(req.sensitive_type)?;
    let subject = pb::SensitiveSubjectKind::try_from(req.subject_kind)
        .map_err(|_| ServiceError::invalid("subjectKind", "敏感信息对象类型无效"))?;
    let subject_id = convert::id(&req.subject_id)?;
    let (page_url, module) = (req.page_url.trim(), req.source_module.trim());
    actor::limit("pageUrl", page_url, MAX_TEXT)?;
    actor::limit("sourceModule", module, MAX_TEXT)?;
    let stored_subject = match subject {
        pb::SensitiveSubjectKind::Unspecified => pb::SensitiveSubjectKind::Member,
        other => other,
    };

    let mut tx = db::begin_tenant(pool, actor.enterprise_id).await?;
    let value = value_of(&mut tx, actor.enterprise_id, subject, subject_id, kind).await?;
    let log_id = write_log(
        &mut tx,
        &actor,
        viewer,
        kind,
        stored_subject,
        subject_id,
        &value,
        (page_url, module, req.ip.trim()),
    )
    .await?;
    // The value leaves only once its audit row is durable.
    tx.commit().await?;
    tracing::info!(%log_id, sensitive_type = kind.0 as i32, %subject_id, "Sensitive value revealed.");
    Ok(Response::new(pb::RevealSensitiveResponse {
        value,
        needs_confirmation: kind.is_image(),
        log_id: log_id.to_string(),
    }))
}

/// Writes one audit row: what was viewed (masked), by whom, from where.
#[allow(clippy::too_many_arguments)]
async fn write_log(
    tx: &mut PgConnection,
    actor: &actor::Actor,
    viewer: Uuid,
    kind: Kind,
    subject: pb::SensitiveSubjectKind,
    subject_id: Uuid,
    value: &str,
    (page_url, module, ip): (&str, &str, &str),
) -> Result<Uuid, ServiceError> {
    let viewer_name = actor::name(&mut *tx, actor).await?;
    let log_id = Uuid::new_v4();
    sqlx::query(
        "insert into sensitive_view_log (id, enterprise_id, sensitive_type, subject_kind, subject_id, \
         log_content, page_url, source_module, viewer_id, viewer_name, ip) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
    )
    .bind(log_id)
    .bind(actor.enterprise_id)
    .bind(kind.0 as i16)
    .bind(subject as i16)
    .bind(subject_id)
    .bind(log_content(kind, value))
    .bind(page_url)
    .bind(module)
    .bind(viewer)
    .bind(&viewer_name)
    .bind(ip)
    .execute(&mut *tx)
    .await?;
    Ok(log_id)
}

/// The audit of a value another service revealed (a driver's): written and
/// committed before the gateway lets the value out.
pub async fn record(
    pool: &PgPool,
    request: Request<pb::RecordSensitiveViewRequest>,
) -> Result<Response<pb::RecordSensitiveViewResponse>, ServiceError> {
    grpc::require_permission(&request, PERM_SENSITIVE)?;
    let actor = actor::of(&request)?;
    let viewer = actor.member()?;
    let req = request.into_inner();
    let kind = Kind::parse(req.sensitive_type)?;
    let subject = match pb::SensitiveSubjectKind::try_from(req.subject_kind) {
        Ok(pb::SensitiveSubjectKind::Driver) => pb::SensitiveSubjectKind::Driver,
        Ok(
            pb::SensitiveSubjectKind::Unspecified
            | pb::SensitiveSubjectKind::Member
            | pb::SensitiveSubjectKind::Approval
            | pb::SensitiveSubjectKind::Feedback,
        )
        | Err(_) => {
            return Err(ServiceError::invalid("subjectKind", "敏感信息对象类型无效"));
        }
    };
    let subject_id = convert::id(&req.subject_id)?;
    let (page_url, module) = (req.page_url.trim(), req.source_module.trim());
    actor::limit("pageUrl", page_url, MAX_TEXT)?;
    actor::limit("sourceModule", module, MAX_TEXT)?;
    let mut tx = db::begin_tenant(pool, actor.enterprise_id).await?;
    let log_id = write_log(
        &mut tx,
        &actor,
        viewer,
        kind,
        subject,
        subject_id,
        &req.value,
        (page_url, module, req.ip.trim()),
    )
    .await?;
    tx.commit().await?;
    tracing::info!(%log_id, sensitive_type = kind.0 as i32, %subject_id, "Sensitive value recorded.");
    Ok(Response::new(pb::RecordSensitiveViewResponse {
        needs_confirmation: kind.is_image(),
        log_id: log_id.to_string(),
    }))
}

#[derive(Debug, FromRow)]
struct LogRow {
    id: Uuid,
    sensitive_type: i16,
    subject_kind: i16,
    subject_id: Uuid,
    log_content: String,
    page_url: String,
    source_module: String,
    viewer_id: Option<Uuid>,
    viewer_name: String,
    ip: String,
    viewed_at: DateTime<Utc>,
}

pub async fn list_logs(
    pool: &PgPool,
    request: Request<pb::ListSensitiveViewLogsRequest>,
) -> Result<Response<pb::ListSensitiveViewLogsResponse>, ServiceError> {
    grpc::require_permission(&request, PERM_SENSITIVE)?;
    let actor = actor::of(&request)?;
    let req = request.into_inner();
    let kind = match req.sensitive_type {
        0 => None,
        t => Some(Kind::parse(t)?.0 as i16),
    };
    let (page, size) = convert::page(req.page.as_ref());
    let filter = "enterprise_id = $1 and ($2::smallint is null or sensitive_type = $2)";
    let mut tx = db::begin_tenant(pool, actor.enterprise_id).await?;
    let rows: Vec<LogRow> = sqlx::query_as(&format!(
        "select id, sensitive_type, subject_kind, subject_id, log_content, page_url, source_module, \
         viewer_id, viewer_name, ip, viewed_at from sensitive_view_log where {filter} \
         order by viewed_at desc, id limit $3 offset $4"
    ))
    .bind(actor.enterprise_id)
    .bind(kind)
    .bind(size)
    .bind((page - 1) * size)
    .fetch_all(&mut *tx)
    .await?;
    let total: i64 = sqlx::query_scalar(&format!(
        "select count(*) from sensitive_view_log where {filter}"
    ))
    .bind(actor.enterprise_id)
    .bind(kind)
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Response::new(pb::ListSensitiveViewLogsResponse {
        logs: rows
            .into_iter()
            .map(|r| pb::SensitiveViewLog {
                id: r.id.to_string(),
                sensitive_type: i32::from(r.sensitive_type),
                log_content: r.log_content,
                page_url: r.page_url,
                source_module: r.source_module,
                viewer_name: r.viewer_name,
                ip: r.ip,
                view_time: Some(timestamp(r.viewed_at)),
                subject_kind: i32::from(r.subject_kind),
                subject_id: r.subject_id.to_string(),
                viewer_id: r.viewer_id.map(|id| id.to_string()).unwrap_or_default(),
            })
            .collect(),
        page: Some(convert::page_info(page, size, total)),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exactly_the_id_and_licence_images_need_confirmation() {
        let images: Vec<i32> = (1..=10)
            .filter(|t| Kind::parse(*t).unwrap().is_image())
            .collect();
        assert_eq!(images, [4, 5, 6, 7, 9, 10]);
        assert!(Kind::parse(0).is_err());
        assert!(Kind::parse(11).is_err());
    }

    #[test]
    fn the_audit_keeps_the_masked_value_only() {
        let phone = Kind(pb::SensitiveType::Phone);
        assert_eq!(log_content(phone, "13800000001"), "查看手机号：138****0001");
        let address = Kind(pb::SensitiveType::Address);
        assert_eq!(
            log_content(address, "上海市浦东新区世纪大道100号"),
            "查看地址：上海市浦东新区世纪******"
        );
        let photo = Kind(pb::SensitiveType::IdFront);
        assert_eq!(log_content(photo, "identity/a.png"), "查看身份证正面");
    }

    #[test]
    fn id_numbers_and_bank_cards_mask_in_centre_mode() {
        assert_eq!(
            Kind(pb::SensitiveType::IdNumber).mask("110101199001011234"),
            "110***********1234"
        );
        assert_eq!(
            Kind(pb::SensitiveType::BankCard).mask("6222020200112233445"),
            "622************3445"
        );
    }
}

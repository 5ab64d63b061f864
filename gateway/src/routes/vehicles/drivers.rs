//! Vehicle assets › drivers (driverManagement): list, detail, create (with
//! `Idempotency-Key`), edit, export (masked like the list), import and its
//! template, and the audited reveal of a driver's masked personal data. Phone, ID number and address arrive masked by the vehicle
//! service; images arrive named, without their object keys.

use axum::extract::multipart::MultipartRejection;
use axum::extract::{DefaultBodyLimit, Multipart, Path, State};
use axum::response::Response;
use fleetdesk_proto::org::v1 as org;
use fleetdesk_proto::vehicle::v1 as pb;
use prost_types::Timestamp;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::enums::codes;
use crate::edge::enums::edge_enum;
use crate::edge::export::{ExportRecordBody, answer_started};
use crate::edge::file_ref::FileRefBody;
use crate::edge::paging::paging;
use crate::edge::query::{EdgeQuery, ExportQuery, batch, end_time, start_time, time_range};
use crate::edge::time::rfc3339;
use crate::edge::time::time_field;
use crate::envelope::{ApiError, ApiResult, Envelope, Ok, OkWith, Page};
use crate::extract::{ClientMeta, TrimmedJson};
use crate::idempotency::IdempotencyKey;
use crate::imports::import_template;
use crate::imports::{self, ImportErrorsBody, ImportForm, ImportedBody};
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(import_drivers))
        .layer(DefaultBodyLimit::max(imports::body_limit()))
        .routes(routes!(list_drivers, create_driver))
        .routes(routes!(get_driver, update_driver))
        .routes(routes!(reveal_driver))
        .routes(routes!(export_drivers))
        .routes(routes!(driver_import_template))
}

edge_enum!(
    /// Permitted vehicle class on the driving licence.
    LicenceClass => pb::LicenceClass { A1, A2, B1, B2, C1, C2 }
);
edge_enum!(
    /// Whether the driver may drive: active, suspended (停驾) or left (离职).
    DriverStatus => pb::DriverStatus { Active, Suspended, Left }
);

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DriverBody {
    pub id: String,
    pub org_id: String,
    pub org_name: String,
    pub name: String,
    /// Masked by the server (centre mode); reveal through `/drivers/{id}/reveal`.
    #[serde(rename = "phone")]
    pub masked_phone: String,
    /// Masked by the server (centre mode).
    #[serde(rename = "idNumber")]
    pub masked_id_number: String,
    /// Masked by the server (end mode).
    #[serde(rename = "address")]
    pub masked_address: String,
    pub employee_no: String,
    pub licence_class: Option<LicenceClass>,
    pub licence_first_issue_time: String,
    pub licence_expire_time: String,
    /// Named, without the object key (revealed with types 6, 7, 4, 5).
    pub licence_front: Option<FileRefBody>,
    pub licence_back: Option<FileRefBody>,
    pub id_card_front: Option<FileRefBody>,
    pub id_card_back: Option<FileRefBody>,
    /// Last day the ID card is valid (居民身份证有效期至); empty for a
    /// long-term card or when not recorded.
    pub id_card_expire_time: String,
    /// A long-term ID card (长期): no end date.
    pub id_card_long_term: bool,
    pub status: Option<DriverStatus>,
    pub hire_time: String,
    pub bound_vehicle_id: String,
    pub bound_plate_number: String,
    pub remark: String,
    pub create_time: String,
    pub update_time: String,
}

impl From<pb::Driver> for DriverBody {
    fn from(d: pb::Driver) -> Self {
        let audit = d.audit.unwrap_or_default();
        DriverBody {
            id: d.id,
            org_id: d.org_id,
            org_name: d.org_name,
            name: d.name,
            masked_phone: d.masked_phone,
            masked_id_number: d.masked_id_number,
            masked_address: d.masked_address,
            employee_no: d.employee_no,
            licence_class: LicenceClass::from_pb(d.licence_class),
            licence_first_issue_time: rfc3339(d.licence_first_issue_time.as_ref()),
            licence_expire_time: rfc3339(d.licence_expire_time.as_ref()),
            licence_front: d.licence_front.map(FileRefBody::from),
            licence_back: d.licence_back.map(FileRefBody::from),
            id_card_front: d.id_card_front.map(FileRefBody::from),
            id_card_back: d.id_card_back.map(FileRefBody::from),
            id_card_expire_time: rfc3339(d.id_card_expire_time.as_ref()),
            id_card_long_term: d.id_card_long_term,
            status: DriverStatus::from_pb(d.status),
            hire_time: rfc3339(d.hire_time.as_ref()),
            bound_vehicle_id: d.bound_vehicle_id,
            bound_plate_number: d.bound_plate_number,
            remark: d.remark,
            create_time: rfc3339(audit.create_time.as_ref()),
            update_time: rfc3339(audit.update_time.as_ref()),
        }
    }
}

/// Filters of the driver list (repeat a key for several values).
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct DriverListParams {
    /// Page from 1.
    pub page: Option<i32>,
    /// 5, 10, 20, 50 or 100 (default 20).
    pub size: Option<i32>,
    /// Part of the name.
    #[serde(default)]
    pub name: String,
    /// The full phone number.
    #[serde(default)]
    pub phone: String,
    /// Part of the employee number.
    #[serde(default)]
    pub employee_no: String,
    /// Organisations, each with its sub-organisations.
    #[param(style = Form, explode)]
    #[serde(default)]
    #[serde(rename = "orgId")]
    pub org_ids: Vec<String>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    #[serde(rename = "status")]
    pub statuses: Vec<DriverStatus>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    #[serde(rename = "licenceClass")]
    pub licence_classes: Vec<LicenceClass>,
    /// Licence expiring from (yyyy-MM-dd, yyyy-MM-dd HH:mm:ss or RFC 3339).
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub licence_expire_time_start: Option<Timestamp>,
    /// Licence expiring before (a bare date includes the day).
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub licence_expire_time_end: Option<Timestamp>,
    /// true: drivers bound to a vehicle; false: without one.
    pub has_vehicle: Option<bool>,
    /// Drivers bound to these plates, at most 250 (`plate=A&plate=B`).
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    #[serde(rename = "plate")]
    pub plate_numbers: Vec<String>,
}

impl DriverListParams {
    /// The filter shared by the driver list and its export.
    fn filter(self) -> pb::DriverFilter {
        pb::DriverFilter {
            org_ids: self.org_ids,
            name: self.name,
            phone: self.phone,
            employee_no: self.employee_no,
            statuses: codes(self.statuses),
            licence_classes: codes(self.licence_classes),
            has_vehicle: self.has_vehicle,
            licence_expire_time: time_range(
                self.licence_expire_time_start,
                self.licence_expire_time_end,
            ),
            plate_numbers: self.plate_numbers,
        }
    }
}

#[utoipa::path(
    get, path = "/drivers", tag = "vehicles",
    params(DriverListParams),
    responses((status = 200, description = "Drivers within the caller's data scope, newest first; personal data masked", body = Envelope<Page<DriverBody>>)),
    security(("token" = ["as:sys:driver"]))
)]
async fn list_drivers(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<DriverListParams>,
) -> ApiResult<Page<DriverBody>> {
    let request = pb::ListDriversRequest {
        page: Some(paging(query.page, query.size)?),
        filter: Some(query.filter()),
    };
    let answer = state
        .assets()
        .list_drivers(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer.drivers.into_iter().map(DriverBody::from).collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

#[utoipa::path(
    get, path = "/drivers/{id}", tag = "vehicles",
    params(("id" = String, Path, description = "Driver id")),
    responses((status = 200, description = "One driver, personal data masked", body = Envelope<DriverBody>)),
    security(("token" = ["as:sys:driver"]))
)]
async fn get_driver(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
) -> ApiResult<DriverBody> {
    let answer = state
        .assets()
        .get_driver(state.as_user(&principal, pb::GetDriverRequest { driver_id: id }))
        .await?
        .into_inner();
    Result::Ok(Ok(DriverBody::from(answer.driver.unwrap_or_default())))
}

/// A driver's editable fields. On edit an empty phone, ID number or address
/// keeps the stored value (the console only ever sees them masked).
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct DriverForm {
    pub org_id: String,
    pub name: String,
    /// 11 digits starting with 1; unique in the enterprise.
    #[serde(default)]
    pub phone: String,
    /// 18-character resident ID number; unique in the enterprise.
    #[serde(default)]
    pub id_number: String,
    #[serde(default)]
    pub employee_no: String,
    pub licence_class: Option<LicenceClass>,
    /// yyyy-MM-dd, yyyy-MM-dd HH:mm:ss or RFC 3339.
    #[serde(default)]
    pub licence_first_issue_time: String,
    #[serde(default)]
    pub licence_expire_time: String,
    #[serde(default)]
    pub address: String,
    /// Upload keys from `POST /files` (purpose driver images).
    pub licence_front: Option<FileRefBody>,
    pub licence_back: Option<FileRefBody>,
    pub id_card_front: Option<FileRefBody>,
    pub id_card_back: Option<FileRefBody>,
    /// Last day the ID card is valid (yyyy-MM-dd, 1990 to 20 years ahead);
    /// empty for a long-term card or when not known.
    #[serde(default)]
    pub id_card_expire_time: String,
    /// A long-term ID card (长期); then `idCardExpireTime` stays empty.
    #[serde(default)]
    pub id_card_long_term: bool,
    /// Default active.
    pub status: Option<DriverStatus>,
    #[serde(default)]
    pub hire_time: String,
    #[serde(default)]
    pub remark: String,
}

impl DriverForm {
    fn input(self) -> Result<pb::DriverInput, ApiError> {
        Result::Ok(pb::DriverInput {
            licence_first_issue_time: time_field(
                "licenceFirstIssueTime",
                &self.licence_first_issue_time,
            )?,
            licence_expire_time: time_field("licenceExpireTime", &self.licence_expire_time)?,
            hire_time: time_field("hireTime", &self.hire_time)?,
            id_card_expire_time: time_field("idCardExpireTime", &self.id_card_expire_time)?,
            id_card_long_term: self.id_card_long_term,
            org_id: self.org_id,
            name: self.name,
            phone: self.phone,
            id_number: self.id_number,
            employee_no: self.employee_no,
            licence_class: self.licence_class.map_or(0, i32::from),
            licence_front: self.licence_front.map(Into::into),
            licence_back: self.licence_back.map(Into::into),
            id_card_front: self.id_card_front.map(Into::into),
            id_card_back: self.id_card_back.map(Into::into),
            status: self.status.map_or(0, i32::from),
            remark: self.remark,
            address: self.address,
        })
    }
}

#[utoipa::path(
    post, path = "/drivers", tag = "vehicles",
    params(("Idempotency-Key" = Option<String>, Header, description = "A replay answers the first result and creates nothing")),
    request_body = DriverForm,
    responses((status = 200, description = "The new driver, personal data masked", body = Envelope<DriverBody>)),
    security(("token" = ["as:sys:driver"]))
)]
async fn create_driver(
    State(state): State<AppState>,
    principal: Principal,
    key: IdempotencyKey,
    TrimmedJson(form): TrimmedJson<DriverForm>,
) -> ApiResult<DriverBody> {
    let request = pb::CreateDriverRequest {
        driver: Some(form.input()?),
    };
    let answer = state
        .assets()
        .create_driver(state.as_user_once(&principal, &key, request)?)
        .await?
        .into_inner();
    Result::Ok(Ok(DriverBody::from(answer.driver.unwrap_or_default())))
}

#[utoipa::path(
    put, path = "/drivers/{id}", tag = "vehicles",
    params(("id" = String, Path, description = "Driver id")),
    request_body = DriverForm,
    responses((status = 200, description = "The edited driver, personal data masked", body = Envelope<DriverBody>)),
    security(("token" = ["as:sys:driver"]))
)]
async fn update_driver(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
    TrimmedJson(form): TrimmedJson<DriverForm>,
) -> ApiResult<DriverBody> {
    let request = pb::UpdateDriverRequest {
        driver_id: id,
        driver: Some(form.input()?),
    };
    let answer = state
        .assets()
        .update_driver(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(DriverBody::from(answer.driver.unwrap_or_default())))
}

/// Which personal value of the driver to reveal (console spec §3 sensitive-view log payload).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DriverRevealRequest {
    /// 1 phone, 2 ID number, 4 ID front, 5 ID back, 6 licence front,
    /// 7 licence back, 8 address, 10 licence photo.
    pub sensitive_type: i32,
    /// The console page the value is shown on.
    #[serde(default)]
    pub page_url: String,
    #[serde(default)]
    pub source_module: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DriverRevealBody {
    /// The unmasked value; for images the file key (download through `/files`).
    pub value: String,
    /// ID and licence images (types 4, 5, 6, 7, 10): confirm before showing.
    pub needs_confirmation: bool,
    /// For an image: a signed link to view it, valid for 10 minutes (empty
    /// for text values, or a file that is not the enterprise's).
    pub url: String,
    /// The sensitive-view audit row written with this answer.
    pub log_id: String,
}

/// The audited reveal: the vehicle service reads the value under the
/// caller's permission and reach, org writes the view to the enterprise's
/// sensitive-view audit, and only then does the value leave the gateway.
#[utoipa::path(
    post, path = "/drivers/{id}/reveal", tag = "vehicles",
    params(("id" = String, Path, description = "Driver id")),
    request_body = DriverRevealRequest,
    responses((status = 200, description = "The unmasked value; the view is in the audit", body = Envelope<DriverRevealBody>)),
    security(("token" = ["as:sensitive:view"]))
)]
async fn reveal_driver(
    State(state): State<AppState>,
    principal: Principal,
    client: ClientMeta,
    Path(id): Path<String>,
    TrimmedJson(body): TrimmedJson<DriverRevealRequest>,
) -> ApiResult<DriverRevealBody> {
    let value = state
        .assets()
        .reveal_driver_sensitive(state.as_user(
            &principal,
            pb::RevealDriverSensitiveRequest {
                driver_id: id.clone(),
                sensitive_type: body.sensitive_type,
            },
        ))
        .await?
        .into_inner()
        .value;
    let audit = state
        .org()
        .record_sensitive_view(state.as_user(
            &principal,
            org::RecordSensitiveViewRequest {
                sensitive_type: body.sensitive_type,
                subject_kind: org::SensitiveSubjectKind::Driver as i32,
                subject_id: id,
                value: value.clone(),
                page_url: body.page_url,
                source_module: body.source_module,
                ip: client.ip,
            },
        ))
        .await?
        .into_inner();
    // The link is issued only for a key of the caller's enterprise.
    let image = matches!(body.sensitive_type, 4 | 5 | 6 | 7 | 10);
    let own = value.split('/').next() == Some(principal.enterprise_id.as_str());
    let url = if image && own {
        state.links.link(&value, chrono::Utc::now().timestamp())
    } else {
        String::new()
    };
    Result::Ok(Ok(DriverRevealBody {
        value,
        needs_confirmation: audit.needs_confirmation,
        log_id: audit.log_id,
        url,
    }))
}

#[utoipa::path(
    post, path = "/drivers/export", tag = "vehicles",
    params(DriverListParams),
    responses((status = 200, description = "The export record of the driver list with the list's filters and data scope (paging ignored, newest first; phone, ID number and address masked in the file); the file follows in export records", body = Envelope<ExportRecordBody>)),
    security(("token" = ["as:sys:driver"]))
)]
async fn export_drivers(
    State(state): State<AppState>,
    principal: Principal,
    ExportQuery(query): ExportQuery<DriverListParams>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportDriversRequest {
        filter: Some(query.filter()),
    };
    let answer = state
        .assets()
        .export_drivers(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}

#[utoipa::path(
    get, path = "/drivers/import-template", tag = "vehicles",
    responses((status = 200, description = "The driver import template: an xlsx with the header row (required titles bold) and one example row", content_type = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", body = String)),
    security(("token" = ["as:sys:driver"]))
)]
async fn driver_import_template(
    State(state): State<AppState>,
    principal: Principal,
) -> Result<Response, ApiError> {
    import_template(&state, &principal, pb::ImportKind::Drivers).await
}

#[utoipa::path(
    post, path = "/drivers/import", tag = "vehicles",
    request_body(content = ImportForm, content_type = "multipart/form-data"),
    responses(
        (status = 200, description = "Every row was written (in one transaction)", body = Envelope<ImportedBody>),
        (status = 400, description = "4000: nothing was written; data is the error table (errorHeader; errorList of row, column, reason), or data.fields when the file itself was refused", body = Envelope<ImportErrorsBody>)
    ),
    security(("token" = ["as:sys:driver"]))
)]
async fn import_drivers(
    State(state): State<AppState>,
    principal: Principal,
    multipart: Result<Multipart, MultipartRejection>,
) -> Result<Response, ApiError> {
    imports::run(&state, &principal, multipart, |file| async {
        let request = pb::ImportDriversRequest {
            file: Some(pb::ImportFile {
                key: file.key,
                name: file.name,
            }),
        };
        let answer = state
            .assets()
            .import_drivers(state.as_user(&principal, request))
            .await?;
        Result::Ok(answer.into_inner().result.unwrap_or_default())
    })
    .await
}

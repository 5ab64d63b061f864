//! Insurance policies (carGuaranteeSlip and its hidden insuranceOrder;
//! permission `as:insurance`, documents also `as:insurance:file`): the list
//! latest end first with its expiry filter and its export, one policy with
//! its operation log, recording and correcting a policy, the xlsx import,
//! and a policy document as a short-lived signed link (10 minutes). Money
//! is fen. Enterprises on the insurance blacklist lose `as:insurance` (console
//! spec §6), so every route here refuses them.

use axum::extract::multipart::MultipartRejection;
use axum::extract::{DefaultBodyLimit, Multipart, Path, State};
use axum::response::Response;
use fleetdesk_proto::vehicle::v1 as pb;
use prost_types::Timestamp;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::enums::{codes, edge_enum};
use crate::edge::export::{ExportRecordBody, answer_started};
use crate::edge::file_ref::FileRefBody;
use crate::edge::paging::paging;
use crate::edge::query::{EdgeQuery, ExportQuery, batch, end_time, start_time, time_range};
use crate::edge::time::{rfc3339, time_field};
use crate::envelope::{ApiError, ApiResult, Envelope, Ok, OkWith, Page};
use crate::extract::{TrimmedJson, TrimmedQuery};
use crate::imports::{self, ImportErrorsBody, ImportForm, ImportedBody};
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(import_policies))
        .layer(DefaultBodyLimit::max(imports::body_limit()))
        .routes(routes!(list_policies, create_policy))
        .routes(routes!(export_policies))
        .routes(routes!(get_policy, update_policy))
        .routes(routes!(policy_document_link))
}

edge_enum!(
    /// COMPULSORY (交强险), COMMERCIAL (商业险), CARRIER_LIABILITY
    /// (承运人责任险), CARGO (货物运输险).
    InsuranceKind => pb::InsuranceKind { Compulsory, Commercial, CarrierLiability, Cargo }
);
edge_enum!(
    /// Read from the period when asked: PENDING (未生效), ACTIVE (有效),
    /// EXPIRING (30 天内到期), EXPIRED (已过期). SURRENDERED is the
    /// contract's and never answered.
    PolicyStatus => pb::PolicyStatus { Pending, Active, Expiring, Expired, Surrendered }
);

/// One coverage item of a policy (amounts in fen).
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct CoverageBody {
    /// e.g. 车损险, 第三者责任险, 车上人员责任险.
    pub name: String,
    pub sum_insured_fen: i64,
    pub premium_fen: i64,
    pub deductible_fen: i64,
}

impl From<pb::InsuranceCoverage> for CoverageBody {
    fn from(c: pb::InsuranceCoverage) -> Self {
        CoverageBody {
            name: c.name,
            sum_insured_fen: c.sum_insured_fen,
            premium_fen: c.premium_fen,
            deductible_fen: c.deductible_fen,
        }
    }
}

impl From<CoverageBody> for pb::InsuranceCoverage {
    fn from(c: CoverageBody) -> Self {
        pb::InsuranceCoverage {
            name: c.name,
            sum_insured_fen: c.sum_insured_fen,
            premium_fen: c.premium_fen,
            deductible_fen: c.deductible_fen,
        }
    }
}

/// An insurance policy of a vehicle.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PolicyBody {
    pub id: String,
    pub org_id: String,
    pub org_name: String,
    pub vehicle_id: String,
    pub plate_number: String,
    pub vin: String,
    pub kind: Option<InsuranceKind>,
    pub insurer: String,
    /// Unique per insurer within the enterprise.
    pub policy_no: String,
    pub insured_name: String,
    pub start_time: String,
    pub end_time: String,
    pub premium_fen: i64,
    pub coverages: Vec<CoverageBody>,
    pub status: Option<PolicyStatus>,
    /// PDF or images; each opens through `GET …/documents/link`.
    pub documents: Vec<FileRefBody>,
    pub created_by: String,
    pub create_time: String,
    pub updated_by: String,
    pub update_time: String,
}

impl From<pb::InsurancePolicy> for PolicyBody {
    fn from(p: pb::InsurancePolicy) -> Self {
        let audit = p.audit.unwrap_or_default();
        PolicyBody {
            start_time: rfc3339(p.start_time.as_ref()),
            end_time: rfc3339(p.end_time.as_ref()),
            kind: InsuranceKind::from_pb(p.kind),
            status: PolicyStatus::from_pb(p.status),
            coverages: p.coverages.into_iter().map(Into::into).collect(),
            documents: p.documents.into_iter().map(Into::into).collect(),
            create_time: rfc3339(audit.create_time.as_ref()),
            update_time: rfc3339(audit.update_time.as_ref()),
            created_by: audit.created_by,
            updated_by: audit.updated_by,
            id: p.id,
            org_id: p.org_id,
            org_name: p.org_name,
            vehicle_id: p.vehicle_id,
            plate_number: p.plate_number,
            vin: p.vin,
            insurer: p.insurer,
            policy_no: p.policy_no,
            insured_name: p.insured_name,
            premium_fen: p.premium_fen,
        }
    }
}

/// One entry of a policy's operation log.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PolicyLogBody {
    /// What changed, in Chinese.
    pub remark: String,
    pub oper_name: String,
    pub oper_time: String,
}

/// A policy with its operation log, newest first.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PolicyDetailBody {
    pub policy: PolicyBody,
    pub logs: Vec<PolicyLogBody>,
}

/// Filters of the policy list and its export; combined with AND, a repeated
/// key matches any of its values.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct PolicyListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    /// Plate numbers, at most 250.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub plate_numbers: Vec<String>,
    /// VINs, at most 250.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub vins: Vec<String>,
    /// Organisations; each takes its subtree.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub org_ids: Vec<String>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub kinds: Vec<InsuranceKind>,
    /// Insurance companies (exact names).
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub insurers: Vec<String>,
    pub policy_no: Option<String>,
    /// Expiry states: EXPIRED, EXPIRING (within 30 days), ACTIVE (valid), PENDING.
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub statuses: Vec<PolicyStatus>,
    /// Policies ending from this time (yyyy-MM-dd, yyyy-MM-dd HH:mm:ss or RFC 3339).
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub end_time_start: Option<Timestamp>,
    /// A bare date includes the day.
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub end_time_end: Option<Timestamp>,
}

impl PolicyListParams {
    /// The request shared by the list and its export (whose page is ignored).
    fn request(self) -> Result<pb::ListInsurancePoliciesRequest, ApiError> {
        Result::Ok(pb::ListInsurancePoliciesRequest {
            page: Some(paging(self.page, self.size)?),
            plate_numbers: self.plate_numbers,
            vins: self.vins,
            org_ids: self.org_ids,
            policy_no: self.policy_no.unwrap_or_default(),
            kinds: codes(self.kinds),
            statuses: codes(self.statuses),
            end_time: time_range(self.end_time_start, self.end_time_end),
            insurers: self.insurers,
        })
    }
}

#[utoipa::path(
    get, path = "/maintenance/insurance/policies", tag = "vehicles",
    params(PolicyListParams),
    responses((status = 200, description = "Policies in the caller's data scope, latest end first", body = Envelope<Page<PolicyBody>>)),
    security(("token" = ["as:insurance"]))
)]
async fn list_policies(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<PolicyListParams>,
) -> ApiResult<Page<PolicyBody>> {
    let answer = state
        .maintenance()
        .list_insurance_policies(state.as_user(&principal, query.request()?))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer.policies.into_iter().map(Into::into).collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

#[utoipa::path(
    post, path = "/maintenance/insurance/policies/export", tag = "vehicles",
    params(PolicyListParams),
    responses((status = 200, description = "The export record of the policy list with the list's filters, order and data scope (paging ignored); the file follows in export records", body = Envelope<ExportRecordBody>)),
    security(("token" = ["as:insurance"]))
)]
async fn export_policies(
    State(state): State<AppState>,
    principal: Principal,
    ExportQuery(query): ExportQuery<PolicyListParams>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportInsurancePoliciesRequest {
        filter: Some(query.request()?),
    };
    let answer = state
        .maintenance()
        .export_insurance_policies(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}

#[utoipa::path(
    get, path = "/maintenance/insurance/policies/{policyId}", tag = "vehicles",
    params(("policyId" = String, Path, description = "Policy id")),
    responses((status = 200, description = "The policy and its operation log", body = Envelope<PolicyDetailBody>)),
    security(("token" = ["as:insurance"]))
)]
async fn get_policy(
    State(state): State<AppState>,
    principal: Principal,
    Path(policy_id): Path<String>,
) -> ApiResult<PolicyDetailBody> {
    let answer = state
        .maintenance()
        .get_insurance_policy(
            state.as_user(&principal, pb::GetInsurancePolicyRequest { policy_id }),
        )
        .await?
        .into_inner();
    Result::Ok(Ok(PolicyDetailBody {
        policy: answer.policy.unwrap_or_default().into(),
        logs: answer
            .logs
            .into_iter()
            .map(|e| PolicyLogBody {
                remark: e.remark,
                oper_name: e.operator_name,
                oper_time: rfc3339(e.operate_time.as_ref()),
            })
            .collect(),
    }))
}

/// A policy as recorded: the vehicle by plate, the period from the first
/// day's 00:00:00 to the last day's 23:59:59 (Asia/Shanghai), documents
/// uploaded through `POST /files` with purpose `document`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct PolicyForm {
    pub plate_number: String,
    pub kind: Option<InsuranceKind>,
    pub insurer: String,
    pub policy_no: String,
    pub insured_name: String,
    /// yyyy-MM-dd HH:mm:ss (Asia/Shanghai) or RFC 3339.
    pub start_time: String,
    pub end_time: String,
    pub premium_fen: i64,
    pub coverages: Vec<CoverageBody>,
    pub documents: Vec<FileRefBody>,
}

impl PolicyForm {
    fn into_pb(self) -> Result<pb::InsurancePolicyForm, ApiError> {
        Result::Ok(pb::InsurancePolicyForm {
            start_time: time_field("startTime", &self.start_time)?,
            end_time: time_field("endTime", &self.end_time)?,
            kind: self.kind.map(i32::from).unwrap_or_default(),
            coverages: self.coverages.into_iter().map(Into::into).collect(),
            documents: self.documents.into_iter().map(Into::into).collect(),
            plate_number: self.plate_number,
            insurer: self.insurer,
            policy_no: self.policy_no,
            insured_name: self.insured_name,
            premium_fen: self.premium_fen,
        })
    }
}

#[utoipa::path(
    post, path = "/maintenance/insurance/policies", tag = "vehicles",
    request_body = PolicyForm,
    responses((status = 200, description = "The policy as recorded; a policy number the insurer already has is 4009 naming policyNo", body = Envelope<PolicyBody>)),
    security(("token" = ["as:insurance"]))
)]
async fn create_policy(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedJson(form): TrimmedJson<PolicyForm>,
) -> ApiResult<PolicyBody> {
    let request = pb::CreateInsurancePolicyRequest {
        form: Some(form.into_pb()?),
    };
    let answer = state
        .maintenance()
        .create_insurance_policy(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(answer.policy.unwrap_or_default().into()))
}

#[utoipa::path(
    put, path = "/maintenance/insurance/policies/{policyId}", tag = "vehicles",
    params(("policyId" = String, Path, description = "Policy id")),
    request_body = PolicyForm,
    responses((status = 200, description = "The policy as corrected (every field replaced)", body = Envelope<PolicyBody>)),
    security(("token" = ["as:insurance"]))
)]
async fn update_policy(
    State(state): State<AppState>,
    principal: Principal,
    Path(policy_id): Path<String>,
    TrimmedJson(form): TrimmedJson<PolicyForm>,
) -> ApiResult<PolicyBody> {
    let form = match form.into_pb() {
        Result::Ok(form) => form,
        Err(err) => {
            // Another tenant's id answers 4004 before the form's errors.
            let request = pb::GetInsurancePolicyRequest {
                policy_id: policy_id.clone(),
            };
            state
                .maintenance()
                .get_insurance_policy(state.as_user(&principal, request))
                .await?;
            return Err(err);
        }
    };
    let request = pb::UpdateInsurancePolicyRequest {
        policy_id,
        form: Some(form),
    };
    let answer = state
        .maintenance()
        .update_insurance_policy(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(answer.policy.unwrap_or_default().into()))
}

/// Which document of the policy.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DocumentQuery {
    /// The document's key (one of the policy's `documents`).
    pub key: Option<String>,
}

/// A short-lived signed link of a stored file.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DocumentLinkBody {
    /// `/api/v1/files/download?key=…&expires=…&sig=…`, valid for 10 minutes.
    pub url: String,
    pub name: String,
    pub content_type: String,
}

#[utoipa::path(
    get, path = "/maintenance/insurance/policies/{policyId}/documents/link", tag = "vehicles",
    params(("policyId" = String, Path, description = "Policy id"), DocumentQuery),
    responses((status = 200, description = "A signed download link of one document of a policy the caller may see (10 minutes); another tenant's policy or a key the policy does not hold is 4004", body = Envelope<DocumentLinkBody>)),
    security(("token" = ["as:insurance:file"]))
)]
async fn policy_document_link(
    State(state): State<AppState>,
    principal: Principal,
    Path(policy_id): Path<String>,
    TrimmedQuery(query): TrimmedQuery<DocumentQuery>,
) -> ApiResult<DocumentLinkBody> {
    let request = pb::GetInsurancePolicyDocumentRequest {
        policy_id,
        key: query.key.unwrap_or_default(),
    };
    let document = state
        .maintenance()
        .get_insurance_policy_document(state.as_user(&principal, request))
        .await?
        .into_inner()
        .document
        .unwrap_or_default();
    Result::Ok(Ok(DocumentLinkBody {
        url: state
            .links
            .link(&document.key, chrono::Utc::now().timestamp()),
        name: document.name,
        content_type: document.content_type,
    }))
}

#[utoipa::path(
    post, path = "/maintenance/insurance/policies/import", tag = "vehicles",
    request_body(content = ImportForm, content_type = "multipart/form-data"),
    responses(
        (status = 200, description = "Every row was written (in one transaction)", body = Envelope<ImportedBody>),
        (status = 400, description = "4000: nothing was written; data is the error table (errorHeader; errorList of row, column, reason), or data.fields when the file itself was refused", body = Envelope<ImportErrorsBody>)
    ),
    security(("token" = ["as:insurance"]))
)]
async fn import_policies(
    State(state): State<AppState>,
    principal: Principal,
    multipart: Result<Multipart, MultipartRejection>,
) -> Result<Response, ApiError> {
    imports::run(&state, &principal, multipart, |file| async {
        let request = pb::ImportInsurancePoliciesRequest {
            file: Some(pb::ImportFile {
                key: file.key,
                name: file.name,
            }),
        };
        let answer = state
            .maintenance()
            .import_insurance_policies(state.as_user(&principal, request))
            .await?;
        Result::Ok(answer.into_inner().result.unwrap_or_default())
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edge::query::{ListQuery, from_query};

    fn read(raw: &str) -> Result<pb::ListInsurancePoliciesRequest, ApiError> {
        from_query::<PolicyListParams>(&ListQuery::parse(raw).unwrap())?.request()
    }

    #[test]
    fn the_list_query_reads_the_filters_the_contract_names() {
        let request = read(
            "plateNumbers=B1&plateNumbers=B2&kinds=COMPULSORY&statuses=EXPIRING&statuses=EXPIRED\
             &insurers=人保&endTimeStart=2026-11-01&endTimeEnd=2026-11-30&orgIds=o1&policyNo=P1",
        )
        .unwrap();
        assert_eq!(request.plate_numbers, vec!["B1", "B2"]);
        assert_eq!(request.insurers, vec!["人保"]);
        assert_eq!(request.policy_no, "P1");
        assert_eq!(request.kinds, vec![pb::InsuranceKind::Compulsory as i32]);
        assert_eq!(
            request.statuses,
            vec![
                pb::PolicyStatus::Expiring as i32,
                pb::PolicyStatus::Expired as i32
            ]
        );
        assert!(request.end_time.is_some());
        assert_eq!(read("kinds=LIFE").unwrap_err().0.fields[0].field, "kinds");
    }

    #[test]
    fn a_bad_time_in_the_form_names_its_field() {
        let form = PolicyForm {
            end_time: "明年".into(),
            ..PolicyForm::default()
        };
        assert_eq!(form.into_pb().unwrap_err().0.fields[0].field, "endTime");
    }
}

//! Traffic violations (trafficViolations and its detail; permission
//! `as:violation`): the list newest first with its fine and point totals
//! and its export, one violation with its operation log, and the moves:
//! handle (UNHANDLED → HANDLED), mark paid (HANDLED → PAID) and assign the
//! responsible driver; the xlsx import. A move out of order answers 4009.
//! Money is fen.

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
use crate::edge::time::rfc3339;
use crate::envelope::{ApiError, ApiResult, Envelope, Ok, OkWith};
use crate::extract::TrimmedJson;
use crate::imports::{self, ImportErrorsBody, ImportForm, ImportedBody};
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(import_violations))
        .layer(DefaultBodyLimit::max(imports::body_limit()))
        .routes(routes!(list_violations))
        .routes(routes!(export_violations))
        .routes(routes!(get_violation))
        .routes(routes!(handle_violation))
        .routes(routes!(pay_violation))
        .routes(routes!(assign_violation))
}

edge_enum!(
    /// UNHANDLED (未处理), HANDLED (已处理), PAID (已缴款: the fine's payment
    /// recorded). HANDLING is the contract's and never stored.
    ViolationStatus => pb::ViolationStatus { Unhandled, Handling, Handled, Paid }
);
edge_enum!(
    /// FETCHED from the traffic authority or IMPORTED from a file.
    ViolationSource => pb::ViolationSource { Fetched, Imported }
);

/// A point in WGS-84.
#[derive(Debug, Serialize, ToSchema)]
pub struct PointBody {
    pub longitude: f64,
    pub latitude: f64,
}

/// A traffic violation recorded against a vehicle.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ViolationBody {
    pub id: String,
    pub org_id: String,
    pub org_name: String,
    pub vehicle_id: String,
    pub plate_number: String,
    pub vin: String,
    /// The authority's decision number (unique per enterprise).
    pub decision_no: String,
    pub violation_time: String,
    pub address: String,
    pub location: Option<PointBody>,
    /// GB/T 2260 city code of the place.
    pub city_code: String,
    /// The act's code, e.g. 1352A.
    pub offence_code: String,
    pub description: String,
    pub fine_fen: i64,
    pub penalty_points: i32,
    pub authority: String,
    pub status: Option<ViolationStatus>,
    pub source: Option<ViolationSource>,
    /// The driver responsible: found from the usage record and driver
    /// binding valid at the violation's time, or assigned; empty when none.
    pub driver_id: String,
    pub driver_name: String,
    /// An operator assigned the driver.
    pub driver_assigned: bool,
    pub handler_name: String,
    pub handled_time: String,
    pub paid_by_name: String,
    pub paid_time: String,
    pub receipts: Vec<FileRefBody>,
    pub remark: String,
    /// When it was last fetched from the authority.
    pub sync_time: String,
}

impl From<pb::Violation> for ViolationBody {
    fn from(v: pb::Violation) -> Self {
        ViolationBody {
            violation_time: rfc3339(v.violation_time.as_ref()),
            handled_time: rfc3339(v.handled_time.as_ref()),
            paid_time: rfc3339(v.paid_time.as_ref()),
            sync_time: rfc3339(v.sync_time.as_ref()),
            status: ViolationStatus::from_pb(v.status),
            source: ViolationSource::from_pb(v.source),
            location: v.location.map(|p| PointBody {
                longitude: p.longitude,
                latitude: p.latitude,
            }),
            city_code: v.area.map(|a| a.city_code).unwrap_or_default(),
            receipts: v.receipts.into_iter().map(Into::into).collect(),
            id: v.id,
            org_id: v.org_id,
            org_name: v.org_name,
            vehicle_id: v.vehicle_id,
            plate_number: v.plate_number,
            vin: v.vin,
            decision_no: v.decision_no,
            address: v.address,
            offence_code: v.offence_code,
            description: v.description,
            fine_fen: v.fine_fen,
            penalty_points: v.penalty_points,
            authority: v.authority,
            driver_id: v.driver_id,
            driver_name: v.driver_name,
            driver_assigned: v.driver_assigned,
            handler_name: v.handler_name,
            paid_by_name: v.paid_by_name,
            remark: v.remark,
        }
    }
}

/// One page of violations, with the fines and points of every matching row.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ViolationPage {
    pub list: Vec<ViolationBody>,
    pub total: i64,
    pub total_fine_fen: i64,
    pub total_penalty_points: i64,
}

/// One entry of a violation's operation log.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ViolationLogBody {
    /// What changed, in Chinese.
    pub remark: String,
    pub oper_name: String,
    pub oper_time: String,
}

/// A violation with its operation log, newest first.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ViolationDetailBody {
    pub violation: ViolationBody,
    pub logs: Vec<ViolationLogBody>,
}

/// Filters of the violation list and its export; combined with AND, a
/// repeated key matches any of its values.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ViolationListParams {
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
    /// The responsible driver.
    pub driver_id: Option<String>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub statuses: Vec<ViolationStatus>,
    /// Violations from this time (yyyy-MM-dd, yyyy-MM-dd HH:mm:ss or RFC 3339).
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub violation_time_start: Option<Timestamp>,
    /// A bare date includes the day.
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub violation_time_end: Option<Timestamp>,
    /// GB/T 2260 city code of the place.
    pub city_code: Option<String>,
}

impl ViolationListParams {
    /// The request shared by the list and its export (whose page is ignored).
    fn request(self) -> Result<pb::ListViolationsRequest, ApiError> {
        Result::Ok(pb::ListViolationsRequest {
            page: Some(paging(self.page, self.size)?),
            plate_numbers: self.plate_numbers,
            vins: self.vins,
            org_ids: self.org_ids,
            driver_id: self.driver_id.unwrap_or_default(),
            statuses: codes(self.statuses),
            violation_time: time_range(self.violation_time_start, self.violation_time_end),
            city_code: self.city_code.unwrap_or_default(),
        })
    }
}

#[utoipa::path(
    get, path = "/maintenance/violations", tag = "vehicles",
    params(ViolationListParams),
    responses((status = 200, description = "Violations in the caller's data scope, newest first, with the fines and points of every matching row", body = Envelope<ViolationPage>)),
    security(("token" = ["as:violation"]))
)]
async fn list_violations(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<ViolationListParams>,
) -> ApiResult<ViolationPage> {
    let answer = state
        .maintenance()
        .list_violations(state.as_user(&principal, query.request()?))
        .await?
        .into_inner();
    Result::Ok(Ok(ViolationPage {
        list: answer.violations.into_iter().map(Into::into).collect(),
        total: answer.page.map_or(0, |p| p.total),
        total_fine_fen: answer.total_fine_fen,
        total_penalty_points: answer.total_penalty_points,
    }))
}

#[utoipa::path(
    post, path = "/maintenance/violations/export", tag = "vehicles",
    params(ViolationListParams),
    responses((status = 200, description = "The export record of the violation list with the list's filters, order and data scope (paging ignored); the file follows in export records", body = Envelope<ExportRecordBody>)),
    security(("token" = ["as:violation"]))
)]
async fn export_violations(
    State(state): State<AppState>,
    principal: Principal,
    ExportQuery(query): ExportQuery<ViolationListParams>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportViolationsRequest {
        filter: Some(query.request()?),
    };
    let answer = state
        .maintenance()
        .export_violations(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}

#[utoipa::path(
    get, path = "/maintenance/violations/{violationId}", tag = "vehicles",
    params(("violationId" = String, Path, description = "Violation id")),
    responses((status = 200, description = "The violation and its operation log", body = Envelope<ViolationDetailBody>)),
    security(("token" = ["as:violation"]))
)]
async fn get_violation(
    State(state): State<AppState>,
    principal: Principal,
    Path(violation_id): Path<String>,
) -> ApiResult<ViolationDetailBody> {
    let answer = state
        .maintenance()
        .get_violation(state.as_user(&principal, pb::GetViolationRequest { violation_id }))
        .await?
        .into_inner();
    Result::Ok(Ok(ViolationDetailBody {
        violation: answer.violation.unwrap_or_default().into(),
        logs: answer
            .logs
            .into_iter()
            .map(|e| ViolationLogBody {
                remark: e.remark,
                oper_name: e.operator_name,
                oper_time: rfc3339(e.operate_time.as_ref()),
            })
            .collect(),
    }))
}

/// Handling a violation: optionally the driver held responsible at once.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct HandleViolationForm {
    /// Empty keeps the current driver.
    pub driver_id: String,
    pub receipts: Vec<FileRefBody>,
    pub remark: String,
}

#[utoipa::path(
    post, path = "/maintenance/violations/{violationId}/handle", tag = "vehicles",
    params(("violationId" = String, Path, description = "Violation id")),
    request_body = HandleViolationForm,
    responses((status = 200, description = "UNHANDLED → HANDLED; any other state is 4009 and nothing changes", body = Envelope<ViolationBody>)),
    security(("token" = ["as:violation"]))
)]
async fn handle_violation(
    State(state): State<AppState>,
    principal: Principal,
    Path(violation_id): Path<String>,
    TrimmedJson(form): TrimmedJson<HandleViolationForm>,
) -> ApiResult<ViolationBody> {
    let request = pb::HandleViolationRequest {
        violation_id,
        status: pb::ViolationStatus::Handled.into(),
        driver_id: form.driver_id,
        receipts: form.receipts.into_iter().map(Into::into).collect(),
        remark: form.remark,
    };
    let answer = state
        .maintenance()
        .handle_violation(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(answer.violation.unwrap_or_default().into()))
}

/// Recording the fine as paid.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct PayViolationForm {
    /// Payment receipts; empty keeps those given when handling.
    pub receipts: Vec<FileRefBody>,
    pub remark: String,
}

#[utoipa::path(
    post, path = "/maintenance/violations/{violationId}/pay", tag = "vehicles",
    params(("violationId" = String, Path, description = "Violation id")),
    request_body = PayViolationForm,
    responses((status = 200, description = "HANDLED → PAID; any other state is 4009 and nothing changes", body = Envelope<ViolationBody>)),
    security(("token" = ["as:violation"]))
)]
async fn pay_violation(
    State(state): State<AppState>,
    principal: Principal,
    Path(violation_id): Path<String>,
    TrimmedJson(form): TrimmedJson<PayViolationForm>,
) -> ApiResult<ViolationBody> {
    let request = pb::PayViolationRequest {
        violation_id,
        receipts: form.receipts.into_iter().map(Into::into).collect(),
        remark: form.remark,
    };
    let answer = state
        .maintenance()
        .pay_violation(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(answer.violation.unwrap_or_default().into()))
}

/// Holding another driver of the enterprise responsible.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct AssignViolationForm {
    pub driver_id: String,
    pub remark: String,
}

#[utoipa::path(
    post, path = "/maintenance/violations/{violationId}/assign", tag = "vehicles",
    params(("violationId" = String, Path, description = "Violation id")),
    request_body = AssignViolationForm,
    responses((status = 200, description = "The driver is held responsible (any state); a driver of another enterprise is 4000 naming driverId", body = Envelope<ViolationBody>)),
    security(("token" = ["as:violation"]))
)]
async fn assign_violation(
    State(state): State<AppState>,
    principal: Principal,
    Path(violation_id): Path<String>,
    TrimmedJson(form): TrimmedJson<AssignViolationForm>,
) -> ApiResult<ViolationBody> {
    let request = pb::AssignViolationRequest {
        violation_id,
        driver_id: form.driver_id,
        remark: form.remark,
    };
    let answer = state
        .maintenance()
        .assign_violation(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(answer.violation.unwrap_or_default().into()))
}

#[utoipa::path(
    post, path = "/maintenance/violations/import", tag = "vehicles",
    request_body(content = ImportForm, content_type = "multipart/form-data"),
    responses(
        (status = 200, description = "Every row was written (in one transaction), upserted by decision number: a violation already stored stays one", body = Envelope<ImportedBody>),
        (status = 400, description = "4000: nothing was written; data is the error table (errorHeader; errorList of row, column, reason), or data.fields when the file itself was refused", body = Envelope<ImportErrorsBody>)
    ),
    security(("token" = ["as:violation"]))
)]
async fn import_violations(
    State(state): State<AppState>,
    principal: Principal,
    multipart: Result<Multipart, MultipartRejection>,
) -> Result<Response, ApiError> {
    imports::run(&state, &principal, multipart, |file| async {
        let request = pb::ImportViolationsRequest {
            file: Some(pb::ImportFile {
                key: file.key,
                name: file.name,
            }),
        };
        let answer = state
            .maintenance()
            .import_violations(state.as_user(&principal, request))
            .await?;
        Result::Ok(answer.into_inner().result.unwrap_or_default())
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edge::query::{ListQuery, from_query};

    fn read(raw: &str) -> Result<pb::ListViolationsRequest, ApiError> {
        from_query::<ViolationListParams>(&ListQuery::parse(raw).unwrap())?.request()
    }

    #[test]
    fn the_list_query_reads_the_filters_the_contract_names() {
        let request = read(
            "plateNumbers=B1&plateNumbers=B2&statuses=UNHANDLED&statuses=PAID&driverId=d1\
             &violationTimeStart=2026-11-01&violationTimeEnd=2026-11-30&orgIds=o1",
        )
        .unwrap();
        assert_eq!(request.plate_numbers, vec!["B1", "B2"]);
        assert_eq!(request.org_ids, vec!["o1"]);
        assert_eq!(request.driver_id, "d1");
        assert_eq!(
            request.statuses,
            vec![
                pb::ViolationStatus::Unhandled as i32,
                pb::ViolationStatus::Paid as i32
            ]
        );
        assert!(request.violation_time.is_some());
        let err = read("statuses=LATE").unwrap_err();
        assert_eq!(err.0.fields[0].field, "statuses");
    }
}

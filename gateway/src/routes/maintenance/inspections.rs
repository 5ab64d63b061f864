//! Annual inspections (drivingLicense; permission `as:inspection`): each
//! vehicle's inspection state soonest due first with its export, one
//! vehicle's state with its inspection history and operation log,
//! recording an inspection, and the xlsx import with its template. Due
//! dates follow the legal schedule of the vehicle's class; money is fen,
//! distances metres.

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
use crate::extract::TrimmedJson;
use crate::imports::{self, ImportErrorsBody, ImportForm, ImportedBody};
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(import_inspections))
        .layer(DefaultBodyLimit::max(imports::body_limit()))
        .routes(routes!(list_inspections))
        .routes(routes!(export_inspections))
        .routes(routes!(inspection_import_template))
        .routes(routes!(get_inspection))
        .routes(routes!(record_inspection))
}

edge_enum!(
    /// VALID (有效), DUE_SOON (即将到期: due within 30 days), OVERDUE (已逾期:
    /// past the due day).
    InspectionStatus => pb::InspectionStatus { Valid, DueSoon, Overdue }
);
edge_enum!(
    /// The legal schedule followed: GOODS (载货汽车), OPERATING_PASSENGER
    /// (营运载客汽车), LARGE_PASSENGER (大中型非营运载客汽车), SMALL_PASSENGER
    /// (小微型非营运载客汽车).
    InspectionClass => pb::InspectionClass { Goods, OperatingPassenger, LargePassenger, SmallPassenger }
);
edge_enum!(
    /// PASSED (合格) or FAILED (不合格: the vehicle stays due).
    InspectionResult => pb::InspectionResult { Passed, Failed }
);

/// A vehicle's annual-inspection state.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InspectionBody {
    pub id: String,
    pub org_id: String,
    pub org_name: String,
    pub vehicle_id: String,
    pub plate_number: String,
    pub vin: String,
    pub register_time: String,
    pub inspection_class: Option<InspectionClass>,
    /// The last day the inspection is valid (its start, Beijing); empty when unknown.
    pub expire_time: String,
    pub status: Option<InspectionStatus>,
    /// Days until the due day; negative when overdue.
    pub remaining_days: i32,
    pub last_inspection_time: String,
    pub last_result: Option<InspectionResult>,
    pub station_name: String,
    pub last_odometer_m: i64,
    pub last_cost_fen: i64,
    pub licence_images: Vec<FileRefBody>,
    pub remark: String,
    pub updated_by: String,
    pub update_time: String,
}

impl From<pb::AnnualInspection> for InspectionBody {
    fn from(i: pb::AnnualInspection) -> Self {
        let audit = i.audit.unwrap_or_default();
        InspectionBody {
            register_time: rfc3339(i.register_time.as_ref()),
            expire_time: rfc3339(i.expire_time.as_ref()),
            last_inspection_time: rfc3339(i.last_inspection_time.as_ref()),
            inspection_class: InspectionClass::from_pb(i.inspection_class),
            status: InspectionStatus::from_pb(i.status),
            last_result: InspectionResult::from_pb(i.last_result),
            licence_images: i.licence_images.into_iter().map(Into::into).collect(),
            updated_by: audit.updated_by,
            update_time: rfc3339(audit.update_time.as_ref()),
            id: i.id,
            org_id: i.org_id,
            org_name: i.org_name,
            vehicle_id: i.vehicle_id,
            plate_number: i.plate_number,
            vin: i.vin,
            remaining_days: i.remaining_days,
            station_name: i.station_name,
            last_odometer_m: i.last_odometer_m,
            last_cost_fen: i.last_cost_fen,
            remark: i.remark,
        }
    }
}

/// One recorded inspection.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InspectionRecordBody {
    pub id: String,
    pub vehicle_id: String,
    pub plate_number: String,
    pub inspection_time: String,
    pub result: Option<InspectionResult>,
    pub station_name: String,
    pub odometer_m: i64,
    pub cost_fen: i64,
    pub images: Vec<FileRefBody>,
    pub remark: String,
    /// The due day before and after the record (a failed one keeps it).
    pub previous_expire_time: String,
    pub expire_time: String,
    pub operator_name: String,
    pub create_time: String,
}

impl From<pb::InspectionRecord> for InspectionRecordBody {
    fn from(r: pb::InspectionRecord) -> Self {
        InspectionRecordBody {
            inspection_time: rfc3339(r.inspection_time.as_ref()),
            previous_expire_time: rfc3339(r.previous_expire_time.as_ref()),
            expire_time: rfc3339(r.expire_time.as_ref()),
            create_time: rfc3339(r.create_time.as_ref()),
            result: InspectionResult::from_pb(r.result),
            images: r.images.into_iter().map(Into::into).collect(),
            id: r.id,
            vehicle_id: r.vehicle_id,
            plate_number: r.plate_number,
            station_name: r.station_name,
            odometer_m: r.odometer_m,
            cost_fen: r.cost_fen,
            remark: r.remark,
            operator_name: r.operator_name,
        }
    }
}

/// One entry of an inspection state's operation log.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InspectionLogBody {
    /// What changed, in Chinese.
    pub remark: String,
    pub oper_name: String,
    pub oper_time: String,
}

/// A vehicle's inspection state, its inspections and its operation log, newest first.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InspectionDetailBody {
    pub inspection: InspectionBody,
    pub records: Vec<InspectionRecordBody>,
    pub logs: Vec<InspectionLogBody>,
}

/// Filters of the inspection list and its export; combined with AND, a
/// repeated key matches any of its values.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct InspectionListParams {
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
    /// Due states, judged today.
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub statuses: Vec<InspectionStatus>,
    /// Due from this day (yyyy-MM-dd, yyyy-MM-dd HH:mm:ss or RFC 3339).
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub expire_time_start: Option<Timestamp>,
    /// A bare date includes the day.
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub expire_time_end: Option<Timestamp>,
}

impl InspectionListParams {
    /// The request shared by the list and its export (whose page is ignored).
    fn request(self) -> Result<pb::ListAnnualInspectionsRequest, ApiError> {
        Result::Ok(pb::ListAnnualInspectionsRequest {
            page: Some(paging(self.page, self.size)?),
            plate_numbers: self.plate_numbers,
            vins: self.vins,
            org_ids: self.org_ids,
            statuses: codes(self.statuses),
            expire_time: time_range(self.expire_time_start, self.expire_time_end),
        })
    }
}

#[utoipa::path(
    get, path = "/maintenance/inspections", tag = "vehicles",
    params(InspectionListParams),
    responses((status = 200, description = "Every vehicle's inspection state in the caller's data scope, soonest due first (unknown due days last)", body = Envelope<Page<InspectionBody>>)),
    security(("token" = ["as:inspection"]))
)]
async fn list_inspections(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<InspectionListParams>,
) -> ApiResult<Page<InspectionBody>> {
    let answer = state
        .maintenance()
        .list_annual_inspections(state.as_user(&principal, query.request()?))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer.inspections.into_iter().map(Into::into).collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

#[utoipa::path(
    post, path = "/maintenance/inspections/export", tag = "vehicles",
    params(InspectionListParams),
    responses((status = 200, description = "The export record of the inspection list with the list's filters, order and data scope (paging ignored); the file follows in export records", body = Envelope<ExportRecordBody>)),
    security(("token" = ["as:inspection"]))
)]
async fn export_inspections(
    State(state): State<AppState>,
    principal: Principal,
    ExportQuery(query): ExportQuery<InspectionListParams>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportAnnualInspectionsRequest {
        filter: Some(query.request()?),
    };
    let answer = state
        .maintenance()
        .export_annual_inspections(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}

#[utoipa::path(
    get, path = "/maintenance/inspections/{vehicleId}", tag = "vehicles",
    params(("vehicleId" = String, Path, description = "Vehicle id")),
    responses((status = 200, description = "The vehicle's inspection state, its inspections and operation log", body = Envelope<InspectionDetailBody>)),
    security(("token" = ["as:inspection"]))
)]
async fn get_inspection(
    State(state): State<AppState>,
    principal: Principal,
    Path(vehicle_id): Path<String>,
) -> ApiResult<InspectionDetailBody> {
    let answer = state
        .maintenance()
        .get_annual_inspection(
            state.as_user(&principal, pb::GetAnnualInspectionRequest { vehicle_id }),
        )
        .await?
        .into_inner();
    Result::Ok(Ok(InspectionDetailBody {
        inspection: answer.inspection.unwrap_or_default().into(),
        records: answer.records.into_iter().map(Into::into).collect(),
        logs: answer
            .logs
            .into_iter()
            .map(|e| InspectionLogBody {
                remark: e.remark,
                oper_name: e.operator_name,
                oper_time: rfc3339(e.operate_time.as_ref()),
            })
            .collect(),
    }))
}

/// An inspection to record.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct RecordInspectionForm {
    /// yyyy-MM-dd (Beijing) or RFC 3339; not in the future.
    pub inspection_time: String,
    /// Required.
    pub result: Option<InspectionResult>,
    pub station_name: String,
    pub odometer_m: i64,
    pub cost_fen: i64,
    /// The new stamp on the licence; empty = from the legal schedule.
    pub expire_time: String,
    /// The schedule from now on; empty keeps the vehicle's.
    pub inspection_class: Option<InspectionClass>,
    pub images: Vec<FileRefBody>,
    pub remark: String,
}

/// The vehicle's state after the record, and the record.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecordedInspectionBody {
    pub inspection: InspectionBody,
    pub record: InspectionRecordBody,
}

#[utoipa::path(
    post, path = "/maintenance/inspections/{vehicleId}/record", tag = "vehicles",
    params(("vehicleId" = String, Path, description = "Vehicle id")),
    request_body = RecordInspectionForm,
    responses((status = 200, description = "The inspection is recorded: a passed one sets the next due day from its date (or the stamp given), a failed one keeps it", body = Envelope<RecordedInspectionBody>)),
    security(("token" = ["as:inspection"]))
)]
async fn record_inspection(
    State(state): State<AppState>,
    principal: Principal,
    Path(vehicle_id): Path<String>,
    TrimmedJson(form): TrimmedJson<RecordInspectionForm>,
) -> ApiResult<RecordedInspectionBody> {
    let request = pb::RecordAnnualInspectionRequest {
        vehicle_id,
        inspection_time: time_field("inspectionTime", &form.inspection_time)?,
        expire_time: time_field("expireTime", &form.expire_time)?,
        station_name: form.station_name,
        licence_images: form.images.into_iter().map(Into::into).collect(),
        remark: form.remark,
        result: form.result.map_or(0, i32::from),
        odometer_m: form.odometer_m,
        cost_fen: form.cost_fen,
        inspection_class: form.inspection_class.map_or(0, i32::from),
    };
    let answer = state
        .maintenance()
        .record_annual_inspection(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(RecordedInspectionBody {
        inspection: answer.inspection.unwrap_or_default().into(),
        record: answer.record.unwrap_or_default().into(),
    }))
}

#[utoipa::path(
    get, path = "/maintenance/inspections/import-template", tag = "vehicles",
    responses((status = 200, description = "The inspection import template: an xlsx with the header row (required titles bold) and one example row", content_type = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", body = String)),
    security(("token" = ["as:inspection"]))
)]
async fn inspection_import_template(
    State(state): State<AppState>,
    principal: Principal,
) -> Result<Response, ApiError> {
    let answer = state
        .maintenance()
        .get_annual_inspection_import_template(
            state.as_user(&principal, pb::GetAnnualInspectionImportTemplateRequest {}),
        )
        .await?
        .into_inner();
    Result::Ok(imports::template(answer.template.unwrap_or_default()))
}

#[utoipa::path(
    post, path = "/maintenance/inspections/import", tag = "vehicles",
    request_body(content = ImportForm, content_type = "multipart/form-data"),
    responses(
        (status = 200, description = "Every row was recorded (in one transaction), in date order per vehicle", body = Envelope<ImportedBody>),
        (status = 400, description = "4000: nothing was written; data is the error table (errorHeader; errorList of row, column, reason), or data.fields when the file itself was refused", body = Envelope<ImportErrorsBody>)
    ),
    security(("token" = ["as:inspection"]))
)]
async fn import_inspections(
    State(state): State<AppState>,
    principal: Principal,
    multipart: Result<Multipart, MultipartRejection>,
) -> Result<Response, ApiError> {
    imports::run(&state, &principal, multipart, |file| async {
        let request = pb::ImportAnnualInspectionsRequest {
            file: Some(pb::ImportFile {
                key: file.key,
                name: file.name,
            }),
        };
        let answer = state
            .maintenance()
            .import_annual_inspections(state.as_user(&principal, request))
            .await?;
        Result::Ok(answer.into_inner().result.unwrap_or_default())
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edge::query::{ListQuery, from_query};

    fn read(raw: &str) -> Result<pb::ListAnnualInspectionsRequest, ApiError> {
        from_query::<InspectionListParams>(&ListQuery::parse(raw).unwrap())?.request()
    }

    #[test]
    fn the_list_query_reads_the_filters_the_contract_names() {
        let request = read(
            "plateNumbers=B1&vins=V1&statuses=OVERDUE&statuses=DUE_SOON\
             &expireTimeStart=2026-12-01&expireTimeEnd=2026-12-31&orgIds=o1",
        )
        .unwrap();
        assert_eq!(request.plate_numbers, vec!["B1"]);
        assert_eq!(request.vins, vec!["V1"]);
        assert_eq!(request.org_ids, vec!["o1"]);
        assert_eq!(
            request.statuses,
            vec![
                pb::InspectionStatus::Overdue as i32,
                pb::InspectionStatus::DueSoon as i32
            ]
        );
        assert!(request.expire_time.is_some());
        let err = read("statuses=LATE").unwrap_err();
        assert_eq!(err.0.fields[0].field, "statuses");
    }
}

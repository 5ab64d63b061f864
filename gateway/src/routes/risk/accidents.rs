//! Accidents (carAccidentRecord; permission `as:accident`): the list over the
//! accident time, one accident with its operation log, and create/update.
//! Money is integer fen both ways; photos and documents are files the
//! caller's enterprise uploaded, answered with signed links.

use axum::extract::{Path, State};
use chrono::Utc;
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use prost_types::Timestamp;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::enums::{codes, edge_enum};
use crate::edge::file_ref::FileRefBody;
use crate::edge::paging::paging;
use crate::edge::query::{EdgeQuery, batch, end_time, start_time, time_range};
use crate::edge::time::{rfc3339, time_field};
use crate::envelope::{ApiError, ApiResult, Envelope, Ok, Page};
use crate::extract::TrimmedJson;
use crate::files::LinkSigner;
use crate::routes::monitoring::geofences::GeoPointBody;
use crate::routes::risk::alarms::{AlarmFileBody, checked_files, signed};
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_accidents, create_accident))
        .routes(routes!(get_accident, update_accident))
}

edge_enum!(
    /// How bad: PROPERTY_ONLY (仅财产损失), MINOR_INJURY (轻伤),
    /// SERIOUS_INJURY (重伤), FATAL (死亡).
    AccidentSeverity => pb::AccidentSeverity { PropertyOnly, MinorInjury, SeriousInjury, Fatal }
);
edge_enum!(
    /// The enterprise driver's share of liability as the police decided it.
    AccidentLiability => pb::AccidentLiability { Undetermined, Full, Main, Equal, Secondary, None }
);
edge_enum!(
    /// REPORTED → LOSS_ASSESSMENT → REPAIRING → CLAIMING → CLOSED (final).
    AccidentStatus => pb::AccidentStatus { Reported, LossAssessment, Repairing, Claiming, Closed }
);

/// An administrative area (GB/T 2260 codes with their names).
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct AccidentAreaBody {
    pub province_code: String,
    pub province_name: String,
    pub city_code: String,
    pub city_name: String,
    pub district_code: String,
    pub district_name: String,
}

impl From<common::Area> for AccidentAreaBody {
    fn from(a: common::Area) -> Self {
        AccidentAreaBody {
            province_code: a.province_code,
            province_name: a.province_name,
            city_code: a.city_code,
            city_name: a.city_name,
            district_code: a.district_code,
            district_name: a.district_name,
        }
    }
}

impl From<AccidentAreaBody> for common::Area {
    fn from(a: AccidentAreaBody) -> Self {
        common::Area {
            province_code: a.province_code,
            province_name: a.province_name,
            city_code: a.city_code,
            city_name: a.city_name,
            district_code: a.district_code,
            district_name: a.district_name,
        }
    }
}

/// A road accident of an enterprise vehicle.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AccidentBody {
    pub id: String,
    /// Generated case number.
    pub case_no: String,
    pub org_id: String,
    pub org_name: String,
    pub vehicle_id: String,
    pub plate_number: String,
    pub vin: String,
    /// The driver at the time (given, or the one bound to the vehicle then).
    pub driver_id: String,
    pub driver_name: String,
    pub accident_time: String,
    pub address: String,
    pub area: Option<AccidentAreaBody>,
    pub point: Option<GeoPointBody>,
    pub description: String,
    pub severity: Option<AccidentSeverity>,
    pub liability: Option<AccidentLiability>,
    pub injured_count: i32,
    pub fatality_count: i32,
    /// The enterprise's first estimate, fen.
    pub estimated_loss_fen: i64,
    /// The insurer's assessment (定损), fen.
    pub assessed_loss_fen: i64,
    pub fixed_loss_code: String,
    pub insurance_policy_id: String,
    pub claim_no: String,
    /// Paid by the insurer, fen.
    pub claim_paid_fen: i64,
    pub repair_order_id: String,
    pub status: Option<AccidentStatus>,
    pub images: Vec<AlarmFileBody>,
    /// Police liability decision, claim papers.
    pub documents: Vec<AlarmFileBody>,
    /// When it was closed; empty while open.
    pub close_time: String,
    pub remark: String,
    pub created_by: String,
    pub create_time: String,
    pub updated_by: String,
    pub update_time: String,
}

impl AccidentBody {
    fn new(a: pb::Accident, links: &LinkSigner, now: i64) -> Self {
        let audit = a.audit.unwrap_or_default();
        AccidentBody {
            accident_time: rfc3339(a.accident_time.as_ref()),
            area: a.area.map(Into::into),
            point: a.point.as_ref().map(GeoPointBody::from),
            severity: AccidentSeverity::from_pb(a.severity),
            liability: AccidentLiability::from_pb(a.liability),
            status: AccidentStatus::from_pb(a.status),
            images: signed(a.images, links, now),
            documents: signed(a.documents, links, now),
            close_time: rfc3339(a.close_time.as_ref()),
            created_by: audit.created_by,
            create_time: rfc3339(audit.create_time.as_ref()),
            updated_by: audit.updated_by,
            update_time: rfc3339(audit.update_time.as_ref()),
            id: a.id,
            case_no: a.case_no,
            org_id: a.org_id,
            org_name: a.org_name,
            vehicle_id: a.vehicle_id,
            plate_number: a.plate_number,
            vin: a.vin,
            driver_id: a.driver_id,
            driver_name: a.driver_name,
            address: a.address,
            description: a.description,
            injured_count: a.injured_count,
            fatality_count: a.fatality_count,
            estimated_loss_fen: a.estimated_loss_fen,
            assessed_loss_fen: a.assessed_loss_fen,
            fixed_loss_code: a.fixed_loss_code,
            insurance_policy_id: a.insurance_policy_id,
            claim_no: a.claim_no,
            claim_paid_fen: a.claim_paid_fen,
            repair_order_id: a.repair_order_id,
            remark: a.remark,
        }
    }
}

fn accident_body(accident: Option<pb::Accident>, links: &LinkSigner) -> AccidentBody {
    AccidentBody::new(accident.unwrap_or_default(), links, Utc::now().timestamp())
}

/// One entry of an accident's operation log.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AccidentLogBody {
    /// What changed, field by field, in Chinese.
    pub remark: String,
    pub oper_name: String,
    pub oper_time: String,
}

/// An accident with its operation log (creation and each change, newest first).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AccidentDetailBody {
    pub accident: AccidentBody,
    pub logs: Vec<AccidentLogBody>,
}

/// Filters of the accident list; combined with AND, a repeated key matches
/// any of its values.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct AccidentListParams {
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
    #[serde(default)]
    pub driver_id: String,
    #[serde(default)]
    pub case_no: String,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub statuses: Vec<AccidentStatus>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub severities: Vec<AccidentSeverity>,
    /// Accidents from this time (yyyy-MM-dd, yyyy-MM-dd HH:mm:ss or RFC 3339).
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub accident_time_start: Option<Timestamp>,
    /// A bare date includes the day.
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub accident_time_end: Option<Timestamp>,
}

impl AccidentListParams {
    fn filter(self) -> Result<pb::ListAccidentsRequest, ApiError> {
        Result::Ok(pb::ListAccidentsRequest {
            page: Some(paging(self.page, self.size)?),
            plate_numbers: self.plate_numbers,
            vins: self.vins,
            org_ids: self.org_ids,
            driver_id: self.driver_id,
            case_no: self.case_no,
            statuses: codes(self.statuses),
            severities: codes(self.severities),
            accident_time: time_range(self.accident_time_start, self.accident_time_end),
        })
    }
}

#[utoipa::path(
    get, path = "/risk/accidents", tag = "risk",
    params(AccidentListParams),
    responses((status = 200, description = "Accidents in the caller's data scope, newest first", body = Envelope<Page<AccidentBody>>)),
    security(("token" = ["as:accident"]))
)]
async fn list_accidents(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<AccidentListParams>,
) -> ApiResult<Page<AccidentBody>> {
    let answer = state
        .risk()
        .list_accidents(state.as_user(&principal, query.filter()?))
        .await?
        .into_inner();
    let now = Utc::now().timestamp();
    Result::Ok(Ok(Page {
        list: answer
            .accidents
            .into_iter()
            .map(|a| AccidentBody::new(a, &state.links, now))
            .collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

#[utoipa::path(
    get, path = "/risk/accidents/{accidentId}", tag = "risk",
    params(("accidentId" = String, Path, description = "Accident id")),
    responses((status = 200, description = "The accident and its operation log", body = Envelope<AccidentDetailBody>)),
    security(("token" = ["as:accident"]))
)]
async fn get_accident(
    State(state): State<AppState>,
    principal: Principal,
    Path(accident_id): Path<String>,
) -> ApiResult<AccidentDetailBody> {
    let request = pb::GetAccidentRequest {
        accident_id,
        fixed_loss_code: String::new(),
    };
    let answer = state
        .risk()
        .get_accident(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(AccidentDetailBody {
        accident: accident_body(answer.accident, &state.links),
        logs: answer
            .logs
            .into_iter()
            .map(|e| AccidentLogBody {
                remark: e.remark,
                oper_name: e.operator_name,
                oper_time: rfc3339(e.operate_time.as_ref()),
            })
            .collect(),
    }))
}

/// An accident's editable fields, all replaced on save. Money in fen
/// (integers, 0 or more); photos and documents uploaded through POST /files.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct AccidentForm {
    pub vehicle_id: String,
    /// Empty: the driver bound to the vehicle at the accident time, if any.
    pub driver_id: String,
    /// yyyy-MM-dd HH:mm:ss (Beijing) or RFC 3339; not in the future.
    pub accident_time: String,
    pub address: String,
    pub area: Option<AccidentAreaBody>,
    /// The place picked on the map (WGS-84).
    pub point: Option<GeoPointBody>,
    pub description: String,
    pub severity: Option<AccidentSeverity>,
    pub liability: Option<AccidentLiability>,
    pub injured_count: i32,
    pub fatality_count: i32,
    pub estimated_loss_fen: i64,
    pub assessed_loss_fen: i64,
    pub fixed_loss_code: String,
    pub insurance_policy_id: String,
    pub claim_no: String,
    pub claim_paid_fen: i64,
    pub repair_order_id: String,
    pub images: Vec<FileRefBody>,
    pub documents: Vec<FileRefBody>,
    pub remark: String,
    /// Update only: the new status; absent keeps it. CLOSED is final.
    pub status: Option<AccidentStatus>,
}

impl AccidentForm {
    /// The input with its files checked as the caller's; the status apart.
    async fn into_pb(
        self,
        state: &AppState,
        principal: &Principal,
    ) -> Result<(pb::AccidentInput, i32), ApiError> {
        let input = pb::AccidentInput {
            accident_time: time_field("accidentTime", &self.accident_time)?,
            images: checked_files(state, principal, "images", self.images).await?,
            documents: checked_files(state, principal, "documents", self.documents).await?,
            area: self.area.map(Into::into),
            point: self.point.map(Into::into),
            severity: self.severity.map_or(0, i32::from),
            liability: self.liability.map_or(0, i32::from),
            vehicle_id: self.vehicle_id,
            driver_id: self.driver_id,
            address: self.address,
            description: self.description,
            injured_count: self.injured_count,
            fatality_count: self.fatality_count,
            estimated_loss_fen: self.estimated_loss_fen,
            assessed_loss_fen: self.assessed_loss_fen,
            fixed_loss_code: self.fixed_loss_code,
            insurance_policy_id: self.insurance_policy_id,
            claim_no: self.claim_no,
            claim_paid_fen: self.claim_paid_fen,
            repair_order_id: self.repair_order_id,
            remark: self.remark,
        };
        Result::Ok((input, self.status.map_or(0, i32::from)))
    }
}

#[utoipa::path(
    post, path = "/risk/accidents", tag = "risk",
    request_body = AccidentForm,
    responses((status = 200, description = "The accident as stored (REPORTED, with its case number); 4000 naming the field otherwise", body = Envelope<AccidentBody>)),
    security(("token" = ["as:accident"]))
)]
async fn create_accident(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedJson(form): TrimmedJson<AccidentForm>,
) -> ApiResult<AccidentBody> {
    let (input, _) = form.into_pb(&state, &principal).await?;
    let request = pb::CreateAccidentRequest {
        accident: Some(input),
    };
    let answer = state
        .risk()
        .create_accident(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(accident_body(answer.accident, &state.links)))
}

#[utoipa::path(
    put, path = "/risk/accidents/{accidentId}", tag = "risk",
    params(("accidentId" = String, Path, description = "Accident id")),
    request_body = AccidentForm,
    responses((status = 200, description = "The accident as stored; a CLOSED accident is not changed", body = Envelope<AccidentBody>)),
    security(("token" = ["as:accident"]))
)]
async fn update_accident(
    State(state): State<AppState>,
    principal: Principal,
    Path(accident_id): Path<String>,
    TrimmedJson(form): TrimmedJson<AccidentForm>,
) -> ApiResult<AccidentBody> {
    let (input, status) = form.into_pb(&state, &principal).await?;
    let request = pb::UpdateAccidentRequest {
        accident_id,
        accident: Some(input),
        status,
    };
    let answer = state
        .risk()
        .update_accident(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(accident_body(answer.accident, &state.links)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edge::query::{ListQuery, from_query};

    fn read(raw: &str) -> Result<pb::ListAccidentsRequest, ApiError> {
        from_query::<AccidentListParams>(&ListQuery::parse(raw).unwrap())?.filter()
    }

    #[test]
    fn the_list_query_reads_the_filters_the_contract_names() {
        let request = read(
            "plateNumbers=B1&plateNumbers=B2&caseNo=AC1&driverId=d1\
             &statuses=REPORTED&statuses=CLOSED&severities=FATAL\
             &accidentTimeStart=2026-11-01&accidentTimeEnd=2026-11-07",
        )
        .unwrap();
        assert_eq!(request.plate_numbers, vec!["B1", "B2"]);
        assert_eq!(request.case_no, "AC1");
        assert_eq!(request.driver_id, "d1");
        assert_eq!(
            request.statuses,
            vec![
                pb::AccidentStatus::Reported as i32,
                pb::AccidentStatus::Closed as i32
            ]
        );
        assert_eq!(request.severities, vec![pb::AccidentSeverity::Fatal as i32]);
        assert!(request.accident_time.is_some());
        let err = read("severities=SEVERE").unwrap_err();
        assert_eq!(err.0.fields[0].field, "severities");
    }
}

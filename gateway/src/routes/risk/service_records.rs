//! Customer-service records (customerServiceRecord; permission
//! `as:risk:service`): the operator's contacts about a vehicle or an alarm,
//! listed over their start time, created by hand or from an alarm (the
//! ticket number is generated) and updated; CLOSED is final.

use axum::extract::{Path, State};
use fleetdesk_proto::vehicle::v1 as pb;
use prost_types::Timestamp;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::enums::{codes, edge_enum};
use crate::edge::paging::paging;
use crate::edge::query::{EdgeQuery, batch, end_time, start_time, time_range};
use crate::edge::time::{rfc3339, time_field};
use crate::envelope::{ApiError, ApiResult, Envelope, Ok, Page};
use crate::extract::TrimmedJson;
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_service_records, create_service_record))
        .routes(routes!(update_service_record))
}

edge_enum!(
    /// How the caller reached customer service.
    ServiceChannel => pb::ServiceChannel { Phone, OnlineChat, DriverApp, Wecom }
);
edge_enum!(
    /// What the contact was about.
    ServiceCategory => pb::ServiceCategory {
        RoadsideAssistance, FaultReport, AccidentReport, Consultation, Complaint, Other
    }
);
edge_enum!(
    /// OPEN → IN_PROGRESS → RESOLVED → CLOSED (final).
    ServiceRecordStatus => pb::ServiceRecordStatus { Open, InProgress, Resolved, Closed }
);

/// A contact with customer service.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServiceRecordBody {
    pub id: String,
    pub ticket_no: String,
    /// The vehicle's organisation when the record was made.
    pub org_id: String,
    pub org_name: String,
    pub vehicle_id: String,
    pub plate_number: String,
    pub driver_id: String,
    pub driver_name: String,
    pub caller_name: String,
    /// The caller's phone with its middle digits masked.
    pub caller_masked_phone: String,
    pub channel: Option<ServiceChannel>,
    pub category: Option<ServiceCategory>,
    pub status: Option<ServiceRecordStatus>,
    pub summary: String,
    pub resolution: String,
    pub agent_name: String,
    pub start_time: String,
    pub duration_seconds: i32,
    pub close_time: String,
    /// 1-5; 0 when not rated.
    pub satisfaction: i32,
    /// The alarm it was created from; empty when made by hand.
    pub alarm_id: String,
    /// When to call back; empty when no follow-up is planned.
    pub follow_up_time: String,
    pub create_time: String,
    pub update_time: String,
}

impl From<pb::CustomerServiceRecord> for ServiceRecordBody {
    fn from(r: pb::CustomerServiceRecord) -> Self {
        let audit = r.audit.unwrap_or_default();
        ServiceRecordBody {
            channel: ServiceChannel::from_pb(r.channel),
            category: ServiceCategory::from_pb(r.category),
            status: ServiceRecordStatus::from_pb(r.status),
            start_time: rfc3339(r.start_time.as_ref()),
            close_time: rfc3339(r.close_time.as_ref()),
            follow_up_time: rfc3339(r.follow_up_time.as_ref()),
            create_time: rfc3339(audit.create_time.as_ref()),
            update_time: rfc3339(audit.update_time.as_ref()),
            id: r.id,
            ticket_no: r.ticket_no,
            org_id: r.org_id,
            org_name: r.org_name,
            vehicle_id: r.vehicle_id,
            plate_number: r.plate_number,
            driver_id: r.driver_id,
            driver_name: r.driver_name,
            caller_name: r.caller_name,
            caller_masked_phone: r.caller_masked_phone,
            summary: r.summary,
            resolution: r.resolution,
            agent_name: r.agent_name,
            duration_seconds: r.duration_seconds,
            satisfaction: r.satisfaction,
            alarm_id: r.alarm_id,
        }
    }
}

/// Filters of the record list; combined with AND, a repeated key matches
/// any of its values.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ServiceRecordListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    /// Plate numbers, at most 250.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub plate_numbers: Vec<String>,
    /// Organisations; each takes its subtree.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub org_ids: Vec<String>,
    #[serde(default)]
    pub ticket_no: String,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub channels: Vec<ServiceChannel>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub categories: Vec<ServiceCategory>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub statuses: Vec<ServiceRecordStatus>,
    /// Contacts started from this time (yyyy-MM-dd, yyyy-MM-dd HH:mm:ss or RFC 3339).
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub start_time_start: Option<Timestamp>,
    /// A bare date includes the day.
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub start_time_end: Option<Timestamp>,
}

impl ServiceRecordListParams {
    fn filter(self) -> Result<pb::ListCustomerServiceRecordsRequest, ApiError> {
        Result::Ok(pb::ListCustomerServiceRecordsRequest {
            page: Some(paging(self.page, self.size)?),
            plate_numbers: self.plate_numbers,
            org_ids: self.org_ids,
            ticket_no: self.ticket_no,
            channels: codes(self.channels),
            categories: codes(self.categories),
            statuses: codes(self.statuses),
            start_time: time_range(self.start_time_start, self.start_time_end),
        })
    }
}

#[utoipa::path(
    get, path = "/risk/service-records", tag = "risk",
    params(ServiceRecordListParams),
    responses((status = 200, description = "Records in the caller's data scope, newest first", body = Envelope<Page<ServiceRecordBody>>)),
    security(("token" = ["as:risk:service"]))
)]
async fn list_service_records(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<ServiceRecordListParams>,
) -> ApiResult<Page<ServiceRecordBody>> {
    let answer = state
        .risk()
        .list_customer_service_records(state.as_user(&principal, query.filter()?))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer.records.into_iter().map(Into::into).collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

/// A record's editable fields, all replaced on save.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct ServiceRecordForm {
    /// Required unless alarmId is given (the alarm's vehicle is taken).
    pub vehicle_id: String,
    /// Empty: the driver bound to the vehicle at startTime, if any.
    pub driver_id: String,
    pub alarm_id: String,
    pub caller_name: String,
    /// On update, empty keeps the stored number (answers show it masked).
    pub caller_phone: String,
    pub channel: Option<ServiceChannel>,
    pub category: Option<ServiceCategory>,
    /// 1 to 500 characters.
    pub summary: String,
    pub resolution: String,
    /// yyyy-MM-dd HH:mm:ss (Beijing) or RFC 3339; not in the future.
    pub start_time: String,
    pub duration_seconds: i32,
    /// Not before startTime; empty when no follow-up is planned.
    pub follow_up_time: String,
    /// 0 (not rated) or 1-5.
    pub satisfaction: i32,
    /// Absent on create: OPEN.
    pub status: Option<ServiceRecordStatus>,
}

impl ServiceRecordForm {
    fn into_pb(self) -> Result<pb::CustomerServiceRecordInput, ApiError> {
        Result::Ok(pb::CustomerServiceRecordInput {
            start_time: time_field("startTime", &self.start_time)?,
            follow_up_time: time_field("followUpTime", &self.follow_up_time)?,
            channel: self.channel.map_or(0, i32::from),
            category: self.category.map_or(0, i32::from),
            status: self.status.map_or(0, i32::from),
            vehicle_id: self.vehicle_id,
            driver_id: self.driver_id,
            alarm_id: self.alarm_id,
            caller_name: self.caller_name,
            caller_phone: self.caller_phone,
            summary: self.summary,
            resolution: self.resolution,
            duration_seconds: self.duration_seconds,
            satisfaction: self.satisfaction,
        })
    }
}

#[utoipa::path(
    post, path = "/risk/service-records", tag = "risk",
    request_body = ServiceRecordForm,
    responses((status = 200, description = "The record as stored, with its ticket number; 4000 naming the field otherwise", body = Envelope<ServiceRecordBody>)),
    security(("token" = ["as:risk:service"]))
)]
async fn create_service_record(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedJson(form): TrimmedJson<ServiceRecordForm>,
) -> ApiResult<ServiceRecordBody> {
    let request = pb::CreateCustomerServiceRecordRequest {
        record: Some(form.into_pb()?),
    };
    let answer = state
        .risk()
        .create_customer_service_record(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(answer.record.unwrap_or_default().into()))
}

#[utoipa::path(
    put, path = "/risk/service-records/{recordId}", tag = "risk",
    params(("recordId" = String, Path, description = "Record id")),
    request_body = ServiceRecordForm,
    responses((status = 200, description = "The record as stored; a CLOSED record is not changed", body = Envelope<ServiceRecordBody>)),
    security(("token" = ["as:risk:service"]))
)]
async fn update_service_record(
    State(state): State<AppState>,
    principal: Principal,
    Path(record_id): Path<String>,
    TrimmedJson(form): TrimmedJson<ServiceRecordForm>,
) -> ApiResult<ServiceRecordBody> {
    let request = pb::UpdateCustomerServiceRecordRequest {
        record_id,
        record: Some(form.into_pb()?),
    };
    let answer = state
        .risk()
        .update_customer_service_record(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(answer.record.unwrap_or_default().into()))
}

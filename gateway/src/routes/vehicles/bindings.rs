//! The binding log (bindingLog, permission `as:sys:car`): its list and
//! export, and binding or unbinding a vehicle's terminal (terminal serial,
//! SIM, who, when).

use axum::extract::{Path, State};
use fleetdesk_proto::vehicle::v1 as pb;
use prost_types::Timestamp;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::enums::codes;
use crate::edge::enums::edge_enum;
use crate::edge::export::{ExportRecordBody, answer_started};
use crate::edge::paging::paging;
use crate::edge::query::{EdgeQuery, ExportQuery, batch, end_time, start_time, time_range};
use crate::edge::time::instant;
use crate::edge::time::rfc3339;
use crate::envelope::{ApiError, ApiResult, Envelope, Ok, OkWith, Page};
use crate::extract::TrimmedJson;
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_bindings))
        .routes(routes!(bind_terminal))
        .routes(routes!(unbind_terminal))
        .routes(routes!(export_bindings))
}

edge_enum!(
    /// What a binding ties the vehicle to.
    BindingKind => pb::BindingKind { Driver, Organization, Terminal }
);

/// One period a vehicle had a terminal (or driver).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BindingBody {
    pub id: String,
    pub vehicle_id: String,
    pub plate_number: String,
    pub vin: String,
    pub kind: Option<BindingKind>,
    /// Terminal serial or driver id.
    pub target_id: String,
    pub target_name: String,
    pub terminal_sim: String,
    pub bind_time: String,
    /// Empty while the binding is active.
    pub unbind_time: String,
    pub active: bool,
    /// Who bound.
    pub operator_name: String,
    /// Who unbound.
    pub unbind_operator_name: String,
    pub remark: String,
}

impl From<pb::VehicleBinding> for BindingBody {
    fn from(b: pb::VehicleBinding) -> Self {
        BindingBody {
            id: b.id,
            vehicle_id: b.vehicle_id,
            plate_number: b.plate_number,
            vin: b.vin,
            kind: BindingKind::from_pb(b.kind),
            target_id: b.target_id,
            target_name: b.target_name,
            terminal_sim: b.terminal_sim,
            bind_time: rfc3339(b.bind_time.as_ref()),
            unbind_time: rfc3339(b.unbind_time.as_ref()),
            active: b.active,
            operator_name: b.operator_name,
            unbind_operator_name: b.unbind_operator_name,
            remark: b.remark,
        }
    }
}

/// Filters of the binding log (repeat a key for several values).
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct BindingListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    /// Exact plate numbers, at most 250.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    #[serde(rename = "plate")]
    pub plate_numbers: Vec<String>,
    /// Exact VINs, at most 250.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    #[serde(rename = "vin")]
    pub vins: Vec<String>,
    #[param(style = Form, explode)]
    #[serde(default)]
    #[serde(rename = "orgId")]
    pub org_ids: Vec<String>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    #[serde(rename = "kind")]
    pub kinds: Vec<BindingKind>,
    /// A terminal serial or driver id.
    #[serde(default)]
    pub target_id: String,
    /// Only active (true) or ended (false) bindings.
    pub active: Option<bool>,
    #[serde(default)]
    pub vehicle_id: String,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub bind_time_start: Option<Timestamp>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub bind_time_end: Option<Timestamp>,
}

impl BindingListParams {
    /// The filter shared by the binding log and its export.
    fn filter(self) -> pb::VehicleBindingFilter {
        pb::VehicleBindingFilter {
            plate_numbers: self.plate_numbers,
            vins: self.vins,
            org_ids: self.org_ids,
            kinds: codes(self.kinds),
            target_id: self.target_id,
            active: self.active,
            bind_time: time_range(self.bind_time_start, self.bind_time_end),
            vehicle_id: self.vehicle_id,
        }
    }
}

#[utoipa::path(
    get, path = "/vehicle-bindings", tag = "vehicles",
    params(BindingListParams),
    responses((status = 200, description = "Binding history, newest first", body = Envelope<Page<BindingBody>>)),
    security(("token" = ["as:sys:car"]))
)]
async fn list_bindings(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<BindingListParams>,
) -> ApiResult<Page<BindingBody>> {
    let request = pb::ListVehicleBindingsRequest {
        page: Some(paging(query.page, query.size)?),
        filter: Some(query.filter()),
    };
    let answer = state
        .assets()
        .list_vehicle_bindings(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer.bindings.into_iter().map(BindingBody::from).collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

/// A terminal to fit to the vehicle; its current terminal (if any) is unbound.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct BindTerminalForm {
    /// Terminal serial (1 to 30 letters, digits or hyphens).
    pub terminal_id: String,
    /// SIM card number (11 to 20 digits).
    pub terminal_sim: String,
    /// When it was fitted (default now; yyyy-MM-dd HH:mm:ss or RFC 3339).
    pub bind_time: String,
    pub remark: String,
}

#[utoipa::path(
    post, path = "/vehicles/{id}/terminal/bind", tag = "vehicles",
    params(("id" = String, Path, description = "Vehicle id")),
    request_body = BindTerminalForm,
    responses((status = 200, description = "The new binding; 4009 when the terminal is on another vehicle", body = Envelope<BindingBody>)),
    security(("token" = ["as:sys:car"]))
)]
async fn bind_terminal(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
    TrimmedJson(form): TrimmedJson<BindTerminalForm>,
) -> ApiResult<BindingBody> {
    let bind_time = match form.bind_time.as_str() {
        "" => None,
        text => Some(
            instant(text, false)
                .map(fleetdesk_kit::convert::timestamp)
                .ok_or_else(|| ApiError::invalid("bindTime", "时间格式应为 yyyy-MM-dd HH:mm:ss"))?,
        ),
    };
    let request = pb::BindVehicleRequest {
        vehicle_id: id,
        kind: pb::BindingKind::Terminal as i32,
        target_id: form.terminal_id,
        bind_time,
        remark: form.remark,
        terminal_sim: form.terminal_sim,
    };
    let answer = state
        .assets()
        .bind_vehicle(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(BindingBody::from(answer.binding.unwrap_or_default())))
}

/// Why the terminal comes off.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct UnbindForm {
    pub remark: String,
}

#[utoipa::path(
    post, path = "/vehicles/{id}/terminal/unbind", tag = "vehicles",
    params(("id" = String, Path, description = "Vehicle id")),
    request_body = UnbindForm,
    responses((status = 200, description = "The binding just ended; 4009 when none is active", body = Envelope<BindingBody>)),
    security(("token" = ["as:sys:car"]))
)]
async fn unbind_terminal(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
    TrimmedJson(form): TrimmedJson<UnbindForm>,
) -> ApiResult<BindingBody> {
    let request = pb::UnbindVehicleRequest {
        vehicle_id: id,
        kind: pb::BindingKind::Terminal as i32,
        remark: form.remark,
    };
    let answer = state
        .assets()
        .unbind_vehicle(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(BindingBody::from(answer.binding.unwrap_or_default())))
}

#[utoipa::path(
    post, path = "/vehicle-bindings/export", tag = "vehicles",
    params(BindingListParams),
    responses((status = 200, description = "The export record of the binding log with the list's filters and data scope (paging ignored, newest first); the file follows in export records", body = Envelope<ExportRecordBody>)),
    security(("token" = ["as:sys:car"]))
)]
async fn export_bindings(
    State(state): State<AppState>,
    principal: Principal,
    ExportQuery(query): ExportQuery<BindingListParams>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportVehicleBindingsRequest {
        filter: Some(query.filter()),
    };
    let answer = state
        .assets()
        .export_vehicle_bindings(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}

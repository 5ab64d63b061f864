//! The pickers of the console's forms (a violation's driver, an accident's
//! vehicle, a card's holder, a repair order's vehicle): for any signed-in
//! member, within their data scope, and only what a picker shows (id and
//! name or plate, at most 20, from the asset service's `Pick…` RPCs). A
//! form's own permission guards the form; these do not ask for the asset
//! pages' permissions, which a form's user often lacks.

use axum::extract::State;
use fleetdesk_proto::vehicle::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::query::EdgeQuery;
use crate::envelope::{ApiResult, Envelope, Ok};
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(pick_vehicles))
        .routes(routes!(pick_drivers))
}

/// What a picker searches by.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct PickerParams {
    /// Part of a plate or VIN (vehicles), of a name (drivers); empty: the newest.
    pub keyword: Option<String>,
}

/// A vehicle as a picker shows it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VehicleChoiceBody {
    pub id: String,
    pub plate_number: String,
    pub vin: String,
}

/// A driver as a picker shows it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DriverChoiceBody {
    pub id: String,
    pub name: String,
}

#[utoipa::path(
    get, path = "/pickers/vehicles", tag = "shared",
    params(PickerParams),
    responses((status = 200, description = "Up to 20 vehicles of the caller's data scope matching the keyword, newest first", body = Envelope<Vec<VehicleChoiceBody>>)),
    security(("token" = []))
)]
async fn pick_vehicles(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<PickerParams>,
) -> ApiResult<Vec<VehicleChoiceBody>> {
    let request = pb::PickVehiclesRequest {
        keyword: query.keyword.unwrap_or_default(),
    };
    let answer = state
        .assets()
        .pick_vehicles(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(answer
        .vehicles
        .into_iter()
        .map(|v| VehicleChoiceBody {
            id: v.id,
            plate_number: v.plate_number,
            vin: v.vin,
        })
        .collect()))
}

#[utoipa::path(
    get, path = "/pickers/drivers", tag = "shared",
    params(PickerParams),
    responses((status = 200, description = "Up to 20 drivers of the caller's data scope whose name contains the keyword, newest first", body = Envelope<Vec<DriverChoiceBody>>)),
    security(("token" = []))
)]
async fn pick_drivers(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<PickerParams>,
) -> ApiResult<Vec<DriverChoiceBody>> {
    let request = pb::PickDriversRequest {
        keyword: query.keyword.unwrap_or_default(),
    };
    let answer = state
        .assets()
        .pick_drivers(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(answer
        .drivers
        .into_iter()
        .map(|d| DriverChoiceBody {
            id: d.id,
            name: d.name,
        })
        .collect()))
}

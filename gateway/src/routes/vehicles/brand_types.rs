//! The brand-type list of the forms (getSimpleBrandTypeList): the brands
//! and models of the vehicles the caller reaches, for any signed-in member.

use axum::extract::State;
use fleetdesk_proto::vehicle::v1 as pb;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::envelope::{ApiResult, Envelope, Ok};
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list_brand_types))
}

/// A vehicle brand with the models of it the enterprise has.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BrandTypeBody {
    pub brand: String,
    /// Sorted; empty models are left out.
    pub models: Vec<String>,
}

#[utoipa::path(
    get, path = "/vehicle-brands", tag = "shared",
    responses((status = 200, description = "The brands and models of the vehicles the caller reaches, by brand", body = Envelope<Vec<BrandTypeBody>>)),
    security(("token" = []))
)]
async fn list_brand_types(
    State(state): State<AppState>,
    principal: Principal,
) -> ApiResult<Vec<BrandTypeBody>> {
    let answer = state
        .assets()
        .list_vehicle_brand_types(state.as_user(&principal, pb::ListVehicleBrandTypesRequest {}))
        .await?
        .into_inner();
    Result::Ok(Ok(answer
        .brand_types
        .into_iter()
        .map(|b| {
            let pb::VehicleBrandType { brand, models } = b;
            BrandTypeBody { brand, models }
        })
        .collect()))
}

//! Private cars (addPrivateCar, permission `as:sys:car`): employees' own cars
//! registered for business use; list, export, register (`Idempotency-Key`),
//! review.
//! Owner phones arrive masked.

use axum::extract::{Path, State};
use fleetdesk_proto::vehicle::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::enums::codes;
use crate::edge::enums::edge_enum;
use crate::edge::export::{ExportRecordBody, answer_started};
use crate::edge::file_ref::FileRefBody;
use crate::edge::paging::paging;
use crate::edge::query::{EdgeQuery, ExportQuery, batch};
use crate::edge::time::rfc3339;
use crate::envelope::{ApiError, ApiResult, Envelope, Ok, OkWith, Page};
use crate::extract::TrimmedJson;
use crate::idempotency::IdempotencyKey;
use crate::routes::vehicles::convert::{EnergyType, PlateColor};
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_private_cars, create_private_car))
        .routes(routes!(review_private_car))
        .routes(routes!(export_private_cars))
}

edge_enum!(
    /// Review state of a private car.
    PrivateCarStatus => pb::PrivateCarStatus { PendingReview, Approved, Rejected, Disabled }
);

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PrivateCarBody {
    pub id: String,
    pub org_id: String,
    pub org_name: String,
    /// The vehicle created on approval; empty before.
    pub vehicle_id: String,
    pub plate_number: String,
    pub plate_color: Option<PlateColor>,
    pub vin: String,
    pub brand: String,
    pub model: String,
    pub energy_type: Option<EnergyType>,
    pub owner_driver_id: String,
    pub owner_name: String,
    /// Masked by the server (centre mode).
    #[serde(rename = "ownerPhone")]
    pub owner_masked_phone: String,
    /// Reimbursement, fen per kilometre.
    pub allowance_fen_per_km: i64,
    pub status: Option<PrivateCarStatus>,
    pub reject_reason: String,
    pub licence_images: Vec<FileRefBody>,
    pub insurance_images: Vec<FileRefBody>,
    pub remark: String,
    pub create_time: String,
}

impl From<pb::PrivateCar> for PrivateCarBody {
    fn from(c: pb::PrivateCar) -> Self {
        let audit = c.audit.unwrap_or_default();
        PrivateCarBody {
            id: c.id,
            org_id: c.org_id,
            org_name: c.org_name,
            vehicle_id: c.vehicle_id,
            plate_number: c.plate_number,
            plate_color: PlateColor::from_pb(c.plate_color),
            vin: c.vin,
            brand: c.brand,
            model: c.model,
            energy_type: EnergyType::from_pb(c.energy_type),
            owner_driver_id: c.owner_driver_id,
            owner_name: c.owner_name,
            owner_masked_phone: c.owner_masked_phone,
            allowance_fen_per_km: c.allowance_fen_per_km,
            status: PrivateCarStatus::from_pb(c.status),
            reject_reason: c.reject_reason,
            licence_images: c
                .licence_images
                .into_iter()
                .map(FileRefBody::from)
                .collect(),
            insurance_images: c
                .insurance_images
                .into_iter()
                .map(FileRefBody::from)
                .collect(),
            remark: c.remark,
            create_time: rfc3339(audit.create_time.as_ref()),
        }
    }
}

#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct PrivateCarListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    /// Exact plate numbers, at most 250.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    #[serde(rename = "plate")]
    pub plate_numbers: Vec<String>,
    #[param(style = Form, explode)]
    #[serde(default)]
    #[serde(rename = "orgId")]
    pub org_ids: Vec<String>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    #[serde(rename = "status")]
    pub statuses: Vec<PrivateCarStatus>,
    /// Part of the owner's name.
    #[serde(default)]
    pub owner_name: String,
}

impl PrivateCarListParams {
    /// The filter shared by the private-car list and its export.
    fn filter(self) -> pb::PrivateCarFilter {
        pb::PrivateCarFilter {
            plate_numbers: self.plate_numbers,
            org_ids: self.org_ids,
            statuses: codes(self.statuses),
            owner_name: self.owner_name,
        }
    }
}

#[utoipa::path(
    get, path = "/private-cars", tag = "vehicles",
    params(PrivateCarListParams),
    responses((status = 200, description = "Private cars, newest first", body = Envelope<Page<PrivateCarBody>>)),
    security(("token" = ["as:sys:car"]))
)]
async fn list_private_cars(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<PrivateCarListParams>,
) -> ApiResult<Page<PrivateCarBody>> {
    let request = pb::ListPrivateCarsRequest {
        page: Some(paging(query.page, query.size)?),
        filter: Some(query.filter()),
    };
    let answer = state
        .assets()
        .list_private_cars(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer
            .private_cars
            .into_iter()
            .map(PrivateCarBody::from)
            .collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

/// An employee's car to register for business use.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct PrivateCarForm {
    pub org_id: String,
    pub plate_number: String,
    /// Default BLUE.
    pub plate_color: Option<PlateColor>,
    pub vin: String,
    pub brand: String,
    pub model: String,
    pub energy_type: Option<EnergyType>,
    /// The owner as a driver of the enterprise, if one.
    pub owner_driver_id: String,
    pub owner_name: String,
    /// 11 digits starting with 1.
    pub owner_phone: String,
    pub allowance_fen_per_km: i64,
    pub licence_images: Vec<FileRefBody>,
    pub insurance_images: Vec<FileRefBody>,
    pub remark: String,
}

#[utoipa::path(
    post, path = "/private-cars", tag = "vehicles",
    params(("Idempotency-Key" = Option<String>, Header, description = "A replay answers the first result and registers nothing")),
    request_body = PrivateCarForm,
    responses((status = 200, description = "The registered car, pending review", body = Envelope<PrivateCarBody>)),
    security(("token" = ["as:sys:car"]))
)]
async fn create_private_car(
    State(state): State<AppState>,
    principal: Principal,
    key: IdempotencyKey,
    TrimmedJson(form): TrimmedJson<PrivateCarForm>,
) -> ApiResult<PrivateCarBody> {
    let request = pb::CreatePrivateCarRequest {
        private_car: Some(pb::PrivateCarInput {
            org_id: form.org_id,
            plate_number: form.plate_number,
            plate_color: form.plate_color.map_or(0, i32::from),
            vin: form.vin,
            brand: form.brand,
            model: form.model,
            energy_type: form.energy_type.map_or(0, i32::from),
            owner_driver_id: form.owner_driver_id,
            owner_name: form.owner_name,
            owner_phone: form.owner_phone,
            allowance_fen_per_km: form.allowance_fen_per_km,
            licence_images: form.licence_images.into_iter().map(Into::into).collect(),
            insurance_images: form.insurance_images.into_iter().map(Into::into).collect(),
            remark: form.remark,
        }),
    };
    let answer = state
        .assets()
        .create_private_car(state.as_user_once(&principal, &key, request)?)
        .await?
        .into_inner();
    Result::Ok(Ok(PrivateCarBody::from(
        answer.private_car.unwrap_or_default(),
    )))
}

/// Approve (the car becomes a vehicle) or reject with a reason.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct ReviewForm {
    pub approve: bool,
    /// Required when rejecting.
    pub reject_reason: String,
}

#[utoipa::path(
    post, path = "/private-cars/{id}/review", tag = "vehicles",
    params(("id" = String, Path, description = "Private car id")),
    request_body = ReviewForm,
    responses((status = 200, description = "The reviewed car; 4009 when already reviewed", body = Envelope<PrivateCarBody>)),
    security(("token" = ["as:sys:car"]))
)]
async fn review_private_car(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
    TrimmedJson(form): TrimmedJson<ReviewForm>,
) -> ApiResult<PrivateCarBody> {
    let request = pb::ReviewPrivateCarRequest {
        private_car_id: id,
        approved: form.approve,
        reject_reason: form.reject_reason,
    };
    let answer = state
        .assets()
        .review_private_car(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(PrivateCarBody::from(
        answer.private_car.unwrap_or_default(),
    )))
}

#[utoipa::path(
    post, path = "/private-cars/export", tag = "vehicles",
    params(PrivateCarListParams),
    responses((status = 200, description = "The export record of the private cars with the list's filters and data scope (paging ignored, newest first; owner phones masked); the file follows in export records", body = Envelope<ExportRecordBody>)),
    security(("token" = ["as:sys:car"]))
)]
async fn export_private_cars(
    State(state): State<AppState>,
    principal: Principal,
    ExportQuery(query): ExportQuery<PrivateCarListParams>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportPrivateCarsRequest {
        filter: Some(query.filter()),
    };
    let answer = state
        .assets()
        .export_private_cars(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}

//! Vehicle asset files (carFiles, permission `as:sys:car`): list with batch
//! plate and VIN filters, detail, create (with `Idempotency-Key`), edit,
//! export (the list's filters), import and its template. Enums travel by
//! name (OpenAPI enums); times as RFC 3339; money in fen.

use axum::extract::multipart::MultipartRejection;
use axum::extract::{DefaultBodyLimit, Multipart, Path, State};
use axum::response::Response;
use fleetdesk_proto::vehicle::v1 as pb;
use prost_types::Timestamp;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::enums::{UsageKind, UsageStatus, codes, edge_enum};
use crate::edge::export::{ExportRecordBody, answer_started};
use crate::edge::file_ref::FileRefBody;
use crate::edge::paging::paging;
use crate::edge::query::{EdgeQuery, ExportQuery, batch, end_time, last, start_time, time_range};
use crate::edge::time::instant;
use crate::edge::time::rfc3339;
use crate::envelope::{ApiError, ApiResult, Envelope, Ok, OkWith, Page};
use crate::extract::TrimmedJson;
use crate::idempotency::IdempotencyKey;
use crate::imports::{self, ImportErrorsBody, ImportForm, ImportedBody, import_template};
use crate::routes::vehicles::convert::{EnergyType, PlateColor};
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(import_vehicles))
        .layer(DefaultBodyLimit::max(imports::body_limit()))
        .routes(routes!(list_vehicles, create_vehicle))
        .routes(routes!(get_vehicle, update_vehicle))
        .routes(routes!(export_vehicles))
        .routes(routes!(vehicle_import_template))
}

edge_enum!(
    /// Body category.
    VehicleCategory => pb::VehicleCategory {
        MiniTruck, LightTruck, MediumTruck, HeavyTruck, Van, RefrigeratedTruck, PassengerCar, Other
    }
);
edge_enum!(
    /// How the enterprise holds the vehicle (usage type).
    OwnershipType => pb::OwnershipType { Owned, Rented, RentToOwn, Private }
);
edge_enum!(
    /// Operating state in the fleet.
    VehicleStatus => pb::VehicleStatus { InService, Idle, InRepair, Suspended, Retired }
);
edge_enum!(
    /// Orders of the vehicle list.
    VehicleSort => pb::VehicleSort {
        CreateTimeDesc, CreateTimeAsc, PlateNumberAsc, RegisterTimeDesc, LeaseEndTimeAsc
    }
);

/// A vehicle's asset file.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VehicleBody {
    pub id: String,
    pub org_id: String,
    pub org_name: String,
    /// e.g. 粤BD12345; unique in the enterprise.
    pub plate_number: String,
    pub plate_color: Option<PlateColor>,
    /// 17 characters with a valid check digit; unique in the enterprise.
    pub vin: String,
    pub engine_number: String,
    pub brand: String,
    pub model: String,
    pub category: Option<VehicleCategory>,
    pub energy_type: Option<EnergyType>,
    pub body_color: String,
    pub seat_count: i32,
    pub rated_load_kg: i32,
    pub curb_weight_kg: i32,
    /// Usable battery capacity, watt-hours.
    pub battery_capacity_wh: i64,
    pub rated_range_km: i32,
    pub ownership_type: Option<OwnershipType>,
    pub status: Option<VehicleStatus>,
    /// First registration date (RFC 3339).
    pub register_time: String,
    pub licence_owner: String,
    pub licence_issue_time: String,
    pub inspection_expire_time: String,
    pub insurance_expire_time: String,
    /// Bound terminal serial; empty when none.
    pub terminal_id: String,
    pub terminal_sim: String,
    pub terminal_bind_time: String,
    #[serde(rename = "driverId")]
    pub current_driver_id: String,
    #[serde(rename = "driverName")]
    pub current_driver_name: String,
    /// Kind and state of the current usage record; absent when none.
    pub usage_kind: Option<UsageKind>,
    pub usage_status: Option<UsageStatus>,
    pub lease_start_time: String,
    pub lease_end_time: String,
    pub tags: Vec<String>,
    pub licence_images: Vec<FileRefBody>,
    pub remark: String,
    pub create_time: String,
    pub update_time: String,
}

impl From<pb::Vehicle> for VehicleBody {
    fn from(v: pb::Vehicle) -> Self {
        let audit = v.audit.unwrap_or_default();
        VehicleBody {
            id: v.id,
            org_id: v.org_id,
            org_name: v.org_name,
            plate_number: v.plate_number,
            plate_color: PlateColor::from_pb(v.plate_color),
            vin: v.vin,
            engine_number: v.engine_number,
            brand: v.brand,
            model: v.model,
            category: VehicleCategory::from_pb(v.category),
            energy_type: EnergyType::from_pb(v.energy_type),
            body_color: v.body_color,
            seat_count: v.seat_count,
            rated_load_kg: v.rated_load_kg,
            curb_weight_kg: v.curb_weight_kg,
            battery_capacity_wh: v.battery_capacity_wh,
            rated_range_km: v.rated_range_km,
            ownership_type: OwnershipType::from_pb(v.ownership_type),
            status: VehicleStatus::from_pb(v.status),
            register_time: rfc3339(v.register_time.as_ref()),
            licence_owner: v.licence_owner,
            licence_issue_time: rfc3339(v.licence_issue_time.as_ref()),
            inspection_expire_time: rfc3339(v.inspection_expire_time.as_ref()),
            insurance_expire_time: rfc3339(v.insurance_expire_time.as_ref()),
            terminal_id: v.terminal_id,
            terminal_sim: v.terminal_sim,
            terminal_bind_time: rfc3339(v.terminal_bind_time.as_ref()),
            current_driver_id: v.current_driver_id,
            current_driver_name: v.current_driver_name,
            usage_kind: UsageKind::from_pb(v.usage_kind),
            usage_status: UsageStatus::from_pb(v.usage_status),
            lease_start_time: rfc3339(v.lease_start_time.as_ref()),
            lease_end_time: rfc3339(v.lease_end_time.as_ref()),
            tags: v.tags,
            licence_images: v
                .licence_images
                .into_iter()
                .map(FileRefBody::from)
                .collect(),
            remark: v.remark,
            create_time: rfc3339(audit.create_time.as_ref()),
            update_time: rfc3339(audit.update_time.as_ref()),
        }
    }
}

/// Filters of the vehicle list (repeat a key for several values).
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct VehicleListParams {
    /// Page from 1.
    pub page: Option<i32>,
    /// 5, 10, 20, 50 or 100 (default 20).
    pub size: Option<i32>,
    /// Exact plate numbers, at most 250 (`plate=A&plate=B`).
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    #[serde(rename = "plate")]
    pub plate_numbers: Vec<String>,
    /// Exact VINs, at most 250.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    #[serde(rename = "vin")]
    pub vins: Vec<String>,
    /// Exact terminal serials, at most 250.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    #[serde(rename = "terminalId")]
    pub terminal_ids: Vec<String>,
    /// Organisations, each with its sub-organisations.
    #[param(style = Form, explode)]
    #[serde(default)]
    #[serde(rename = "orgId")]
    pub org_ids: Vec<String>,
    /// Part of the plate number or VIN.
    #[serde(default)]
    pub keyword: String,
    /// Part of the brand.
    #[serde(default)]
    pub brand: String,
    /// Part of the model.
    #[serde(default)]
    pub model: String,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    #[serde(rename = "status")]
    pub statuses: Vec<VehicleStatus>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    #[serde(rename = "usageKind")]
    pub usage_kinds: Vec<UsageKind>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    #[serde(rename = "ownershipType")]
    pub ownership_types: Vec<OwnershipType>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    #[serde(rename = "energyType")]
    pub energy_types: Vec<EnergyType>,
    pub has_driver: Option<bool>,
    pub has_terminal: Option<bool>,
    /// First registration date from (yyyy-MM-dd, yyyy-MM-dd HH:mm:ss or RFC 3339).
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub register_time_start: Option<Timestamp>,
    /// First registration date to (a bare date includes the day).
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub register_time_end: Option<Timestamp>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub create_time_start: Option<Timestamp>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub create_time_end: Option<Timestamp>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub lease_end_time_start: Option<Timestamp>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub lease_end_time_end: Option<Timestamp>,
    #[param(inline)]
    #[serde(default, deserialize_with = "last")]
    pub sort: Option<VehicleSort>,
}

impl VehicleListParams {
    /// The filter shared by the vehicle list and its export.
    fn filter(self) -> pb::VehicleFilter {
        pb::VehicleFilter {
            plate_numbers: self.plate_numbers,
            vins: self.vins,
            org_ids: self.org_ids,
            keyword: self.keyword,
            brand: self.brand,
            model: self.model,
            statuses: codes(self.statuses),
            usage_kinds: codes(self.usage_kinds),
            ownership_types: codes(self.ownership_types),
            energy_types: codes(self.energy_types),
            has_driver: self.has_driver,
            has_terminal: self.has_terminal,
            register_time: time_range(self.register_time_start, self.register_time_end),
            create_time: time_range(self.create_time_start, self.create_time_end),
            lease_end_time: time_range(self.lease_end_time_start, self.lease_end_time_end),
            terminal_ids: self.terminal_ids,
        }
    }
}

#[utoipa::path(
    get, path = "/vehicles", tag = "vehicles",
    params(VehicleListParams),
    responses((status = 200, description = "Vehicles within the caller's data scope", body = Envelope<Page<VehicleBody>>)),
    security(("token" = ["as:sys:car"]))
)]
async fn list_vehicles(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<VehicleListParams>,
) -> ApiResult<Page<VehicleBody>> {
    let request = pb::ListVehiclesRequest {
        page: Some(paging(query.page, query.size)?),
        sort: query.sort.map_or(0, i32::from),
        filter: Some(query.filter()),
    };
    let answer = state
        .assets()
        .list_vehicles(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer.vehicles.into_iter().map(VehicleBody::from).collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

#[utoipa::path(
    get, path = "/vehicles/{id}", tag = "vehicles",
    params(("id" = String, Path, description = "Vehicle id")),
    responses((status = 200, description = "One vehicle's asset file", body = Envelope<VehicleBody>)),
    security(("token" = ["as:sys:car"]))
)]
async fn get_vehicle(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
) -> ApiResult<VehicleBody> {
    let answer = state
        .assets()
        .get_vehicle(state.as_user(&principal, pb::GetVehicleRequest { vehicle_id: id }))
        .await?
        .into_inner();
    Result::Ok(Ok(VehicleBody::from(answer.vehicle.unwrap_or_default())))
}

/// A vehicle's editable fields. Dates: yyyy-MM-dd (Asia/Shanghai) or RFC 3339.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct VehicleForm {
    pub org_id: String,
    pub plate_number: String,
    /// Default GREEN.
    pub plate_color: Option<PlateColor>,
    pub vin: String,
    pub engine_number: String,
    pub brand: String,
    pub model: String,
    pub category: Option<VehicleCategory>,
    pub energy_type: Option<EnergyType>,
    pub body_color: String,
    pub seat_count: i32,
    pub rated_load_kg: i32,
    pub curb_weight_kg: i32,
    /// Watt-hours; required for electric vehicles.
    pub battery_capacity_wh: i64,
    pub rated_range_km: i32,
    pub ownership_type: Option<OwnershipType>,
    /// Default IDLE.
    pub status: Option<VehicleStatus>,
    pub register_time: String,
    pub licence_owner: String,
    pub licence_issue_time: String,
    pub inspection_expire_time: String,
    /// Create only: a terminal to bind at once (with its SIM).
    pub terminal_id: String,
    pub terminal_sim: String,
    pub tags: Vec<String>,
    pub licence_images: Vec<FileRefBody>,
    pub remark: String,
}

fn date_field(field: &str, value: &str) -> Result<Option<prost_types::Timestamp>, ApiError> {
    if value.is_empty() {
        return Result::Ok(None);
    }
    instant(value, false)
        .map(|t| Some(fleetdesk_kit::convert::timestamp(t)))
        .ok_or_else(|| ApiError::invalid(field, "日期格式应为 yyyy-MM-dd"))
}

impl VehicleForm {
    fn into_input(self) -> Result<pb::VehicleInput, ApiError> {
        Result::Ok(pb::VehicleInput {
            register_time: date_field("registerTime", &self.register_time)?,
            licence_issue_time: date_field("licenceIssueTime", &self.licence_issue_time)?,
            inspection_expire_time: date_field(
                "inspectionExpireTime",
                &self.inspection_expire_time,
            )?,
            org_id: self.org_id,
            plate_number: self.plate_number,
            plate_color: self.plate_color.map_or(0, i32::from),
            vin: self.vin,
            engine_number: self.engine_number,
            brand: self.brand,
            model: self.model,
            category: self.category.map_or(0, i32::from),
            energy_type: self.energy_type.map_or(0, i32::from),
            body_color: self.body_color,
            seat_count: self.seat_count,
            rated_load_kg: self.rated_load_kg,
            curb_weight_kg: self.curb_weight_kg,
            battery_capacity_wh: self.battery_capacity_wh,
            rated_range_km: self.rated_range_km,
            ownership_type: self.ownership_type.map_or(0, i32::from),
            status: self.status.map_or(0, i32::from),
            terminal_id: self.terminal_id,
            terminal_sim: self.terminal_sim,
            tags: self.tags,
            licence_images: self.licence_images.into_iter().map(Into::into).collect(),
            remark: self.remark,
            licence_owner: self.licence_owner,
        })
    }
}

#[utoipa::path(
    post, path = "/vehicles", tag = "vehicles",
    params(("Idempotency-Key" = Option<String>, Header, description = "A replay answers the first result and creates nothing; the same key with another body is 4009")),
    request_body = VehicleForm,
    responses((status = 200, description = "The new vehicle; 4000 names each refused field, 4009 a taken plate, VIN or terminal", body = Envelope<VehicleBody>)),
    security(("token" = ["as:sys:car"]))
)]
async fn create_vehicle(
    State(state): State<AppState>,
    principal: Principal,
    key: IdempotencyKey,
    TrimmedJson(form): TrimmedJson<VehicleForm>,
) -> ApiResult<VehicleBody> {
    let request = pb::CreateVehicleRequest {
        vehicle: Some(form.into_input()?),
    };
    let answer = state
        .assets()
        .create_vehicle(state.as_user_once(&principal, &key, request)?)
        .await?
        .into_inner();
    Result::Ok(Ok(VehicleBody::from(answer.vehicle.unwrap_or_default())))
}

#[utoipa::path(
    put, path = "/vehicles/{id}", tag = "vehicles",
    params(("id" = String, Path, description = "Vehicle id")),
    request_body = VehicleForm,
    responses((status = 200, description = "The changed vehicle (its terminal changes only through the binding routes)", body = Envelope<VehicleBody>)),
    security(("token" = ["as:sys:car"]))
)]
async fn update_vehicle(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
    TrimmedJson(form): TrimmedJson<VehicleForm>,
) -> ApiResult<VehicleBody> {
    let request = pb::UpdateVehicleRequest {
        vehicle_id: id,
        vehicle: Some(form.into_input()?),
    };
    let answer = state
        .assets()
        .update_vehicle(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(VehicleBody::from(answer.vehicle.unwrap_or_default())))
}

#[utoipa::path(
    post, path = "/vehicles/export", tag = "vehicles",
    params(VehicleListParams),
    responses((status = 200, description = "The export record of the vehicle list with the list's filters and data scope (paging and order ignored: newest first); the file follows in export records", body = Envelope<ExportRecordBody>)),
    security(("token" = ["as:sys:car"]))
)]
async fn export_vehicles(
    State(state): State<AppState>,
    principal: Principal,
    ExportQuery(query): ExportQuery<VehicleListParams>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportVehiclesRequest {
        sort: query.sort.map_or(0, i32::from),
        filter: Some(query.filter()),
    };
    let answer = state
        .assets()
        .export_vehicles(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}

#[utoipa::path(
    get, path = "/vehicles/import-template", tag = "vehicles",
    responses((status = 200, description = "The vehicle import template: an xlsx with the header row (required titles bold) and one example row", content_type = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", body = String)),
    security(("token" = ["as:sys:car"]))
)]
async fn vehicle_import_template(
    State(state): State<AppState>,
    principal: Principal,
) -> Result<Response, ApiError> {
    import_template(&state, &principal, pb::ImportKind::Vehicles).await
}

#[utoipa::path(
    post, path = "/vehicles/import", tag = "vehicles",
    request_body(content = ImportForm, content_type = "multipart/form-data"),
    responses(
        (status = 200, description = "Every row was written (in one transaction)", body = Envelope<ImportedBody>),
        (status = 400, description = "4000: nothing was written; data is the error table (errorHeader; errorList of row, column, reason), or data.fields when the file itself was refused", body = Envelope<ImportErrorsBody>)
    ),
    security(("token" = ["as:sys:car"]))
)]
async fn import_vehicles(
    State(state): State<AppState>,
    principal: Principal,
    multipart: Result<Multipart, MultipartRejection>,
) -> Result<Response, ApiError> {
    imports::run(&state, &principal, multipart, |file| async {
        let request = pb::ImportVehiclesRequest {
            file: Some(pb::ImportFile {
                key: file.key,
                name: file.name,
            }),
        };
        let answer = state
            .assets()
            .import_vehicles(state.as_user(&principal, request))
            .await?;
        Result::Ok(answer.into_inner().result.unwrap_or_default())
    })
    .await
}

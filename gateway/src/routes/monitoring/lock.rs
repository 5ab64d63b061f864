//! Remote lock (lockCarManagement, lockAndUnlockCar; permission
//! `as:lockcar`): the rent and rent-to-own vehicles with their overdue
//! instalments, lock and unlock commands (a required reason and
//! `Idempotency-Key`; locking only a standing, reporting, not charging
//! vehicle) and the command log.

use axum::extract::{Path, State};
use fleetdesk_proto::vehicle::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::enums::UsageKind;
use crate::edge::enums::codes;
use crate::edge::paging::paging;
use crate::edge::query::{EdgeQuery, batch, end_time, start_time, time_range};
use crate::edge::time::rfc3339;
use crate::envelope::{ApiResult, Envelope, Ok, Page};
use crate::extract::TrimmedJson;
use crate::idempotency::IdempotencyKey;
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_lock_vehicles))
        .routes(routes!(lock_vehicle))
        .routes(routes!(unlock_vehicle))
        .routes(routes!(list_lock_commands))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum LockActionBody {
    Lock,
    Unlock,
}

/// queued → sent → acknowledged → succeeded / failed / timedOut; queued
/// commands to an offline terminal expire; a newer command cancels queued ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum LockCommandState {
    Queued,
    Sent,
    Acknowledged,
    Succeeded,
    Failed,
    TimedOut,
    Expired,
    Cancelled,
}

impl LockCommandState {
    fn from_pb(value: i32) -> Option<LockCommandState> {
        use pb::LockCommandStatus as S;
        Some(match S::try_from(value).ok()? {
            S::Unspecified => return None,
            S::Pending => LockCommandState::Queued,
            S::Sent => LockCommandState::Sent,
            S::Acknowledged => LockCommandState::Acknowledged,
            S::Succeeded => LockCommandState::Succeeded,
            S::Failed => LockCommandState::Failed,
            S::TimedOut => LockCommandState::TimedOut,
            S::Expired => LockCommandState::Expired,
            S::Cancelled => LockCommandState::Cancelled,
        })
    }

    fn pb(self) -> i32 {
        use pb::LockCommandStatus as S;
        (match self {
            LockCommandState::Queued => S::Pending,
            LockCommandState::Sent => S::Sent,
            LockCommandState::Acknowledged => S::Acknowledged,
            LockCommandState::Succeeded => S::Succeeded,
            LockCommandState::Failed => S::Failed,
            LockCommandState::TimedOut => S::TimedOut,
            LockCommandState::Expired => S::Expired,
            LockCommandState::Cancelled => S::Cancelled,
        }) as i32
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum LockStateBody {
    Locked,
    Unlocked,
    Unknown,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LockCommandBody {
    pub id: String,
    pub vehicle_id: String,
    pub plate_number: String,
    pub action: Option<LockActionBody>,
    pub reason: String,
    #[serde(rename = "state")]
    pub status: Option<LockCommandState>,
    /// The terminal's words or why it was not delivered.
    pub failure_reason: String,
    pub operator_name: String,
    #[serde(rename = "createdAt")]
    pub request_time: String,
    #[serde(rename = "updatedAt")]
    pub update_time: String,
}

impl From<pb::LockCommand> for LockCommandBody {
    fn from(c: pb::LockCommand) -> Self {
        let action = match pb::LockAction::try_from(c.action) {
            Result::Ok(pb::LockAction::Lock) => Some(LockActionBody::Lock),
            Result::Ok(pb::LockAction::Unlock) => Some(LockActionBody::Unlock),
            Result::Ok(pb::LockAction::Unspecified) | Err(_) => None,
        };
        LockCommandBody {
            id: c.id,
            vehicle_id: c.vehicle_id,
            plate_number: c.plate_number,
            action,
            reason: c.reason,
            status: LockCommandState::from_pb(c.status),
            failure_reason: c.failure_reason,
            operator_name: c.operator_name,
            request_time: rfc3339(c.request_time.as_ref()),
            update_time: rfc3339(c.update_time.as_ref()),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LockVehicleBody {
    pub vehicle_id: String,
    pub plate_number: String,
    pub vin: String,
    pub org_name: String,
    #[serde(rename = "usageType")]
    pub usage_kind: Option<UsageKind>,
    pub overdue_instalments: i32,
    pub overdue_amount_fen: i64,
    pub lock_state: LockStateBody,
    /// A fix within the last 10 minutes.
    pub online: bool,
    pub speed_kmh: Option<f64>,
    pub charging: bool,
    /// RFC 3339; empty without a fix.
    pub last_fix_time: String,
    pub last_command: Option<LockCommandBody>,
}

impl From<pb::LockableVehicle> for LockVehicleBody {
    fn from(v: pb::LockableVehicle) -> Self {
        let lock_state = match pb::LockState::try_from(v.lock_state) {
            Result::Ok(pb::LockState::Locked) => LockStateBody::Locked,
            Result::Ok(pb::LockState::Unlocked) => LockStateBody::Unlocked,
            Result::Ok(
                pb::LockState::Unspecified | pb::LockState::Locking | pb::LockState::Unlocking,
            )
            | Err(_) => LockStateBody::Unknown,
        };
        LockVehicleBody {
            vehicle_id: v.vehicle_id,
            plate_number: v.plate_number,
            vin: v.vin,
            org_name: v.org_name,
            usage_kind: UsageKind::from_pb(v.usage_kind),
            overdue_instalments: v.overdue_instalments,
            overdue_amount_fen: v.overdue_amount_fen,
            lock_state,
            online: v.online,
            speed_kmh: v.speed_kmh.map(|s| (s * 10.0).round() / 10.0),
            charging: v.charging,
            last_fix_time: rfc3339(v.last_fix_time.as_ref()),
            last_command: v.last_command.map(LockCommandBody::from),
        }
    }
}

/// Filters of the lock vehicle list (repeat a key for several values).
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct LockVehicleListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    /// Exact plate numbers, at most 250.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub plate_numbers: Vec<String>,
    /// Organisations, each with its sub-organisations.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub org_ids: Vec<String>,
    /// RENT and/or RENT_TO_OWN.
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    #[serde(rename = "usageTypes")]
    pub usage_kinds: Vec<UsageKind>,
    /// Only vehicles with overdue instalments.
    #[serde(default)]
    pub overdue_only: bool,
}

#[utoipa::path(
    get, path = "/lock/vehicles", tag = "monitoring",
    params(LockVehicleListParams),
    responses((status = 200, description = "Rent and rent-to-own vehicles (open usage records) in the caller's data scope, most overdue first", body = Envelope<Page<LockVehicleBody>>)),
    security(("token" = ["as:lockcar"]))
)]
async fn list_lock_vehicles(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<LockVehicleListParams>,
) -> ApiResult<Page<LockVehicleBody>> {
    let request = pb::ListLockVehiclesRequest {
        page: Some(paging(query.page, query.size)?),
        plate_numbers: query.plate_numbers,
        org_ids: query.org_ids,
        usage_kinds: codes(query.usage_kinds),
        overdue_only: query.overdue_only,
    };
    let answer = state
        .telemetry()
        .list_lock_vehicles(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer
            .vehicles
            .into_iter()
            .map(LockVehicleBody::from)
            .collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

/// Why the operator locks or unlocks (2-200 characters; kept in the log).
/// The `Idempotency-Key` header is required too; the vehicle service checks
/// both after the vehicle (another tenant's is 4004 whatever else is wrong).
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct LockForm {
    pub reason: String,
}

#[utoipa::path(
    post, path = "/lock/vehicles/{vehicleId}/lock", tag = "monitoring",
    params(
        ("vehicleId" = String, Path, description = "Vehicle id"),
        ("Idempotency-Key" = String, Header, description = "Required: a replay answers the first command and sends nothing")
    ),
    request_body = LockForm,
    responses((status = 200, description = "The queued (or, when the terminal is online, sent) command; refused with 4000 unless the latest fix is under 60 s old, the vehicle stands and is not charging", body = Envelope<LockCommandBody>)),
    security(("token" = ["as:lockcar"]))
)]
async fn lock_vehicle(
    State(state): State<AppState>,
    principal: Principal,
    key: IdempotencyKey,
    Path(vehicle_id): Path<String>,
    TrimmedJson(form): TrimmedJson<LockForm>,
) -> ApiResult<LockCommandBody> {
    let request = pb::LockVehicleRequest {
        vehicle_id,
        mode: pb::LockMode::NoRestart as i32,
        speed_limit_kmh: 0,
        reason: form.reason,
        expire_time: None,
        idempotency_key: key.0.clone().unwrap_or_default(),
    };
    let answer = state
        .telemetry()
        .lock_vehicle(state.as_user_once(&principal, &key, request)?)
        .await?
        .into_inner();
    Result::Ok(Ok(LockCommandBody::from(
        answer.command.unwrap_or_default(),
    )))
}

#[utoipa::path(
    post, path = "/lock/vehicles/{vehicleId}/unlock", tag = "monitoring",
    params(
        ("vehicleId" = String, Path, description = "Vehicle id"),
        ("Idempotency-Key" = String, Header, description = "Required: a replay answers the first command and sends nothing")
    ),
    request_body = LockForm,
    responses((status = 200, description = "The queued (or sent) unlock command; it cancels a queued lock", body = Envelope<LockCommandBody>)),
    security(("token" = ["as:lockcar"]))
)]
async fn unlock_vehicle(
    State(state): State<AppState>,
    principal: Principal,
    key: IdempotencyKey,
    Path(vehicle_id): Path<String>,
    TrimmedJson(form): TrimmedJson<LockForm>,
) -> ApiResult<LockCommandBody> {
    let request = pb::UnlockVehicleRequest {
        vehicle_id,
        reason: form.reason,
        expire_time: None,
        idempotency_key: key.0.clone().unwrap_or_default(),
    };
    let answer = state
        .telemetry()
        .unlock_vehicle(state.as_user_once(&principal, &key, request)?)
        .await?
        .into_inner();
    Result::Ok(Ok(LockCommandBody::from(
        answer.command.unwrap_or_default(),
    )))
}

/// Filters of the command log (repeat a key for several values).
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct LockCommandListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    #[serde(default)]
    pub vehicle_id: String,
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub plate_numbers: Vec<String>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub actions: Vec<LockActionBody>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub states: Vec<LockCommandState>,
    /// Commands asked for in [from, to): RFC 3339, yyyy-MM-dd HH:mm:ss or yyyy-MM-dd.
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub from: Option<prost_types::Timestamp>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub to: Option<prost_types::Timestamp>,
}

#[utoipa::path(
    get, path = "/lock/commands", tag = "monitoring",
    params(LockCommandListParams),
    responses((status = 200, description = "Lock and unlock commands in the caller's data scope, newest first", body = Envelope<Page<LockCommandBody>>)),
    security(("token" = ["as:lockcar"]))
)]
async fn list_lock_commands(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<LockCommandListParams>,
) -> ApiResult<Page<LockCommandBody>> {
    let request = pb::ListLockCommandsRequest {
        page: Some(paging(query.page, query.size)?),
        plate_numbers: query.plate_numbers,
        vins: Vec::new(),
        org_ids: Vec::new(),
        action: 0,
        statuses: query.states.into_iter().map(LockCommandState::pb).collect(),
        request_time: time_range(query.from, query.to),
        vehicle_id: query.vehicle_id,
        actions: query
            .actions
            .into_iter()
            .map(|a| match a {
                LockActionBody::Lock => pb::LockAction::Lock as i32,
                LockActionBody::Unlock => pb::LockAction::Unlock as i32,
            })
            .collect(),
    };
    let answer = state
        .telemetry()
        .list_lock_commands(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer
            .commands
            .into_iter()
            .map(LockCommandBody::from)
            .collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

//! Service plans of the maintenance reminders (carMaintenance; permission
//! `as:maintain:remind`): the list, create, update and delete. Distances
//! are metres, intervals months, windows metres and days.

use axum::extract::{Path, State};
use fleetdesk_proto::vehicle::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::enums::{codes, edge_enum};
use crate::edge::paging::paging;
use crate::edge::query::{EdgeQuery, batch};
use crate::edge::time::rfc3339;
use crate::envelope::{ApiResult, Empty, Envelope, Ok, Page};
use crate::extract::TrimmedJson;
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_plans, create_plan))
        .routes(routes!(update_plan, delete_plan))
}

edge_enum!(
    /// What is serviced: ROUTINE_SERVICE (定期保养), TIRE_ROTATION (轮胎换位),
    /// BRAKE_CHECK (制动检查), BATTERY_CHECK (电池检测), AIR_CONDITIONING
    /// (空调保养), REFRIGERATION_UNIT (冷机保养).
    MaintenanceKind => pb::MaintenanceKind {
        RoutineService, TireRotation, BrakeCheck, BatteryCheck, AirConditioning, RefrigerationUnit,
    }
);

/// A service plan: what is serviced how often for the vehicles of an
/// organisation subtree (optionally one model of them).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MaintenancePlanBody {
    pub id: String,
    /// The organisation whose subtree's vehicles the plan covers.
    pub org_id: String,
    pub org_name: String,
    pub name: String,
    pub kind: Option<MaintenanceKind>,
    /// Only vehicles of this model; empty = every model.
    pub vehicle_model: String,
    /// Interval in metres; 0 = by time only.
    pub interval_m: i64,
    /// Interval in months; 0 = by mileage only.
    pub interval_months: i32,
    /// Due soon this many metres before the due reading (0 = none).
    pub soon_m: i64,
    /// Due soon this many days before the due date or the forecast one (0 = none).
    pub soon_days: i32,
    pub items: Vec<String>,
    pub remark: String,
    /// Vehicles with an open reminder of the plan.
    pub vehicle_count: i64,
    pub created_by: String,
    pub create_time: String,
    pub updated_by: String,
    pub update_time: String,
}

impl From<pb::MaintenancePlan> for MaintenancePlanBody {
    fn from(p: pb::MaintenancePlan) -> Self {
        let audit = p.audit.unwrap_or_default();
        MaintenancePlanBody {
            kind: MaintenanceKind::from_pb(p.kind),
            created_by: audit.created_by,
            create_time: rfc3339(audit.create_time.as_ref()),
            updated_by: audit.updated_by,
            update_time: rfc3339(audit.update_time.as_ref()),
            id: p.id,
            org_id: p.org_id,
            org_name: p.org_name,
            name: p.name,
            vehicle_model: p.vehicle_model,
            interval_m: p.interval_m,
            interval_months: p.interval_months,
            soon_m: p.soon_m,
            soon_days: p.soon_days,
            items: p.items,
            remark: p.remark,
            vehicle_count: p.vehicle_count,
        }
    }
}

/// Filters of the plan list.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct PlanListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    /// Contains-search over the name.
    #[serde(default)]
    pub name: String,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub kinds: Vec<MaintenanceKind>,
    /// Organisations; each takes its subtree.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub org_ids: Vec<String>,
}

#[utoipa::path(
    get, path = "/maintenance/plans", tag = "vehicles",
    params(PlanListParams),
    responses((status = 200, description = "Service plans in the caller's data scope, newest first", body = Envelope<Page<MaintenancePlanBody>>)),
    security(("token" = ["as:maintain:remind"]))
)]
async fn list_plans(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<PlanListParams>,
) -> ApiResult<Page<MaintenancePlanBody>> {
    let request = pb::ListMaintenancePlansRequest {
        page: Some(paging(query.page, query.size)?),
        name: query.name,
        kinds: codes(query.kinds),
        org_ids: query.org_ids,
    };
    let answer = state
        .maintenance()
        .list_maintenance_plans(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer.plans.into_iter().map(Into::into).collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

/// A plan's fields, all replaced on save: an interval in metres and/or
/// months (at least one), the due-soon window shorter than the interval.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct MaintenancePlanForm {
    pub org_id: String,
    pub name: String,
    pub kind: Option<MaintenanceKind>,
    pub vehicle_model: String,
    pub interval_m: i64,
    pub interval_months: i32,
    pub soon_m: i64,
    pub soon_days: i32,
    pub items: Vec<String>,
    pub remark: String,
}

impl From<MaintenancePlanForm> for pb::MaintenancePlan {
    fn from(f: MaintenancePlanForm) -> Self {
        pb::MaintenancePlan {
            org_id: f.org_id,
            name: f.name,
            kind: f.kind.map_or(0, i32::from),
            vehicle_model: f.vehicle_model,
            interval_m: f.interval_m,
            interval_months: f.interval_months,
            soon_m: f.soon_m,
            soon_days: f.soon_days,
            items: f.items,
            remark: f.remark,
            ..Default::default()
        }
    }
}

#[utoipa::path(
    post, path = "/maintenance/plans", tag = "vehicles",
    request_body = MaintenancePlanForm,
    responses((status = 200, description = "The plan as stored; each vehicle it covers now has an open reminder. 4000 names the field; a name taken is 4009", body = Envelope<MaintenancePlanBody>)),
    security(("token" = ["as:maintain:remind"]))
)]
async fn create_plan(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedJson(form): TrimmedJson<MaintenancePlanForm>,
) -> ApiResult<MaintenancePlanBody> {
    let request = pb::CreateMaintenancePlanRequest {
        plan: Some(form.into()),
    };
    let answer = state
        .maintenance()
        .create_maintenance_plan(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(answer.plan.unwrap_or_default().into()))
}

#[utoipa::path(
    put, path = "/maintenance/plans/{planId}", tag = "vehicles",
    params(("planId" = String, Path, description = "Plan id")),
    request_body = MaintenancePlanForm,
    responses((status = 200, description = "The plan as stored; open reminders follow its vehicles and intervals, services done stay", body = Envelope<MaintenancePlanBody>)),
    security(("token" = ["as:maintain:remind"]))
)]
async fn update_plan(
    State(state): State<AppState>,
    principal: Principal,
    Path(plan_id): Path<String>,
    TrimmedJson(form): TrimmedJson<MaintenancePlanForm>,
) -> ApiResult<MaintenancePlanBody> {
    let request = pb::UpdateMaintenancePlanRequest {
        plan_id,
        plan: Some(form.into()),
    };
    let answer = state
        .maintenance()
        .update_maintenance_plan(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(answer.plan.unwrap_or_default().into()))
}

#[utoipa::path(
    delete, path = "/maintenance/plans/{planId}", tag = "vehicles",
    params(("planId" = String, Path, description = "Plan id")),
    responses((status = 200, description = "Deleted with its open reminders; the services done stay", body = Envelope<Empty>)),
    security(("token" = ["as:maintain:remind"]))
)]
async fn delete_plan(
    State(state): State<AppState>,
    principal: Principal,
    Path(plan_id): Path<String>,
) -> ApiResult<Empty> {
    state
        .maintenance()
        .delete_maintenance_plan(
            state.as_user(&principal, pb::DeleteMaintenancePlanRequest { plan_id }),
        )
        .await?;
    Result::Ok(Ok(Empty {}))
}

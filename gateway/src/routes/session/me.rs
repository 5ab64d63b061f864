//! The signed-in user and their enterprise.

use axum::extract::State;
use fleetdesk_proto::org::v1 as pb;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::time::rfc3339;
use crate::envelope::{ApiResult, Envelope, Ok};
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(me))
        .routes(routes!(enterprise))
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RoleRef {
    pub id: String,
    pub name: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PermissionRef {
    pub permission_value: String,
}

/// Switches the enterprise lists give the user's enterprise (console spec §6).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EnterpriseFlagsBody {
    pub is_white_list: bool,
    #[serde(rename = "isSF")]
    pub is_sf: bool,
    pub is_mt: bool,
    #[serde(rename = "isB2B")]
    pub is_b2b: bool,
    pub in_behavior_analysis_list: bool,
    pub in_lock_car_list: bool,
    pub in_charge_blacklist: bool,
    pub in_insurance_blacklist: bool,
    pub in_order_center_list: bool,
    pub is_charge_account: bool,
    /// An application to open charging is pending (申请中).
    pub is_charge_applying: bool,
    pub need_open_pages: Vec<String>,
}

impl From<&pb::EnterpriseFlags> for EnterpriseFlagsBody {
    fn from(f: &pb::EnterpriseFlags) -> Self {
        let pb::EnterpriseFlags {
            white_list,
            sf,
            mt,
            b2b,
            behavior_analysis,
            lock_car,
            charge_blacklist,
            insurance_blacklist,
            order_center,
            need_open_pages,
            charge_account,
            charge_applying,
        } = f.clone();
        EnterpriseFlagsBody {
            is_white_list: white_list,
            is_sf: sf,
            is_mt: mt,
            is_b2b: b2b,
            in_behavior_analysis_list: behavior_analysis,
            in_lock_car_list: lock_car,
            in_charge_blacklist: charge_blacklist,
            in_insurance_blacklist: insurance_blacklist,
            in_order_center_list: order_center,
            is_charge_account: charge_account,
            is_charge_applying: charge_applying,
            need_open_pages,
        }
    }
}

/// The signed-in user, as the console's user info.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MeData {
    pub id: String,
    pub name: String,
    pub user_name: String,
    pub avatar: String,
    pub introduction: String,
    pub enterprise_id: String,
    pub enterprise_name: String,
    /// Never empty.
    pub roles: Vec<RoleRef>,
    pub permissions: Vec<PermissionRef>,
    pub flags: EnterpriseFlagsBody,
}

#[utoipa::path(
    get, path = "/me", tag = "session",
    responses((status = 200, description = "The signed-in user", body = Envelope<MeData>)),
    security(("token" = []))
)]
async fn me(principal: Principal) -> ApiResult<MeData> {
    let mut permissions: Vec<&String> = principal.permissions.iter().collect();
    permissions.sort_unstable();
    let mut roles: Vec<RoleRef> = principal
        .roles
        .iter()
        .map(|r| RoleRef {
            id: r.id.clone(),
            name: r.name.clone(),
        })
        .collect();
    if roles.is_empty() {
        // The console requires a non-empty role list; a member without roles is a plain member.
        roles.push(RoleRef {
            id: String::new(),
            name: "普通成员".to_owned(),
        });
    }
    Result::Ok(Ok(MeData {
        id: principal.user_id.clone(),
        name: principal.name.clone(),
        user_name: principal.user_name.clone(),
        avatar: principal.avatar_url.clone(),
        introduction: String::new(),
        enterprise_id: principal.enterprise_id.clone(),
        enterprise_name: principal.enterprise_name.clone(),
        roles,
        permissions: permissions
            .into_iter()
            .map(|p| PermissionRef {
                permission_value: p.clone(),
            })
            .collect(),
        flags: EnterpriseFlagsBody::from(&principal.flags),
    }))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EnterpriseBody {
    pub id: String,
    pub name: String,
    pub code: String,
    pub credit_code: String,
    pub contact_name: String,
    /// Masked by the server.
    pub contact_phone: String,
    pub create_time: String,
}

#[utoipa::path(
    get, path = "/enterprise", tag = "session",
    responses((status = 200, description = "The user's enterprise", body = Envelope<EnterpriseBody>)),
    security(("token" = []))
)]
async fn enterprise(
    State(state): State<AppState>,
    principal: Principal,
) -> ApiResult<EnterpriseBody> {
    let request = pb::GetEnterpriseRequest {
        enterprise_id: principal.enterprise_id.clone(),
    };
    let answer = state
        .org()
        .get_enterprise(state.as_user(&principal, request))
        .await?
        .into_inner();
    let e = answer.enterprise.unwrap_or_default();
    Result::Ok(Ok(EnterpriseBody {
        id: e.id,
        name: e.name,
        code: e.code,
        credit_code: e.credit_code,
        contact_name: e.contact_name,
        contact_phone: e.contact_phone_masked,
        create_time: rfc3339(e.create_time.as_ref()),
    }))
}

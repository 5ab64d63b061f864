//! Charging accounts (accountManagement, permission `as:charge:fee`): the
//! main account, the account tree of the organisations with balances, an
//! account's threshold and freeze, allocation down to direct children and
//! reclaim back up (each an `Idempotency-Key` money move), the allocation
//! record (balanceAllocationRecord) and the exports of both lists. Money in
//! fen.

use axum::extract::{Path, State};
use fleetdesk_proto::energy::v1 as pb;
use prost_types::Timestamp;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::enums::codes;
use crate::edge::enums::edge_enum;
use crate::edge::export::{ExportRecordBody, answer_started};
use crate::edge::paging::paging;
use crate::edge::query::{EdgeQuery, ExportQuery, batch, end_time, last, start_time, time_range};
use crate::edge::time::rfc3339;
use crate::envelope::{ApiError, ApiResult, Envelope, Ok, OkWith, Page};
use crate::extract::TrimmedJson;
use crate::idempotency::IdempotencyKey;
use crate::routes::energy::checks::{check_amount, check_remark};
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(get_main_charging_account))
        .routes(routes!(list_charging_accounts))
        .routes(routes!(export_charging_accounts))
        .routes(routes!(get_charging_account, update_charging_account))
        .routes(routes!(allocate_balance))
        .routes(routes!(reclaim_balance))
        .routes(routes!(list_balance_allocations))
        .routes(routes!(export_balance_allocations))
}

/// Most targets one allocation takes.
pub const MAX_ALLOCATION_TARGETS: usize = 250;

edge_enum!(
    /// MAIN: the enterprise's one main account; ORGANIZATION: an organisation's sub-account.
    ChargingAccountKind => pb::ChargingAccountKind { Main, Organization }
);
edge_enum!(
    /// FROZEN: no new sessions or allocations, balance kept; CLOSED: balance returned to the parent.
    ChargingAccountStatus => pb::ChargingAccountStatus { Active, Frozen, Closed }
);
edge_enum!(
    /// ALLOCATE: parent to child; RECLAIM: child back to parent.
    AllocationDirection => pb::AllocationDirection { Allocate, Reclaim }
);

/// A charging wallet: the main account or an organisation's sub-account.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChargingAccountBody {
    pub id: String,
    pub org_id: String,
    pub org_name: String,
    /// Empty for MAIN.
    pub parent_account_id: String,
    pub kind: Option<ChargingAccountKind>,
    /// Depth in the tree; MAIN is 0.
    pub level: i32,
    pub status: Option<ChargingAccountStatus>,
    /// Spendable now.
    pub available_fen: i64,
    /// Held for sessions in progress.
    pub frozen_fen: i64,
    /// On the account's cards, not yet spent.
    pub card_balance_fen: i64,
    /// Overdraft the operator allows; MAIN only.
    pub credit_limit_fen: i64,
    /// Warn below this; 0 = off.
    pub low_balance_threshold_fen: i64,
    pub total_received_fen: i64,
    pub total_consumed_fen: i64,
    pub card_count: i32,
    pub child_count: i32,
    pub create_time: String,
    pub update_time: String,
}

impl From<pb::ChargingAccount> for ChargingAccountBody {
    fn from(a: pb::ChargingAccount) -> Self {
        let pb::ChargingAccount {
            id,
            enterprise_id: _,
            org_id,
            org_name,
            parent_account_id,
            kind,
            level,
            status,
            available_fen,
            frozen_fen,
            card_balance_fen,
            credit_limit_fen,
            low_balance_threshold_fen,
            total_received_fen,
            total_consumed_fen,
            card_count,
            child_count,
            audit,
        } = a;
        let audit = audit.unwrap_or_default();
        ChargingAccountBody {
            id,
            org_id,
            org_name,
            parent_account_id,
            kind: ChargingAccountKind::from_pb(kind),
            level,
            status: ChargingAccountStatus::from_pb(status),
            available_fen,
            frozen_fen,
            card_balance_fen,
            credit_limit_fen,
            low_balance_threshold_fen,
            total_received_fen,
            total_consumed_fen,
            card_count,
            child_count,
            create_time: rfc3339(audit.create_time.as_ref()),
            update_time: rfc3339(audit.update_time.as_ref()),
        }
    }
}

/// One movement of balance between a parent account and a direct child.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BalanceAllocationBody {
    pub id: String,
    pub direction: Option<AllocationDirection>,
    pub from_account_id: String,
    pub from_org_name: String,
    pub to_account_id: String,
    pub to_org_name: String,
    /// Always positive.
    pub amount_fen: i64,
    pub from_balance_after_fen: i64,
    pub to_balance_after_fen: i64,
    pub operator_name: String,
    pub allocate_time: String,
    pub remark: String,
}

impl From<pb::BalanceAllocation> for BalanceAllocationBody {
    fn from(a: pb::BalanceAllocation) -> Self {
        let pb::BalanceAllocation {
            id,
            enterprise_id: _,
            direction,
            from_account_id,
            from_org_name,
            to_account_id,
            to_org_name,
            amount_fen,
            from_balance_after_fen,
            to_balance_after_fen,
            operator_name,
            allocate_time,
            remark,
        } = a;
        BalanceAllocationBody {
            id,
            direction: AllocationDirection::from_pb(direction),
            from_account_id,
            from_org_name,
            to_account_id,
            to_org_name,
            amount_fen,
            from_balance_after_fen,
            to_balance_after_fen,
            operator_name,
            allocate_time: rfc3339(allocate_time.as_ref()),
            remark,
        }
    }
}

#[utoipa::path(
    get, path = "/charging/main-account", tag = "charging",
    responses((status = 200, description = "The enterprise's main charging account; 4009 when charging is not open", body = Envelope<ChargingAccountBody>)),
    security(("token" = ["as:charge:fee"]))
)]
async fn get_main_charging_account(
    State(state): State<AppState>,
    principal: Principal,
) -> ApiResult<ChargingAccountBody> {
    let answer = state
        .energy()
        .get_main_charging_account(state.as_user(&principal, pb::GetMainChargingAccountRequest {}))
        .await?
        .into_inner();
    Result::Ok(Ok(answer.account.unwrap_or_default().into()))
}

/// Filters of the account tree (repeat a key for several values).
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ChargingAccountListParams {
    /// Only this account's subtree (itself included).
    #[serde(default)]
    pub root_account_id: String,
    /// Only the direct children of rootAccountId.
    #[serde(default)]
    pub direct_children_only: bool,
    /// Organisations, each with its sub-organisations.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    #[serde(rename = "orgId")]
    pub org_ids: Vec<String>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    #[serde(rename = "status")]
    pub statuses: Vec<ChargingAccountStatus>,
    /// Only accounts below their low-balance threshold.
    #[serde(default)]
    pub low_balance_only: bool,
}

impl ChargingAccountListParams {
    /// The filter shared by the account tree and its export.
    fn filter(self) -> pb::ListChargingAccountsRequest {
        pb::ListChargingAccountsRequest {
            root_account_id: self.root_account_id,
            direct_children_only: self.direct_children_only,
            org_ids: self.org_ids,
            statuses: codes(self.statuses),
            low_balance_only: self.low_balance_only,
        }
    }
}

#[utoipa::path(
    get, path = "/charging/accounts", tag = "charging",
    params(ChargingAccountListParams),
    responses((status = 200, description = "The accounts of the organisation tree in the caller's data scope, flat, parents before children (each names its parent); no paging", body = Envelope<Vec<ChargingAccountBody>>)),
    security(("token" = ["as:charge:fee"]))
)]
async fn list_charging_accounts(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<ChargingAccountListParams>,
) -> ApiResult<Vec<ChargingAccountBody>> {
    let answer = state
        .energy()
        .list_charging_accounts(state.as_user(&principal, query.filter()))
        .await?
        .into_inner();
    Result::Ok(Ok(answer
        .accounts
        .into_iter()
        .map(ChargingAccountBody::from)
        .collect()))
}

#[utoipa::path(
    post, path = "/charging/accounts/export", tag = "charging",
    params(ChargingAccountListParams),
    responses((status = 200, description = "The export record of the account tree with its filters; the file follows in export records", body = Envelope<ExportRecordBody>)),
    security(("token" = ["as:charge:fee"]))
)]
async fn export_charging_accounts(
    State(state): State<AppState>,
    principal: Principal,
    ExportQuery(query): ExportQuery<ChargingAccountListParams>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportChargingAccountsRequest {
        filter: Some(query.filter()),
    };
    let answer = state
        .energy()
        .export_charging_accounts(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}

#[utoipa::path(
    get, path = "/charging/accounts/{id}", tag = "charging",
    params(("id" = String, Path, description = "Account id")),
    responses((status = 200, description = "One account", body = Envelope<ChargingAccountBody>)),
    security(("token" = ["as:charge:fee"]))
)]
async fn get_charging_account(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
) -> ApiResult<ChargingAccountBody> {
    let answer = state
        .energy()
        .get_charging_account(
            state.as_user(&principal, pb::GetChargingAccountRequest { account_id: id }),
        )
        .await?
        .into_inner();
    Result::Ok(Ok(answer.account.unwrap_or_default().into()))
}

/// An account's settings.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct ChargingAccountForm {
    /// Warn when the available balance drops below this; 0 = off.
    pub low_balance_threshold_fen: i64,
    /// ACTIVE or FROZEN; absent keeps the status. The main account cannot be frozen.
    pub status: Option<ChargingAccountStatus>,
}

#[utoipa::path(
    put, path = "/charging/accounts/{id}", tag = "charging",
    params(("id" = String, Path, description = "Account id")),
    request_body = ChargingAccountForm,
    responses((status = 200, description = "The changed account", body = Envelope<ChargingAccountBody>)),
    security(("token" = ["as:charge:fee"]))
)]
async fn update_charging_account(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
    TrimmedJson(form): TrimmedJson<ChargingAccountForm>,
) -> ApiResult<ChargingAccountBody> {
    if form.low_balance_threshold_fen < 0 {
        return Err(ApiError::invalid(
            "lowBalanceThresholdFen",
            "余额预警值不能小于 0",
        ));
    }
    let request = pb::UpdateChargingAccountRequest {
        account_id: id,
        low_balance_threshold_fen: form.low_balance_threshold_fen,
        status: form.status.map_or(0, i32::from),
    };
    let answer = state
        .energy()
        .update_charging_account(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(answer.account.unwrap_or_default().into()))
}

/// One direct child and what it receives.
#[derive(Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct AllocationTargetForm {
    pub to_account_id: String,
    /// Positive.
    pub amount_fen: i64,
}

/// An allocation from one account to some of its direct children, all or nothing.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct AllocateForm {
    /// 1 to 250 direct children; together at most the account's available balance.
    pub targets: Vec<AllocationTargetForm>,
    pub remark: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AllocatedBody {
    pub allocations: Vec<BalanceAllocationBody>,
    /// The source account after the move.
    pub from_account: ChargingAccountBody,
}

#[utoipa::path(
    post, path = "/charging/accounts/{id}/allocate", tag = "charging",
    params(
        ("id" = String, Path, description = "The parent account the money leaves"),
        ("Idempotency-Key" = String, Header, description = "Required: a replay answers the first allocation and moves nothing; the same key with another body is 4009")
    ),
    request_body = AllocateForm,
    responses((status = 200, description = "Moved; 4000 names a refused target or amount (not a direct child, more than the available balance)", body = Envelope<AllocatedBody>)),
    security(("token" = ["as:charge:fee"]))
)]
async fn allocate_balance(
    State(state): State<AppState>,
    principal: Principal,
    key: IdempotencyKey,
    Path(id): Path<String>,
    TrimmedJson(form): TrimmedJson<AllocateForm>,
) -> Result<OkWith<AllocatedBody>, ApiError> {
    let idempotency_key = key.required()?;
    if form.targets.is_empty() {
        return Err(ApiError::invalid("targets", "请选择下级账户"));
    }
    if form.targets.len() > MAX_ALLOCATION_TARGETS {
        return Err(ApiError::invalid(
            "targets",
            "每次最多分配给 250 个下级账户",
        ));
    }
    for (i, target) in form.targets.iter().enumerate() {
        check_amount(&format!("targets[{i}].amountFen"), target.amount_fen)?;
    }
    check_remark("remark", &form.remark)?;
    let request = pb::AllocateBalanceRequest {
        from_account_id: id,
        targets: form
            .targets
            .into_iter()
            .map(|t| pb::AllocationTarget {
                to_account_id: t.to_account_id,
                amount_fen: t.amount_fen,
            })
            .collect(),
        remark: form.remark,
        idempotency_key,
    };
    let answer = state
        .energy()
        .allocate_balance(state.as_user_once(&principal, &key, request)?)
        .await?
        .into_inner();
    Result::Ok(OkWith {
        msg: "分配成功",
        data: AllocatedBody {
            allocations: answer
                .allocations
                .into_iter()
                .map(BalanceAllocationBody::from)
                .collect(),
            from_account: answer.from_account.unwrap_or_default().into(),
        },
    })
}

/// Money going back from a child account to its parent.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct ReclaimForm {
    /// Positive; at most the child's available balance.
    pub amount_fen: i64,
    pub remark: String,
}

#[utoipa::path(
    post, path = "/charging/accounts/{id}/reclaim", tag = "charging",
    params(
        ("id" = String, Path, description = "The child account the money leaves (back to its parent)"),
        ("Idempotency-Key" = String, Header, description = "Required: a replay answers the first reclaim and moves nothing")
    ),
    request_body = ReclaimForm,
    responses((status = 200, description = "Moved back to the parent", body = Envelope<BalanceAllocationBody>)),
    security(("token" = ["as:charge:fee"]))
)]
async fn reclaim_balance(
    State(state): State<AppState>,
    principal: Principal,
    key: IdempotencyKey,
    Path(id): Path<String>,
    TrimmedJson(form): TrimmedJson<ReclaimForm>,
) -> Result<OkWith<BalanceAllocationBody>, ApiError> {
    let idempotency_key = key.required()?;
    check_amount("amountFen", form.amount_fen)?;
    check_remark("remark", &form.remark)?;
    let request = pb::ReclaimBalanceRequest {
        from_account_id: id,
        amount_fen: form.amount_fen,
        remark: form.remark,
        idempotency_key,
    };
    let answer = state
        .energy()
        .reclaim_balance(state.as_user_once(&principal, &key, request)?)
        .await?
        .into_inner();
    Result::Ok(OkWith {
        msg: "回收成功",
        data: answer.allocation.unwrap_or_default().into(),
    })
}

/// Filters of the allocation record (repeat a key for several values).
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct BalanceAllocationListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    /// Movements into or out of this account.
    #[serde(default)]
    pub account_id: String,
    /// Organisations, each with its sub-organisations.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    #[serde(rename = "orgId")]
    pub org_ids: Vec<String>,
    #[param(inline)]
    #[serde(default, deserialize_with = "last")]
    pub direction: Option<AllocationDirection>,
    /// From (yyyy-MM-dd, yyyy-MM-dd HH:mm:ss or RFC 3339).
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub allocate_time_start: Option<Timestamp>,
    /// To (a bare date includes the day).
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub allocate_time_end: Option<Timestamp>,
}

impl BalanceAllocationListParams {
    fn filter(self) -> Result<pb::ListBalanceAllocationsRequest, ApiError> {
        Result::Ok(pb::ListBalanceAllocationsRequest {
            page: Some(paging(self.page, self.size)?),
            account_id: self.account_id,
            org_ids: self.org_ids,
            direction: self.direction.map_or(0, i32::from),
            allocate_time: time_range(self.allocate_time_start, self.allocate_time_end),
        })
    }
}

#[utoipa::path(
    get, path = "/charging/allocations", tag = "charging",
    params(BalanceAllocationListParams),
    responses((status = 200, description = "Allocations and reclaims in the caller's data scope, newest first", body = Envelope<Page<BalanceAllocationBody>>)),
    security(("token" = ["as:charge:fee"]))
)]
async fn list_balance_allocations(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<BalanceAllocationListParams>,
) -> ApiResult<Page<BalanceAllocationBody>> {
    let answer = state
        .energy()
        .list_balance_allocations(state.as_user(&principal, query.filter()?))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer
            .allocations
            .into_iter()
            .map(BalanceAllocationBody::from)
            .collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

#[utoipa::path(
    post, path = "/charging/allocations/export", tag = "charging",
    params(BalanceAllocationListParams),
    responses((status = 200, description = "The export record of the allocation record with the list's filters (paging ignored)", body = Envelope<ExportRecordBody>)),
    security(("token" = ["as:charge:fee"]))
)]
async fn export_balance_allocations(
    State(state): State<AppState>,
    principal: Principal,
    ExportQuery(query): ExportQuery<BalanceAllocationListParams>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportBalanceAllocationsRequest {
        filter: Some(pb::ListBalanceAllocationsRequest {
            page: None,
            ..query.filter()?
        }),
    };
    let answer = state
        .energy()
        .export_balance_allocations(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}

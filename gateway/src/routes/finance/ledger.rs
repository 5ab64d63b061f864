//! The enterprise's money held by the operator: the balance of each ledger
//! account (the pay page shows the prepaid balance) and the movements behind
//! them, newest first. Entries are immutable; a balance is the sum of its
//! account's entries.

use axum::extract::State;
use fleetdesk_proto::finance::v1 as pb;
use prost_types::Timestamp;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::bodies::{LedgerAccount, LedgerBusinessType, LedgerDirection};
use crate::edge::enums::codes;
use crate::edge::paging::paging;
use crate::edge::query::{EdgeQuery, end_time, start_time, time_range};
use crate::edge::time::rfc3339;
use crate::envelope::{ApiResult, Envelope, Ok, Page};
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(get_ledger_balances))
        .routes(routes!(list_ledger_entries))
}

/// The balance of one ledger account.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LedgerBalanceBody {
    pub account: Option<LedgerAccount>,
    pub balance_fen: i64,
    pub as_of_time: String,
}

#[utoipa::path(
    get, path = "/finance/ledger/balances", tag = "finance",
    responses((status = 200, description = "The balance of each ledger account", body = Envelope<Vec<LedgerBalanceBody>>)),
    security(("token" = ["oss:bill:pagepay", "bill:biz:pageInfo", "as:b2b:bill"]))
)]
async fn get_ledger_balances(
    State(state): State<AppState>,
    principal: Principal,
) -> ApiResult<Vec<LedgerBalanceBody>> {
    let answer = state
        .finance()
        .get_ledger_balances(state.as_user(&principal, pb::GetLedgerBalancesRequest {}))
        .await?
        .into_inner();
    Result::Ok(Ok(answer
        .balances
        .into_iter()
        .map(|b| LedgerBalanceBody {
            account: LedgerAccount::from_pb(b.account),
            balance_fen: b.balance_fen,
            as_of_time: rfc3339(b.as_of_time.as_ref()),
        })
        .collect()))
}

/// One movement on one ledger account.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LedgerEntryBody {
    pub id: String,
    pub entry_no: String,
    pub account: Option<LedgerAccount>,
    pub direction: Option<LedgerDirection>,
    /// Always positive; the direction says which way.
    pub amount_fen: i64,
    pub balance_after_fen: i64,
    pub business_type: Option<LedgerBusinessType>,
    pub reference_id: String,
    pub reference_no: String,
    pub occurred_time: String,
    pub remark: String,
}

impl From<pb::LedgerEntry> for LedgerEntryBody {
    fn from(e: pb::LedgerEntry) -> Self {
        let pb::LedgerEntry {
            id,
            entry_no,
            enterprise_id: _,
            account,
            direction,
            amount_fen,
            balance_after_fen,
            business_type,
            reference_id,
            reference_no,
            occurred_time,
            remark,
        } = e;
        LedgerEntryBody {
            id,
            entry_no,
            account: LedgerAccount::from_pb(account),
            direction: LedgerDirection::from_pb(direction),
            amount_fen,
            balance_after_fen,
            business_type: LedgerBusinessType::from_pb(business_type),
            reference_id,
            reference_no,
            occurred_time: rfc3339(occurred_time.as_ref()),
            remark,
        }
    }
}

/// Filters of the ledger movements.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct LedgerEntryListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub accounts: Vec<LedgerAccount>,
    pub direction: Option<LedgerDirection>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub business_types: Vec<LedgerBusinessType>,
    /// Entries of this bill, payment, refund…
    pub reference_id: Option<String>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub occurred_time_start: Option<Timestamp>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub occurred_time_end: Option<Timestamp>,
}

#[utoipa::path(
    get, path = "/finance/ledger/entries", tag = "finance",
    params(LedgerEntryListParams),
    responses((status = 200, description = "Ledger movements, newest first", body = Envelope<Page<LedgerEntryBody>>)),
    security(("token" = ["bill:settlement", "bill:biz:pageInfo"]))
)]
async fn list_ledger_entries(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<LedgerEntryListParams>,
) -> ApiResult<Page<LedgerEntryBody>> {
    let request = pb::ListLedgerEntriesRequest {
        page: Some(paging(query.page, query.size)?),
        accounts: codes(query.accounts),
        direction: query.direction.map_or(0, Into::into),
        business_types: codes(query.business_types),
        reference_id: query.reference_id.unwrap_or_default(),
        occurred_time: time_range(query.occurred_time_start, query.occurred_time_end),
    };
    let answer = state
        .finance()
        .list_ledger_entries(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer.entries.into_iter().map(Into::into).collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

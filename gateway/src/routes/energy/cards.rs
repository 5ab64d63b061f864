//! Charging cards (electricCard, permission `as:charge:card`; the junior
//! accounts' cards of juniorElectricCard under `as:charge:fee`): list with
//! batch card-number and plate filters and the balance total, detail,
//! create (optional `Idempotency-Key`), edit, freeze, unfreeze, cancel and
//! amount changes (money moves: `Idempotency-Key` required), the amount
//! change record (countChangeRecord) and the exports. Money in fen.

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
use crate::edge::query::{EdgeQuery, ExportQuery, batch, end_time, start_time, time_range};
use crate::edge::time::rfc3339;
use crate::envelope::{ApiError, ApiResult, Envelope, Ok, OkWith, Page};
use crate::extract::TrimmedJson;
use crate::idempotency::IdempotencyKey;
use crate::routes::energy::checks::{check_amount, check_remark};
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_charging_cards, create_charging_card))
        .routes(routes!(export_charging_cards))
        .routes(routes!(get_charging_card, update_charging_card))
        .routes(routes!(freeze_charging_card))
        .routes(routes!(unfreeze_charging_card))
        .routes(routes!(cancel_charging_card))
        .routes(routes!(change_charging_card_amount))
        .routes(routes!(list_card_amount_changes))
        .routes(routes!(export_card_amount_changes))
}

edge_enum!(
    /// PHYSICAL: an RFID card swiped at the pile; VIRTUAL: in the driver app, started by QR scan.
    ChargingCardKind => pb::ChargingCardKind { Physical, Virtual }
);
edge_enum!(
    /// VEHICLE: bound to a vehicle (plate-scan starts use it); DRIVER: bound to a driver.
    CardHolderKind => pb::CardHolderKind { Vehicle, Driver }
);
edge_enum!(
    /// ACTIVE ⇄ FROZEN; LOST and CANCELLED are final.
    ChargingCardStatus => pb::ChargingCardStatus { Active, Frozen, Lost, Cancelled }
);
edge_enum!(
    /// Period a card's budget counts over; NONE: no cap beyond the balance.
    BudgetPeriod => pb::BudgetPeriod { None, Daily, Weekly, Monthly }
);
edge_enum!(
    /// TOP_UP and WITHDRAW by people; CONSUME, REFUND and CANCEL_RETURN by the system.
    CardAmountChangeKind => pb::CardAmountChangeKind {
        TopUp, Withdraw, Consume, Refund, CancelReturn
    }
);

/// A card's spending cap.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CardBudgetBody {
    pub period: Option<BudgetPeriod>,
    /// Cap per period; 0 with NONE.
    pub limit_fen: i64,
    /// Spent in the current period.
    pub used_fen: i64,
    /// Cap on one session; 0 = none.
    pub per_session_limit_fen: i64,
    /// When the period's usage resets.
    pub reset_time: String,
}

impl From<pb::CardBudget> for CardBudgetBody {
    fn from(b: pb::CardBudget) -> Self {
        let pb::CardBudget {
            period,
            limit_fen,
            used_fen,
            per_session_limit_fen,
            reset_time,
        } = b;
        CardBudgetBody {
            period: BudgetPeriod::from_pb(period),
            limit_fen,
            used_fen,
            per_session_limit_fen,
            reset_time: rfc3339(reset_time.as_ref()),
        }
    }
}

/// A charging card funded from a charging account.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChargingCardBody {
    pub id: String,
    pub card_no: String,
    pub org_id: String,
    pub org_name: String,
    /// The account that funds the card.
    pub account_id: String,
    pub kind: Option<ChargingCardKind>,
    pub holder_kind: Option<CardHolderKind>,
    pub vehicle_id: String,
    pub plate_number: String,
    pub driver_id: String,
    pub driver_name: String,
    pub status: Option<ChargingCardStatus>,
    pub balance_fen: i64,
    pub budget: CardBudgetBody,
    pub total_consumed_fen: i64,
    pub issued_time: String,
    pub last_used_time: String,
    pub remark: String,
    /// Stations the card may charge at; empty = every station.
    pub allowed_station_ids: Vec<String>,
    pub create_time: String,
    pub update_time: String,
}

impl From<pb::ChargingCard> for ChargingCardBody {
    fn from(c: pb::ChargingCard) -> Self {
        let pb::ChargingCard {
            id,
            card_no,
            enterprise_id: _,
            org_id,
            org_name,
            account_id,
            kind,
            holder_kind,
            vehicle_id,
            plate_number,
            driver_id,
            driver_name,
            status,
            balance_fen,
            budget,
            total_consumed_fen,
            issued_time,
            last_used_time,
            remark,
            audit,
            allowed_station_ids,
        } = c;
        let audit = audit.unwrap_or_default();
        ChargingCardBody {
            id,
            card_no,
            org_id,
            org_name,
            account_id,
            kind: ChargingCardKind::from_pb(kind),
            holder_kind: CardHolderKind::from_pb(holder_kind),
            vehicle_id,
            plate_number,
            driver_id,
            driver_name,
            status: ChargingCardStatus::from_pb(status),
            balance_fen,
            budget: budget.unwrap_or_default().into(),
            total_consumed_fen,
            issued_time: rfc3339(issued_time.as_ref()),
            last_used_time: rfc3339(last_used_time.as_ref()),
            remark,
            allowed_station_ids,
            create_time: rfc3339(audit.create_time.as_ref()),
            update_time: rfc3339(audit.update_time.as_ref()),
        }
    }
}

/// One change of a card's balance.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CardAmountChangeBody {
    pub id: String,
    pub card_id: String,
    pub card_no: String,
    pub org_name: String,
    pub plate_number: String,
    pub driver_name: String,
    pub kind: Option<CardAmountChangeKind>,
    /// Always positive; the kind gives the sign.
    pub amount_fen: i64,
    pub balance_before_fen: i64,
    pub balance_after_fen: i64,
    /// CONSUME and REFUND: the session.
    pub session_id: String,
    /// Empty for the system's changes.
    pub operator_name: String,
    pub change_time: String,
    pub remark: String,
}

impl From<pb::CardAmountChange> for CardAmountChangeBody {
    fn from(c: pb::CardAmountChange) -> Self {
        let pb::CardAmountChange {
            id,
            enterprise_id: _,
            card_id,
            card_no,
            org_name,
            plate_number,
            driver_name,
            kind,
            amount_fen,
            balance_before_fen,
            balance_after_fen,
            session_id,
            operator_name,
            change_time,
            remark,
        } = c;
        CardAmountChangeBody {
            id,
            card_id,
            card_no,
            org_name,
            plate_number,
            driver_name,
            kind: CardAmountChangeKind::from_pb(kind),
            amount_fen,
            balance_before_fen,
            balance_after_fen,
            session_id,
            operator_name,
            change_time: rfc3339(change_time.as_ref()),
            remark,
        }
    }
}

/// A page of cards with the balance over every matching card.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChargingCardPage {
    pub list: Vec<ChargingCardBody>,
    pub total: i64,
    pub total_balance_fen: i64,
}

/// Filters of the card list (repeat a key for several values).
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ChargingCardListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    /// Card numbers, at most 250.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    #[serde(rename = "cardNo")]
    pub card_nos: Vec<String>,
    /// Plates of vehicle cards, at most 250.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    #[serde(rename = "plate")]
    pub plate_numbers: Vec<String>,
    /// Organisations, each with its sub-organisations.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    #[serde(rename = "orgId")]
    pub org_ids: Vec<String>,
    /// Cards funded by this account.
    #[serde(default)]
    pub account_id: String,
    /// Part of the driver's name.
    #[serde(default)]
    pub driver_name: String,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    #[serde(rename = "kind")]
    pub kinds: Vec<ChargingCardKind>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    #[serde(rename = "holderKind")]
    pub holder_kinds: Vec<CardHolderKind>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    #[serde(rename = "status")]
    pub statuses: Vec<ChargingCardStatus>,
    /// Issued from (yyyy-MM-dd, yyyy-MM-dd HH:mm:ss or RFC 3339).
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub issued_time_start: Option<Timestamp>,
    /// Issued until (a bare date includes the day).
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub issued_time_end: Option<Timestamp>,
    /// Junior cards (juniorElectricCard): only the cards of the organisations
    /// below this one (not its own).
    #[serde(default)]
    pub junior_of_org_id: String,
}

impl ChargingCardListParams {
    fn filter(self) -> Result<pb::ListChargingCardsRequest, ApiError> {
        Result::Ok(pb::ListChargingCardsRequest {
            page: Some(paging(self.page, self.size)?),
            card_nos: self.card_nos,
            plate_numbers: self.plate_numbers,
            org_ids: self.org_ids,
            account_id: self.account_id,
            driver_name: self.driver_name,
            kinds: codes(self.kinds),
            holder_kinds: codes(self.holder_kinds),
            statuses: codes(self.statuses),
            issued_time: time_range(self.issued_time_start, self.issued_time_end),
            junior_of_org_id: self.junior_of_org_id,
        })
    }
}

#[utoipa::path(
    get, path = "/charging/cards", tag = "charging",
    params(ChargingCardListParams),
    responses((status = 200, description = "Cards in the caller's data scope, newest first, with the balance over every matching card", body = Envelope<ChargingCardPage>)),
    security(("token" = ["as:charge:card"]))
)]
async fn list_charging_cards(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<ChargingCardListParams>,
) -> ApiResult<ChargingCardPage> {
    let answer = state
        .energy()
        .list_charging_cards(state.as_user(&principal, query.filter()?))
        .await?
        .into_inner();
    Result::Ok(Ok(ChargingCardPage {
        list: answer
            .cards
            .into_iter()
            .map(ChargingCardBody::from)
            .collect(),
        total: answer.page.map_or(0, |p| p.total),
        total_balance_fen: answer.total_balance_fen,
    }))
}

#[utoipa::path(
    post, path = "/charging/cards/export", tag = "charging",
    params(ChargingCardListParams),
    responses((status = 200, description = "The export record of the card list with the list's filters (paging ignored)", body = Envelope<ExportRecordBody>)),
    security(("token" = ["as:charge:card"]))
)]
async fn export_charging_cards(
    State(state): State<AppState>,
    principal: Principal,
    ExportQuery(query): ExportQuery<ChargingCardListParams>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportChargingCardsRequest {
        filter: Some(pb::ListChargingCardsRequest {
            page: None,
            ..query.filter()?
        }),
    };
    let answer = state
        .energy()
        .export_charging_cards(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}

#[utoipa::path(
    get, path = "/charging/cards/{id}", tag = "charging",
    params(("id" = String, Path, description = "Card id")),
    responses((status = 200, description = "One card", body = Envelope<ChargingCardBody>)),
    security(("token" = ["as:charge:card"]))
)]
async fn get_charging_card(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
) -> ApiResult<ChargingCardBody> {
    let answer = state
        .energy()
        .get_charging_card(state.as_user(&principal, pb::GetChargingCardRequest { card_id: id }))
        .await?
        .into_inner();
    Result::Ok(Ok(answer.card.unwrap_or_default().into()))
}

/// A card's editable fields; an edit replaces all of them. The balance moves
/// only through amount changes.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct ChargingCardForm {
    pub org_id: String,
    /// The funding account; it must serve orgId.
    pub account_id: String,
    pub kind: Option<ChargingCardKind>,
    /// PHYSICAL: the printed number (4-32 letters or digits); VIRTUAL: empty (assigned).
    pub card_no: String,
    pub holder_kind: Option<CardHolderKind>,
    /// VEHICLE holder.
    pub vehicle_id: String,
    /// DRIVER holder.
    pub driver_id: String,
    pub budget_period: Option<BudgetPeriod>,
    /// Cap per period (fen); 0 with NONE.
    pub budget_limit_fen: i64,
    /// Cap per session (fen); 0 = none.
    pub per_session_limit_fen: i64,
    pub remark: String,
    /// Stations the card may charge at, at most 250; empty = every station.
    pub allowed_station_ids: Vec<String>,
}

impl ChargingCardForm {
    fn into_input(self) -> Result<pb::ChargingCardInput, ApiError> {
        if self.budget_limit_fen < 0 {
            return Err(ApiError::invalid("budgetLimitFen", "预算不能小于 0"));
        }
        if self.per_session_limit_fen < 0 {
            return Err(ApiError::invalid(
                "perSessionLimitFen",
                "单次限额不能小于 0",
            ));
        }
        check_remark("remark", &self.remark)?;
        if self.allowed_station_ids.len() > fleetdesk_kit::list::BATCH_LIMIT {
            return Err(ApiError::invalid(
                "allowedStationIds",
                "可用充电站最多选择 250 个",
            ));
        }
        let ChargingCardForm {
            org_id,
            account_id,
            kind,
            card_no,
            holder_kind,
            vehicle_id,
            driver_id,
            budget_period,
            budget_limit_fen,
            per_session_limit_fen,
            remark,
            allowed_station_ids,
        } = self;
        Result::Ok(pb::ChargingCardInput {
            org_id,
            account_id,
            kind: kind.map_or(0, i32::from),
            card_no,
            holder_kind: holder_kind.map_or(0, i32::from),
            vehicle_id,
            driver_id,
            budget_period: budget_period.map_or(0, i32::from),
            budget_limit_fen,
            per_session_limit_fen,
            remark,
            allowed_station_ids,
        })
    }
}

#[utoipa::path(
    post, path = "/charging/cards", tag = "charging",
    params(("Idempotency-Key" = Option<String>, Header, description = "A replay answers the first card and issues nothing")),
    request_body = ChargingCardForm,
    responses((status = 200, description = "The new card, with zero balance; 4000 names each refused field, 4009 a taken card number", body = Envelope<ChargingCardBody>)),
    security(("token" = ["as:charge:card"]))
)]
async fn create_charging_card(
    State(state): State<AppState>,
    principal: Principal,
    key: IdempotencyKey,
    TrimmedJson(form): TrimmedJson<ChargingCardForm>,
) -> Result<OkWith<ChargingCardBody>, ApiError> {
    let request = pb::CreateChargingCardRequest {
        card: Some(form.into_input()?),
    };
    let answer = state
        .energy()
        .create_charging_card(state.as_user_once(&principal, &key, request)?)
        .await?
        .into_inner();
    Result::Ok(OkWith {
        msg: "充电卡已开卡",
        data: answer.card.unwrap_or_default().into(),
    })
}

#[utoipa::path(
    put, path = "/charging/cards/{id}", tag = "charging",
    params(("id" = String, Path, description = "Card id")),
    request_body = ChargingCardForm,
    responses((status = 200, description = "The changed card", body = Envelope<ChargingCardBody>)),
    security(("token" = ["as:charge:card"]))
)]
async fn update_charging_card(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
    TrimmedJson(form): TrimmedJson<ChargingCardForm>,
) -> ApiResult<ChargingCardBody> {
    let request = pb::UpdateChargingCardRequest {
        card_id: id,
        card: Some(form.into_input()?),
    };
    let answer = state
        .energy()
        .update_charging_card(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(answer.card.unwrap_or_default().into()))
}

/// Why a card is frozen.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct FreezeCardForm {
    pub reason: String,
}

#[utoipa::path(
    post, path = "/charging/cards/{id}/freeze", tag = "charging",
    params(("id" = String, Path, description = "Card id")),
    request_body = FreezeCardForm,
    responses((status = 200, description = "ACTIVE → FROZEN; 4009 from any other state", body = Envelope<ChargingCardBody>)),
    security(("token" = ["as:charge:card"]))
)]
async fn freeze_charging_card(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
    TrimmedJson(form): TrimmedJson<FreezeCardForm>,
) -> ApiResult<ChargingCardBody> {
    check_remark("reason", &form.reason)?;
    let request = pb::FreezeChargingCardRequest {
        card_id: id,
        reason: form.reason,
    };
    let answer = state
        .energy()
        .freeze_charging_card(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(answer.card.unwrap_or_default().into()))
}

#[utoipa::path(
    post, path = "/charging/cards/{id}/unfreeze", tag = "charging",
    params(("id" = String, Path, description = "Card id")),
    responses((status = 200, description = "FROZEN → ACTIVE; 4009 from any other state", body = Envelope<ChargingCardBody>)),
    security(("token" = ["as:charge:card"]))
)]
async fn unfreeze_charging_card(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
) -> ApiResult<ChargingCardBody> {
    let answer = state
        .energy()
        .unfreeze_charging_card(
            state.as_user(&principal, pb::UnfreezeChargingCardRequest { card_id: id }),
        )
        .await?
        .into_inner();
    Result::Ok(Ok(answer.card.unwrap_or_default().into()))
}

/// Closing a card for good (or reporting it lost).
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct CancelCardForm {
    /// Mark LOST instead of CANCELLED.
    pub lost: bool,
    pub reason: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CancelledCardBody {
    pub card: ChargingCardBody,
    /// The balance returned to the account; absent when it was zero.
    pub returned: Option<CardAmountChangeBody>,
}

#[utoipa::path(
    post, path = "/charging/cards/{id}/cancel", tag = "charging",
    params(
        ("id" = String, Path, description = "Card id"),
        ("Idempotency-Key" = String, Header, description = "Required (the card's balance goes back to its account): a replay answers the first result")
    ),
    request_body = CancelCardForm,
    responses((status = 200, description = "Cancelled (or lost), the balance returned to the account; 4009 for a card already cancelled or lost", body = Envelope<CancelledCardBody>)),
    security(("token" = ["as:charge:card"]))
)]
async fn cancel_charging_card(
    State(state): State<AppState>,
    principal: Principal,
    key: IdempotencyKey,
    Path(id): Path<String>,
    TrimmedJson(form): TrimmedJson<CancelCardForm>,
) -> ApiResult<CancelledCardBody> {
    let idempotency_key = key.required()?;
    check_remark("reason", &form.reason)?;
    let request = pb::CancelChargingCardRequest {
        card_id: id,
        lost: form.lost,
        reason: form.reason,
        idempotency_key,
    };
    let answer = state
        .energy()
        .cancel_charging_card(state.as_user_once(&principal, &key, request)?)
        .await?
        .into_inner();
    Result::Ok(Ok(CancelledCardBody {
        card: answer.card.unwrap_or_default().into(),
        returned: answer.returned.map(CardAmountChangeBody::from),
    }))
}

/// What people may do to a card's balance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum CardAmountChangeAction {
    /// From the account onto the card.
    TopUp,
    /// From the card back to the account.
    Withdraw,
}

/// A top-up or withdrawal.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CardAmountChangeForm {
    pub kind: CardAmountChangeAction,
    /// Positive. TOP_UP needs this much available on the account; WITHDRAW on the card.
    pub amount_fen: i64,
    #[serde(default)]
    pub remark: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CardAmountChangedBody {
    pub change: CardAmountChangeBody,
    pub card: ChargingCardBody,
}

#[utoipa::path(
    post, path = "/charging/cards/{id}/amount-changes", tag = "charging",
    params(
        ("id" = String, Path, description = "Card id"),
        ("Idempotency-Key" = String, Header, description = "Required: a replay answers the first change and moves nothing; the same key with another body is 4009")
    ),
    request_body = CardAmountChangeForm,
    responses((status = 200, description = "The change and the card after it; 4000 when the account (top-up) or the card (withdrawal) has too little", body = Envelope<CardAmountChangedBody>)),
    security(("token" = ["as:charge:card"]))
)]
async fn change_charging_card_amount(
    State(state): State<AppState>,
    principal: Principal,
    key: IdempotencyKey,
    Path(id): Path<String>,
    TrimmedJson(form): TrimmedJson<CardAmountChangeForm>,
) -> Result<OkWith<CardAmountChangedBody>, ApiError> {
    let idempotency_key = key.required()?;
    check_amount("amountFen", form.amount_fen)?;
    check_remark("remark", &form.remark)?;
    let kind = match form.kind {
        CardAmountChangeAction::TopUp => pb::CardAmountChangeKind::TopUp,
        CardAmountChangeAction::Withdraw => pb::CardAmountChangeKind::Withdraw,
    };
    let request = pb::ChangeChargingCardAmountRequest {
        card_id: id,
        kind: kind as i32,
        amount_fen: form.amount_fen,
        remark: form.remark,
        idempotency_key,
    };
    let answer = state
        .energy()
        .change_charging_card_amount(state.as_user_once(&principal, &key, request)?)
        .await?
        .into_inner();
    Result::Ok(OkWith {
        msg: "额度变更成功",
        data: CardAmountChangedBody {
            change: answer.change.unwrap_or_default().into(),
            card: answer.card.unwrap_or_default().into(),
        },
    })
}

/// Filters of the amount change record (repeat a key for several values).
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct CardAmountChangeListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    /// One card's changes.
    #[serde(default)]
    pub card_id: String,
    /// Card numbers, at most 250.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    #[serde(rename = "cardNo")]
    pub card_nos: Vec<String>,
    /// Plates, at most 250.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    #[serde(rename = "plate")]
    pub plate_numbers: Vec<String>,
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    #[serde(rename = "orgId")]
    pub org_ids: Vec<String>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    #[serde(rename = "kind")]
    pub kinds: Vec<CardAmountChangeKind>,
    /// From (yyyy-MM-dd, yyyy-MM-dd HH:mm:ss or RFC 3339).
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub change_time_start: Option<Timestamp>,
    /// To (a bare date includes the day).
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub change_time_end: Option<Timestamp>,
}

impl CardAmountChangeListParams {
    fn filter(self) -> Result<pb::ListCardAmountChangesRequest, ApiError> {
        Result::Ok(pb::ListCardAmountChangesRequest {
            page: Some(paging(self.page, self.size)?),
            card_id: self.card_id,
            card_nos: self.card_nos,
            plate_numbers: self.plate_numbers,
            org_ids: self.org_ids,
            kinds: codes(self.kinds),
            change_time: time_range(self.change_time_start, self.change_time_end),
        })
    }
}

#[utoipa::path(
    get, path = "/charging/card-amount-changes", tag = "charging",
    params(CardAmountChangeListParams),
    responses((status = 200, description = "Card balance changes in the caller's data scope, newest first", body = Envelope<Page<CardAmountChangeBody>>)),
    security(("token" = ["as:charge:card"]))
)]
async fn list_card_amount_changes(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<CardAmountChangeListParams>,
) -> ApiResult<Page<CardAmountChangeBody>> {
    let answer = state
        .energy()
        .list_card_amount_changes(state.as_user(&principal, query.filter()?))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer
            .changes
            .into_iter()
            .map(CardAmountChangeBody::from)
            .collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

#[utoipa::path(
    post, path = "/charging/card-amount-changes/export", tag = "charging",
    params(CardAmountChangeListParams),
    responses((status = 200, description = "The export record of the amount change record with the list's filters (paging ignored)", body = Envelope<ExportRecordBody>)),
    security(("token" = ["as:charge:card"]))
)]
async fn export_card_amount_changes(
    State(state): State<AppState>,
    principal: Principal,
    ExportQuery(query): ExportQuery<CardAmountChangeListParams>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportCardAmountChangesRequest {
        filter: Some(pb::ListCardAmountChangesRequest {
            page: None,
            ..query.filter()?
        }),
    };
    let answer = state
        .energy()
        .export_card_amount_changes(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}

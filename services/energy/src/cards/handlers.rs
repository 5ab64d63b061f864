//! Card RPCs: list (with the matching cards' balance), get, create,
//! update, freeze, unfreeze, cancel (the balance back to the account), the
//! amount change (a CARD_CHANGE transfer under the request's key) and the
//! list's export.

use fleetdesk_kit::idempotency::{self, Claim};
use fleetdesk_kit::list::Paging;
use fleetdesk_kit::{ErrorCode, ServiceError, convert as ids, db};
use fleetdesk_proto::energy::v1 as pb;
use sqlx_postgres::PgConnection;
use tonic::Request;
use uuid::Uuid;

use super::domain::{self, CardSpec, CardStatus, HolderKind};
use super::store::{self, CardRow, Holder};
use super::{PERMISSION, convert, export};
use crate::accounts::domain::{AccountStatus, require_active};
use crate::card_changes::domain::ChangeKind;
use crate::card_changes::{self, store::NewChange};
use crate::context::{Actor, Context};
use crate::ledger::{self, Transfer, TransferKind};
use crate::{accounts, exports};

pub async fn list(
    ctx: &Context,
    req: Request<pb::ListChargingCardsRequest>,
) -> Result<pb::ListChargingCardsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    accounts::store::require_opened(&mut tx, actor.enterprise_id).await?;
    let paging = Paging::parse(req.get_ref().page.as_ref())?;
    let query = convert::expand(&mut tx, convert::query(req.get_ref())?).await?;
    let (rows, total, balance) = store::list(&mut tx, &actor, &query, paging).await?;
    db::end_read(tx);
    Ok(pb::ListChargingCardsResponse {
        cards: rows
            .into_iter()
            .map(|r| convert::card(r, actor.enterprise_id))
            .collect(),
        page: Some(paging.info(total)),
        total_balance_fen: balance,
    })
}

pub async fn get(
    ctx: &Context,
    req: Request<pb::GetChargingCardRequest>,
) -> Result<pb::GetChargingCardResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    accounts::store::require_opened(&mut tx, actor.enterprise_id).await?;
    let id = ids::id(&req.get_ref().card_id)?;
    let row = store::get(&mut tx, &actor, id, false).await?;
    db::end_read(tx);
    Ok(pb::GetChargingCardResponse {
        card: Some(convert::card(row, actor.enterprise_id)),
    })
}

/// Checks what a card input names beyond its own fields: the organisation
/// is reached, the account is that organisation's and in use, and the
/// vehicle or driver exists (their plate or name copied onto the card).
async fn checked_holder(
    ctx: &Context,
    conn: &mut PgConnection,
    actor: &Actor,
    spec: &CardSpec,
) -> Result<Holder, ServiceError> {
    if !actor.reach.sees(Some(spec.org_id), None) {
        return Err(ServiceError::invalid("orgId", "所选组织不存在"));
    }
    let account = accounts::store::briefs(conn, actor.enterprise_id, &[spec.account_id])
        .await?
        .pop()
        .filter(|a| a.org_id == Some(spec.org_id))
        .ok_or_else(|| ServiceError::invalid("accountId", "充电账户须属于所选组织"))?;
    let status: AccountStatus = crate::codes::known(account.status)?;
    if status == AccountStatus::Closed {
        return Err(ServiceError::invalid("accountId", "该充电账户已关闭"));
    }
    let vehicles = ctx
        .vehicles
        .as_ref()
        .ok_or_else(|| ServiceError::new(ErrorCode::Unavailable, "车辆服务暂不可用，请稍后重试"))?;
    match (spec.holder_kind, spec.vehicle_id, spec.driver_id) {
        (HolderKind::Vehicle, Some(vehicle), _) => Ok(Holder {
            plate_number: vehicles
                .vehicle(actor.enterprise_id, vehicle)
                .await?
                .plate_number,
            driver_name: String::new(),
        }),
        (HolderKind::Driver, _, Some(driver)) => Ok(Holder {
            plate_number: String::new(),
            driver_name: vehicles.driver(actor.enterprise_id, driver).await?.name,
        }),
        (HolderKind::Vehicle | HolderKind::Driver, _, _) => {
            Err(ServiceError::invalid("holderKind", "请选择绑定对象"))
        }
    }
}

pub async fn create(
    ctx: &Context,
    req: Request<pb::CreateChargingCardRequest>,
) -> Result<pb::CreateChargingCardResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    accounts::store::require_opened(&mut tx, actor.enterprise_id).await?;
    let request = req.into_inner();
    let reservation = match idempotency::claim::<pb::CreateChargingCardResponse>(
        &mut tx,
        actor.enterprise_id,
        "CreateChargingCard",
        actor.idempotency_key.clone(),
        &request,
    )
    .await?
    {
        Claim::Replay(answer) => return Ok(answer),
        Claim::Fresh(reservation) => reservation,
    };
    let mut spec = domain::spec(&request.card.unwrap_or_default())?;
    let holder = checked_holder(ctx, &mut tx, &actor, &spec).await?;
    let id = Uuid::new_v4();
    if spec.card_no.is_empty() {
        spec.card_no = domain::virtual_card_no(id);
    }
    let ledger_account = ledger::open_account(
        &mut tx,
        actor.enterprise_id,
        ledger::AccountKind::Card,
        Some(id),
    )
    .await?;
    store::insert(&mut tx, &actor, id, ledger_account, &spec, &holder).await?;
    let row = store::get(&mut tx, &actor, id, false).await?;
    let answer = pb::CreateChargingCardResponse {
        card: Some(convert::card(row, actor.enterprise_id)),
    };
    reservation.complete(&mut tx, &answer).await?;
    tx.commit().await?;
    Ok(answer)
}

pub async fn update(
    ctx: &Context,
    req: Request<pb::UpdateChargingCardRequest>,
) -> Result<pb::UpdateChargingCardResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    accounts::store::require_opened(&mut tx, actor.enterprise_id).await?;
    let pb::UpdateChargingCardRequest { card_id, card } = req.into_inner();
    let id = ids::id(&card_id)?;
    let current = store::get(&mut tx, &actor, id, true).await?;
    crate::codes::known::<CardStatus>(current.status)?.editable()?;
    let mut spec = domain::spec(&card.unwrap_or_default())?;
    if spec.card_no.is_empty() {
        spec.card_no = current.card_no.clone();
    }
    let holder = checked_holder(ctx, &mut tx, &actor, &spec).await?;
    store::update(&mut tx, &actor, id, &spec, &holder).await?;
    let row = store::get(&mut tx, &actor, id, false).await?;
    tx.commit().await?;
    Ok(pb::UpdateChargingCardResponse {
        card: Some(convert::card(row, actor.enterprise_id)),
    })
}

/// Moves a card to the status `next` gives its current one.
async fn transition(
    actor: Actor,
    mut tx: sqlx::Transaction<'static, sqlx_postgres::Postgres>,
    card_id: &str,
    reason: &str,
    next: impl FnOnce(CardStatus) -> Result<CardStatus, ServiceError>,
) -> Result<pb::ChargingCard, ServiceError> {
    accounts::store::require_opened(&mut tx, actor.enterprise_id).await?;
    let id = ids::id(card_id)?;
    let row = store::get(&mut tx, &actor, id, true).await?;
    let status = next(crate::codes::known(row.status)?)?;
    if reason.chars().count() > 200 {
        return Err(ServiceError::invalid("reason", "原因不能超过 200 个字"));
    }
    store::set_status(&mut tx, &actor, id, status, reason).await?;
    let row = store::get(&mut tx, &actor, id, false).await?;
    tx.commit().await?;
    Ok(convert::card(row, actor.enterprise_id))
}

pub async fn freeze(
    ctx: &Context,
    req: Request<pb::FreezeChargingCardRequest>,
) -> Result<pb::FreezeChargingCardResponse, ServiceError> {
    let (actor, tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::FreezeChargingCardRequest { card_id, reason } = req.into_inner();
    let card = transition(actor, tx, &card_id, reason.trim(), CardStatus::freeze).await?;
    Ok(pb::FreezeChargingCardResponse { card: Some(card) })
}

pub async fn unfreeze(
    ctx: &Context,
    req: Request<pb::UnfreezeChargingCardRequest>,
) -> Result<pb::UnfreezeChargingCardResponse, ServiceError> {
    let (actor, tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::UnfreezeChargingCardRequest { card_id } = req.into_inner();
    let card = transition(actor, tx, &card_id, "", CardStatus::unfreeze).await?;
    Ok(pb::UnfreezeChargingCardResponse { card: Some(card) })
}

/// Moves `amount_fen` between a card and its account under `key` and
/// records the change; the card's row is locked by the caller.
async fn move_amount(
    conn: &mut PgConnection,
    actor: &Actor,
    card: &CardRow,
    kind: ChangeKind,
    amount_fen: i64,
    key: String,
    remark: &str,
) -> Result<Uuid, ServiceError> {
    let (from, to) = if kind.credits_card() {
        (card.account_id, card.ledger_account_id)
    } else {
        (card.ledger_account_id, card.account_id)
    };
    let transfer = Transfer::between(
        actor.enterprise_id,
        TransferKind::CardChange,
        key,
        from,
        to,
        amount_fen,
    )
    .by(actor.user_id, &actor.name)
    .memo(remark);
    let posted = ledger::transfer(conn, &transfer).await?;
    let after = posted
        .balance_after(card.ledger_account_id)
        .ok_or_else(|| ServiceError::of(ErrorCode::Internal))?;
    card_changes::store::record(
        conn,
        actor,
        &NewChange {
            card,
            kind,
            amount_fen,
            balance_after_fen: after,
            transfer_id: posted.transfer_id,
            session_id: None,
            remark,
        },
    )
    .await
}

pub async fn cancel(
    ctx: &Context,
    req: Request<pb::CancelChargingCardRequest>,
) -> Result<pb::CancelChargingCardResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    accounts::store::require_opened(&mut tx, actor.enterprise_id).await?;
    let key = crate::context::money_key(&actor, &req.get_ref().idempotency_key)?;
    let request = req.into_inner();
    let reservation = match idempotency::claim::<pb::CancelChargingCardResponse>(
        &mut tx,
        actor.enterprise_id,
        "CancelChargingCard",
        Some(key),
        &request,
    )
    .await?
    {
        Claim::Replay(answer) => return Ok(answer),
        Claim::Fresh(reservation) => reservation,
    };
    let pb::CancelChargingCardRequest {
        card_id,
        lost,
        reason,
        idempotency_key: _,
    } = request;
    let reason = reason.trim();
    if reason.chars().count() > 200 {
        return Err(ServiceError::invalid("reason", "原因不能超过 200 个字"));
    }
    let id = ids::id(&card_id)?;
    let card = store::get(&mut tx, &actor, id, true).await?;
    let status = crate::codes::known::<CardStatus>(card.status)?.cancel(lost)?;
    // A lost card keeps its balance until it is cancelled; a cancelled one
    // returns it to its account (one return per card: the key is the card's).
    let returned = if status == CardStatus::Cancelled && card.balance_fen > 0 {
        let change = move_amount(
            &mut tx,
            &actor,
            &card,
            ChangeKind::CancelReturn,
            card.balance_fen,
            format!("cancel:{id}"),
            reason,
        )
        .await?;
        let row = card_changes::store::get(&mut tx, &actor, change).await?;
        Some(card_changes::convert::change(row, actor.enterprise_id))
    } else {
        None
    };
    store::set_status(&mut tx, &actor, id, status, reason).await?;
    let row = store::get(&mut tx, &actor, id, false).await?;
    let answer = pb::CancelChargingCardResponse {
        card: Some(convert::card(row, actor.enterprise_id)),
        returned,
    };
    reservation.complete(&mut tx, &answer).await?;
    tx.commit().await?;
    Ok(answer)
}

pub async fn change_amount(
    ctx: &Context,
    req: Request<pb::ChangeChargingCardAmountRequest>,
) -> Result<pb::ChangeChargingCardAmountResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    accounts::store::require_opened(&mut tx, actor.enterprise_id).await?;
    let key = crate::context::money_key(&actor, &req.get_ref().idempotency_key)?;
    let request = req.into_inner();
    let reservation = match idempotency::claim::<pb::ChangeChargingCardAmountResponse>(
        &mut tx,
        actor.enterprise_id,
        "ChangeChargingCardAmount",
        Some(key.clone()),
        &request,
    )
    .await?
    {
        Claim::Replay(answer) => return Ok(answer),
        Claim::Fresh(reservation) => reservation,
    };
    let pb::ChangeChargingCardAmountRequest {
        card_id,
        kind,
        amount_fen,
        remark,
        idempotency_key: _,
    } = request;
    let kind = match ChangeKind::from_pb(kind) {
        Some(kind @ (ChangeKind::TopUp | ChangeKind::Withdraw)) => kind,
        Some(ChangeKind::Consume | ChangeKind::Refund | ChangeKind::CancelReturn) | None => {
            return Err(ServiceError::invalid("kind", "请选择充值或退款至账户"));
        }
    };
    if amount_fen <= 0 {
        return Err(ServiceError::invalid("amountFen", "金额必须大于 0"));
    }
    let remark = remark.trim();
    if remark.chars().count() > 200 {
        return Err(ServiceError::invalid("remark", "备注不能超过 200 个字"));
    }
    let id = ids::id(&card_id)?;
    let card = store::get(&mut tx, &actor, id, true).await?;
    let status: CardStatus = crate::codes::known(card.status)?;
    if !status.holds_money() {
        return Err(ServiceError::new(
            ErrorCode::Conflict,
            format!("该充电卡{}，无法变更金额", status.label()),
        ));
    }
    if kind == ChangeKind::TopUp {
        let account = accounts::store::briefs(&mut tx, actor.enterprise_id, &[card.account_id])
            .await?
            .pop()
            .ok_or_else(ServiceError::not_found)?;
        require_active(crate::codes::known(account.status)?, "充电账户")?;
    }
    let change = move_amount(
        &mut tx,
        &actor,
        &card,
        kind,
        amount_fen,
        format!("change:{key}"),
        remark,
    )
    .await?;
    let change = card_changes::store::get(&mut tx, &actor, change).await?;
    let row = store::get(&mut tx, &actor, id, false).await?;
    let answer = pb::ChangeChargingCardAmountResponse {
        change: Some(card_changes::convert::change(change, actor.enterprise_id)),
        card: Some(convert::card(row, actor.enterprise_id)),
    };
    reservation.complete(&mut tx, &answer).await?;
    tx.commit().await?;
    Ok(answer)
}

/// `ExportChargingCards`: queues the export of the list's filter under the
/// caller's reach and answers the job at once.
pub async fn export(
    ctx: &Context,
    req: Request<pb::ExportChargingCardsRequest>,
) -> Result<pb::ExportChargingCardsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    accounts::store::require_opened(&mut tx, actor.enterprise_id).await?;
    let filter = req.into_inner().filter.unwrap_or_default();
    let job = exports::start(&mut tx, &actor, export::job(&filter)?).await?;
    tx.commit().await?;
    Ok(pb::ExportChargingCardsResponse { job: Some(job) })
}

//! What the charging sessions ask before a session starts: may this card
//! number (card swipe, app) or plate (plate-scan start: the usable card
//! bound to the plate's vehicle) charge at this station now?
//!
//! The answer is the card with what a hold needs (its ledger account,
//! balance, per-session and budget limits), or a [`Refusal`] with a clear
//! Chinese reason: no such card, the card frozen, lost or cancelled, its
//! account frozen or closed, the station not among the card's stations, or
//! no money on the card. The sessions module then holds through
//! `ledger::hold` in the same transaction.

use fleetdesk_kit::ServiceError;
use fleetdesk_proto::energy::v1 as pb;
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::{BudgetPeriod, CardStatus};
use crate::accounts::domain::AccountStatus;
use crate::codes::known;

/// How the driver identified themselves at the pile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Credential<'a> {
    /// A card number (token uid), as printed or assigned.
    CardNo(&'a str),
    /// A recognised plate: its vehicle's usable card charges.
    Plate(&'a str),
}

/// A card that may start a session, with what a hold needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Authorized {
    pub enterprise_id: Uuid,
    pub card_id: Uuid,
    pub card_no: String,
    /// The card's CARD ledger account: holds are taken from it.
    pub card_ledger_account_id: Uuid,
    /// The charging account that funds the card.
    pub account_id: Uuid,
    pub org_id: Uuid,
    pub vehicle_id: Option<Uuid>,
    pub plate_number: String,
    pub driver_id: Option<Uuid>,
    pub driver_name: String,
    pub balance_fen: i64,
    /// 0 = no cap on one session.
    pub per_session_limit_fen: i64,
    pub budget_period: BudgetPeriod,
    pub budget_limit_fen: i64,
}

/// Why a card or plate may not charge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// No card has this number, or no usable card is bound to this plate.
    NotRegistered,
    /// The number or plate matches usable cards of several enterprises.
    Ambiguous,
    /// The card is frozen, lost or cancelled.
    CardUnavailable(CardStatus),
    /// The card's charging account is frozen or closed.
    AccountUnavailable(AccountStatus),
    /// The card may charge only at other stations.
    StationNotAllowed,
    /// Nothing left on the card.
    NoBalance,
}

impl Refusal {
    /// The reason as the driver and the console read it.
    pub fn reason(self) -> String {
        match self {
            Refusal::NotRegistered => "未找到可用的充电卡".to_owned(),
            Refusal::Ambiguous => "该卡号或车牌对应多张充电卡，无法确定使用哪一张".to_owned(),
            Refusal::CardUnavailable(status) => format!("充电卡{}，不能充电", status.label()),
            Refusal::AccountUnavailable(status) => {
                format!("充电卡所属账户{}，不能充电", status.label())
            }
            Refusal::StationNotAllowed => "该充电卡不能在此充电站使用".to_owned(),
            Refusal::NoBalance => "充电卡余额不足".to_owned(),
        }
    }

    /// The plate-scan record's result for this refusal.
    pub fn scan_result(self) -> pb::PlateScanResult {
        match self {
            Refusal::NotRegistered | Refusal::Ambiguous => pb::PlateScanResult::NotRegistered,
            Refusal::CardUnavailable(_)
            | Refusal::AccountUnavailable(_)
            | Refusal::StationNotAllowed => pb::PlateScanResult::CardUnavailable,
            Refusal::NoBalance => pb::PlateScanResult::InsufficientBalance,
        }
    }
}

#[derive(Debug, Clone, FromRow)]
struct Candidate {
    enterprise_id: Uuid,
    id: Uuid,
    card_no: String,
    ledger_account_id: Uuid,
    account_id: Uuid,
    org_id: Uuid,
    vehicle_id: Option<Uuid>,
    plate_number: String,
    driver_id: Option<Uuid>,
    driver_name: String,
    status: i16,
    balance_fen: i64,
    per_session_limit_fen: i64,
    budget_period: i16,
    budget_limit_fen: i64,
    account_status: i16,
    station_ids: Vec<Uuid>,
}

/// Decides whether `credential` may charge at `station_id` (None: a station
/// the card restrictions cannot name, so a restricted card is refused).
/// `enterprise_id` None looks across enterprises (a token uid arrives
/// without one) and needs a service-scoped transaction; with an enterprise,
/// a tenant transaction of it will do.
pub async fn authorize(
    conn: &mut PgConnection,
    enterprise_id: Option<Uuid>,
    credential: Credential<'_>,
    station_id: Option<Uuid>,
) -> Result<Result<Authorized, Refusal>, ServiceError> {
    let (column, value) = match credential {
        Credential::CardNo(no) => ("c.card_no", no.trim().to_ascii_uppercase()),
        Credential::Plate(plate) => ("c.plate_number", plate.trim().to_owned()),
    };
    if value.is_empty() {
        return Ok(Err(Refusal::NotRegistered));
    }
    let mut qb = sqlx::QueryBuilder::new(
        "select c.enterprise_id, c.id, c.card_no, c.ledger_account_id, c.account_id, c.org_id, \
         c.vehicle_id, c.plate_number, c.driver_id, c.driver_name, c.status, l.balance_fen, \
         c.per_session_limit_fen, c.budget_period, c.budget_limit_fen, \
         a.status as account_status, \
         array(select s.station_id from charging_card_station s where s.card_id = c.id) \
           as station_ids \
         from charging_card c \
         join ledger_account l on l.id = c.ledger_account_id \
         join charging_account a on a.id = c.account_id where ",
    );
    qb.push(column).push(" = ").push_bind(value);
    if let Some(enterprise) = enterprise_id {
        qb.push(" and c.enterprise_id = ").push_bind(enterprise);
    }
    // Usable cards first; the rest only tell why nothing is usable.
    qb.push(" order by (c.status in (1, 2)) desc, c.updated_at desc limit 8");
    let candidates: Vec<Candidate> = qb.build_query_as().fetch_all(&mut *conn).await?;
    decide(candidates, station_id)
}

fn decide(
    candidates: Vec<Candidate>,
    station_id: Option<Uuid>,
) -> Result<Result<Authorized, Refusal>, ServiceError> {
    let mut usable = Vec::new();
    let mut unusable = None;
    for c in candidates {
        let status: CardStatus = known(c.status)?;
        if status.holds_money() {
            usable.push((status, c));
        } else {
            unusable.get_or_insert(status);
        }
    }
    let card = match usable.len() {
        0 => {
            return Ok(Err(
                unusable.map_or(Refusal::NotRegistered, Refusal::CardUnavailable)
            ));
        }
        1 => usable.pop().expect("one usable card"),
        _ => return Ok(Err(Refusal::Ambiguous)),
    };
    let (status, c) = card;
    if status != CardStatus::Active {
        return Ok(Err(Refusal::CardUnavailable(status)));
    }
    let account: AccountStatus = known(c.account_status)?;
    if account != AccountStatus::Active {
        return Ok(Err(Refusal::AccountUnavailable(account)));
    }
    if !c.station_ids.is_empty() && !station_id.is_some_and(|s| c.station_ids.contains(&s)) {
        return Ok(Err(Refusal::StationNotAllowed));
    }
    if c.balance_fen <= 0 {
        return Ok(Err(Refusal::NoBalance));
    }
    Ok(Ok(Authorized {
        enterprise_id: c.enterprise_id,
        card_id: c.id,
        card_no: c.card_no,
        card_ledger_account_id: c.ledger_account_id,
        account_id: c.account_id,
        org_id: c.org_id,
        vehicle_id: c.vehicle_id,
        plate_number: c.plate_number,
        driver_id: c.driver_id,
        driver_name: c.driver_name,
        balance_fen: c.balance_fen,
        per_session_limit_fen: c.per_session_limit_fen,
        budget_period: known(c.budget_period)?,
        budget_limit_fen: c.budget_limit_fen,
    }))
}

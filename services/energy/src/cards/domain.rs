//! Rules of cards: their kinds, holder, status and its transitions,
//! budgets, and the checks on a card's editable fields.

use fleetdesk_kit::list::BATCH_LIMIT;
use fleetdesk_kit::{ErrorCode, ServiceError};
use fleetdesk_proto::energy::v1 as pb;
use uuid::Uuid;

use crate::codes::stored_code;

stored_code!(
    /// RFID card or the driver app's virtual card.
    CardKind => pb::ChargingCardKind {
        Physical = 1, Virtual = 2,
    }
);

stored_code!(
    /// Who a card belongs to.
    HolderKind => pb::CardHolderKind {
        Vehicle = 1, Driver = 2,
    }
);

stored_code!(
    /// Whether a card can be used.
    CardStatus => pb::ChargingCardStatus {
        Active = 1, Frozen = 2, Lost = 3, Cancelled = 4,
    }
);

stored_code!(
    /// Period over which a card's budget is counted.
    BudgetPeriod => pb::BudgetPeriod {
        None = 1, Daily = 2, Weekly = 3, Monthly = 4,
    }
);

impl CardKind {
    pub fn label(self) -> &'static str {
        match self {
            CardKind::Physical => "实体卡",
            CardKind::Virtual => "虚拟卡",
        }
    }
}

impl HolderKind {
    pub fn label(self) -> &'static str {
        match self {
            HolderKind::Vehicle => "车辆",
            HolderKind::Driver => "司机",
        }
    }
}

impl BudgetPeriod {
    pub fn label(self) -> &'static str {
        match self {
            BudgetPeriod::None => "不限",
            BudgetPeriod::Daily => "每日",
            BudgetPeriod::Weekly => "每周",
            BudgetPeriod::Monthly => "每月",
        }
    }
}

impl CardStatus {
    pub fn label(self) -> &'static str {
        match self {
            CardStatus::Active => "正常",
            CardStatus::Frozen => "已冻结",
            CardStatus::Lost => "已挂失",
            CardStatus::Cancelled => "已注销",
        }
    }

    /// Whether the card still holds money that may move (amount changes).
    pub fn holds_money(self) -> bool {
        match self {
            CardStatus::Active | CardStatus::Frozen => true,
            CardStatus::Lost | CardStatus::Cancelled => false,
        }
    }

    /// Freeze: ACTIVE → FROZEN.
    pub fn freeze(self) -> Result<CardStatus, ServiceError> {
        match self {
            CardStatus::Active => Ok(CardStatus::Frozen),
            CardStatus::Frozen | CardStatus::Lost | CardStatus::Cancelled => {
                Err(refused(self, "冻结"))
            }
        }
    }

    /// Unfreeze: FROZEN → ACTIVE.
    pub fn unfreeze(self) -> Result<CardStatus, ServiceError> {
        match self {
            CardStatus::Frozen => Ok(CardStatus::Active),
            CardStatus::Active | CardStatus::Lost | CardStatus::Cancelled => {
                Err(refused(self, "解冻"))
            }
        }
    }

    /// Cancel (or report lost): from ACTIVE or FROZEN; a lost card may still be cancelled.
    pub fn cancel(self, lost: bool) -> Result<CardStatus, ServiceError> {
        match (self, lost) {
            (CardStatus::Active | CardStatus::Frozen, true) => Ok(CardStatus::Lost),
            (CardStatus::Active | CardStatus::Frozen | CardStatus::Lost, false) => {
                Ok(CardStatus::Cancelled)
            }
            (CardStatus::Lost, true) | (CardStatus::Cancelled, _) => {
                Err(refused(self, if lost { "挂失" } else { "注销" }))
            }
        }
    }

    /// Editing is for cards still in use.
    pub fn editable(self) -> Result<(), ServiceError> {
        match self {
            CardStatus::Active | CardStatus::Frozen => Ok(()),
            CardStatus::Lost | CardStatus::Cancelled => Err(refused(self, "编辑")),
        }
    }
}

fn refused(status: CardStatus, action: &str) -> ServiceError {
    ServiceError::new(
        ErrorCode::Conflict,
        format!("该充电卡{}，无法{action}", status.label()),
    )
}

/// A card's editable fields, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardSpec {
    pub org_id: Uuid,
    pub account_id: Uuid,
    pub kind: CardKind,
    /// Empty for a virtual card whose number is to be assigned.
    pub card_no: String,
    pub holder_kind: HolderKind,
    pub vehicle_id: Option<Uuid>,
    pub driver_id: Option<Uuid>,
    pub budget_period: BudgetPeriod,
    pub budget_limit_fen: i64,
    pub per_session_limit_fen: i64,
    pub remark: String,
    pub station_ids: Vec<Uuid>,
}

fn id_field(field: &str, value: &str, missing: &str) -> Result<Uuid, ServiceError> {
    Uuid::parse_str(value.trim()).map_err(|_| ServiceError::invalid(field, missing))
}

/// A printed card number: 8 to 32 letters and digits.
pub fn card_no(value: &str) -> Result<String, ServiceError> {
    let value = value.trim().to_ascii_uppercase();
    if (8..=32).contains(&value.len()) && value.bytes().all(|b| b.is_ascii_alphanumeric()) {
        Ok(value)
    } else {
        Err(ServiceError::invalid(
            "cardNo",
            "卡号须为 8 到 32 位字母或数字",
        ))
    }
}

/// The number a virtual card is given: V and 15 digits.
pub fn virtual_card_no(id: Uuid) -> String {
    format!("V{:015}", id.as_u128() % 1_000_000_000_000_000)
}

/// Checks a card's input (create and update).
pub fn spec(input: &pb::ChargingCardInput) -> Result<CardSpec, ServiceError> {
    let pb::ChargingCardInput {
        org_id,
        account_id,
        kind,
        card_no: number,
        holder_kind,
        vehicle_id,
        driver_id,
        budget_period,
        budget_limit_fen,
        per_session_limit_fen,
        remark,
        allowed_station_ids,
    } = input;
    let org_id = id_field("orgId", org_id, "请选择所属组织")?;
    let account_id = id_field("accountId", account_id, "请选择充电账户")?;
    let kind =
        CardKind::from_pb(*kind).ok_or_else(|| ServiceError::invalid("kind", "请选择卡类型"))?;
    let number = match (kind, number.trim()) {
        (CardKind::Virtual, "") => String::new(),
        (CardKind::Physical, "") => return Err(ServiceError::invalid("cardNo", "请输入卡号")),
        (CardKind::Physical | CardKind::Virtual, n) => card_no(n)?,
    };
    let holder_kind = HolderKind::from_pb(*holder_kind)
        .ok_or_else(|| ServiceError::invalid("holderKind", "请选择绑定对象类型"))?;
    let (vehicle_id, driver_id) = match holder_kind {
        HolderKind::Vehicle => (
            Some(id_field("vehicleId", vehicle_id, "请选择绑定车辆")?),
            None,
        ),
        HolderKind::Driver => (
            None,
            Some(id_field("driverId", driver_id, "请选择绑定司机")?),
        ),
    };
    let budget_period = BudgetPeriod::from_pb(*budget_period).unwrap_or(BudgetPeriod::None);
    match budget_period {
        BudgetPeriod::None if *budget_limit_fen != 0 => {
            return Err(ServiceError::invalid(
                "budgetLimitFen",
                "不限额度时无需填写预算金额",
            ));
        }
        BudgetPeriod::Daily | BudgetPeriod::Weekly | BudgetPeriod::Monthly
            if *budget_limit_fen <= 0 =>
        {
            return Err(ServiceError::invalid(
                "budgetLimitFen",
                "预算金额必须大于 0",
            ));
        }
        BudgetPeriod::None | BudgetPeriod::Daily | BudgetPeriod::Weekly | BudgetPeriod::Monthly => {
        }
    }
    if *per_session_limit_fen < 0 {
        return Err(ServiceError::invalid(
            "perSessionLimitFen",
            "单次限额不能为负数",
        ));
    }
    let remark = remark.trim();
    if remark.chars().count() > 200 {
        return Err(ServiceError::invalid("remark", "备注不能超过 200 个字"));
    }
    if allowed_station_ids.len() > BATCH_LIMIT {
        return Err(ServiceError::invalid(
            "allowedStationIds",
            format!("最多选择 {BATCH_LIMIT} 个充电站"),
        ));
    }
    let mut station_ids = allowed_station_ids
        .iter()
        .map(|s| id_field("allowedStationIds", s, "所选充电站不存在"))
        .collect::<Result<Vec<_>, _>>()?;
    station_ids.sort_unstable();
    station_ids.dedup();
    Ok(CardSpec {
        org_id,
        account_id,
        kind,
        card_no: number,
        holder_kind,
        vehicle_id,
        driver_id,
        budget_period,
        budget_limit_fen: *budget_limit_fen,
        per_session_limit_fen: *per_session_limit_fen,
        remark: remark.to_owned(),
        station_ids,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input() -> pb::ChargingCardInput {
        pb::ChargingCardInput {
            org_id: Uuid::from_u128(1).to_string(),
            account_id: Uuid::from_u128(2).to_string(),
            kind: pb::ChargingCardKind::Physical as i32,
            card_no: " 8800a0001234 ".into(),
            holder_kind: pb::CardHolderKind::Vehicle as i32,
            vehicle_id: Uuid::from_u128(3).to_string(),
            driver_id: String::new(),
            budget_period: pb::BudgetPeriod::Monthly as i32,
            budget_limit_fen: 100_000,
            per_session_limit_fen: 0,
            remark: String::new(),
            allowed_station_ids: vec![
                Uuid::from_u128(5).to_string(),
                Uuid::from_u128(5).to_string(),
            ],
        }
    }

    #[test]
    fn a_card_input_is_checked_and_normalised() {
        let spec = spec(&input()).unwrap();
        assert_eq!(spec.card_no, "8800A0001234");
        assert_eq!(spec.vehicle_id, Some(Uuid::from_u128(3)));
        assert_eq!(spec.driver_id, None);
        assert_eq!(spec.station_ids, vec![Uuid::from_u128(5)]);
        let mut bad = input();
        bad.card_no = "12-34".into();
        assert_eq!(super::spec(&bad).unwrap_err().fields[0].field, "cardNo");
        let mut bad = input();
        bad.vehicle_id.clear();
        assert_eq!(super::spec(&bad).unwrap_err().fields[0].field, "vehicleId");
        let mut bad = input();
        bad.budget_limit_fen = 0;
        assert_eq!(
            super::spec(&bad).unwrap_err().fields[0].field,
            "budgetLimitFen"
        );
        let mut virtual_card = input();
        virtual_card.kind = pb::ChargingCardKind::Virtual as i32;
        virtual_card.card_no.clear();
        assert_eq!(super::spec(&virtual_card).unwrap().card_no, "");
        assert_eq!(virtual_card_no(Uuid::from_u128(42)), "V000000000000042");
    }

    #[test]
    fn status_moves_only_along_its_transitions() {
        assert_eq!(CardStatus::Active.freeze().unwrap(), CardStatus::Frozen);
        assert_eq!(CardStatus::Frozen.unfreeze().unwrap(), CardStatus::Active);
        assert!(CardStatus::Frozen.freeze().is_err());
        assert!(CardStatus::Active.unfreeze().is_err());
        assert_eq!(CardStatus::Frozen.cancel(true).unwrap(), CardStatus::Lost);
        assert_eq!(
            CardStatus::Lost.cancel(false).unwrap(),
            CardStatus::Cancelled
        );
        let err = CardStatus::Cancelled.cancel(false).unwrap_err();
        assert_eq!(err.message, "该充电卡已注销，无法注销");
        assert!(CardStatus::Cancelled.editable().is_err());
    }
}

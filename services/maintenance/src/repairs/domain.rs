//! The repair rules: the order's state machine, the statement's, quote
//! lines and their totals (server-side, in fen), and what a supplier or a
//! catalogue item must hold. Pure: no database.

use fleetdesk_kit::{ErrorCode, ServiceError};
use fleetdesk_proto::vehicle::v1 as pb;

use crate::codes::stored_code;

stored_code!(
    /// Where a repair order stands (codes as RepairOrderStatus).
    State => pb::RepairOrderStatus {
        AwaitingQuote = 1,
        Quoted = 2,
        InRepair = 3,
        Completed = 4,
        Settled = 5,
        Cancelled = 6,
        AwaitingApproval = 7,
    }
);

stored_code!(
    /// What a repair order is for.
    Kind => pb::RepairKind {
        Maintenance = 1,
        Repair = 2,
        AccidentRepair = 3,
        Tire = 4,
        Battery = 5,
    }
);

stored_code!(
    /// What a quote line or catalogue item is.
    ItemKind => pb::RepairItemKind {
        Part = 1,
        Labour = 2,
        Material = 3,
        Other = 4,
    }
);

stored_code!(
    /// Where a monthly statement stands (codes as RepairStatementStatus).
    StatementState => pb::RepairStatementStatus {
        PendingConfirmation = 1,
        Confirmed = 2,
        Disputed = 3,
        Billed = 4,
    }
);

stored_code!(
    /// Where a repair bill stands.
    BillState => pb::RepairBillStatus {
        Unpaid = 1,
        PartiallyPaid = 2,
        Paid = 3,
        Cancelled = 4,
    }
);

/// Something done to an order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Move {
    /// The shop quotes (again).
    Quote,
    /// The enterprise accepts the quote; `needs_approval` when its total is
    /// above the threshold.
    Accept {
        needs_approval: bool,
    },
    /// The enterprise sends the quote back for a new one.
    Reject,
    /// Org's approval approved the price.
    Approved,
    /// Org's approval rejected the price: the shop quotes again.
    Disapproved,
    /// The approval was withdrawn: the price waits for confirmation again.
    Withdrawn,
    Cancel,
    Complete,
    /// A confirmed statement settles the order.
    Settle,
}

impl State {
    pub fn label(self) -> &'static str {
        match self {
            State::AwaitingQuote => "待报价",
            State::Quoted => "待确认价格",
            State::AwaitingApproval => "审批中",
            State::InRepair => "维修中",
            State::Completed => "已完工",
            State::Settled => "已结算",
            State::Cancelled => "已取消",
        }
    }

    /// The state after `action`; any move not listed is refused with the
    /// conflict code (edge 4009) naming where the order stands.
    pub fn apply(self, action: Move) -> Result<State, ServiceError> {
        use State::*;
        let next = match (self, action) {
            (AwaitingQuote | Quoted, Move::Quote) => Some(Quoted),
            (Quoted, Move::Accept { needs_approval }) => Some(if needs_approval {
                AwaitingApproval
            } else {
                InRepair
            }),
            (Quoted, Move::Reject) => Some(AwaitingQuote),
            (AwaitingApproval, Move::Approved) => Some(InRepair),
            (AwaitingApproval, Move::Disapproved) => Some(AwaitingQuote),
            (AwaitingApproval, Move::Withdrawn) => Some(Quoted),
            (AwaitingQuote | Quoted | AwaitingApproval, Move::Cancel) => Some(Cancelled),
            (InRepair, Move::Complete) => Some(Completed),
            (Completed, Move::Settle) => Some(Settled),
            (
                AwaitingQuote | Quoted | AwaitingApproval | InRepair | Completed | Settled
                | Cancelled,
                _,
            ) => None,
        };
        next.ok_or_else(|| {
            ServiceError::new(
                ErrorCode::Conflict,
                format!("维修单当前状态为“{}”，不能{}", self.label(), action.label()),
            )
        })
    }
}

impl Move {
    pub fn label(self) -> &'static str {
        match self {
            Move::Quote => "报价",
            Move::Accept { .. } => "确认价格",
            Move::Reject => "退回报价",
            Move::Approved | Move::Disapproved | Move::Withdrawn => "处理审批结果",
            Move::Cancel => "取消",
            Move::Complete => "完工",
            Move::Settle => "结算",
        }
    }
}

impl StatementState {
    pub fn label(self) -> &'static str {
        match self {
            StatementState::PendingConfirmation => "待确认",
            StatementState::Confirmed => "已确认",
            StatementState::Disputed => "有异议",
            StatementState::Billed => "已出账",
        }
    }

    /// Confirming: pending or disputed (the shop corrected it) → confirmed.
    pub fn confirm(self) -> Result<StatementState, ServiceError> {
        match self {
            StatementState::PendingConfirmation | StatementState::Disputed => {
                Ok(StatementState::Confirmed)
            }
            StatementState::Confirmed | StatementState::Billed => Err(ServiceError::new(
                ErrorCode::Conflict,
                format!("对账单当前状态为“{}”，不能确认", self.label()),
            )),
        }
    }

    /// Disputing: only a pending statement.
    pub fn dispute(self) -> Result<StatementState, ServiceError> {
        match self {
            StatementState::PendingConfirmation => Ok(StatementState::Disputed),
            StatementState::Confirmed | StatementState::Disputed | StatementState::Billed => {
                Err(ServiceError::new(
                    ErrorCode::Conflict,
                    format!("对账单当前状态为“{}”，不能提出异议", self.label()),
                ))
            }
        }
    }
}

impl BillState {
    pub fn label(self) -> &'static str {
        match self {
            BillState::Unpaid => "未付款",
            BillState::PartiallyPaid => "部分付款",
            BillState::Paid => "已付款",
            BillState::Cancelled => "已作废",
        }
    }
}

impl Kind {
    pub fn label(self) -> &'static str {
        match self {
            Kind::Maintenance => "保养",
            Kind::Repair => "维修",
            Kind::AccidentRepair => "事故维修",
            Kind::Tire => "轮胎",
            Kind::Battery => "电池维修",
        }
    }
}

/// Most lines a quote takes.
pub const MAX_ITEMS: usize = 200;
/// Largest unit price (1,000,000 yuan) and quantity a line takes.
const MAX_UNIT_PRICE_FEN: i64 = 100_000_000;
const MAX_QUANTITY: f64 = 10_000.0;
/// Longest text of a name, part number, reason or remark.
pub const MAX_TEXT: usize = 200;

/// One checked quote line; `amount_fen` computed here, never taken from the caller.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Line {
    pub name: String,
    pub kind: i16,
    pub part_no: String,
    pub quantity: f64,
    pub unit_price_fen: i64,
    pub amount_fen: i64,
    pub warranty: bool,
}

/// Quantity × unit price, rounded to the fen.
pub fn amount(quantity: f64, unit_price_fen: i64) -> i64 {
    (quantity * unit_price_fen as f64).round() as i64
}

/// The lines of a quote or of the work done, checked, each amount
/// computed; `field` names the list in errors.
pub fn lines(field: &str, items: &[pb::RepairQuoteItem]) -> Result<Vec<Line>, ServiceError> {
    if items.is_empty() {
        return Err(ServiceError::invalid(field, "请至少填写一项维修项目"));
    }
    if items.len() > MAX_ITEMS {
        return Err(ServiceError::invalid(field, "维修项目最多200项"));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let pb::RepairQuoteItem {
                name,
                kind,
                part_no,
                quantity,
                unit_price_fen,
                amount_fen: _,
                warranty,
            } = item;
            let at = |what: &str| ServiceError::invalid(field, format!("第{}项{what}", i + 1));
            let name = name.trim();
            if name.is_empty() || name.chars().count() > MAX_TEXT {
                return Err(at("名称不能为空且不超过200字"));
            }
            let kind = ItemKind::from_pb(*kind).ok_or_else(|| at("类型无效"))?;
            if !quantity.is_finite() || *quantity <= 0.0 || *quantity > MAX_QUANTITY {
                return Err(at("数量应大于0且不超过10000"));
            }
            if !(0..=MAX_UNIT_PRICE_FEN).contains(unit_price_fen) {
                return Err(at("单价应在0至100万元之间"));
            }
            Ok(Line {
                name: name.to_owned(),
                kind: kind.into(),
                part_no: part_no.trim().chars().take(MAX_TEXT).collect(),
                quantity: *quantity,
                unit_price_fen: *unit_price_fen,
                amount_fen: amount(*quantity, *unit_price_fen),
                warranty: *warranty,
            })
        })
        .collect()
}

/// What the lines charge: warranty lines are listed but not charged.
pub fn total(lines: &[Line]) -> i64 {
    lines
        .iter()
        .filter(|l| !l.warranty)
        .map(|l| l.amount_fen)
        .sum()
}

/// Whether accepting a quote of `total_fen` needs an org approval.
pub fn needs_approval(total_fen: i64, threshold_fen: i64) -> bool {
    total_fen > threshold_fen
}

/// The threshold a new enterprise starts with (5,000 yuan).
pub const DEFAULT_THRESHOLD_FEN: i64 = 500_000;

/// A required text of at most [`MAX_TEXT`] characters, trimmed.
pub fn required(field: &str, label: &str, value: &str) -> Result<String, ServiceError> {
    let value = value.trim();
    if value.is_empty() {
        return Err(ServiceError::invalid(field, format!("{label}不能为空")));
    }
    optional(field, label, value)
}

/// An optional text of at most [`MAX_TEXT`] characters, trimmed.
pub fn optional(field: &str, label: &str, value: &str) -> Result<String, ServiceError> {
    let value = value.trim();
    if value.chars().count() > MAX_TEXT {
        return Err(ServiceError::invalid(
            field,
            format!("{label}不能超过200个字符"),
        ));
    }
    Ok(value.to_owned())
}

/// Money in fen as yuan with two decimals, for log remarks.
pub use fleetdesk_assets::oplog::domain::yuan;

#[cfg(test)]
mod tests {
    use super::*;

    const MOVES: [Move; 10] = [
        Move::Quote,
        Move::Accept {
            needs_approval: false,
        },
        Move::Accept {
            needs_approval: true,
        },
        Move::Reject,
        Move::Approved,
        Move::Disapproved,
        Move::Withdrawn,
        Move::Cancel,
        Move::Complete,
        Move::Settle,
    ];

    /// Every legal move, written out: whatever is not here is refused.
    fn legal(from: State, action: Move) -> Option<State> {
        use State::*;
        let table = [
            (AwaitingQuote, Move::Quote, Quoted),
            (Quoted, Move::Quote, Quoted),
            (
                Quoted,
                Move::Accept {
                    needs_approval: false,
                },
                InRepair,
            ),
            (
                Quoted,
                Move::Accept {
                    needs_approval: true,
                },
                AwaitingApproval,
            ),
            (Quoted, Move::Reject, AwaitingQuote),
            (AwaitingApproval, Move::Approved, InRepair),
            (AwaitingApproval, Move::Disapproved, AwaitingQuote),
            (AwaitingApproval, Move::Withdrawn, Quoted),
            (AwaitingQuote, Move::Cancel, Cancelled),
            (Quoted, Move::Cancel, Cancelled),
            (AwaitingApproval, Move::Cancel, Cancelled),
            (InRepair, Move::Complete, Completed),
            (Completed, Move::Settle, Settled),
        ];
        table
            .iter()
            .find(|(f, m, _)| *f == from && *m == action)
            .map(|(_, _, to)| *to)
    }

    #[test]
    fn every_state_and_move_follows_the_table_and_the_rest_is_a_conflict() {
        for from in State::ALL {
            for action in MOVES {
                match legal(*from, action) {
                    Some(to) => assert_eq!(from.apply(action).unwrap(), to, "{from:?} {action:?}"),
                    None => assert_eq!(
                        from.apply(action).unwrap_err().code,
                        ErrorCode::Conflict,
                        "{from:?} {action:?}"
                    ),
                }
            }
        }
    }

    #[test]
    fn a_statement_is_confirmed_from_pending_or_disputed_and_disputed_only_when_pending() {
        use StatementState::*;
        assert_eq!(PendingConfirmation.confirm().unwrap(), Confirmed);
        assert_eq!(Disputed.confirm().unwrap(), Confirmed);
        assert_eq!(PendingConfirmation.dispute().unwrap(), Disputed);
        for s in [Confirmed, Billed] {
            assert_eq!(s.confirm().unwrap_err().code, ErrorCode::Conflict);
        }
        for s in [Confirmed, Disputed, Billed] {
            assert_eq!(s.dispute().unwrap_err().code, ErrorCode::Conflict);
        }
    }

    fn item(quantity: f64, unit_price_fen: i64, warranty: bool) -> pb::RepairQuoteItem {
        pb::RepairQuoteItem {
            name: "刹车片".into(),
            kind: pb::RepairItemKind::Part as i32,
            part_no: "BP-01".into(),
            quantity,
            unit_price_fen,
            amount_fen: 1,
            warranty,
        }
    }

    #[test]
    fn totals_are_computed_here_and_warranty_lines_are_not_charged() {
        let lines = lines(
            "items",
            &[
                item(2.0, 35_000, false),
                item(1.5, 12_001, false),
                item(1.0, 99_900, true),
            ],
        )
        .unwrap();
        assert_eq!(lines[0].amount_fen, 70_000);
        assert_eq!(lines[1].amount_fen, 18_002);
        assert_eq!(total(&lines), 88_002);
        assert!(needs_approval(500_001, DEFAULT_THRESHOLD_FEN));
        assert!(!needs_approval(500_000, DEFAULT_THRESHOLD_FEN));
    }

    #[test]
    fn a_bad_line_names_the_list_and_the_line() {
        for bad in [
            vec![],
            vec![item(0.0, 100, false)],
            vec![item(1.0, -1, false)],
            vec![pb::RepairQuoteItem {
                name: " ".into(),
                ..item(1.0, 100, false)
            }],
            vec![pb::RepairQuoteItem {
                kind: 0,
                ..item(1.0, 100, false)
            }],
        ] {
            let err = lines("items", &bad).unwrap_err();
            assert_eq!(err.fields[0].field, "items");
        }
    }

    #[test]
    fn codes_round_trip() {
        for s in State::ALL {
            assert_eq!(State::try_from(i16::from(*s)).unwrap(), *s);
        }
        assert_eq!(yuan(500_050), "5000.50元");
    }
}

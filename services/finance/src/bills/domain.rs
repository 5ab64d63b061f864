//! The bill's pure rules and stored codes: a new bill checked (lines, their
//! sum, discount, its first status), the idempotency of a raise, and the
//! transitions of reconciliation.

use chrono::{DateTime, Duration, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_proto::finance::v1 as pb;
use uuid::Uuid;

use crate::calendar::{Month, day_of};
use crate::codes::stored_code;

stored_code! {
    /// Which flow of the console a bill belongs to.
    Channel => pb::Channel { Standard = 1, B2b = 2 }
}

stored_code! {
    BillKind => pb::BillKind {
        Rent = 1,
        RentToOwnInstalment = 2,
        Charging = 3,
        Repair = 4,
        Insurance = 5,
        ViolationFine = 6,
        Deposit = 7,
        ServiceFee = 8,
        Compensation = 9,
        Order = 10,
        Other = 11,
    }
}

stored_code! {
    BillStatus => pb::BillStatus {
        PendingConfirmation = 1,
        Unpaid = 2,
        PartiallyPaid = 3,
        Paid = 4,
        Cancelled = 5,
    }
}

stored_code! {
    InvoiceState => pb::InvoiceState {
        NotInvoiced = 1,
        PartiallyInvoiced = 2,
        Invoiced = 3,
    }
}

stored_code! {
    /// The record a bill line bills, in the service that keeps it.
    LineSource {
        UsageRecord = 1,
        ChargingStatement = 2,
        RepairBill = 3,
        Order = 4,
        Other = 5,
    }
}

impl BillKind {
    pub fn label(self) -> &'static str {
        match self {
            BillKind::Rent => "租金",
            BillKind::RentToOwnInstalment => "以租代购分期",
            BillKind::Charging => "充电",
            BillKind::Repair => "维修",
            BillKind::Insurance => "保险",
            BillKind::ViolationFine => "违章罚款",
            BillKind::Deposit => "押金",
            BillKind::ServiceFee => "服务费",
            BillKind::Compensation => "赔偿",
            BillKind::Order => "订单",
            BillKind::Other => "其他",
        }
    }

    /// What a line of a bill of this kind bills, when its caller names no
    /// other record than the bill's source.
    pub fn line_source(self) -> LineSource {
        match self {
            BillKind::Rent | BillKind::RentToOwnInstalment => LineSource::UsageRecord,
            BillKind::Charging => LineSource::ChargingStatement,
            BillKind::Repair => LineSource::RepairBill,
            BillKind::Order => LineSource::Order,
            BillKind::Insurance
            | BillKind::ViolationFine
            | BillKind::Deposit
            | BillKind::ServiceFee
            | BillKind::Compensation
            | BillKind::Other => LineSource::Other,
        }
    }
}

impl BillStatus {
    pub fn label(self) -> &'static str {
        match self {
            BillStatus::PendingConfirmation => "待确认",
            BillStatus::Unpaid => "待支付",
            BillStatus::PartiallyPaid => "部分支付",
            BillStatus::Paid => "已支付",
            BillStatus::Cancelled => "已取消",
        }
    }

    /// Still owed: counts for overdue and due soon.
    pub fn owed(self) -> bool {
        matches!(self, BillStatus::Unpaid | BillStatus::PartiallyPaid)
    }
}

impl InvoiceState {
    pub fn label(self) -> &'static str {
        match self {
            InvoiceState::NotInvoiced => "未开票",
            InvoiceState::PartiallyInvoiced => "部分开票",
            InvoiceState::Invoiced => "已开票",
        }
    }
}

impl Channel {
    pub fn label(self) -> &'static str {
        match self {
            Channel::Standard => "标准",
            Channel::B2b => "B2B",
        }
    }
}

/// Days a bill is due after it is issued when its caller names no due time.
pub const DEFAULT_DUE_DAYS: i64 = 15;

/// One line of a bill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub description: String,
    pub vehicle_id: Option<Uuid>,
    pub plate_number: String,
    pub period_start: Option<DateTime<Utc>>,
    pub period_end: Option<DateTime<Utc>>,
    pub quantity: i32,
    pub unit_price_fen: i64,
    pub amount_fen: i64,
    pub tax_rate_bp: i32,
    pub source: LineSource,
    pub source_id: String,
}

/// Where a bill comes from; unique per enterprise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    pub service: String,
    pub id: String,
}

/// A bill to raise, as its caller asks for it.
#[derive(Debug, Clone)]
pub struct NewBill {
    pub org_id: Uuid,
    pub channel: Channel,
    pub kind: BillKind,
    pub title: String,
    pub period: Month,
    pub order_id: Option<Uuid>,
    pub lines: Vec<Line>,
    pub discount_fen: i64,
    pub due_time: Option<DateTime<Utc>>,
    pub requires_confirmation: bool,
    pub source: Source,
    pub attachments: serde_json::Value,
    pub remark: String,
}

/// A new bill that passed the rules: its amount and first status decided.
#[derive(Debug, Clone)]
pub struct CheckedBill {
    pub bill: NewBill,
    pub amount_fen: i64,
    pub status: BillStatus,
    pub issue_time: DateTime<Utc>,
    pub due_time: DateTime<Utc>,
}

impl NewBill {
    /// Checks the bill raised at `now`: a title, a source, at least one
    /// line, each line's amount its quantity times unit price (when it has
    /// both), the lines' sum as the amount, the discount within it.
    pub fn check(self, now: DateTime<Utc>) -> Result<CheckedBill, ServiceError> {
        if self.title.trim().is_empty() {
            return Err(ServiceError::invalid("title", "请填写账单名称"));
        }
        if self.source.service.trim().is_empty() || self.source.id.trim().is_empty() {
            return Err(ServiceError::invalid("sourceId", "请指定账单来源"));
        }
        if self.lines.is_empty() {
            return Err(ServiceError::invalid("lines", "账单至少需要一行明细"));
        }
        let mut amount_fen: i64 = 0;
        for (i, line) in self.lines.iter().enumerate() {
            let field = |name: &str| format!("lines[{i}].{name}");
            if line.description.trim().is_empty() {
                return Err(ServiceError::invalid(
                    &field("description"),
                    "请填写明细说明",
                ));
            }
            if line.amount_fen < 0 || line.quantity < 0 || line.unit_price_fen < 0 {
                return Err(ServiceError::invalid(
                    &field("amountFen"),
                    "明细的数量、单价和金额不能为负数",
                ));
            }
            if !(0..=10_000).contains(&line.tax_rate_bp) {
                return Err(ServiceError::invalid(&field("taxRateBp"), "税率无效"));
            }
            if line.quantity > 0
                && line.unit_price_fen > 0
                && i64::from(line.quantity).checked_mul(line.unit_price_fen)
                    != Some(line.amount_fen)
            {
                return Err(ServiceError::invalid(
                    &field("amountFen"),
                    "明细金额须等于数量乘以单价",
                ));
            }
            amount_fen = amount_fen
                .checked_add(line.amount_fen)
                .ok_or_else(|| ServiceError::invalid(&field("amountFen"), "明细金额过大"))?;
        }
        if !(0..=amount_fen).contains(&self.discount_fen) {
            return Err(ServiceError::invalid(
                "discountFen",
                "优惠金额不能为负数，也不能超过账单金额",
            ));
        }
        let status = first_status(self.requires_confirmation, amount_fen - self.discount_fen);
        let due_time = self
            .due_time
            .unwrap_or(now + Duration::days(DEFAULT_DUE_DAYS));
        Ok(CheckedBill {
            bill: self,
            amount_fen,
            status,
            issue_time: now,
            due_time,
        })
    }
}

/// A new bill's status: waiting for reconciliation when asked, else owed
/// (or paid at once when nothing is payable).
pub fn first_status(requires_confirmation: bool, payable_fen: i64) -> BillStatus {
    match (requires_confirmation, payable_fen) {
        (true, _) => BillStatus::PendingConfirmation,
        (false, 0) => BillStatus::Paid,
        (false, _) => BillStatus::Unpaid,
    }
}

/// What makes two raises of one source the same bill: kind, amount,
/// discount and each line's amount.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fingerprint {
    pub kind: i16,
    pub amount_fen: i64,
    pub discount_fen: i64,
    pub line_amounts: Vec<i64>,
}

impl CheckedBill {
    pub fn fingerprint(&self) -> Fingerprint {
        Fingerprint {
            kind: self.bill.kind.into(),
            amount_fen: self.amount_fen,
            discount_fen: self.bill.discount_fen,
            line_amounts: self.bill.lines.iter().map(|l| l.amount_fen).collect(),
        }
    }
}

/// A repeated raise of a source is the first bill when it asks for the same
/// amounts; another amount for the same source is refused.
pub fn same_raise(first: &Fingerprint, again: &Fingerprint) -> Result<(), ServiceError> {
    if first == again {
        Ok(())
    } else {
        Err(ServiceError::taken(
            "sourceId",
            "该来源已出账，且金额与已出账单不一致",
        ))
    }
}

/// Whether a bill of `status`, due at `due`, is overdue at `now`.
pub fn overdue(status: BillStatus, due: DateTime<Utc>, now: DateTime<Utc>) -> bool {
    status.owed() && due < now
}

/// Calendar days (Asia/Shanghai) an overdue bill is past its due day; at
/// least 1 once overdue, 0 when not.
pub fn overdue_days(status: BillStatus, due: DateTime<Utc>, now: DateTime<Utc>) -> i32 {
    if !overdue(status, due, now) {
        return 0;
    }
    let days = (day_of(now) - day_of(due)).num_days().max(1);
    i32::try_from(days).unwrap_or(i32::MAX)
}

/// The status a reconciled bill moves to: confirmed bills become owed (or
/// paid when nothing is payable); disputed ones stay waiting for the
/// operator's reissue. Only PENDING_CONFIRMATION bills are reconciled.
pub fn reconciled(
    status: BillStatus,
    accepted: bool,
    payable_fen: i64,
) -> Result<BillStatus, ServiceError> {
    if status != BillStatus::PendingConfirmation {
        return Err(ServiceError::taken("billIds", "只能确认待确认状态的账单"));
    }
    Ok(match accepted {
        true => first_status(false, payable_fen),
        false => BillStatus::PendingConfirmation,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(quantity: i32, unit: i64, amount: i64) -> Line {
        Line {
            description: "租金".into(),
            vehicle_id: None,
            plate_number: String::new(),
            period_start: None,
            period_end: None,
            quantity,
            unit_price_fen: unit,
            amount_fen: amount,
            tax_rate_bp: 600,
            source: LineSource::UsageRecord,
            source_id: "u1".into(),
        }
    }

    fn bill(lines: Vec<Line>, discount: i64) -> NewBill {
        NewBill {
            org_id: Uuid::nil(),
            channel: Channel::Standard,
            kind: BillKind::Rent,
            title: "11月租金".into(),
            period: Month::new(2026, 11).unwrap(),
            order_id: None,
            lines,
            discount_fen: discount,
            due_time: None,
            requires_confirmation: false,
            source: Source {
                service: "vehicle".into(),
                id: "r1".into(),
            },
            attachments: serde_json::json!([]),
            remark: String::new(),
        }
    }

    #[test]
    fn the_amount_is_the_sum_of_the_lines() {
        let now = Utc::now();
        let checked = bill(vec![line(2, 150, 300), line(0, 0, 45)], 45)
            .check(now)
            .unwrap();
        assert_eq!(checked.amount_fen, 345);
        assert_eq!(checked.status, BillStatus::Unpaid);
        assert_eq!(checked.due_time, now + Duration::days(DEFAULT_DUE_DAYS));
    }

    #[test]
    fn a_line_must_be_its_quantity_times_its_unit_price() {
        let err = bill(vec![line(2, 150, 301)], 0)
            .check(Utc::now())
            .unwrap_err();
        assert_eq!(err.fields[0].field, "lines[0].amountFen");
    }

    #[test]
    fn no_lines_a_negative_line_or_too_big_a_discount_is_refused() {
        assert!(bill(vec![], 0).check(Utc::now()).is_err());
        assert!(bill(vec![line(0, 0, -1)], 0).check(Utc::now()).is_err());
        let err = bill(vec![line(1, 100, 100)], 101)
            .check(Utc::now())
            .unwrap_err();
        assert_eq!(err.fields[0].field, "discountFen");
    }

    #[test]
    fn a_repeated_raise_must_ask_for_the_same_amounts() {
        let first = bill(vec![line(1, 100, 100)], 0).check(Utc::now()).unwrap();
        let same = bill(vec![line(1, 100, 100)], 0).check(Utc::now()).unwrap();
        assert!(same_raise(&first.fingerprint(), &same.fingerprint()).is_ok());
        let other = bill(vec![line(1, 120, 120)], 0).check(Utc::now()).unwrap();
        assert!(same_raise(&first.fingerprint(), &other.fingerprint()).is_err());
    }

    #[test]
    fn only_owed_bills_past_due_are_overdue_counting_calendar_days() {
        let due = Utc::now() - Duration::days(3);
        let now = Utc::now();
        assert_eq!(overdue_days(BillStatus::Unpaid, due, now), 3);
        assert_eq!(overdue_days(BillStatus::Paid, due, now), 0);
        assert!(!overdue(BillStatus::PendingConfirmation, due, now));
        assert!(!overdue(
            BillStatus::PartiallyPaid,
            now + Duration::hours(1),
            now
        ));
    }

    #[test]
    fn reconciliation_moves_only_pending_bills() {
        assert_eq!(
            reconciled(BillStatus::PendingConfirmation, true, 100).unwrap(),
            BillStatus::Unpaid
        );
        assert_eq!(
            reconciled(BillStatus::PendingConfirmation, false, 100).unwrap(),
            BillStatus::PendingConfirmation
        );
        assert!(reconciled(BillStatus::Unpaid, true, 100).is_err());
    }
}

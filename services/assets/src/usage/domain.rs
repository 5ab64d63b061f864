//! Rules of a usage record: the terms each kind needs, the checks an input
//! must pass, and the state machine (pending → active → ended). Pure: no
//! database, no proto messages. Money is in fen.

use chrono::{DateTime, Utc};
use fleetdesk_kit::{ErrorCode, ServiceError};
use fleetdesk_proto::vehicle::v1 as pb;
use uuid::Uuid;

use crate::codes::stored_code;
use crate::oplog::Changes;
use crate::vehicles::domain::{Problems, UsageKind, UsageStatus};

stored_code!(
    /// Why a vehicle was replaced.
    ReplacementReason => pb::ReplacementReason {
        Repair = 1, Accident = 2, Upgrade = 3, ContractChange = 4, Other = 5,
    }
);

impl ReplacementReason {
    pub fn label(self) -> &'static str {
        match self {
            ReplacementReason::Repair => "维修替换",
            ReplacementReason::Accident => "事故替换",
            ReplacementReason::Upgrade => "升级换车",
            ReplacementReason::ContractChange => "合同变更",
            ReplacementReason::Other => "其他",
        }
    }
}

/// Longest contract in months (ten years).
const MAX_TERM_MONTHS: i32 = 120;
/// Largest amount accepted, in fen (100 million yuan).
const MAX_FEN: i64 = 10_000_000_000;

/// Terms of a rental.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Rent {
    pub monthly_rent_fen: i64,
    pub deposit_fen: i64,
    pub term_months: i32,
    pub payment_day: i32,
    pub return_time: Option<DateTime<Utc>>,
}

/// Terms of a purchase.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Purchase {
    pub price_fen: i64,
    pub purchase_tax_fen: i64,
    pub invoice_no: String,
    pub delivery_time: Option<DateTime<Utc>>,
}

/// Facts of a replacement; the record's vehicle is the new one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replacement {
    pub replaced_vehicle_id: Uuid,
    /// Filled from the replaced vehicle when stored.
    pub replaced_plate_number: String,
    pub reason: ReplacementReason,
    pub temporary: bool,
}

/// Terms of a rent-to-own contract: `term_months` instalments, of which
/// `paid_periods` are paid and `overdue_periods` due but unpaid.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RentToOwn {
    pub term_months: i32,
    pub down_payment_fen: i64,
    pub monthly_payment_fen: i64,
    pub total_price_fen: i64,
    pub final_payment_fen: i64,
    pub paid_periods: i32,
    pub overdue_periods: i32,
    pub ownership_transfer_time: Option<DateTime<Utc>>,
}

/// The kind-specific terms; the record's kind follows from which is set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Terms {
    Rent(Rent),
    Purchase(Purchase),
    Replacement(Replacement),
    RentToOwn(RentToOwn),
}

impl Terms {
    pub fn kind(&self) -> UsageKind {
        match self {
            Terms::Rent(_) => UsageKind::Rent,
            Terms::Purchase(_) => UsageKind::Purchase,
            Terms::Replacement(_) => UsageKind::Replacement,
            Terms::RentToOwn(_) => UsageKind::RentToOwn,
        }
    }
}

/// Replacement terms as they come off the wire (the id still text).
#[derive(Debug, Clone, Default)]
pub struct ReplacementFields {
    pub replaced_vehicle_id: String,
    pub reason: Option<ReplacementReason>,
    pub temporary: bool,
}

/// Terms as they come off the wire.
#[derive(Debug, Clone)]
pub enum TermsFields {
    Rent(Rent),
    Purchase(Purchase),
    Replacement(ReplacementFields),
    RentToOwn(RentToOwn),
}

/// What the checks need of an input, already taken off the wire.
#[derive(Debug, Clone, Default)]
pub struct UsageFields {
    pub vehicle_id: String,
    pub contract_no: String,
    pub counterparty: String,
    pub start_time: Option<DateTime<Utc>>,
    pub end_time: Option<DateTime<Utc>>,
    pub terms: Option<TermsFields>,
    pub attachments: serde_json::Value,
    pub remark: String,
}

/// A usage record's editable fields, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct UsageDraft {
    pub vehicle_id: Uuid,
    pub contract_no: String,
    pub counterparty: String,
    pub start_time: DateTime<Utc>,
    /// None only for purchases.
    pub end_time: Option<DateTime<Utc>>,
    pub terms: Terms,
    pub attachments: serde_json::Value,
    pub remark: String,
}

fn money(p: &mut Problems, field: &str, label: &str, fen: i64) -> i64 {
    p.within(field, label, fen, 0, MAX_FEN)
}

impl UsageDraft {
    /// Checks every field and reports all refusals at once.
    pub fn parse(input: UsageFields) -> Result<UsageDraft, ServiceError> {
        let mut p = Problems::default();
        let vehicle_id = Uuid::parse_str(input.vehicle_id.trim()).ok();
        if vehicle_id.is_none() {
            p.add("vehicleId", "请选择车辆");
        }
        let contract_no = p.text("contractNo", "合同编号", &input.contract_no, 50);
        let counterparty = p.optional_text("counterparty", "合同对方", &input.counterparty, 100);
        let remark = p.optional_text("remark", "备注", &input.remark, 200);
        if input.start_time.is_none() {
            p.add("startTime", "请选择开始日期");
        }
        let terms = match input.terms {
            None => {
                p.add("kind", "请选择使用类型");
                None
            }
            Some(TermsFields::Rent(rent)) => {
                if rent.monthly_rent_fen <= 0 {
                    p.add("rent.monthlyRentFen", "请输入月租金");
                }
                money(
                    &mut p,
                    "rent.monthlyRentFen",
                    "月租金",
                    rent.monthly_rent_fen,
                );
                money(&mut p, "rent.depositFen", "押金", rent.deposit_fen);
                p.within(
                    "rent.termMonths",
                    "租期(月)",
                    rent.term_months,
                    1,
                    MAX_TERM_MONTHS,
                );
                let payment_day = if rent.payment_day == 0 {
                    1
                } else {
                    rent.payment_day
                };
                p.within("rent.paymentDay", "付款日", payment_day, 1, 28);
                Some(Terms::Rent(Rent {
                    payment_day,
                    ..rent
                }))
            }
            Some(TermsFields::Purchase(purchase)) => {
                if purchase.price_fen <= 0 {
                    p.add("purchase.priceFen", "请输入购车价格");
                }
                money(&mut p, "purchase.priceFen", "购车价格", purchase.price_fen);
                money(
                    &mut p,
                    "purchase.purchaseTaxFen",
                    "购置税",
                    purchase.purchase_tax_fen,
                );
                let invoice_no =
                    p.optional_text("purchase.invoiceNo", "发票号", &purchase.invoice_no, 50);
                Some(Terms::Purchase(Purchase {
                    invoice_no,
                    ..purchase
                }))
            }
            Some(TermsFields::Replacement(r)) => {
                let replaced = Uuid::parse_str(r.replaced_vehicle_id.trim()).ok();
                if replaced.is_none() {
                    p.add("replacement.replacedVehicleId", "请选择被替换车辆");
                } else if replaced == vehicle_id {
                    p.add("replacement.replacedVehicleId", "被替换车辆不能是本车辆");
                }
                let reason = p.choice("replacement.reason", "替换原因", r.reason);
                replaced.zip(reason).map(|(replaced_vehicle_id, reason)| {
                    Terms::Replacement(Replacement {
                        replaced_vehicle_id,
                        replaced_plate_number: String::new(),
                        reason,
                        temporary: r.temporary,
                    })
                })
            }
            Some(TermsFields::RentToOwn(r)) => {
                p.within(
                    "rentToOwn.termMonths",
                    "分期期数",
                    r.term_months,
                    1,
                    MAX_TERM_MONTHS,
                );
                if r.monthly_payment_fen <= 0 {
                    p.add("rentToOwn.monthlyPaymentFen", "请输入月供");
                }
                money(
                    &mut p,
                    "rentToOwn.monthlyPaymentFen",
                    "月供",
                    r.monthly_payment_fen,
                );
                money(
                    &mut p,
                    "rentToOwn.downPaymentFen",
                    "首付",
                    r.down_payment_fen,
                );
                money(
                    &mut p,
                    "rentToOwn.finalPaymentFen",
                    "尾款",
                    r.final_payment_fen,
                );
                let total = r.down_payment_fen
                    + r.monthly_payment_fen * i64::from(r.term_months.max(0))
                    + r.final_payment_fen;
                let total_price_fen = if r.total_price_fen == 0 {
                    total
                } else {
                    r.total_price_fen
                };
                if total_price_fen != total {
                    p.add(
                        "rentToOwn.totalPriceFen",
                        "总价须等于首付、各期月供与尾款之和",
                    );
                }
                if r.paid_periods < 0 || r.overdue_periods < 0 {
                    p.add("rentToOwn.paidPeriods", "期数不能为负数");
                } else if r.paid_periods + r.overdue_periods > r.term_months {
                    p.add(
                        "rentToOwn.paidPeriods",
                        "已还期数与逾期期数之和不能超过分期期数",
                    );
                }
                Some(Terms::RentToOwn(RentToOwn {
                    total_price_fen,
                    ..r
                }))
            }
        };
        match (&terms, input.start_time, input.end_time) {
            (Some(Terms::Purchase(_)), _, _) | (None, _, _) => {}
            (Some(_), _, None) => p.add("endTime", "请选择结束日期"),
            (Some(_), Some(start), Some(end)) if end <= start => {
                p.add("endTime", "结束日期须晚于开始日期")
            }
            (Some(_), _, Some(_)) => {}
        }
        p.finish()?;
        let (Some(vehicle_id), Some(start_time), Some(terms)) =
            (vehicle_id, input.start_time, terms)
        else {
            return Err(ServiceError::of(ErrorCode::BadRequest));
        };
        let end_time = match terms {
            Terms::Purchase(_) => None,
            Terms::Rent(_) | Terms::Replacement(_) | Terms::RentToOwn(_) => input.end_time,
        };
        Ok(UsageDraft {
            vehicle_id,
            contract_no,
            counterparty,
            start_time,
            end_time,
            terms,
            attachments: input.attachments,
            remark,
        })
    }
}

/// The state machine of a usage record: a record starts pending (starts in
/// the future) or active, a pending one becomes active when its start comes,
/// and either ends once; an ended record never changes again.
pub mod state {
    use super::*;

    /// The state of a record made or edited now.
    pub fn initial(start: DateTime<Utc>, now: DateTime<Utc>) -> UsageStatus {
        if start > now {
            UsageStatus::Pending
        } else {
            UsageStatus::Active
        }
    }

    /// The state as of `now`: a pending record whose start has come is active.
    pub fn effective(stored: UsageStatus, start: DateTime<Utc>, now: DateTime<Utc>) -> UsageStatus {
        match stored {
            UsageStatus::Pending if start <= now => UsageStatus::Active,
            UsageStatus::Pending => UsageStatus::Pending,
            UsageStatus::Active => UsageStatus::Active,
            UsageStatus::Ended => UsageStatus::Ended,
        }
    }

    /// Whether the record still holds its vehicle (the one-open-record rule).
    pub fn is_open(state: UsageStatus) -> bool {
        match state {
            UsageStatus::Pending | UsageStatus::Active => true,
            UsageStatus::Ended => false,
        }
    }

    /// An edit of a record in `current`: the state it moves to.
    pub fn edit(
        current: UsageStatus,
        start: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<UsageStatus, ServiceError> {
        match current {
            UsageStatus::Pending | UsageStatus::Active => Ok(initial(start, now)),
            UsageStatus::Ended => Err(ServiceError::new(
                ErrorCode::Conflict,
                "该使用记录已结束，不能修改",
            )),
        }
    }

    /// Ending a record in `current` at `at`.
    pub fn end(
        current: UsageStatus,
        start: DateTime<Utc>,
        at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<UsageStatus, ServiceError> {
        match current {
            UsageStatus::Ended => Err(ServiceError::new(ErrorCode::Conflict, "该使用记录已结束")),
            UsageStatus::Pending | UsageStatus::Active => {
                if at > now + chrono::Duration::minutes(1) {
                    return Err(ServiceError::invalid("endTime", "结束时间不能晚于当前时间"));
                }
                // A record that never started may be called off before its start.
                if effective(current, start, now) == UsageStatus::Active && at < start {
                    return Err(ServiceError::invalid("endTime", "结束时间不能早于开始日期"));
                }
                Ok(UsageStatus::Ended)
            }
        }
    }
}

/// The refusal of a second open record for a vehicle.
pub fn vehicle_in_use() -> ServiceError {
    ServiceError::taken("vehicleId", "该车辆已有未结束的使用记录，请先结束后再新增")
}

/// The operation-log remark of an edit: each changed field.
pub fn changes(before: &UsageDraft, after: &UsageDraft) -> String {
    let mut c = Changes::new()
        .text("合同编号", &before.contract_no, &after.contract_no)
        .text("合同对方", &before.counterparty, &after.counterparty)
        .date("开始日期", Some(before.start_time), Some(after.start_time))
        .date("结束日期", before.end_time, after.end_time);
    c = match (&before.terms, &after.terms) {
        (Terms::Rent(a), Terms::Rent(b)) => c
            .money("月租金", Some(a.monthly_rent_fen), Some(b.monthly_rent_fen))
            .money("押金", Some(a.deposit_fen), Some(b.deposit_fen))
            .number(
                "租期(月)",
                Some(a.term_months.into()),
                Some(b.term_months.into()),
            )
            .number(
                "付款日",
                Some(a.payment_day.into()),
                Some(b.payment_day.into()),
            )
            .date("还车日期", a.return_time, b.return_time),
        (Terms::Purchase(a), Terms::Purchase(b)) => c
            .money("购车价格", Some(a.price_fen), Some(b.price_fen))
            .money("购置税", Some(a.purchase_tax_fen), Some(b.purchase_tax_fen))
            .text("发票号", &a.invoice_no, &b.invoice_no)
            .date("交车日期", a.delivery_time, b.delivery_time),
        (Terms::Replacement(a), Terms::Replacement(b)) => c
            .text(
                "被替换车辆",
                &a.replaced_plate_number,
                &b.replaced_plate_number,
            )
            .text("替换原因", a.reason.label(), b.reason.label())
            .text("临时替换", yes_no(a.temporary), yes_no(b.temporary)),
        (Terms::RentToOwn(a), Terms::RentToOwn(b)) => c
            .number(
                "分期期数",
                Some(a.term_months.into()),
                Some(b.term_months.into()),
            )
            .money("首付", Some(a.down_payment_fen), Some(b.down_payment_fen))
            .money(
                "月供",
                Some(a.monthly_payment_fen),
                Some(b.monthly_payment_fen),
            )
            .money("总价", Some(a.total_price_fen), Some(b.total_price_fen))
            .money("尾款", Some(a.final_payment_fen), Some(b.final_payment_fen))
            .number(
                "已还期数",
                Some(a.paid_periods.into()),
                Some(b.paid_periods.into()),
            )
            .number(
                "逾期期数",
                Some(a.overdue_periods.into()),
                Some(b.overdue_periods.into()),
            )
            .date(
                "过户日期",
                a.ownership_transfer_time,
                b.ownership_transfer_time,
            ),
        (Terms::Rent(_) | Terms::Purchase(_) | Terms::Replacement(_) | Terms::RentToOwn(_), _) => c
            .text(
                "使用类型",
                before.terms.kind().label(),
                after.terms.kind().label(),
            ),
    };
    c.text("备注", &before.remark, &after.remark).finish()
}

fn yes_no(value: bool) -> &'static str {
    if value { "是" } else { "否" }
}

#[cfg(test)]
mod tests {
    use chrono::Duration;

    use super::*;

    fn rent_fields() -> UsageFields {
        let start = Utc::now() - Duration::days(10);
        UsageFields {
            vehicle_id: Uuid::new_v4().to_string(),
            contract_no: " HT-2026-001 ".into(),
            counterparty: "深圳市鹏程新能源汽车租赁有限公司".into(),
            start_time: Some(start),
            end_time: Some(start + Duration::days(365)),
            terms: Some(TermsFields::Rent(Rent {
                monthly_rent_fen: 350_000,
                deposit_fen: 700_000,
                term_months: 12,
                payment_day: 0,
                return_time: None,
            })),
            attachments: serde_json::json!([]),
            remark: String::new(),
        }
    }

    #[test]
    fn a_rent_is_checked_and_its_payment_day_defaults_to_the_first() {
        let draft = UsageDraft::parse(rent_fields()).unwrap();
        assert_eq!(draft.contract_no, "HT-2026-001");
        assert_eq!(draft.terms.kind(), UsageKind::Rent);
        let Terms::Rent(rent) = draft.terms else {
            panic!("rent")
        };
        assert_eq!(rent.payment_day, 1);
    }

    #[test]
    fn a_rent_needs_a_rent_an_end_after_its_start_and_a_contract_number() {
        let mut input = rent_fields();
        input.contract_no = "".into();
        input.end_time = input.start_time;
        input.terms = Some(TermsFields::Rent(Rent {
            monthly_rent_fen: 0,
            term_months: 0,
            ..Rent::default()
        }));
        let err = UsageDraft::parse(input).unwrap_err();
        let fields: Vec<_> = err.fields.iter().map(|f| f.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "contractNo",
                "rent.monthlyRentFen",
                "rent.termMonths",
                "endTime"
            ]
        );
        assert_eq!(err.fields[3].message, "结束日期须晚于开始日期");
    }

    #[test]
    fn a_purchase_has_no_end_and_a_replacement_cannot_replace_itself() {
        let mut input = rent_fields();
        input.terms = Some(TermsFields::Purchase(Purchase {
            price_fen: 12_980_000,
            ..Purchase::default()
        }));
        let draft = UsageDraft::parse(input).unwrap();
        assert_eq!(draft.end_time, None);

        let mut input = rent_fields();
        input.terms = Some(TermsFields::Replacement(ReplacementFields {
            replaced_vehicle_id: input.vehicle_id.clone(),
            reason: Some(ReplacementReason::Repair),
            temporary: true,
        }));
        let err = UsageDraft::parse(input).unwrap_err();
        assert_eq!(err.fields[0].message, "被替换车辆不能是本车辆");
    }

    #[test]
    fn rent_to_own_instalments_add_up_and_never_exceed_the_term() {
        let mut input = rent_fields();
        input.terms = Some(TermsFields::RentToOwn(RentToOwn {
            term_months: 36,
            down_payment_fen: 3_000_000,
            monthly_payment_fen: 300_000,
            final_payment_fen: 1_000_000,
            paid_periods: 30,
            overdue_periods: 7,
            ..RentToOwn::default()
        }));
        let err = UsageDraft::parse(input.clone()).unwrap_err();
        assert_eq!(err.fields[0].field, "rentToOwn.paidPeriods");
        if let Some(TermsFields::RentToOwn(r)) = &mut input.terms {
            r.overdue_periods = 2;
        }
        let Terms::RentToOwn(r) = UsageDraft::parse(input).unwrap().terms else {
            panic!()
        };
        assert_eq!(r.total_price_fen, 3_000_000 + 36 * 300_000 + 1_000_000);
    }

    #[test]
    fn the_state_machine_moves_forward_only() {
        let now = Utc::now();
        let later = now + Duration::days(3);
        assert_eq!(state::initial(later, now), UsageStatus::Pending);
        assert_eq!(state::initial(now, now), UsageStatus::Active);
        assert_eq!(
            state::effective(UsageStatus::Pending, now - Duration::days(1), now),
            UsageStatus::Active
        );
        assert_eq!(
            state::end(UsageStatus::Active, now - Duration::days(1), now, now).unwrap(),
            UsageStatus::Ended
        );
        // A pending record may be called off before it starts.
        assert_eq!(
            state::end(UsageStatus::Pending, later, now, now).unwrap(),
            UsageStatus::Ended
        );
        let again = state::end(UsageStatus::Ended, now, now, now).unwrap_err();
        assert_eq!(again.code, ErrorCode::Conflict);
        assert_eq!(
            state::edit(UsageStatus::Ended, now, now).unwrap_err().code,
            ErrorCode::Conflict
        );
        assert!(state::is_open(UsageStatus::Pending) && !state::is_open(UsageStatus::Ended));
        // An active record cannot end before it began.
        let early = state::end(
            UsageStatus::Active,
            now - Duration::days(1),
            now - Duration::days(2),
            now,
        );
        assert_eq!(early.unwrap_err().code, ErrorCode::BadRequest);
    }
}

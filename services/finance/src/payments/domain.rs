//! The payment's pure rules and stored codes: which bills one payment may
//! take and how much each gets, the route a method takes, a bill's status
//! after it is paid, and what a late bank payment can still apply.

use chrono::{DateTime, Utc};
use fleetdesk_kit::list::BATCH_LIMIT;
use fleetdesk_kit::{ErrorCode, ServiceError};
use fleetdesk_proto::finance::v1 as pb;
use uuid::Uuid;

use crate::bills::domain::{BillStatus, Channel};
use crate::calendar;
use crate::codes::stored_code;

stored_code! {
    PaymentMethod => pb::PaymentMethod {
        CorporateTransfer = 1,
        OnlineBanking = 2,
        WechatPay = 3,
        Alipay = 4,
        PrepaidBalance = 5,
    }
}

stored_code! {
    PaymentStatus => pb::PaymentStatus {
        Pending = 1,
        Succeeded = 2,
        Failed = 3,
        Closed = 4,
    }
}

/// How a method's money moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// From the prepaid balance, at once.
    Balance,
    /// Through the bank: PENDING until its callback.
    Bank,
}

impl PaymentMethod {
    /// The route of a method finance takes; a corporate transfer (an
    /// uploaded voucher an operator reviews) is not built yet.
    pub fn route(self) -> Result<Route, ServiceError> {
        match self {
            PaymentMethod::PrepaidBalance => Ok(Route::Balance),
            PaymentMethod::OnlineBanking | PaymentMethod::WechatPay | PaymentMethod::Alipay => {
                Ok(Route::Bank)
            }
            PaymentMethod::CorporateTransfer => Err(ServiceError::invalid(
                "method",
                "暂不支持对公转账，请选择余额支付或网银支付",
            )),
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            PaymentMethod::CorporateTransfer => "对公转账",
            PaymentMethod::OnlineBanking => "网银支付",
            PaymentMethod::WechatPay => "微信支付",
            PaymentMethod::Alipay => "支付宝",
            PaymentMethod::PrepaidBalance => "余额支付",
        }
    }
}

/// A bill as a payment sees it, read under its row lock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owed {
    pub bill_id: Uuid,
    pub bill_no: String,
    pub channel: Channel,
    pub status: BillStatus,
    pub outstanding_fen: i64,
}

/// The part of a payment one bill takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allocation {
    pub bill_id: Uuid,
    pub bill_no: String,
    pub amount_fen: i64,
}

/// What each bill takes of one payment: every bill's outstanding in full
/// (`amount_fen` 0), or `amount_fen` of a single bill. All bills payable
/// (unpaid or partly paid) and of one channel.
pub fn allocate(bills: &[Owed], amount_fen: i64) -> Result<Vec<Allocation>, ServiceError> {
    if bills.is_empty() {
        return Err(ServiceError::invalid("billIds", "请选择要支付的账单"));
    }
    if bills.len() > BATCH_LIMIT {
        return Err(ServiceError::invalid(
            "billIds",
            format!("每次最多支付{BATCH_LIMIT}张账单"),
        ));
    }
    if let Some(bill) = bills
        .iter()
        .find(|b| !b.status.owed() || b.outstanding_fen <= 0)
    {
        return Err(ServiceError::new(
            ErrorCode::Conflict,
            format!("账单{}{}，不能支付", bill.bill_no, bill.status.label()),
        ));
    }
    if bills.iter().any(|b| b.channel != bills[0].channel) {
        return Err(ServiceError::invalid(
            "billIds",
            "标准账单与B2B账单不能一起支付",
        ));
    }
    if amount_fen < 0 {
        return Err(ServiceError::invalid("amountFen", "支付金额不能为负数"));
    }
    if amount_fen > 0 {
        let [bill] = bills else {
            return Err(ServiceError::invalid(
                "amountFen",
                "部分支付只能选择一张账单",
            ));
        };
        if amount_fen > bill.outstanding_fen {
            return Err(ServiceError::invalid(
                "amountFen",
                "支付金额不能超过账单待付金额",
            ));
        }
        return Ok(vec![Allocation {
            bill_id: bill.bill_id,
            bill_no: bill.bill_no.clone(),
            amount_fen,
        }]);
    }
    Ok(bills
        .iter()
        .map(|b| Allocation {
            bill_id: b.bill_id,
            bill_no: b.bill_no.clone(),
            amount_fen: b.outstanding_fen,
        })
        .collect())
}

/// The sum of the allocations.
pub fn total(allocations: &[Allocation]) -> i64 {
    allocations.iter().map(|a| a.amount_fen).sum()
}

/// The total the user saw must still be the total: else 4009 naming it.
pub fn same_total(expected_fen: i64, total_fen: i64) -> Result<(), ServiceError> {
    if expected_fen != total_fen {
        return Err(ServiceError::taken(
            "expectedTotalFen",
            "应付金额已变化，请刷新后重试",
        ));
    }
    Ok(())
}

/// What a bank payment settling now can still apply: each allocation up to
/// what its bill still owes (another payment may have paid it meanwhile),
/// and the rest, which goes to the prepaid balance instead.
pub fn applicable(planned: &[Allocation], owed: &[Owed]) -> (Vec<Allocation>, i64) {
    let mut rest = 0;
    let mut applied = Vec::new();
    for a in planned {
        let room = owed
            .iter()
            .find(|o| o.bill_id == a.bill_id && o.status.owed())
            .map_or(0, |o| o.outstanding_fen.max(0));
        let take = a.amount_fen.min(room);
        rest += a.amount_fen - take;
        if take > 0 {
            applied.push(Allocation {
                amount_fen: take,
                ..a.clone()
            });
        }
    }
    (applied, rest)
}

/// e.g. ZF20261208-3F2A9C1B: the day (Asia/Shanghai) and the id's first digits.
pub fn payment_no(id: Uuid, at: DateTime<Utc>) -> String {
    let digits = id.simple().to_string()[..8].to_uppercase();
    format!("ZF{}-{digits}", calendar::day_of(at).format("%Y%m%d"))
}

/// An account number as lists show it: the last four digits.
pub fn masked_account(account: &str) -> String {
    let digits: Vec<char> = account.chars().filter(|c| !c.is_whitespace()).collect();
    match digits.len() {
        0 => String::new(),
        n if n <= 4 => "*".repeat(n),
        n => format!("****{}", digits[n - 4..].iter().collect::<String>()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owed(n: u128, outstanding_fen: i64, status: BillStatus) -> Owed {
        Owed {
            bill_id: Uuid::from_u128(n),
            bill_no: format!("ZD{n}"),
            channel: Channel::Standard,
            status,
            outstanding_fen,
        }
    }

    #[test]
    fn every_bill_takes_its_outstanding_or_one_bill_takes_part() {
        let bills = [
            owed(1, 300, BillStatus::Unpaid),
            owed(2, 200, BillStatus::PartiallyPaid),
        ];
        let all = allocate(&bills, 0).unwrap();
        assert_eq!(total(&all), 500);
        assert_eq!(all[1].amount_fen, 200);
        assert_eq!(
            allocate(&bills, 100).unwrap_err().fields[0].field,
            "amountFen"
        );
        let part = allocate(&bills[..1], 120).unwrap();
        assert_eq!(total(&part), 120);
        assert_eq!(
            allocate(&bills[..1], 301).unwrap_err().fields[0].field,
            "amountFen"
        );
    }

    #[test]
    fn paid_cancelled_or_mixed_channel_bills_are_refused() {
        for status in [
            BillStatus::Paid,
            BillStatus::Cancelled,
            BillStatus::PendingConfirmation,
        ] {
            let err = allocate(&[owed(1, 300, status)], 0).unwrap_err();
            assert_eq!(err.code, ErrorCode::Conflict, "{status:?}");
        }
        let mut b2b = owed(2, 100, BillStatus::Unpaid);
        b2b.channel = Channel::B2b;
        let err = allocate(&[owed(1, 100, BillStatus::Unpaid), b2b], 0).unwrap_err();
        assert_eq!(err.fields[0].field, "billIds");
        assert_eq!(allocate(&[], 0).unwrap_err().fields[0].field, "billIds");
    }

    #[test]
    fn a_late_bank_payment_applies_what_is_still_owed_and_keeps_the_rest() {
        let planned = [
            Allocation {
                bill_id: Uuid::from_u128(1),
                bill_no: "ZD1".into(),
                amount_fen: 300,
            },
            Allocation {
                bill_id: Uuid::from_u128(2),
                bill_no: "ZD2".into(),
                amount_fen: 200,
            },
        ];
        let now = [
            owed(1, 100, BillStatus::PartiallyPaid),
            owed(2, 0, BillStatus::Paid),
        ];
        let (applied, rest) = applicable(&planned, &now);
        assert_eq!(applied.len(), 1);
        assert_eq!(applied[0].amount_fen, 100);
        assert_eq!(rest, 400);
    }

    #[test]
    fn the_total_must_be_the_one_seen_and_accounts_are_masked() {
        assert!(same_total(500, 500).is_ok());
        assert_eq!(same_total(499, 500).unwrap_err().code, ErrorCode::Conflict);
        assert_eq!(masked_account("6222 0212 3456 7890"), "****7890");
        assert_eq!(masked_account("12"), "**");
        assert_eq!(masked_account(""), "");
    }
}

//! The refund's pure rules and stored codes: how much a bill may still
//! have refunded, the transitions of its state machine, and its number.

use chrono::{DateTime, Utc};
use fleetdesk_kit::{ErrorCode, ServiceError};
use fleetdesk_proto::finance::v1 as pb;
use uuid::Uuid;

use crate::calendar;
use crate::codes::stored_code;

stored_code! {
    RefundReason => pb::RefundReason {
        Overpayment = 1,
        DepositReturn = 2,
        ServiceCancelled = 3,
        BillingError = 4,
        Other = 5,
    }
}

stored_code! {
    RefundMethod => pb::RefundMethod {
        OriginalRoute = 1,
        BankTransfer = 2,
        PrepaidBalance = 3,
    }
}

stored_code! {
    RefundStatus => pb::RefundStatus {
        PendingReview = 1,
        PendingConfirmation = 2,
        Processing = 3,
        Completed = 4,
        Rejected = 5,
        Cancelled = 6,
        Failed = 7,
    }
}

impl RefundStatus {
    /// Applied or proposed, not yet paying out: may be confirmed or cancelled.
    pub fn open(self) -> bool {
        matches!(
            self,
            RefundStatus::PendingReview | RefundStatus::PendingConfirmation
        )
    }

    /// Counts against what the bill may still have refunded.
    pub fn in_flight(self) -> bool {
        matches!(
            self,
            RefundStatus::PendingReview
                | RefundStatus::PendingConfirmation
                | RefundStatus::Processing
        )
    }

    pub fn label(self) -> &'static str {
        match self {
            RefundStatus::PendingReview => "待审核",
            RefundStatus::PendingConfirmation => "待确认",
            RefundStatus::Processing => "退款中",
            RefundStatus::Completed => "已退款",
            RefundStatus::Rejected => "已驳回",
            RefundStatus::Cancelled => "已撤销",
            RefundStatus::Failed => "退款失败",
        }
    }
}

impl RefundMethod {
    /// The methods finance pays out by; a transfer to another account
    /// (the stand-in bank refunds only against a paid order) is not built.
    pub fn check(self) -> Result<RefundMethod, ServiceError> {
        match self {
            RefundMethod::OriginalRoute | RefundMethod::PrepaidBalance => Ok(self),
            RefundMethod::BankTransfer => Err(ServiceError::invalid(
                "method",
                "暂不支持退至指定银行账户，请选择原路退回或退至预付余额",
            )),
        }
    }
}

/// What a bill may still have refunded: paid, less refunded, less what
/// refunds in flight (applied, proposed or paying out) already claim.
pub fn refundable(paid_fen: i64, refunded_fen: i64, in_flight_fen: i64) -> i64 {
    (paid_fen - refunded_fen - in_flight_fen).max(0)
}

/// A refund of `amount_fen` against a bill that may still refund `room_fen`.
pub fn check_amount(amount_fen: i64, room_fen: i64) -> Result<(), ServiceError> {
    if amount_fen <= 0 {
        return Err(ServiceError::invalid("amountFen", "退款金额须大于 0"));
    }
    if amount_fen > room_fen {
        return Err(ServiceError::invalid(
            "amountFen",
            format!(
                "退款金额不能超过可退金额 {} 元",
                fleetdesk_kit::export::scope::yuan(room_fen)
            ),
        ));
    }
    Ok(())
}

/// Only an applied or proposed refund may be confirmed or cancelled.
pub fn require_open(status: RefundStatus) -> Result<(), ServiceError> {
    if !status.open() {
        return Err(ServiceError::new(
            ErrorCode::Conflict,
            format!("退款{}，不能再确认或撤销", status.label()),
        ));
    }
    Ok(())
}

/// The amount the user saw must still be the refund's.
pub fn same_amount(expected_fen: i64, amount_fen: i64) -> Result<(), ServiceError> {
    if expected_fen != amount_fen {
        return Err(ServiceError::taken(
            "expectedAmountFen",
            "退款金额已变化，请刷新后重试",
        ));
    }
    Ok(())
}

/// e.g. TK20261208-3F2A9C1B: the day (Asia/Shanghai) and the id's first digits.
pub fn refund_no(id: Uuid, at: DateTime<Utc>) -> String {
    let digits = id.simple().to_string()[..8].to_uppercase();
    format!("TK{}-{digits}", calendar::day_of(at).format("%Y%m%d"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refund_never_exceeds_paid_less_refunded_and_in_flight() {
        assert_eq!(refundable(1000, 200, 300), 500);
        assert_eq!(refundable(1000, 800, 300), 0);
        assert!(check_amount(500, 500).is_ok());
        assert_eq!(
            check_amount(501, 500).unwrap_err().fields[0].field,
            "amountFen"
        );
        assert_eq!(
            check_amount(0, 500).unwrap_err().fields[0].field,
            "amountFen"
        );
    }

    #[test]
    fn only_open_refunds_move_on_and_only_some_count_in_flight() {
        for s in RefundStatus::ALL {
            assert_eq!(require_open(*s).is_ok(), s.open(), "{s:?}");
        }
        assert!(RefundStatus::Processing.in_flight());
        assert!(!RefundStatus::Failed.in_flight());
        assert!(!RefundStatus::Completed.in_flight());
        assert!(RefundMethod::BankTransfer.check().is_err());
        assert_eq!(same_amount(1, 2).unwrap_err().code, ErrorCode::Conflict);
    }
}

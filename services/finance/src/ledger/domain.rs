//! Finance's account and transfer kinds (the codes the ledger stores), the
//! ledger core's types fixed to them, and how they read on the wire
//! (`LedgerAccount`, `LedgerBusinessType`).

use fleetdesk_proto::finance::v1 as pb;

use crate::codes::stored_code;

stored_code!(
    /// What a ledger account of an enterprise holds.
    AccountKind {
        /// The enterprise's prepaid balance with the operator (PREPAID_BALANCE).
        Main = 1,
        /// The world outside: money paid in through the bank and paid back
        /// out; may go negative (it owes what came in).
        Bank = 2,
        /// The operator's income from the enterprise's bills (one account;
        /// each transfer's memo names the bills it paid).
        Revenue = 3,
        /// The operator's coupon budget: a coupon's discount is revenue
        /// paid from here; may go negative.
        CouponFunding = 4,
        /// Money of one bank refund on its way (owner: the refund).
        Hold = 5,
    }
);

impl AccountKind {
    /// Only BANK and COUPON_FUNDING may go below zero: they are sources.
    pub fn may_go_negative(self) -> bool {
        match self {
            AccountKind::Bank | AccountKind::CouponFunding => true,
            AccountKind::Main | AccountKind::Revenue | AccountKind::Hold => false,
        }
    }

    /// As a refusal names it.
    pub fn label(self) -> &'static str {
        match self {
            AccountKind::Main => "预付账户",
            AccountKind::Bank => "银行账户",
            AccountKind::Revenue => "平台收入账户",
            AccountKind::CouponFunding => "优惠券资金账户",
            AccountKind::Hold => "退款在途账户",
        }
    }

    /// The account as the enterprise sees it; None for the operator's side.
    pub fn to_pb(self) -> Option<pb::LedgerAccount> {
        match self {
            AccountKind::Main => Some(pb::LedgerAccount::PrepaidBalance),
            AccountKind::Bank
            | AccountKind::Revenue
            | AccountKind::CouponFunding
            | AccountKind::Hold => None,
        }
    }
}

stored_code!(
    /// Why money moved. Each kind's key is the id of the payment or refund
    /// behind it (a top-up's: its own key).
    TransferKind {
        /// BANK → MAIN: money paid in to the prepaid balance (and the part
        /// of a bank payment its bills no longer needed).
        TopUp = 1,
        /// MAIN → REVENUE: bills paid from the prepaid balance.
        BalancePayment = 2,
        /// BANK → REVENUE: bills paid through the bank.
        BankPayment = 3,
        /// COUPON_FUNDING → REVENUE: the part of a payment a coupon paid.
        CouponDiscount = 4,
        /// REVENUE → MAIN: a refund to the prepaid balance.
        BalanceRefund = 5,
        /// REVENUE → HOLD(refund): a bank refund confirmed, on its way.
        RefundHold = 6,
        /// HOLD(refund) → BANK: the bank paid the refund out.
        RefundPayout = 7,
        /// HOLD(refund) → REVENUE: the bank refused the refund.
        RefundVoid = 8,
        /// Any accounts: an operator's correction of an earlier transfer.
        Adjustment = 9,
    }
);

impl TransferKind {
    /// What the movement was, as the enterprise's statement says.
    pub fn business_type(self) -> pb::LedgerBusinessType {
        match self {
            TransferKind::TopUp => pb::LedgerBusinessType::TopUp,
            TransferKind::BalancePayment
            | TransferKind::BankPayment
            | TransferKind::CouponDiscount => pb::LedgerBusinessType::BillPayment,
            TransferKind::BalanceRefund
            | TransferKind::RefundHold
            | TransferKind::RefundPayout
            | TransferKind::RefundVoid => pb::LedgerBusinessType::Refund,
            TransferKind::Adjustment => pb::LedgerBusinessType::Adjustment,
        }
    }

    /// The kinds a statement filter for `business` asks for.
    pub fn of_business(business: pb::LedgerBusinessType) -> Vec<TransferKind> {
        TransferKind::ALL
            .iter()
            .copied()
            .filter(|k| k.business_type() == business)
            .collect()
    }
}

impl fleetdesk_ledger::AccountCode for AccountKind {
    fn may_go_negative(self) -> bool {
        AccountKind::may_go_negative(self)
    }

    fn label(self) -> &'static str {
        AccountKind::label(self)
    }
}

impl fleetdesk_ledger::TransferCode for TransferKind {
    type Account = AccountKind;
}

/// A money movement to post with [`crate::ledger::transfer`].
pub type Transfer = fleetdesk_ledger::Transfer<TransferKind>;
/// Why a transfer did not post, naming finance's account kinds.
pub type TransferError = fleetdesk_ledger::TransferError<AccountKind>;

#[cfg(test)]
mod tests {
    use fleetdesk_kit::{ErrorCode, ServiceError};
    use uuid::Uuid;

    use super::*;

    #[test]
    fn only_the_sources_may_go_negative() {
        for kind in [AccountKind::Bank, AccountKind::CouponFunding] {
            assert!(kind.may_go_negative(), "{kind:?}");
        }
        for kind in [AccountKind::Main, AccountKind::Revenue, AccountKind::Hold] {
            assert!(!kind.may_go_negative(), "{kind:?}");
        }
    }

    #[test]
    fn a_short_balance_reads_as_chinese_naming_the_prepaid_balance() {
        let err = ServiceError::from(TransferError::Insufficient {
            account_id: Uuid::nil(),
            kind: AccountKind::Main,
            available_fen: 1234,
            needed_fen: 5000,
        });
        assert_eq!(err.code, ErrorCode::Conflict);
        assert_eq!(
            err.message,
            "预付账户余额不足：可用 12.34 元，本次需要 50.00 元"
        );
    }

    #[test]
    fn every_business_type_filter_finds_its_kinds() {
        assert_eq!(
            TransferKind::of_business(pb::LedgerBusinessType::TopUp),
            vec![TransferKind::TopUp]
        );
        assert_eq!(
            TransferKind::of_business(pb::LedgerBusinessType::Refund).len(),
            4
        );
        assert!(TransferKind::of_business(pb::LedgerBusinessType::DepositHeld).is_empty());
    }
}

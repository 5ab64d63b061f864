//! Energy's account and transfer kinds (the codes the ledger stores) and
//! the ledger core's types fixed to them; the rules themselves are the
//! `fleetdesk-ledger` crate's.

use crate::codes::stored_code;

stored_code!(
    /// What a ledger account holds.
    AccountKind {
        /// The enterprise's main charging account.
        Main = 1,
        /// An organisation's sub-account (owner: the organisation).
        Organization = 2,
        /// A charging card's balance (owner: the card).
        Card = 3,
        /// Money held for one charging session (owner: the session).
        Hold = 4,
        /// Where seeded and topped-up money comes from; may go negative.
        Funding = 5,
        /// What the charging operator earned for electricity (before the
        /// parts below had accounts of their own: every capture).
        PlatformRevenue = 6,
        /// Earned for the charging service (the per-kWh service fee).
        ServiceFeeRevenue = 7,
        /// Earned for charging time (OCPI TIME prices).
        TimeFeeRevenue = 8,
        /// Earned for parking time (OCPI PARKING_TIME prices).
        ParkingFeeRevenue = 9,
        /// Earned for starting sessions (OCPI FLAT prices).
        FixedFeeRevenue = 10,
        /// Earned for reservations.
        ReservationFeeRevenue = 11,
    }
);

impl AccountKind {
    /// Only the funding account may go below zero (it owes the money it issued).
    pub fn may_go_negative(self) -> bool {
        match self {
            AccountKind::Funding => true,
            AccountKind::Main
            | AccountKind::Organization
            | AccountKind::Card
            | AccountKind::Hold
            | AccountKind::PlatformRevenue
            | AccountKind::ServiceFeeRevenue
            | AccountKind::TimeFeeRevenue
            | AccountKind::ParkingFeeRevenue
            | AccountKind::FixedFeeRevenue
            | AccountKind::ReservationFeeRevenue => false,
        }
    }

    /// Whether a capture may credit it: the operator's revenue accounts.
    pub fn is_revenue(self) -> bool {
        match self {
            AccountKind::PlatformRevenue
            | AccountKind::ServiceFeeRevenue
            | AccountKind::TimeFeeRevenue
            | AccountKind::ParkingFeeRevenue
            | AccountKind::FixedFeeRevenue
            | AccountKind::ReservationFeeRevenue => true,
            AccountKind::Main
            | AccountKind::Organization
            | AccountKind::Card
            | AccountKind::Hold
            | AccountKind::Funding => false,
        }
    }

    /// As a refusal names it.
    pub fn label(self) -> &'static str {
        match self {
            AccountKind::Main => "主账户",
            AccountKind::Organization => "组织账户",
            AccountKind::Card => "充电卡",
            AccountKind::Hold => "充电预授权",
            AccountKind::Funding => "资金来源账户",
            AccountKind::PlatformRevenue => "平台电费收入账户",
            AccountKind::ServiceFeeRevenue => "平台服务费收入账户",
            AccountKind::TimeFeeRevenue => "平台时长费收入账户",
            AccountKind::ParkingFeeRevenue => "平台停车费收入账户",
            AccountKind::FixedFeeRevenue => "平台启动费收入账户",
            AccountKind::ReservationFeeRevenue => "平台预约费收入账户",
        }
    }
}

stored_code!(
    /// Why money moved.
    TransferKind {
        /// FUNDING → MAIN: a top-up (seeded now, finance later).
        TopUp = 1,
        /// Parent account → direct child.
        Allocate = 2,
        /// Child account → its parent.
        Reclaim = 3,
        /// Organisation account ↔ card (top-up, withdrawal, cancel return).
        CardChange = 4,
        /// CARD → HOLD of a session.
        Hold = 5,
        /// HOLD → PLATFORM_REVENUE: what the session cost.
        Capture = 6,
        /// HOLD → CARD: what the session did not use.
        Release = 7,
        /// Any accounts: a correction of an earlier transfer.
        Correction = 8,
    }
);

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
/// Why a transfer did not post, naming energy's account kinds.
pub type TransferError = fleetdesk_ledger::TransferError<AccountKind>;

#[cfg(test)]
mod tests {
    use fleetdesk_kit::{ErrorCode, ServiceError};
    use fleetdesk_ledger::{Leg, Locked, apply};
    use uuid::Uuid;

    use super::*;

    fn locked(kind: AccountKind, balance_fen: i64, overdraft_fen: i64) -> Locked<AccountKind> {
        Locked {
            id: Uuid::from_u128(balance_fen as u128),
            kind,
            balance_fen,
            may_go_negative: kind.may_go_negative(),
            overdraft_fen,
        }
    }

    #[test]
    fn a_debit_stops_at_the_floor_except_on_funding() {
        let card = locked(AccountKind::Card, 500, 0);
        let hold = locked(AccountKind::Hold, 0, 0);
        let ok = apply(
            &[card, hold],
            &[Leg::debit(card.id, 500), Leg::credit(hold.id, 500)],
        );
        assert_eq!(ok.unwrap(), vec![0, 500]);
        let short = apply(
            &[card, hold],
            &[Leg::debit(card.id, 501), Leg::credit(hold.id, 501)],
        );
        assert!(matches!(
            short,
            Err(TransferError::Insufficient {
                available_fen: 500,
                needed_fen: 501,
                ..
            })
        ));
        let main = locked(AccountKind::Main, 100, 1000);
        assert_eq!(
            apply(
                &[main, hold],
                &[Leg::debit(main.id, 1100), Leg::credit(hold.id, 1100)]
            )
            .unwrap(),
            vec![-1000, 1100]
        );
        let funding = locked(AccountKind::Funding, 0, 0);
        assert_eq!(
            apply(
                &[funding, main],
                &[Leg::debit(funding.id, 9), Leg::credit(main.id, 9)]
            )
            .unwrap(),
            vec![-9, 109]
        );
    }

    #[test]
    fn a_refusal_reads_as_chinese_with_yuan() {
        let err = ServiceError::from(TransferError::Insufficient {
            account_id: Uuid::nil(),
            kind: AccountKind::Organization,
            available_fen: 1234,
            needed_fen: 5000,
        });
        assert_eq!(err.code, ErrorCode::Conflict);
        assert_eq!(
            err.message,
            "组织账户余额不足：可用 12.34 元，本次需要 50.00 元"
        );
        assert_eq!(
            ServiceError::from(TransferError::KeyReused)
                .code
                .edge_code(),
            4009
        );
    }
}

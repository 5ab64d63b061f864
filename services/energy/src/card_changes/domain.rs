//! Rules of amount changes: their kinds and which way each moves money.

use fleetdesk_proto::energy::v1 as pb;

use crate::codes::stored_code;

stored_code!(
    /// Why a card's balance changed.
    ChangeKind => pb::CardAmountChangeKind {
        TopUp = 1, Withdraw = 2, Consume = 3, Refund = 4, CancelReturn = 5,
    }
);

impl ChangeKind {
    pub fn label(self) -> &'static str {
        match self {
            ChangeKind::TopUp => "充值",
            ChangeKind::Withdraw => "退款至账户",
            ChangeKind::Consume => "充电消费",
            ChangeKind::Refund => "消费退款",
            ChangeKind::CancelReturn => "注销退回",
        }
    }

    /// Whether the card gains (true) or loses the amount.
    pub fn credits_card(self) -> bool {
        match self {
            ChangeKind::TopUp | ChangeKind::Refund => true,
            ChangeKind::Withdraw | ChangeKind::Consume | ChangeKind::CancelReturn => false,
        }
    }

    /// The card's balance before a change that left `after`.
    pub fn balance_before(self, after: i64, amount_fen: i64) -> i64 {
        if self.credits_card() {
            after - amount_fen
        } else {
            after + amount_fen
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_balance_before_undoes_the_change() {
        assert_eq!(ChangeKind::TopUp.balance_before(500, 200), 300);
        assert_eq!(ChangeKind::Withdraw.balance_before(300, 200), 500);
        assert_eq!(ChangeKind::CancelReturn.balance_before(0, 700), 700);
    }
}

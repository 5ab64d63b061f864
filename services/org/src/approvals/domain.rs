//! The approval state machine and its stored codes.

use fleetdesk_kit::{ErrorCode, ServiceError};
use fleetdesk_proto::org::v1 as pb;

use crate::codes::stored_code;

/// Longest decision comment.
pub const MAX_COMMENT: usize = 200;
/// Most plates one vehicle allotment filter takes (docs/ARCHITECTURE.md §3).
pub const MAX_PLATES: usize = 250;

stored_code!(
    /// Where an approval stands (`approval.status`, `approval_step.status`).
    State => pb::ApprovalStatus {
        Pending = 1,
        Approved = 2,
        Rejected = 3,
        Withdrawn = 4,
    }
);

stored_code!(
    /// What an approval is about (`approval.kind`).
    Kind => pb::ApprovalKind {
        VehicleAllotment = 1,
        ChargeAllocation = 2,
        Refund = 3,
        Invoice = 4,
        RepairPrice = 5,
    }
);

/// What someone does to an approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Approve,
    Reject,
    Withdraw,
}

/// A move the state machine refuses: the approval is no longer pending.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotPending(pub State);

impl State {
    /// The state after `action`: only a pending approval moves; every
    /// other state is final.
    pub fn apply(self, action: Action) -> Result<State, NotPending> {
        match (self, action) {
            (State::Pending, Action::Approve) => Ok(State::Approved),
            (State::Pending, Action::Reject) => Ok(State::Rejected),
            (State::Pending, Action::Withdraw) => Ok(State::Withdrawn),
            (State::Approved | State::Rejected | State::Withdrawn, _) => Err(NotPending(self)),
        }
    }
}

impl From<NotPending> for ServiceError {
    fn from(err: NotPending) -> Self {
        let what = match err.0 {
            State::Approved => "已通过",
            State::Rejected => "已驳回",
            State::Withdrawn => "已撤回",
            State::Pending => "待审批",
        };
        ServiceError::new(ErrorCode::Conflict, format!("该审批{what}，不能重复处理"))
    }
}

/// The action of a decision: approving, or rejecting with a reason.
pub fn decision(approve: bool, comment: &str) -> Result<Action, ServiceError> {
    if approve {
        Ok(Action::Approve)
    } else if comment.is_empty() {
        Err(ServiceError::invalid("comment", "请填写驳回原因"))
    } else {
        Ok(Action::Reject)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ACTIONS: [Action; 3] = [Action::Approve, Action::Reject, Action::Withdraw];

    #[test]
    fn a_pending_approval_moves_to_the_state_the_action_names() {
        assert_eq!(State::Pending.apply(Action::Approve), Ok(State::Approved));
        assert_eq!(State::Pending.apply(Action::Reject), Ok(State::Rejected));
        assert_eq!(State::Pending.apply(Action::Withdraw), Ok(State::Withdrawn));
    }

    #[test]
    fn every_decided_state_is_final() {
        for state in State::ALL.iter().copied().filter(|s| *s != State::Pending) {
            for action in ACTIONS {
                assert_eq!(
                    state.apply(action),
                    Err(NotPending(state)),
                    "{state:?} {action:?}"
                );
            }
        }
    }

    #[test]
    fn a_second_decision_is_a_conflict() {
        let err = ServiceError::from(State::Approved.apply(Action::Reject).unwrap_err());
        assert_eq!(err.code, ErrorCode::Conflict);
        assert!(err.message.contains("已通过"), "{}", err.message);
    }

    #[test]
    fn codes_round_trip_and_match_the_contract() {
        for state in State::ALL {
            assert_eq!(State::try_from(i16::from(*state)), Ok(*state));
        }
        assert_eq!(State::Pending.pb(), pb::ApprovalStatus::Pending as i32);
        assert_eq!(State::Approved.pb(), pb::ApprovalStatus::Approved as i32);
        assert_eq!(State::Rejected.pb(), pb::ApprovalStatus::Rejected as i32);
        assert_eq!(State::Withdrawn.pb(), pb::ApprovalStatus::Withdrawn as i32);
        assert!(State::try_from(0).is_err());
        assert!(State::try_from(5).is_err());
    }
}

//! Rules of remote lock: the command's states and moves, the reason, and
//! the interlocks a lock must pass. Pure.

use chrono::{DateTime, Duration, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_proto::vehicle::v1 as pb;

use crate::codes::stored_code;

stored_code!(
    /// Lock or unlock.
    LockAction => pb::LockAction { Lock = 1, Unlock = 2 }
);

stored_code!(
    /// Where a command is (codes as LockCommandStatus).
    CommandState => pb::LockCommandStatus {
        Pending = 1, Sent = 2, Succeeded = 3, Failed = 4, Cancelled = 5, Expired = 6,
        Acknowledged = 7, TimedOut = 8,
    }
);

impl LockAction {
    pub fn label(self) -> &'static str {
        match self {
            LockAction::Lock => "远程锁车",
            LockAction::Unlock => "远程解锁",
        }
    }
}

impl CommandState {
    /// No move leaves this state.
    pub fn is_final(self) -> bool {
        match self {
            CommandState::Pending | CommandState::Sent | CommandState::Acknowledged => false,
            CommandState::Succeeded
            | CommandState::Failed
            | CommandState::Cancelled
            | CommandState::Expired
            | CommandState::TimedOut => true,
        }
    }

    /// The states a terminal's answer may move a command out of.
    pub const ANSWERABLE: [CommandState; 3] = [
        CommandState::Pending,
        CommandState::Sent,
        CommandState::Acknowledged,
    ];
}

/// How long a queued command waits for its terminal to come online.
pub const QUEUE_FOR: Duration = Duration::minutes(10);
/// How long a sent command waits for the terminal's answer.
pub const ANSWER_WITHIN: Duration = Duration::seconds(60);
/// A lock needs a fix at most this old.
pub const FRESH_FIX: Duration = Duration::seconds(60);

pub const OFFLINE: &str = "车辆离线或定位超过60秒未更新，不能锁车";
pub const MOVING: &str = "车辆行驶中，不能锁车";
pub const CHARGING: &str = "车辆充电中，不能锁车";

/// A checked reason: 2 to 200 characters.
pub fn reason(text: &str) -> Result<String, ServiceError> {
    let text = text.trim();
    let chars = text.chars().count();
    if !(2..=200).contains(&chars) {
        return Err(ServiceError::invalid("reason", "请填写原因（2-200个字）"));
    }
    Ok(text.to_owned())
}

/// What the latest fix says, for the interlocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Latest {
    pub fix_time: DateTime<Utc>,
    pub speed_dkmh: i32,
    pub charging: bool,
}

/// Refuses a lock unless the latest fix is under 60 s old, the vehicle
/// stands and is not charging.
pub fn lock_interlocks(latest: Option<Latest>, now: DateTime<Utc>) -> Result<(), ServiceError> {
    let Some(latest) = latest.filter(|l| now - l.fix_time <= FRESH_FIX) else {
        return Err(ServiceError::invalid("vehicleId", OFFLINE));
    };
    if latest.speed_dkmh > 0 {
        return Err(ServiceError::invalid("vehicleId", MOVING));
    }
    if latest.charging {
        return Err(ServiceError::invalid("vehicleId", CHARGING));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn latest(age_s: i64, speed: i32, charging: bool, now: DateTime<Utc>) -> Option<Latest> {
        Some(Latest {
            fix_time: now - Duration::seconds(age_s),
            speed_dkmh: speed,
            charging,
        })
    }

    #[test]
    fn a_lock_needs_a_fresh_fix_standing_and_not_charging() {
        let now = Utc::now();
        let message = |r: Result<(), ServiceError>| r.unwrap_err().message;
        assert_eq!(message(lock_interlocks(None, now)), OFFLINE);
        assert_eq!(
            message(lock_interlocks(latest(61, 0, false, now), now)),
            OFFLINE
        );
        assert_eq!(
            message(lock_interlocks(latest(5, 3, false, now), now)),
            MOVING
        );
        assert_eq!(
            message(lock_interlocks(latest(5, 0, true, now), now)),
            CHARGING
        );
        assert!(lock_interlocks(latest(5, 0, false, now), now).is_ok());
    }

    #[test]
    fn a_reason_has_two_to_two_hundred_characters() {
        assert!(reason(" 欠 ").is_err());
        assert_eq!(reason(" 逾期 ").unwrap(), "逾期");
        assert!(reason(&"欠".repeat(201)).is_err());
        assert!(reason(&"欠".repeat(200)).is_ok());
    }

    #[test]
    fn only_unfinished_commands_take_answers() {
        for state in CommandState::ALL {
            assert_eq!(
                CommandState::ANSWERABLE.contains(state),
                !state.is_final(),
                "{state:?}"
            );
        }
    }
}

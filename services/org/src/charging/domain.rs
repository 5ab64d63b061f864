//! Energy's charging state as org keeps it, and the flags it sets.

use fleetdesk_proto::energy::v1::ChargingOpenState;

use crate::codes::stored_code;

stored_code!(
    /// Energy's state of an enterprise (`enterprise_charging.state`).
    ChargingState => ChargingOpenState {
        /// Never applied, or the last application was rejected.
        NotOpened = 1,
        /// An application is pending.
        Applying = 2,
        /// A charging account exists.
        Opened = 3,
    }
);

/// Energy's state of an enterprise, as the flags read it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Charging {
    /// A charging account exists (isChargeAccount).
    pub opened: bool,
    /// An application is pending (isChargeApplying).
    pub applying: bool,
}

impl Charging {
    pub fn of(state: ChargingState) -> Charging {
        match state {
            ChargingState::Opened => Charging {
                opened: true,
                applying: false,
            },
            ChargingState::Applying => Charging {
                opened: false,
                applying: true,
            },
            ChargingState::NotOpened => Charging::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_state_sets_at_most_one_flag() {
        assert_eq!(
            Charging::of(ChargingState::Opened),
            Charging {
                opened: true,
                applying: false
            }
        );
        assert!(Charging::of(ChargingState::Applying).applying);
        assert_eq!(Charging::of(ChargingState::NotOpened), Charging::default());
        assert_eq!(ChargingState::from_pb(0), None);
    }
}

//! The lists an enterprise is on, as one value.

use fleetdesk_proto::org::v1 as pb;

use super::rules::ListMembership;
use crate::charging::domain::Charging;
use crate::codes::stored_code;

stored_code!(
    /// One of the operator's lists (`enterprise_list_entry.list_type`).
    ListType => pb::EnterpriseListType {
        White = 1,
        Sf = 2,
        Mt = 3,
        BehaviorAnalysis = 4,
        LockCar = 5,
        ChargeBlacklist = 6,
        InsuranceBlacklist = 7,
        OrderCenter = 8,
        NeedOpenPage = 9,
    }
);

/// Everything the lists say about one enterprise.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lists {
    pub membership: ListMembership,
    /// On the need-open-page list: its console opens these pages in a new tab.
    pub need_open_pages: Vec<String>,
    /// Energy's charging state (not a list, but a flag of the same kind).
    pub charging: Charging,
}

/// Membership of the lists `on`, given whether the lock-car list is empty.
pub fn membership(on: &[ListType], lock_car_list_empty: bool) -> ListMembership {
    let on = |t: ListType| on.contains(&t);
    ListMembership {
        white: on(ListType::White),
        sf_list: on(ListType::Sf),
        mt: on(ListType::Mt),
        behavior_analysis: on(ListType::BehaviorAnalysis),
        lock_car_list_empty,
        lock_car: on(ListType::LockCar),
        charge_blacklist: on(ListType::ChargeBlacklist),
        insurance_blacklist: on(ListType::InsuranceBlacklist),
        order_center: on(ListType::OrderCenter),
    }
}

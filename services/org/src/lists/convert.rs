//! Proto ↔ domain for the lists: the flags the console and gateway see, and
//! a list type off the wire.

use fleetdesk_kit::ServiceError;
use fleetdesk_proto::org::v1 as pb;

use super::domain::{ListType, Lists};
use super::rules::Groups;
use crate::charging::domain::Charging;

/// The flags the console and gateway see.
pub fn flags(lists: &Lists) -> pb::EnterpriseFlags {
    let Lists {
        membership: m,
        need_open_pages,
        charging: Charging { opened, applying },
    } = lists;
    let Groups { white, sf, mt, b2b } = m.groups();
    pb::EnterpriseFlags {
        white_list: white,
        sf,
        mt,
        b2b,
        behavior_analysis: m.behavior_analysis,
        lock_car: m.lock_car || m.lock_car_list_empty,
        charge_blacklist: m.charge_blacklist,
        insurance_blacklist: m.insurance_blacklist,
        order_center: m.order_center || sf,
        need_open_pages: need_open_pages.clone(),
        charge_account: *opened,
        charge_applying: *applying,
    }
}

/// A list type from a request: one of the lists, never unspecified.
pub fn list_type(value: i32) -> Result<ListType, ServiceError> {
    ListType::from_pb(value).ok_or_else(|| ServiceError::invalid("listType", "名单类型无效"))
}

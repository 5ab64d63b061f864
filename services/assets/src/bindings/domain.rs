//! Rules of the binding log: what a vehicle can be bound to.

use fleetdesk_proto::vehicle::v1 as pb;

use crate::codes::stored_code;

stored_code!(
    /// What a binding ties the vehicle to.
    BindingKind => pb::BindingKind {
        Driver = 1, Organization = 2, Terminal = 3,
    }
);

impl BindingKind {
    /// As the console names it.
    pub fn label(self) -> &'static str {
        match self {
            BindingKind::Driver => "司机",
            BindingKind::Organization => "组织",
            BindingKind::Terminal => "终端",
        }
    }
}

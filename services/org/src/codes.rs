//! Stored codes shared by several subjects: kit's `stored_code!` enums (an
//! exhaustive conversion from and to the `smallint` column and the proto
//! enum). A subject's own codes live in its `domain`.

pub(crate) use fleetdesk_kit::stored_code;

pub use fleetdesk_kit::codes::optional;

use fleetdesk_kit::ServiceError;
use fleetdesk_proto::org::v1 as pb;

stored_code!(
    /// Whether an enterprise, organisation, role or member is in use.
    Status => pb::EnabledStatus { Enabled = 1, Disabled = 2 }
);

impl Status {
    /// A stored status; anything but enabled reads as disabled, so a code
    /// this service does not know never opens anything.
    pub fn of_column(code: i16) -> Status {
        Status::try_from(code).unwrap_or(Status::Disabled)
    }

    /// A status from a request; `None` when unspecified.
    pub fn from_request(value: i32) -> Result<Option<Status>, ServiceError> {
        match pb::EnabledStatus::try_from(value) {
            Ok(pb::EnabledStatus::Unspecified) => Ok(None),
            Ok(pb::EnabledStatus::Enabled) => Ok(Some(Status::Enabled)),
            Ok(pb::EnabledStatus::Disabled) => Ok(Some(Status::Disabled)),
            Err(_) => Err(ServiceError::invalid("status", "状态无效")),
        }
    }
}

/// A stored status on the wire.
pub fn status_pb(code: i16) -> i32 {
    Status::of_column(code).pb()
}

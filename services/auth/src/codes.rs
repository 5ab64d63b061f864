//! Stored codes: kit's `stored_code!` enums (an exhaustive conversion from
//! and to the `smallint` column and the proto enum). Each subject declares
//! its own in its `domain`.

pub(crate) use fleetdesk_kit::stored_code;

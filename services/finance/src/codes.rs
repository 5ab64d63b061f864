//! Stored codes: kit's `stored_code!` enums (an exhaustive conversion from
//! and to the `smallint` column and, for codes with one, the proto enum).

pub(crate) use fleetdesk_kit::stored_code;

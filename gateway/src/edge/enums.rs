//! Edge enums: a proto enum's variants by name at the edge
//! (SCREAMING_SNAKE_CASE in JSON and OpenAPI). Each domain declares its own
//! with [`edge_enum!`]; the ones more than one domain shows live here.

use fleetdesk_proto::vehicle::v1 as pb;

/// Declares an edge enum over a proto enum: the same variants by name
/// (SCREAMING_SNAKE_CASE), both conversions exhaustive.
macro_rules! edge_enum {
    ($(#[$meta:meta])* $name:ident => $pb:path { $($(#[$vmeta:meta])* $variant:ident),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, ::serde::Serialize, ::serde::Deserialize, ::utoipa::ToSchema,
        )]
        #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
        pub enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl From<$name> for i32 {
            fn from(value: $name) -> i32 {
                use $pb as Pb;
                match value {
                    $($name::$variant => Pb::$variant as i32),+
                }
            }
        }

        impl $name {
            /// From the wire; `None` for UNSPECIFIED.
            pub fn from_pb(value: i32) -> Option<$name> {
                use $pb as Pb;
                match Pb::try_from(value).ok()? {
                    Pb::Unspecified => None,
                    $(Pb::$variant => Some($name::$variant)),+
                }
            }
        }
    };
}

pub(crate) use edge_enum;

/// Edge enums as the proto's numbers (a list filter's values).
pub fn codes<T: Into<i32>>(values: Vec<T>) -> Vec<i32> {
    values.into_iter().map(Into::into).collect()
}

edge_enum!(
    /// Kind of a usage record: rent, purchase, replacement, rent-to-own.
    UsageKind => pb::UsageKind { Rent, Purchase, Replacement, RentToOwn }
);
edge_enum!(
    /// State of a usage record.
    UsageStatus => pb::UsageRecordStatus { Pending, Active, Ended }
);

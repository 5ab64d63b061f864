//! Stored codes: each is a Rust enum kept as `smallint`, with an exhaustive
//! conversion from the column (`TryFrom<i16>`), to the column, and — when
//! the code has a proto enum (the ledger's kinds have none) — both ways to
//! it. A new proto value fails the build here until it has a stored code.

/// A stored code the enum does not know (a bug or a newer writer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("unknown {kind} code {code}")]
pub struct UnknownCode {
    pub kind: &'static str,
    pub code: i16,
}

/// Declares a stored-code enum; with `=> path`, over a proto enum whose
/// other variants are exactly the listed ones plus `Unspecified`.
macro_rules! stored_code {
    ($(#[$meta:meta])* $name:ident {
        $($(#[$vmeta:meta])* $variant:ident = $code:literal),+ $(,)?
    }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl TryFrom<i16> for $name {
            type Error = $crate::codes::UnknownCode;

            fn try_from(code: i16) -> Result<Self, Self::Error> {
                match code {
                    $($code => Ok($name::$variant),)+
                    code => Err($crate::codes::UnknownCode { kind: stringify!($name), code }),
                }
            }
        }

        impl From<$name> for i16 {
            fn from(value: $name) -> i16 {
                match value {
                    $($name::$variant => $code),+
                }
            }
        }

        impl $name {
            /// Every value, in code order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
        }
    };
    ($(#[$meta:meta])* $name:ident => $pb:path {
        $($(#[$vmeta:meta])* $variant:ident = $code:literal),+ $(,)?
    }) => {
        $crate::codes::stored_code!($(#[$meta])* $name { $($(#[$vmeta])* $variant = $code),+ });

        impl From<$name> for $pb {
            fn from(value: $name) -> $pb {
                use $pb as Pb;
                match value {
                    $($name::$variant => Pb::$variant),+
                }
            }
        }

        impl $name {
            /// From the wire; `None` for UNSPECIFIED or an unknown number.
            pub fn from_pb(value: i32) -> Option<$name> {
                use $pb as Pb;
                match Pb::try_from(value).ok()? {
                    Pb::Unspecified => None,
                    $(Pb::$variant => Some($name::$variant)),+
                }
            }

            /// The stored code as the proto enum number.
            pub fn pb(self) -> i32 {
                <$pb>::from(self) as i32
            }
        }
    };
}

pub(crate) use stored_code;

/// Reads an optional stored code, logging one the enum does not know.
pub fn optional<T: TryFrom<i16, Error = UnknownCode>>(code: Option<i16>) -> Option<T> {
    code.and_then(|c| {
        T::try_from(c)
            .map_err(|e| tracing::error!(error = %e, "Stored code not understood."))
            .ok()
    })
}

/// Reads a stored code that must be known (a row this service wrote).
pub fn known<T: TryFrom<i16, Error = UnknownCode>>(
    code: i16,
) -> Result<T, fleetdesk_kit::ServiceError> {
    T::try_from(code).map_err(|e| fleetdesk_kit::ServiceError::internal(&e))
}

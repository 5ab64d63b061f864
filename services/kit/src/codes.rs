//! Stored codes of every service: each is a Rust enum kept as `smallint`
//! (declared with [`stored_code!`](crate::stored_code)), with an exhaustive
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
#[macro_export]
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
        $crate::stored_code!($(#[$meta])* $name { $($(#[$vmeta])* $variant = $code),+ });

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

/// Reads an optional stored code, logging one the enum does not know.
pub fn optional<T: TryFrom<i16, Error = UnknownCode>>(code: Option<i16>) -> Option<T> {
    code.and_then(|c| {
        T::try_from(c)
            .map_err(|e| tracing::error!(error = %e, "Stored code not understood."))
            .ok()
    })
}

/// Reads a stored code that must be known (a row this service wrote).
pub fn known<T: TryFrom<i16, Error = UnknownCode>>(code: i16) -> Result<T, crate::ServiceError> {
    T::try_from(code).map_err(|e| crate::ServiceError::internal(&e))
}

#[cfg(test)]
mod tests {
    use fleetdesk_proto::common::v1::ExportJobStatus;

    use super::*;

    crate::stored_code!(
        /// A code over a proto enum.
        JobState => ExportJobStatus {
            Queued = 1, Running = 2, Succeeded = 3, Failed = 4,
            /// Documented variants are allowed.
            Cancelled = 9,
        }
    );

    crate::stored_code!(
        /// A code without one.
        Side { Debit = 1, Credit = 2 }
    );

    #[test]
    fn codes_convert_both_ways_and_refuse_unknown_ones() {
        for state in JobState::ALL {
            assert_eq!(JobState::try_from(i16::from(*state)).unwrap(), *state);
            assert_eq!(JobState::from_pb(state.pb()), Some(*state));
        }
        assert_eq!(i16::from(JobState::Cancelled), 9);
        assert_eq!(JobState::Cancelled.pb(), ExportJobStatus::Cancelled as i32);
        assert_eq!(JobState::from_pb(0), None);
        assert_eq!(
            Side::try_from(3),
            Err(UnknownCode {
                kind: "Side",
                code: 3
            })
        );
        assert_eq!(optional::<Side>(Some(2)), Some(Side::Credit));
        assert_eq!(optional::<Side>(Some(7)), None);
        assert!(known::<Side>(7).is_err());
    }
}

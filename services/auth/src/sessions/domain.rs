//! A session's stored kind.

use fleetdesk_proto::auth::v1 as pb;

use crate::codes::stored_code;

stored_code!(
    /// What a session is bound to (`session.kind`).
    SessionKind => pb::SessionKind {
        /// No enterprise yet: the person chooses one on /selectNet.
        Personal = 1,
        /// Bound to one enterprise.
        Enterprise = 2,
    }
);

impl SessionKind {
    /// The kind of a session bound to `enterprise`, or to none.
    pub fn of(bound: bool) -> SessionKind {
        if bound {
            SessionKind::Enterprise
        } else {
            SessionKind::Personal
        }
    }

    /// A stored kind; anything but enterprise reads as personal.
    pub fn of_column(code: i16) -> SessionKind {
        SessionKind::try_from(code).unwrap_or(SessionKind::Personal)
    }
}

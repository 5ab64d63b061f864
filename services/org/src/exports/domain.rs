//! The export record's stored status and the limits of a record.

use fleetdesk_proto::org::v1 as pb;

use crate::codes::stored_code;

/// Longest record name and module.
pub const MAX_NAME: usize = 100;
/// How long a finished export's file stays downloadable.
pub const KEEP_DAYS: i32 = 7;

stored_code!(
    /// Where an export record stands (`export_record.status`; EXPIRED is
    /// never stored, a finished record past its expiry reads as it).
    ExportStatus => pb::ExportStatus {
        Pending = 1,
        Running = 2,
        Succeeded = 3,
        Failed = 4,
        Expired = 5,
        Cancelled = 6,
    }
);

//! Proto ↔ domain for sessions: a row onto the wire.

use fleetdesk_kit::convert::timestamp;
use fleetdesk_proto::auth::v1 as pb;

use super::domain::SessionKind;
use super::store::SessionRow;

pub fn session(row: &SessionRow) -> pb::Session {
    let SessionRow {
        id,
        account_id,
        kind,
        enterprise_id,
        created_at,
        expires_at,
        revoked_at: _,
    } = row;
    pb::Session {
        id: id.to_string(),
        account_id: account_id.to_string(),
        kind: SessionKind::of_column(*kind).pb(),
        enterprise_id: enterprise_id.map(|e| e.to_string()).unwrap_or_default(),
        create_time: Some(timestamp(*created_at)),
        expire_time: Some(timestamp(*expires_at)),
    }
}

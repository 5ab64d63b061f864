//! Proto ↔ domain for notices: a row onto the wire.

use fleetdesk_kit::convert::timestamp;
use fleetdesk_proto::org::v1 as pb;

use super::store::NoticeRow;

pub fn notice(row: NoticeRow) -> pb::Notice {
    let NoticeRow {
        id,
        enterprise_id,
        title,
        content,
        category,
        link,
        published_at,
        read_at,
    } = row;
    pb::Notice {
        id: id.to_string(),
        enterprise_id: enterprise_id.to_string(),
        title,
        content,
        category,
        read: read_at.is_some(),
        publish_time: Some(timestamp(published_at)),
        read_time: read_at.map(timestamp),
        link,
    }
}

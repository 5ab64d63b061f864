//! Proto ↔ domain for dictionaries: an entry onto the wire.

use fleetdesk_proto::org::v1 as pb;

use super::store::DictRow;

pub fn entry(row: DictRow) -> pb::DictEntry {
    let DictRow {
        dict_type,
        value,
        label,
        sort,
    } = row;
    pb::DictEntry {
        r#type: dict_type,
        value,
        label,
        sort,
    }
}

//! Log rows as proto entries.

use fleetdesk_kit::convert::timestamp;
use fleetdesk_proto::common::v1 as common;

use super::store::LogRow;

pub fn entry(row: LogRow) -> common::OperationLogEntry {
    let LogRow {
        remark,
        operator_name,
        created_at,
    } = row;
    common::OperationLogEntry {
        remark,
        operator_name,
        operate_time: Some(timestamp(created_at)),
    }
}

//! Proto ↔ domain for principals: memberships and enterprises onto the wire.

use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::mask;
use fleetdesk_proto::org::v1 as pb;

use super::store::{EnterpriseRow, MembershipRow};
use crate::codes::status_pb;

pub fn membership(row: MembershipRow) -> pb::Membership {
    let MembershipRow {
        enterprise_id,
        enterprise_name,
        member_id,
        account_id,
    } = row;
    pb::Membership {
        enterprise_id: enterprise_id.to_string(),
        enterprise_name,
        user_id: member_id.to_string(),
        account_id: account_id.to_string(),
    }
}

pub fn enterprise(row: EnterpriseRow) -> pb::Enterprise {
    let EnterpriseRow {
        id,
        name,
        code,
        status,
        credit_code,
        contact_name,
        contact_phone,
        wecom_corp_id,
        created_at,
    } = row;
    pb::Enterprise {
        id: id.to_string(),
        name,
        code,
        status: status_pb(status),
        credit_code,
        contact_name,
        contact_phone_masked: mask::centre(&contact_phone),
        wecom_corp_id: wecom_corp_id.unwrap_or_default(),
        create_time: Some(timestamp(created_at)),
    }
}

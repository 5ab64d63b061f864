//! Addresses between the wire and the domain.

use fleetdesk_kit::convert::timestamp;
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::finance::v1 as pb;

use super::domain::{AddressSpec, masked_phone};
use super::store::AddressRow;

pub fn input(address: Option<pb::InvoiceAddressInput>) -> AddressSpec {
    let pb::InvoiceAddressInput {
        recipient_name,
        recipient_phone,
        area,
        detail_address,
        postal_code,
        email,
        is_default,
    } = address.unwrap_or_default();
    let common::Area {
        province_code,
        province_name,
        city_code,
        city_name,
        district_code,
        district_name,
    } = area.unwrap_or_default();
    AddressSpec {
        recipient_name,
        recipient_phone,
        province_code,
        province_name,
        city_code,
        city_name,
        district_code,
        district_name,
        detail_address,
        postal_code,
        email,
        is_default,
    }
}

pub fn address(row: AddressRow) -> pb::InvoiceAddress {
    let AddressRow {
        id,
        enterprise_id,
        recipient_name,
        recipient_phone,
        province_code,
        province_name,
        city_code,
        city_name,
        district_code,
        district_name,
        detail_address,
        postal_code,
        email,
        is_default,
        created_by_name,
        created_at,
        updated_by_name,
        updated_at,
    } = row;
    pb::InvoiceAddress {
        id: id.to_string(),
        enterprise_id: enterprise_id.to_string(),
        recipient_name,
        recipient_masked_phone: masked_phone(&recipient_phone),
        area: Some(common::Area {
            province_code,
            province_name,
            city_code,
            city_name,
            district_code,
            district_name,
        }),
        detail_address,
        postal_code,
        email,
        is_default,
        audit: Some(common::Audit {
            created_by: created_by_name,
            create_time: Some(timestamp(created_at)),
            updated_by: updated_by_name,
            update_time: Some(timestamp(updated_at)),
        }),
    }
}

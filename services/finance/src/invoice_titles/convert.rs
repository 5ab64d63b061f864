//! Titles between the wire and the domain, and the copy an application keeps.

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::codes::known;
use fleetdesk_kit::convert::timestamp;
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::finance::v1 as pb;

use super::domain::{InvoiceTitleType, TitleInput, TitleSpec};
use super::store::TitleRow;

pub fn input(title: Option<pb::InvoiceTitleInput>) -> TitleInput {
    let pb::InvoiceTitleInput {
        title_type,
        name,
        tax_number,
        registered_address,
        registered_phone,
        bank_name,
        bank_account,
        is_default,
    } = title.unwrap_or_default();
    TitleInput {
        title_type: InvoiceTitleType::from_pb(title_type),
        name,
        tax_number,
        registered_address,
        registered_phone,
        bank_name,
        bank_account,
        is_default,
    }
}

/// The stored title's fields, as the domain checks them.
pub fn spec(row: &TitleRow) -> Result<TitleSpec, ServiceError> {
    Ok(TitleSpec {
        title_type: known::<InvoiceTitleType>(row.title_type)?,
        name: row.name.clone(),
        tax_number: row.tax_number.clone(),
        tax_number_unchecked: row.tax_number_unchecked,
        registered_address: row.registered_address.clone(),
        registered_phone: row.registered_phone.clone(),
        bank_name: row.bank_name.clone(),
        bank_account: row.bank_account.clone(),
        is_default: row.is_default,
    })
}

pub fn title(row: TitleRow) -> pb::InvoiceTitle {
    let TitleRow {
        id,
        enterprise_id,
        title_type,
        name,
        tax_number,
        tax_number_unchecked: _,
        registered_address,
        registered_phone,
        bank_name,
        bank_account,
        is_default,
        created_by_name,
        created_at,
        updated_by_name,
        updated_at,
    } = row;
    pb::InvoiceTitle {
        id: id.to_string(),
        enterprise_id: enterprise_id.to_string(),
        title_type: i32::from(title_type),
        name,
        tax_number,
        registered_address,
        registered_phone,
        bank_name,
        bank_account,
        is_default,
        audit: Some(common::Audit {
            created_by: created_by_name,
            create_time: Some(timestamp(created_at)),
            updated_by: updated_by_name,
            update_time: Some(timestamp(updated_at)),
        }),
    }
}

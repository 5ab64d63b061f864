//! Proto ↔ domain for accounts: a row onto the wire, its phone masked.

use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::mask;
use fleetdesk_proto::auth::v1 as pb;

use super::domain::AccountStatus;
use super::store::AccountRow;

pub fn account(row: &AccountRow) -> pb::Account {
    let AccountRow {
        id,
        username,
        phone,
        name,
        avatar_url,
        password_hash: _,
        status,
        created_at,
    } = row;
    pb::Account {
        id: id.to_string(),
        username: username.clone(),
        name: name.clone(),
        masked_phone: phone.as_deref().map(mask::centre).unwrap_or_default(),
        avatar_url: avatar_url.clone(),
        status: AccountStatus::of_column(*status).pb(),
        create_time: Some(timestamp(*created_at)),
    }
}

//! Proto ↔ domain for charging accounts.

use chrono::{DateTime, Utc};
use fleetdesk_kit::convert::timestamp;
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::energy::v1 as pb;
use uuid::Uuid;

use super::domain::{AccountKind, AccountStatus};
use super::store::AccountRow;
use crate::codes::optional;

/// Who made and last changed a row, and when.
pub fn audit(
    created_by: Option<Uuid>,
    created_at: DateTime<Utc>,
    updated_by: Option<Uuid>,
    updated_at: DateTime<Utc>,
) -> common::Audit {
    common::Audit {
        created_by: created_by.map(|u| u.to_string()).unwrap_or_default(),
        create_time: Some(timestamp(created_at)),
        updated_by: updated_by.map(|u| u.to_string()).unwrap_or_default(),
        update_time: Some(timestamp(updated_at)),
    }
}

pub fn account(row: AccountRow, enterprise_id: Uuid) -> pb::ChargingAccount {
    let level = row.level();
    let AccountRow {
        id,
        kind,
        org_id,
        org_name,
        parent_id,
        status,
        path: _,
        balance_fen,
        overdraft_fen,
        low_balance_threshold_fen,
        total_received_fen,
        total_consumed_fen,
        card_balance_fen,
        card_count,
        child_count,
        created_by,
        updated_by,
        created_at,
        updated_at,
    } = row;
    pb::ChargingAccount {
        id: id.to_string(),
        enterprise_id: enterprise_id.to_string(),
        org_id: org_id.map(|o| o.to_string()).unwrap_or_default(),
        org_name,
        parent_account_id: parent_id.map(|p| p.to_string()).unwrap_or_default(),
        kind: optional::<AccountKind>(Some(kind)).map_or(0, AccountKind::pb),
        level,
        status: optional::<AccountStatus>(Some(status)).map_or(0, AccountStatus::pb),
        available_fen: balance_fen,
        // Sessions hold money on cards, never on an account itself.
        frozen_fen: 0,
        card_balance_fen,
        credit_limit_fen: overdraft_fen,
        low_balance_threshold_fen,
        total_received_fen,
        total_consumed_fen,
        card_count: i32::try_from(card_count).unwrap_or(i32::MAX),
        child_count: i32::try_from(child_count).unwrap_or(i32::MAX),
        audit: Some(audit(created_by, created_at, updated_by, updated_at)),
    }
}

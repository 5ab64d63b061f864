//! Plans between proto and domain, by destructuring: a new proto field
//! fails to compile here until it is handled.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::codes::known;
use fleetdesk_kit::convert::timestamp;
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use uuid::Uuid;

use super::domain::{Interval, Kind, PlanDraft, PlanFields, Window};
use super::store::PlanRow;

/// A JSON array of strings as stored (anything else reads as none).
pub fn strings(value: &serde_json::Value) -> Vec<String> {
    value
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// A plan's editable fields; its ids, names, count and audit are the
/// service's and ignored.
pub fn fields(plan: pb::MaintenancePlan) -> PlanFields {
    let pb::MaintenancePlan {
        id: _,
        enterprise_id: _,
        org_id,
        org_name: _,
        name,
        kind,
        vehicle_model,
        interval_m,
        interval_months,
        soon_m,
        soon_days,
        items,
        remark,
        vehicle_count: _,
        audit: _,
    } = plan;
    PlanFields {
        org_id,
        name,
        kind,
        vehicle_model,
        interval_m,
        interval_months,
        soon_m,
        soon_days,
        items,
        remark,
    }
}

pub fn plan(row: PlanRow, enterprise: Uuid) -> Result<pb::MaintenancePlan, ServiceError> {
    let PlanRow {
        id,
        org_id,
        org_name,
        created_by: _,
        name,
        kind,
        vehicle_model,
        interval_m,
        interval_months,
        soon_m,
        soon_days,
        items,
        remark,
        vehicle_count,
        created_by_name,
        updated_by_name,
        created_at,
        updated_at,
    } = row;
    let kind: Kind = known(kind)?;
    Ok(pb::MaintenancePlan {
        id: id.to_string(),
        enterprise_id: enterprise.to_string(),
        org_id: org_id.to_string(),
        org_name: org_name.unwrap_or_default(),
        name,
        kind: kind.pb(),
        vehicle_model,
        interval_m,
        interval_months,
        soon_m,
        soon_days,
        items: strings(&items),
        remark,
        vehicle_count,
        audit: Some(audit(
            created_by_name,
            created_at,
            updated_by_name,
            updated_at,
        )),
    })
}

/// Who made a row and when, who changed it last and when.
pub fn audit(
    created_by: String,
    created_at: DateTime<Utc>,
    updated_by: String,
    updated_at: DateTime<Utc>,
) -> common::Audit {
    common::Audit {
        created_by,
        create_time: Some(timestamp(created_at)),
        updated_by,
        update_time: Some(timestamp(updated_at)),
    }
}

/// A stored plan as the draft it was saved from (the daily job syncs it).
pub fn draft(row: &PlanRow) -> Result<PlanDraft, ServiceError> {
    Ok(PlanDraft {
        org_id: row.org_id,
        name: row.name.clone(),
        kind: known(row.kind)?,
        vehicle_model: row.vehicle_model.clone(),
        interval: Interval {
            m: row.interval_m,
            months: row.interval_months,
        },
        window: Window {
            m: row.soon_m,
            days: row.soon_days,
        },
        items: strings(&row.items),
        remark: row.remark.clone(),
    })
}

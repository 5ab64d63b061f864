//! Proto ↔ domain for the binding log.

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::list::{self, TimeRange};
use fleetdesk_proto::vehicle::v1 as pb;
use uuid::Uuid;

use super::store::{BindingQuery, BindingRow};
use crate::codes::optional;
use crate::vehicles::binding_log::BindingKind;

pub fn binding(row: BindingRow, enterprise_id: Uuid) -> pb::VehicleBinding {
    pb::VehicleBinding {
        id: row.id.to_string(),
        enterprise_id: enterprise_id.to_string(),
        vehicle_id: row.vehicle_id.to_string(),
        plate_number: row.plate_number,
        vin: row.vin,
        kind: optional::<BindingKind>(Some(row.kind)).map_or(0, BindingKind::pb),
        target_name: if row.target_name.is_empty() {
            row.target_id.clone()
        } else {
            row.target_name
        },
        target_id: row.target_id,
        bind_time: Some(timestamp(row.bound_at)),
        unbind_time: row.unbound_at.map(timestamp),
        active: row.unbound_at.is_none(),
        operator_name: row.bound_by_name,
        remark: row.remark,
        terminal_sim: row.terminal_sim,
        unbind_operator_name: row.unbound_by_name,
    }
}

pub fn query(filter: Option<pb::VehicleBindingFilter>) -> Result<BindingQuery, ServiceError> {
    let pb::VehicleBindingFilter {
        plate_numbers,
        vins,
        org_ids,
        kinds,
        target_id,
        active,
        bind_time,
        vehicle_id,
    } = filter.unwrap_or_default();
    let org_ids = org_ids
        .iter()
        .map(|o| Uuid::parse_str(o.trim()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| ServiceError::invalid("orgIds", "所选组织不存在"))?;
    let kinds = kinds
        .iter()
        .map(|k| {
            BindingKind::from_pb(*k)
                .map(i16::from)
                .ok_or_else(|| ServiceError::invalid("kinds", "筛选条件的取值无效"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let vehicle_id = match vehicle_id.trim() {
        "" => None,
        id => Some(fleetdesk_kit::convert::id(id)?),
    };
    Ok(BindingQuery {
        plates: list::batch("plateNumbers", &plate_numbers)?,
        vins: list::batch("vins", &vins)?
            .into_iter()
            .map(|v| v.to_ascii_uppercase())
            .collect(),
        org_ids,
        kinds,
        target_id,
        active,
        bind_time: TimeRange::parse("bindTime", bind_time.as_ref())?,
        vehicle_id,
    })
}

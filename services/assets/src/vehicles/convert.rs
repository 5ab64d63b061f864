//! Proto ↔ domain for vehicles: the input and filter off the wire, the row
//! onto it. Inputs are destructured field by field, so a new proto field
//! breaks the build here until it is handled.

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::convert::{datetime, timestamp};
use fleetdesk_kit::ids::{Plate, Vin};
use fleetdesk_kit::list::{self, TimeRange};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use uuid::Uuid;

use super::domain::{
    EnergyType, OwnershipType, PlateColor, UsageKind, UsageStatus, VehicleCategory, VehicleFields,
    VehicleStatus,
};
use super::store::{VehicleOrder, VehicleQuery, VehicleRow};
use crate::codes::optional;

/// File references as stored (a JSON array of {name, key, contentType, sizeBytes}).
pub fn files_to_json(files: &[common::FileRef]) -> serde_json::Value {
    serde_json::Value::Array(
        files
            .iter()
            .map(|f| {
                serde_json::json!({
                    "name": f.name, "key": f.key,
                    "contentType": f.content_type, "sizeBytes": f.size_bytes,
                })
            })
            .collect(),
    )
}

pub fn files_from_json(value: &serde_json::Value) -> Vec<common::FileRef> {
    value
        .as_array()
        .map(|items| {
            items
                .iter()
                .map(|f| common::FileRef {
                    name: f["name"].as_str().unwrap_or_default().to_owned(),
                    key: f["key"].as_str().unwrap_or_default().to_owned(),
                    content_type: f["contentType"].as_str().unwrap_or_default().to_owned(),
                    size_bytes: f["sizeBytes"].as_i64().unwrap_or_default(),
                })
                .collect()
        })
        .unwrap_or_default()
}

pub fn fields(input: pb::VehicleInput) -> VehicleFields {
    let pb::VehicleInput {
        org_id,
        plate_number,
        plate_color,
        vin,
        engine_number,
        brand,
        model,
        category,
        energy_type,
        body_color,
        seat_count,
        rated_load_kg,
        curb_weight_kg,
        battery_capacity_wh,
        rated_range_km,
        ownership_type,
        status,
        register_time,
        terminal_id,
        terminal_sim,
        tags,
        licence_images,
        remark,
        licence_owner,
        licence_issue_time,
        inspection_expire_time,
    } = input;
    VehicleFields {
        org_id,
        plate_number,
        plate_color: PlateColor::from_pb(plate_color),
        vin,
        engine_number,
        brand,
        model,
        category: VehicleCategory::from_pb(category),
        energy_type: EnergyType::from_pb(energy_type),
        body_color,
        seat_count,
        rated_load_kg,
        curb_weight_kg,
        battery_capacity_wh,
        rated_range_km,
        ownership_type: OwnershipType::from_pb(ownership_type),
        status: VehicleStatus::from_pb(status),
        register_time: register_time.as_ref().and_then(datetime),
        licence_owner,
        licence_issue_time: licence_issue_time.as_ref().and_then(datetime),
        inspection_expire_time: inspection_expire_time.as_ref().and_then(datetime),
        tags,
        licence_images: files_to_json(&licence_images),
        remark,
        terminal_id,
        terminal_sim,
    }
}

/// Codes of a repeated proto enum filter; an unknown value is a 4000.
fn codes<T: Copy + Into<i16>>(
    field: &str,
    values: &[i32],
    from_pb: impl Fn(i32) -> Option<T>,
) -> Result<Vec<i16>, ServiceError> {
    values
        .iter()
        .map(|v| {
            from_pb(*v)
                .map(Into::into)
                .ok_or_else(|| ServiceError::invalid(field, "筛选条件的取值无效"))
        })
        .collect()
}

/// Plates as stored: parsed ones normalised, others kept (they match nothing).
fn plates(values: Vec<String>) -> Vec<String> {
    values
        .into_iter()
        .map(|p| Plate::parse(&p).map(Plate::into_inner).unwrap_or(p))
        .collect()
}

fn vins(values: Vec<String>) -> Vec<String> {
    values
        .into_iter()
        .map(|v| {
            Vin::parse(&v)
                .map(Vin::into_inner)
                .unwrap_or(v.to_ascii_uppercase())
        })
        .collect()
}

pub fn query(filter: Option<pb::VehicleFilter>) -> Result<VehicleQuery, ServiceError> {
    let pb::VehicleFilter {
        plate_numbers,
        vins: vin_values,
        org_ids,
        keyword,
        brand,
        model,
        statuses,
        usage_kinds,
        ownership_types,
        energy_types,
        has_driver,
        has_terminal,
        register_time,
        create_time,
        lease_end_time,
        terminal_ids,
    } = filter.unwrap_or_default();
    let org_ids = org_ids
        .iter()
        .map(|o| Uuid::parse_str(o.trim()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| ServiceError::invalid("orgIds", "所选组织不存在"))?;
    Ok(VehicleQuery {
        plates: plates(list::batch("plateNumbers", &plate_numbers)?),
        vins: vins(list::batch("vins", &vin_values)?),
        terminal_ids: list::batch("terminalIds", &terminal_ids)?
            .into_iter()
            .map(|t| t.to_ascii_uppercase())
            .collect(),
        org_ids,
        keyword,
        brand,
        model,
        statuses: codes("statuses", &statuses, VehicleStatus::from_pb)?,
        usage_kinds: codes("usageKinds", &usage_kinds, UsageKind::from_pb)?,
        ownership_types: codes("ownershipTypes", &ownership_types, OwnershipType::from_pb)?,
        energy_types: codes("energyTypes", &energy_types, EnergyType::from_pb)?,
        has_driver,
        has_terminal,
        register_time: TimeRange::parse("registerTime", register_time.as_ref())?,
        create_time: TimeRange::parse("createTime", create_time.as_ref())?,
        lease_end_time: TimeRange::parse("leaseEndTime", lease_end_time.as_ref())?,
    })
}

pub fn order(sort: i32) -> VehicleOrder {
    match pb::VehicleSort::try_from(sort).unwrap_or_default() {
        pb::VehicleSort::Unspecified | pb::VehicleSort::CreateTimeDesc => VehicleOrder::Newest,
        pb::VehicleSort::CreateTimeAsc => VehicleOrder::Oldest,
        pb::VehicleSort::PlateNumberAsc => VehicleOrder::Plate,
        pb::VehicleSort::RegisterTimeDesc => VehicleOrder::Registered,
        pb::VehicleSort::LeaseEndTimeAsc => VehicleOrder::LeaseEnding,
    }
}

fn code<T: TryFrom<i16, Error = crate::codes::UnknownCode>>(value: i16) -> Option<T> {
    optional(Some(value))
}

pub fn vehicle(row: VehicleRow, enterprise_id: Uuid) -> pb::Vehicle {
    let id_text = |id: Option<Uuid>| id.map(|i| i.to_string()).unwrap_or_default();
    pb::Vehicle {
        id: row.id.to_string(),
        enterprise_id: enterprise_id.to_string(),
        org_id: row.org_id.to_string(),
        org_name: row.org_name,
        plate_number: row.plate_number,
        plate_color: code::<PlateColor>(row.plate_color).map_or(0, PlateColor::pb),
        vin: row.vin,
        engine_number: row.engine_number,
        brand: row.brand,
        model: row.model,
        category: code::<VehicleCategory>(row.category).map_or(0, VehicleCategory::pb),
        energy_type: code::<EnergyType>(row.energy_type).map_or(0, EnergyType::pb),
        body_color: row.body_color,
        seat_count: row.seat_count,
        rated_load_kg: row.rated_load_kg,
        curb_weight_kg: row.curb_weight_kg,
        battery_capacity_wh: row.battery_capacity_wh,
        rated_range_km: row.rated_range_km,
        ownership_type: code::<OwnershipType>(row.ownership_type).map_or(0, OwnershipType::pb),
        status: code::<VehicleStatus>(row.status).map_or(0, VehicleStatus::pb),
        register_time: row.register_time.map(timestamp),
        terminal_id: row.terminal_id.unwrap_or_default(),
        terminal_sim: row.terminal_sim.unwrap_or_default(),
        current_driver_id: id_text(row.driver_id),
        current_driver_name: row.driver_name.unwrap_or_default(),
        // Telemetry fields come with the telemetry issue.
        online: false,
        lock_state: 0,
        odometer_m: 0,
        last_position_time: None,
        insurance_expire_time: row.insurance_expire_time.map(timestamp),
        inspection_expire_time: row.inspection_expire_time.map(timestamp),
        tags: row.tags,
        licence_images: files_from_json(&row.licence_images),
        remark: row.remark,
        audit: Some(common::Audit {
            created_by: id_text(row.created_by),
            create_time: Some(timestamp(row.created_at)),
            updated_by: id_text(row.updated_by),
            update_time: Some(timestamp(row.updated_at)),
        }),
        usage_kind: optional::<UsageKind>(row.usage_kind).map_or(0, UsageKind::pb),
        usage_status: optional::<UsageStatus>(row.usage_status).map_or(0, UsageStatus::pb),
        lease_start_time: row.lease_start_time.map(timestamp),
        lease_end_time: row.lease_end_time.map(timestamp),
        licence_owner: row.licence_owner,
        licence_issue_time: row.licence_issue_time.map(timestamp),
        terminal_bind_time: row.terminal_bound_at.map(timestamp),
    }
}

/// (brand, model) pairs sorted by brand as the brand-type list: one entry
/// per brand, its non-empty models in order.
pub fn brand_types(pairs: Vec<(String, String)>) -> Vec<pb::VehicleBrandType> {
    let mut out: Vec<pb::VehicleBrandType> = Vec::new();
    for (brand, model) in pairs {
        let (brand, model) = (brand.trim().to_owned(), model.trim().to_owned());
        if brand.is_empty() {
            continue;
        }
        if out.last().is_none_or(|last| last.brand != brand) {
            out.push(pb::VehicleBrandType {
                brand,
                models: Vec::new(),
            });
        }
        let models = &mut out.last_mut().expect("pushed above").models;
        if !model.is_empty() && !models.contains(&model) {
            models.push(model);
        }
    }
    out
}

#[cfg(test)]
mod brand_type_tests {
    use super::*;

    #[test]
    fn pairs_group_by_brand_and_empty_models_are_left_out() {
        let pair = |b: &str, m: &str| (b.to_owned(), m.to_owned());
        let list = brand_types(vec![
            pair("东风", ""),
            pair("东风", "EV350"),
            pair("比亚迪", "T5"),
            pair("比亚迪", "T5 "),
            pair(" ", "X"),
        ]);
        let shape: Vec<(&str, Vec<&str>)> = list
            .iter()
            .map(|b| {
                (
                    b.brand.as_str(),
                    b.models.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        assert_eq!(shape, [("东风", vec!["EV350"]), ("比亚迪", vec!["T5"])]);
    }
}

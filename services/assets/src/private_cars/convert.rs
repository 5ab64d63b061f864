//! Proto ↔ domain for private cars. Owner phones leave the service masked.

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::list;
use fleetdesk_kit::mask;
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use uuid::Uuid;

use super::domain::{PrivateCarFields, PrivateCarStatus};
use super::store::{PrivateCarQuery, PrivateCarRow};
use crate::codes::optional;
use crate::vehicles::convert::{files_from_json, files_to_json};
use crate::vehicles::domain::{EnergyType, PlateColor};

pub fn fields(input: pb::PrivateCarInput) -> PrivateCarFields {
    let pb::PrivateCarInput {
        org_id,
        plate_number,
        plate_color,
        vin,
        brand,
        model,
        energy_type,
        owner_driver_id,
        owner_name,
        owner_phone,
        allowance_fen_per_km,
        licence_images,
        insurance_images,
        remark,
    } = input;
    PrivateCarFields {
        org_id,
        plate_number,
        plate_color: PlateColor::from_pb(plate_color),
        vin,
        brand,
        model,
        energy_type: EnergyType::from_pb(energy_type),
        owner_driver_id,
        owner_name,
        owner_phone,
        allowance_fen_per_km,
        licence_images: files_to_json(&licence_images),
        insurance_images: files_to_json(&insurance_images),
        remark,
    }
}

pub fn query(filter: Option<pb::PrivateCarFilter>) -> Result<PrivateCarQuery, ServiceError> {
    let pb::PrivateCarFilter {
        plate_numbers,
        org_ids,
        statuses,
        owner_name,
    } = filter.unwrap_or_default();
    let org_ids = org_ids
        .iter()
        .map(|o| Uuid::parse_str(o.trim()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| ServiceError::invalid("orgIds", "所选组织不存在"))?;
    let statuses = statuses
        .iter()
        .map(|s| {
            PrivateCarStatus::from_pb(*s)
                .map(i16::from)
                .ok_or_else(|| ServiceError::invalid("statuses", "筛选条件的取值无效"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(PrivateCarQuery {
        plates: list::batch("plateNumbers", &plate_numbers)?,
        org_ids,
        statuses,
        owner_name,
    })
}

pub fn private_car(row: PrivateCarRow, enterprise_id: Uuid) -> pb::PrivateCar {
    let id_text = |id: Option<Uuid>| id.map(|i| i.to_string()).unwrap_or_default();
    pb::PrivateCar {
        id: row.id.to_string(),
        enterprise_id: enterprise_id.to_string(),
        org_id: row.org_id.to_string(),
        org_name: row.org_name,
        vehicle_id: id_text(row.vehicle_id),
        plate_number: row.plate_number,
        plate_color: optional::<PlateColor>(Some(row.plate_color)).map_or(0, PlateColor::pb),
        vin: row.vin,
        brand: row.brand,
        model: row.model,
        energy_type: optional::<EnergyType>(Some(row.energy_type)).map_or(0, EnergyType::pb),
        owner_driver_id: id_text(row.owner_driver_id),
        owner_name: row.owner_name,
        owner_masked_phone: mask::centre(&row.owner_phone),
        allowance_fen_per_km: row.allowance_fen_per_km,
        status: optional::<PrivateCarStatus>(Some(row.status)).map_or(0, PrivateCarStatus::pb),
        reject_reason: row.reject_reason,
        licence_images: files_from_json(&row.licence_images),
        insurance_images: files_from_json(&row.insurance_images),
        remark: row.remark,
        audit: Some(common::Audit {
            created_by: id_text(row.created_by),
            create_time: Some(timestamp(row.created_at)),
            updated_by: id_text(row.reviewed_by),
            update_time: Some(timestamp(row.updated_at)),
        }),
    }
}

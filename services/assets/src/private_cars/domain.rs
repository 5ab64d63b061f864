//! Rules of a private car: its review states and the checks of a new one.

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::ids::{Phone, Plate, Vin};
use fleetdesk_proto::vehicle::v1 as pb;
use uuid::Uuid;

use crate::codes::stored_code;
use crate::vehicles::domain::{EnergyType, PlateColor, Problems};

stored_code!(
    /// Review state of a private car.
    PrivateCarStatus => pb::PrivateCarStatus {
        PendingReview = 1, Approved = 2, Rejected = 3, Disabled = 4,
    }
);

impl PrivateCarStatus {
    /// As the console names it.
    pub fn label(self) -> &'static str {
        match self {
            PrivateCarStatus::PendingReview => "待审核",
            PrivateCarStatus::Approved => "已通过",
            PrivateCarStatus::Rejected => "已驳回",
            PrivateCarStatus::Disabled => "已停用",
        }
    }

    /// The review decision a car in this state may take, if any.
    pub fn review(self, approved: bool) -> Result<PrivateCarStatus, ServiceError> {
        match self {
            PrivateCarStatus::PendingReview if approved => Ok(PrivateCarStatus::Approved),
            PrivateCarStatus::PendingReview => Ok(PrivateCarStatus::Rejected),
            PrivateCarStatus::Approved
            | PrivateCarStatus::Rejected
            | PrivateCarStatus::Disabled => Err(ServiceError::new(
                fleetdesk_kit::ErrorCode::Conflict,
                "该私车已审核，请刷新后重试",
            )),
        }
    }
}

/// Most a private car is reimbursed per kilometre: 10 yuan.
const MAX_ALLOWANCE_FEN_PER_KM: i64 = 1_000;

/// A new private car, checked.
#[derive(Debug, Clone)]
pub struct PrivateCarDraft {
    pub org_id: Uuid,
    pub plate: Plate,
    pub plate_color: PlateColor,
    pub vin: Vin,
    pub brand: String,
    pub model: String,
    pub energy_type: EnergyType,
    pub owner_driver_id: Option<Uuid>,
    pub owner_name: String,
    pub owner_phone: Phone,
    pub allowance_fen_per_km: i64,
    pub licence_images: serde_json::Value,
    pub insurance_images: serde_json::Value,
    pub remark: String,
}

/// What the checks need of an input, off the wire.
#[derive(Debug, Clone, Default)]
pub struct PrivateCarFields {
    pub org_id: String,
    pub plate_number: String,
    pub plate_color: Option<PlateColor>,
    pub vin: String,
    pub brand: String,
    pub model: String,
    pub energy_type: Option<EnergyType>,
    pub owner_driver_id: String,
    pub owner_name: String,
    pub owner_phone: String,
    pub allowance_fen_per_km: i64,
    pub licence_images: serde_json::Value,
    pub insurance_images: serde_json::Value,
    pub remark: String,
}

impl PrivateCarDraft {
    pub fn parse(input: PrivateCarFields) -> Result<PrivateCarDraft, ServiceError> {
        let mut p = Problems::default();
        let org_id = p.org("orgId", &input.org_id);
        let plate = p.check("plateNumber", Plate::parse(&input.plate_number));
        let vin = p.check("vin", Vin::parse(&input.vin));
        let brand = p.text("brand", "品牌", &input.brand, 50);
        let model = p.text("model", "车型", &input.model, 50);
        let energy_type = p.choice("energyType", "能源类型", input.energy_type);
        let owner_name = p.text("ownerName", "车主姓名", &input.owner_name, 50);
        let owner_phone = p.check("ownerPhone", Phone::parse(&input.owner_phone));
        let owner_driver_id = match input.owner_driver_id.trim() {
            "" => None,
            id => {
                let parsed = Uuid::parse_str(id).ok();
                if parsed.is_none() {
                    p.add("ownerDriverId", "所选司机不存在");
                }
                parsed
            }
        };
        let allowance = p.within(
            "allowanceFenPerKm",
            "每公里补贴(分)",
            input.allowance_fen_per_km,
            0,
            MAX_ALLOWANCE_FEN_PER_KM,
        );
        let remark = p.optional_text("remark", "备注", &input.remark, 500);
        p.finish()?;
        let missing = || ServiceError::of(fleetdesk_kit::ErrorCode::BadRequest);
        Ok(PrivateCarDraft {
            org_id: org_id.ok_or_else(missing)?,
            plate: plate.ok_or_else(missing)?,
            plate_color: input.plate_color.unwrap_or(PlateColor::Blue),
            vin: vin.ok_or_else(missing)?,
            brand,
            model,
            energy_type: energy_type.ok_or_else(missing)?,
            owner_driver_id,
            owner_name,
            owner_phone: owner_phone.ok_or_else(missing)?,
            allowance_fen_per_km: allowance,
            licence_images: input.licence_images,
            insurance_images: input.insurance_images,
            remark,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_pending_car_can_be_reviewed() {
        assert_eq!(
            PrivateCarStatus::PendingReview.review(true).unwrap(),
            PrivateCarStatus::Approved
        );
        assert_eq!(
            PrivateCarStatus::PendingReview.review(false).unwrap(),
            PrivateCarStatus::Rejected
        );
        for done in [PrivateCarStatus::Approved, PrivateCarStatus::Rejected] {
            assert!(done.review(true).is_err());
        }
    }

    #[test]
    fn owner_phone_and_vin_are_checked() {
        let err = PrivateCarDraft::parse(PrivateCarFields {
            org_id: Uuid::new_v4().to_string(),
            plate_number: "粤B12345".into(),
            vin: "1M8GDM9AXKP042788".into(),
            brand: "大众".into(),
            model: "朗逸".into(),
            energy_type: Some(EnergyType::Fuel),
            owner_name: "张三".into(),
            owner_phone: "2380000".into(),
            ..PrivateCarFields::default()
        })
        .unwrap_err();
        assert_eq!(err.fields.len(), 1);
        assert_eq!(err.fields[0].field, "ownerPhone");
        assert_eq!(err.fields[0].message, "请输入正确的手机号");
    }
}

//! Rules of a vehicle file: its stored codes and the checks an input must
//! pass before it is stored (plate, VIN with check digit, required fields,
//! bounds). Pure: no database, no proto.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ids::{Plate, Vin};
use fleetdesk_kit::{ErrorCode, FieldError, ServiceError};
use fleetdesk_proto::vehicle::v1 as pb;
use uuid::Uuid;

use crate::codes::stored_code;

stored_code!(
    /// Colour of the number plate (GA 36).
    PlateColor => pb::PlateColor {
        Blue = 1, Yellow = 2, Green = 3, YellowGreen = 4, White = 5, Black = 6,
    }
);

stored_code!(
    /// Body category.
    VehicleCategory => pb::VehicleCategory {
        MiniTruck = 1, LightTruck = 2, MediumTruck = 3, HeavyTruck = 4, Van = 5,
        RefrigeratedTruck = 6, PassengerCar = 7, Other = 8,
    }
);

stored_code!(
    /// What drives the vehicle.
    EnergyType => pb::EnergyType {
        BatteryElectric = 1, PlugInHybrid = 2, RangeExtended = 3, Fuel = 4, HydrogenFuelCell = 5,
    }
);

stored_code!(
    /// How the enterprise holds the vehicle.
    OwnershipType => pb::OwnershipType {
        Owned = 1, Rented = 2, RentToOwn = 3, Private = 4,
    }
);

stored_code!(
    /// Operating state in the fleet.
    VehicleStatus => pb::VehicleStatus {
        InService = 1, Idle = 2, InRepair = 3, Suspended = 4, Retired = 5,
    }
);

stored_code!(
    /// Kind of a usage record (copied onto the vehicle for its list).
    UsageKind => pb::UsageKind {
        Rent = 1, Purchase = 2, Replacement = 3, RentToOwn = 4,
    }
);

stored_code!(
    /// State of a usage record (copied onto the vehicle for its list).
    UsageStatus => pb::UsageRecordStatus {
        Pending = 1, Active = 2, Ended = 3,
    }
);

impl UsageKind {
    /// As the four usage sub-pages name it.
    pub fn label(self) -> &'static str {
        match self {
            UsageKind::Rent => "租赁",
            UsageKind::Purchase => "购买",
            UsageKind::Replacement => "替换",
            UsageKind::RentToOwn => "以租代售",
        }
    }
}

impl UsageStatus {
    /// As the console names it.
    pub fn label(self) -> &'static str {
        match self {
            UsageStatus::Pending => "未开始",
            UsageStatus::Active => "使用中",
            UsageStatus::Ended => "已结束",
        }
    }
}

impl PlateColor {
    /// As the console names it.
    pub fn label(self) -> &'static str {
        match self {
            PlateColor::Blue => "蓝牌",
            PlateColor::Yellow => "黄牌",
            PlateColor::Green => "绿牌",
            PlateColor::YellowGreen => "黄绿牌",
            PlateColor::White => "白牌",
            PlateColor::Black => "黑牌",
        }
    }
}

impl VehicleCategory {
    pub fn label(self) -> &'static str {
        match self {
            VehicleCategory::MiniTruck => "微型货车",
            VehicleCategory::LightTruck => "轻型货车",
            VehicleCategory::MediumTruck => "中型货车",
            VehicleCategory::HeavyTruck => "重型货车",
            VehicleCategory::Van => "厢式货车",
            VehicleCategory::RefrigeratedTruck => "冷藏车",
            VehicleCategory::PassengerCar => "乘用车",
            VehicleCategory::Other => "其他",
        }
    }
}

impl EnergyType {
    pub fn label(self) -> &'static str {
        match self {
            EnergyType::BatteryElectric => "纯电动",
            EnergyType::PlugInHybrid => "插电混动",
            EnergyType::RangeExtended => "增程式",
            EnergyType::Fuel => "燃油",
            EnergyType::HydrogenFuelCell => "氢燃料电池",
        }
    }
}

impl OwnershipType {
    pub fn label(self) -> &'static str {
        match self {
            OwnershipType::Owned => "自有",
            OwnershipType::Rented => "租赁",
            OwnershipType::RentToOwn => "以租代售",
            OwnershipType::Private => "私家车",
        }
    }
}

impl VehicleStatus {
    pub fn label(self) -> &'static str {
        match self {
            VehicleStatus::InService => "运营中",
            VehicleStatus::Idle => "闲置",
            VehicleStatus::InRepair => "维修中",
            VehicleStatus::Suspended => "停用",
            VehicleStatus::Retired => "已退出",
        }
    }
}

/// Field errors of one input, reported together.
#[derive(Debug, Default)]
pub struct Problems(Vec<FieldError>);

impl Problems {
    pub fn add(&mut self, field: &str, message: impl Into<String>) {
        self.0.push(FieldError {
            field: field.to_owned(),
            message: message.into(),
        });
    }

    /// The value, or records the refusal under `field`.
    pub fn check<T, E: ToString>(&mut self, field: &str, value: Result<T, E>) -> Option<T> {
        value.map_err(|e| self.add(field, e.to_string())).ok()
    }

    /// Required text no longer than `max` characters.
    pub fn text(&mut self, field: &str, label: &str, value: &str, max: usize) -> String {
        let value = value.trim();
        if value.is_empty() {
            self.add(field, format!("请输入{label}"));
        } else {
            self.optional_text(field, label, value, max);
        }
        value.to_owned()
    }

    /// Optional text no longer than `max` characters.
    pub fn optional_text(&mut self, field: &str, label: &str, value: &str, max: usize) -> String {
        let value = value.trim();
        if value.chars().count() > max {
            self.add(field, format!("{label}不能超过 {max} 个字符"));
        }
        value.to_owned()
    }

    /// A required choice of a proto enum.
    pub fn choice<T>(&mut self, field: &str, label: &str, value: Option<T>) -> Option<T> {
        if value.is_none() {
            self.add(field, format!("请选择{label}"));
        }
        value
    }

    /// A number within `min..=max`.
    pub fn within<N: PartialOrd + std::fmt::Display + Copy>(
        &mut self,
        field: &str,
        label: &str,
        value: N,
        min: N,
        max: N,
    ) -> N {
        if value < min || value > max {
            self.add(field, format!("{label}须在 {min} 到 {max} 之间"));
        }
        value
    }

    /// An organisation id (a malformed one is refused like a missing one).
    pub fn org(&mut self, field: &str, value: &str) -> Option<Uuid> {
        let id = Uuid::parse_str(value.trim()).ok();
        if id.is_none() {
            self.add(field, "请选择所属组织");
        }
        id
    }

    /// Ok when nothing was refused, else one 4000 listing every field.
    pub fn finish(self) -> Result<(), ServiceError> {
        match self.0.first() {
            None => Ok(()),
            Some(first) => Err(ServiceError {
                code: ErrorCode::BadRequest,
                message: first.message.clone(),
                fields: self.0,
                retry_after_secs: None,
            }),
        }
    }
}

/// A terminal serial as JT/T 808 terminals report it: 1 to 30 letters,
/// digits or hyphens.
pub fn terminal_serial(value: &str) -> Result<String, &'static str> {
    let value = value.trim().to_ascii_uppercase();
    if value.is_empty() {
        return Err("请输入终端号");
    }
    if value.len() > 30
        || !value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-')
    {
        return Err("终端号须为 1 到 30 位字母、数字或连字符");
    }
    Ok(value)
}

/// A SIM number: 11 to 20 digits (MSISDN or ICCID).
pub fn sim_number(value: &str) -> Result<String, &'static str> {
    let value = value.trim().to_ascii_uppercase();
    if value.is_empty() {
        return Err("请输入 SIM 卡号");
    }
    let ok = (11..=20).contains(&value.len()) && value.bytes().all(|b| b.is_ascii_alphanumeric());
    if ok {
        Ok(value)
    } else {
        Err("SIM 卡号须为 11 到 20 位数字或字母")
    }
}

/// A vehicle's editable fields, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct VehicleDraft {
    pub org_id: Uuid,
    pub plate: Plate,
    pub plate_color: PlateColor,
    pub vin: Vin,
    pub engine_number: String,
    pub brand: String,
    pub model: String,
    pub category: VehicleCategory,
    pub energy_type: EnergyType,
    pub body_color: String,
    pub seat_count: i32,
    pub rated_load_kg: i32,
    pub curb_weight_kg: i32,
    pub battery_capacity_wh: i64,
    pub rated_range_km: i32,
    pub ownership_type: OwnershipType,
    pub status: VehicleStatus,
    pub register_time: Option<DateTime<Utc>>,
    pub licence_owner: String,
    pub licence_issue_time: Option<DateTime<Utc>>,
    pub inspection_expire_time: Option<DateTime<Utc>>,
    pub tags: Vec<String>,
    pub licence_images: serde_json::Value,
    pub remark: String,
    /// Create only: a terminal to bind at once.
    pub terminal: Option<(String, String)>,
}

/// What the checks need of an input, already taken off the wire.
#[derive(Debug, Clone, Default)]
pub struct VehicleFields {
    pub org_id: String,
    pub plate_number: String,
    pub plate_color: Option<PlateColor>,
    pub vin: String,
    pub engine_number: String,
    pub brand: String,
    pub model: String,
    pub category: Option<VehicleCategory>,
    pub energy_type: Option<EnergyType>,
    pub body_color: String,
    pub seat_count: i32,
    pub rated_load_kg: i32,
    pub curb_weight_kg: i32,
    pub battery_capacity_wh: i64,
    pub rated_range_km: i32,
    pub ownership_type: Option<OwnershipType>,
    pub status: Option<VehicleStatus>,
    pub register_time: Option<DateTime<Utc>>,
    pub licence_owner: String,
    pub licence_issue_time: Option<DateTime<Utc>>,
    pub inspection_expire_time: Option<DateTime<Utc>>,
    pub tags: Vec<String>,
    pub licence_images: serde_json::Value,
    pub remark: String,
    pub terminal_id: String,
    pub terminal_sim: String,
}

/// Most free labels on a vehicle.
const MAX_TAGS: usize = 10;

impl VehicleDraft {
    /// Checks every field and reports all refusals at once. Electric
    /// vehicles need a battery capacity; fuel vehicles have none.
    pub fn parse(input: VehicleFields) -> Result<VehicleDraft, ServiceError> {
        let mut p = Problems::default();
        let org_id = p.org("orgId", &input.org_id);
        let plate = p.check("plateNumber", Plate::parse(&input.plate_number));
        let vin = p.check("vin", Vin::parse(&input.vin));
        let brand = p.text("brand", "品牌", &input.brand, 50);
        let model = p.text("model", "车型", &input.model, 50);
        let engine_number =
            p.optional_text("engineNumber", "发动机/电机号", &input.engine_number, 32);
        let body_color = p.optional_text("bodyColor", "车身颜色", &input.body_color, 20);
        let licence_owner =
            p.optional_text("licenceOwner", "行驶证所有人", &input.licence_owner, 100);
        let remark = p.optional_text("remark", "备注", &input.remark, 500);
        let category = p.choice("category", "车辆类型", input.category);
        let energy_type = p.choice("energyType", "能源类型", input.energy_type);
        let ownership_type = p.choice("ownershipType", "使用性质", input.ownership_type);
        let seat_count = p.within("seatCount", "座位数", input.seat_count, 0, 100);
        let rated_load_kg = p.within("ratedLoadKg", "核定载质量", input.rated_load_kg, 0, 100_000);
        let curb_weight_kg = p.within("curbWeightKg", "整备质量", input.curb_weight_kg, 0, 100_000);
        let battery_capacity_wh = p.within(
            "batteryCapacityWh",
            "电池容量",
            input.battery_capacity_wh,
            0,
            2_000_000,
        );
        let rated_range_km = p.within("ratedRangeKm", "续航里程", input.rated_range_km, 0, 3_000);
        let electric = matches!(
            energy_type,
            Some(
                EnergyType::BatteryElectric | EnergyType::PlugInHybrid | EnergyType::RangeExtended
            )
        );
        if electric && battery_capacity_wh == 0 {
            p.add("batteryCapacityWh", "请输入电池容量");
        }
        if let (Some(issued), Some(registered)) = (input.licence_issue_time, input.register_time)
            && issued < registered
        {
            p.add("licenceIssueTime", "发证日期不能早于注册日期");
        }
        if input.register_time.is_some_and(|t| t > Utc::now()) {
            p.add("registerTime", "注册日期不能晚于今天");
        }
        let tags: Vec<String> = input
            .tags
            .iter()
            .map(|t| t.trim().to_owned())
            .filter(|t| !t.is_empty())
            .collect();
        if tags.len() > MAX_TAGS || tags.iter().any(|t| t.chars().count() > 20) {
            p.add("tags", "标签最多 10 个，每个不超过 20 个字符");
        }
        let terminal = match (input.terminal_id.trim(), input.terminal_sim.trim()) {
            ("", "") => None,
            (id, sim) => {
                let id = p.check("terminalId", terminal_serial(id));
                let sim = p.check("terminalSim", sim_number(sim));
                id.zip(sim)
            }
        };
        p.finish()?;
        // Every Option below is Some once `finish` passed; the fallbacks are unreachable.
        let missing = || ServiceError::of(ErrorCode::BadRequest);
        Ok(VehicleDraft {
            org_id: org_id.ok_or_else(missing)?,
            plate: plate.ok_or_else(missing)?,
            plate_color: input.plate_color.unwrap_or(PlateColor::Green),
            vin: vin.ok_or_else(missing)?,
            engine_number,
            brand,
            model,
            category: category.ok_or_else(missing)?,
            energy_type: energy_type.ok_or_else(missing)?,
            body_color,
            seat_count,
            rated_load_kg,
            curb_weight_kg,
            battery_capacity_wh,
            rated_range_km,
            ownership_type: ownership_type.ok_or_else(missing)?,
            status: input.status.unwrap_or(VehicleStatus::Idle),
            register_time: input.register_time,
            licence_owner,
            licence_issue_time: input.licence_issue_time,
            inspection_expire_time: input.inspection_expire_time,
            tags,
            licence_images: input.licence_images,
            remark,
            terminal,
        })
    }
}

/// The refusal of a plate already on another vehicle of the enterprise:
/// a field error (4000), so the form shows it under the plate.
pub fn plate_taken() -> ServiceError {
    ServiceError::invalid("plateNumber", "该车牌号已存在")
}

/// The refusal of a VIN already on another vehicle of the enterprise.
pub fn vin_taken() -> ServiceError {
    ServiceError::invalid("vin", "该车架号(VIN)已存在")
}

/// The refusal of a terminal fitted to another vehicle.
pub fn terminal_taken() -> ServiceError {
    ServiceError::invalid("terminalId", "该终端已绑定其他车辆")
}

#[cfg(test)]
mod tests {
    use super::*;

    pub fn valid_fields() -> VehicleFields {
        VehicleFields {
            org_id: Uuid::new_v4().to_string(),
            plate_number: "粤BD12345".into(),
            vin: "1M8GDM9AXKP042788".into(),
            brand: "比亚迪".into(),
            model: "T5".into(),
            category: Some(VehicleCategory::LightTruck),
            energy_type: Some(EnergyType::BatteryElectric),
            ownership_type: Some(OwnershipType::Rented),
            battery_capacity_wh: 81_000,
            ..VehicleFields::default()
        }
    }

    #[test]
    fn a_complete_input_becomes_a_draft_with_defaults() {
        let draft = VehicleDraft::parse(valid_fields()).unwrap();
        assert_eq!(draft.plate.as_str(), "粤BD12345");
        assert_eq!(draft.status, VehicleStatus::Idle);
        assert_eq!(draft.plate_color, PlateColor::Green);
        assert_eq!(draft.terminal, None);
    }

    #[test]
    fn every_refused_field_is_reported_at_once_in_chinese() {
        let err = VehicleDraft::parse(VehicleFields {
            vin: "1M8GDM9A1KP042788".into(),
            plate_number: "粤B123".into(),
            brand: String::new(),
            battery_capacity_wh: 0,
            ..valid_fields()
        })
        .unwrap_err();
        let fields: Vec<&str> = err.fields.iter().map(|f| f.field.as_str()).collect();
        assert_eq!(fields, ["plateNumber", "vin", "brand", "batteryCapacityWh"]);
        assert!(err.fields[1].message.contains("校验位"));
        assert_eq!(err.fields[2].message, "请输入品牌");
    }

    #[test]
    fn a_terminal_needs_both_serial_and_sim() {
        let err = VehicleDraft::parse(VehicleFields {
            terminal_id: "T-1001".into(),
            ..valid_fields()
        })
        .unwrap_err();
        assert_eq!(err.fields[0].field, "terminalSim");
        let draft = VehicleDraft::parse(VehicleFields {
            terminal_id: "t-1001".into(),
            terminal_sim: "14412345678".into(),
            ..valid_fields()
        })
        .unwrap();
        assert_eq!(
            draft.terminal,
            Some(("T-1001".into(), "14412345678".into()))
        );
    }

    #[test]
    fn stored_codes_round_trip_and_unknown_ones_are_errors() {
        for code in 1..=5 {
            let status = VehicleStatus::try_from(code).unwrap();
            assert_eq!(i16::from(status), code);
            assert_eq!(VehicleStatus::from_pb(status.pb()), Some(status));
        }
        assert!(VehicleStatus::try_from(9).is_err());
        assert_eq!(VehicleStatus::from_pb(0), None);
    }
}

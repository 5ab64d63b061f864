//! The vehicle import (carFiles › 导入车辆): one vehicle per row, checked by
//! the create's rules (`VehicleDraft::parse`: plate incl. 8-character
//! new-energy plates, VIN with its check digit, required fields, bounds), the
//! organisation by code or name within the caller's reach, plates and VINs
//! unique within the file and against the enterprise's vehicles; then every
//! row in one statement (`unnest`), with its operation-log row.

use std::collections::HashSet;

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::import::{Column, ErrorTable, ImportSchema, Parsed, Problem, SheetRow};
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::{
    self, EnergyType, OwnershipType, PlateColor, VehicleCategory, VehicleDraft, VehicleFields,
    VehicleStatus,
};
use super::store;
use crate::context::Actor;
use crate::imports::{Orgs, RowProblems, day, integer, pick, thousandths};
use crate::oplog::Business;

const PLATE: &str = "车牌号";
const VIN: &str = "车架号(VIN)";
const ORG: &str = "所属组织";
const BRAND: &str = "品牌";
const MODEL: &str = "车型";
const CATEGORY: &str = "车辆类型";
const ENERGY: &str = "能源类型";
const OWNERSHIP: &str = "使用性质";
const PLATE_COLOR: &str = "车牌颜色";
const STATUS: &str = "车辆状态";
const BATTERY: &str = "电池容量(kWh)";
const RANGE: &str = "续航里程(km)";
const ENGINE: &str = "发动机/电机号";
const BODY_COLOR: &str = "车身颜色";
const SEATS: &str = "座位数";
const RATED_LOAD: &str = "核定载质量(kg)";
const CURB_WEIGHT: &str = "整备质量(kg)";
const REGISTERED: &str = "登记日期";
const LICENCE_OWNER: &str = "行驶证所有人";
const LICENCE_ISSUED: &str = "发证日期";
const INSPECTION: &str = "年检有效期至";
const TAGS: &str = "标签";
const REMARK: &str = "备注";

/// The columns, in template order (the same titles as the export).
pub const COLUMNS: &[Column] = &[
    Column {
        title: PLATE,
        required: true,
        example: "粤BD12345",
    },
    Column {
        title: VIN,
        required: true,
        example: "1M8GDM9AXKP042788",
    },
    Column {
        title: ORG,
        required: true,
        example: "华东大区",
    },
    Column {
        title: BRAND,
        required: true,
        example: "比亚迪",
    },
    Column {
        title: MODEL,
        required: true,
        example: "T5 EV",
    },
    Column {
        title: CATEGORY,
        required: true,
        example: "轻型货车",
    },
    Column {
        title: ENERGY,
        required: true,
        example: "纯电动",
    },
    Column {
        title: OWNERSHIP,
        required: true,
        example: "租赁",
    },
    Column {
        title: PLATE_COLOR,
        required: false,
        example: "绿牌",
    },
    Column {
        title: STATUS,
        required: false,
        example: "运营中",
    },
    Column {
        title: BATTERY,
        required: false,
        example: "81",
    },
    Column {
        title: RANGE,
        required: false,
        example: "260",
    },
    Column {
        title: ENGINE,
        required: false,
        example: "TZ180XSE",
    },
    Column {
        title: BODY_COLOR,
        required: false,
        example: "白色",
    },
    Column {
        title: SEATS,
        required: false,
        example: "2",
    },
    Column {
        title: RATED_LOAD,
        required: false,
        example: "1500",
    },
    Column {
        title: CURB_WEIGHT,
        required: false,
        example: "2600",
    },
    Column {
        title: REGISTERED,
        required: false,
        example: "2024-01-31",
    },
    Column {
        title: LICENCE_OWNER,
        required: false,
        example: "演示物流有限公司",
    },
    Column {
        title: LICENCE_ISSUED,
        required: false,
        example: "2024-02-01",
    },
    Column {
        title: INSPECTION,
        required: false,
        example: "2026-01-31",
    },
    Column {
        title: TAGS,
        required: false,
        example: "冷链、城配",
    },
    Column {
        title: REMARK,
        required: false,
        example: "",
    },
];

/// Field errors of `VehicleDraft::parse` under their columns.
const FIELDS: &[(&str, &str)] = &[
    ("orgId", ORG),
    ("plateNumber", PLATE),
    ("vin", VIN),
    ("brand", BRAND),
    ("model", MODEL),
    ("engineNumber", ENGINE),
    ("bodyColor", BODY_COLOR),
    ("licenceOwner", LICENCE_OWNER),
    ("remark", REMARK),
    ("category", CATEGORY),
    ("energyType", ENERGY),
    ("ownershipType", OWNERSHIP),
    ("seatCount", SEATS),
    ("ratedLoadKg", RATED_LOAD),
    ("curbWeightKg", CURB_WEIGHT),
    ("batteryCapacityWh", BATTERY),
    ("ratedRangeKm", RANGE),
    ("licenceIssueTime", LICENCE_ISSUED),
    ("registerTime", REGISTERED),
    ("tags", TAGS),
];

/// Largest battery a row may state, in kWh (the create's bound in Wh / 1000).
const MAX_BATTERY_KWH: i64 = 2_000;

/// The vehicle import of one caller.
#[derive(Debug)]
pub struct VehicleImport<'a> {
    pub actor: &'a Actor,
    /// The caller's enterprise's organisations.
    pub orgs: Orgs,
}

/// Labels in a tag cell: separated by commas, 、, semicolons or spaces.
fn tags(text: &str) -> Vec<String> {
    text.split([',', '，', '、', ';', '；', ' '])
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .collect()
}

impl VehicleImport<'_> {
    fn fields(&self, row: &SheetRow, p: &mut RowProblems) -> VehicleFields {
        let org = row.text(ORG);
        let org_id = if org.is_empty() {
            String::new()
        } else {
            match self.orgs.resolve(self.actor, &org) {
                Ok(id) => id.to_string(),
                Err(reason) => {
                    p.add(ORG, reason);
                    String::new()
                }
            }
        };
        let battery_capacity_wh = thousandths(row, BATTERY, p);
        if battery_capacity_wh > MAX_BATTERY_KWH * 1000 {
            p.add(
                BATTERY,
                format!("{BATTERY}须在 0 到 {MAX_BATTERY_KWH} 之间"),
            );
        }
        VehicleFields {
            org_id,
            plate_number: row.text(PLATE),
            plate_color: pick(
                row,
                PLATE_COLOR,
                PlateColor::ALL,
                PlateColor::label,
                &[
                    ("蓝色", PlateColor::Blue),
                    ("黄色", PlateColor::Yellow),
                    ("绿色", PlateColor::Green),
                    ("渐变绿", PlateColor::Green),
                    ("黄绿色", PlateColor::YellowGreen),
                    ("白色", PlateColor::White),
                    ("黑色", PlateColor::Black),
                ],
                p,
            ),
            vin: row.text(VIN),
            engine_number: row.text(ENGINE),
            brand: row.text(BRAND),
            model: row.text(MODEL),
            category: pick(
                row,
                CATEGORY,
                VehicleCategory::ALL,
                VehicleCategory::label,
                &[],
                p,
            ),
            energy_type: pick(
                row,
                ENERGY,
                EnergyType::ALL,
                EnergyType::label,
                &[
                    ("纯电", EnergyType::BatteryElectric),
                    ("电动", EnergyType::BatteryElectric),
                ],
                p,
            ),
            body_color: row.text(BODY_COLOR),
            seat_count: integer(row, SEATS, p),
            rated_load_kg: integer(row, RATED_LOAD, p),
            curb_weight_kg: integer(row, CURB_WEIGHT, p),
            battery_capacity_wh,
            rated_range_km: integer(row, RANGE, p),
            ownership_type: pick(
                row,
                OWNERSHIP,
                OwnershipType::ALL,
                OwnershipType::label,
                &[("私车", OwnershipType::Private)],
                p,
            ),
            status: pick(
                row,
                STATUS,
                VehicleStatus::ALL,
                VehicleStatus::label,
                &[],
                p,
            ),
            register_time: day(row, REGISTERED, p),
            licence_owner: row.text(LICENCE_OWNER),
            licence_issue_time: day(row, LICENCE_ISSUED, p),
            inspection_expire_time: day(row, INSPECTION, p),
            tags: tags(&row.text(TAGS)),
            licence_images: serde_json::json!([]),
            remark: row.text(REMARK),
            // Terminals are bound on the binding page, not imported.
            terminal_id: String::new(),
            terminal_sim: String::new(),
        }
    }
}

impl ImportSchema for VehicleImport<'_> {
    type Row = VehicleDraft;

    fn columns(&self) -> &'static [Column] {
        COLUMNS
    }

    fn parse(&self, row: &SheetRow) -> Result<VehicleDraft, Vec<Problem>> {
        let mut p = RowProblems::default();
        p.cells(row, COLUMNS);
        let fields = self.fields(row, &mut p);
        match VehicleDraft::parse(fields) {
            Ok(draft) if p.is_empty() => Ok(draft),
            Ok(_) => Err(p.into_vec()),
            Err(err) => {
                p.domain(err, FIELDS);
                Err(p.into_vec())
            }
        }
    }

    fn keys(&self, row: &VehicleDraft) -> Vec<(&'static str, String)> {
        vec![
            (PLATE, row.plate.as_str().to_owned()),
            (VIN, row.vin.as_str().to_owned()),
        ]
    }

    async fn check_existing(
        &self,
        conn: &mut PgConnection,
        rows: &[Parsed<VehicleDraft>],
    ) -> Result<ErrorTable, ServiceError> {
        let plates: Vec<&str> = rows.iter().map(|r| r.value.plate.as_str()).collect();
        let vins: Vec<&str> = rows.iter().map(|r| r.value.vin.as_str()).collect();
        let taken: Vec<(String, String)> = sqlx::query_as(
            "select plate_number, vin from vehicle where enterprise_id = $1 \
             and (plate_number = any($2) or vin = any($3))",
        )
        .bind(self.actor.enterprise_id)
        .bind(&plates)
        .bind(&vins)
        .fetch_all(&mut *conn)
        .await?;
        let taken_plates: HashSet<&str> = taken.iter().map(|(p, _)| p.as_str()).collect();
        let taken_vins: HashSet<&str> = taken.iter().map(|(_, v)| v.as_str()).collect();
        let mut table = ErrorTable::default();
        for row in rows {
            if taken_plates.contains(row.value.plate.as_str()) {
                table.push(row.row, PLATE, domain::plate_taken().message);
            }
            if taken_vins.contains(row.value.vin.as_str()) {
                table.push(row.row, VIN, domain::vin_taken().message);
            }
        }
        Ok(table)
    }

    async fn write(
        &self,
        conn: &mut PgConnection,
        rows: Vec<Parsed<VehicleDraft>>,
    ) -> Result<i64, ServiceError> {
        let drafts: Vec<VehicleDraft> = rows.into_iter().map(|r| r.value).collect();
        let ids: Vec<Uuid> = drafts.iter().map(|_| Uuid::new_v4()).collect();
        let written = store::insert_many(conn, self.actor, &ids, &drafts).await?;
        let remarks: Vec<String> = drafts
            .iter()
            .map(|d| format!("导入车辆 {}（VIN {}）", d.plate.as_str(), d.vin.as_str()))
            .collect();
        crate::oplog::record_many(conn, self.actor, Business::Vehicle, &ids, &remarks).await?;
        Ok(written)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_split_on_the_usual_separators() {
        assert_eq!(tags(" 冷链、城配,夜间；  "), ["冷链", "城配", "夜间"]);
        assert!(tags("").is_empty());
    }

    #[test]
    fn every_domain_field_has_a_column() {
        for (_, title) in FIELDS {
            assert!(COLUMNS.iter().any(|c| c.title == *title), "{title}");
        }
    }
}

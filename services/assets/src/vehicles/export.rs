//! The vehicle files (carFiles) as an export kind: the list's filter and
//! reach (`store::filtered` through `store::count` and `store::export_page`),
//! newest first, one row per vehicle with the columns an operator reads.

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::{Cell, JobScope};
use fleetdesk_kit::list::Cursor;
use fleetdesk_proto::vehicle::v1 as pb;
use sqlx_postgres::PgConnection;

use super::convert;
use super::domain::{
    EnergyType, OwnershipType, PlateColor, UsageKind, UsageStatus, VehicleCategory, VehicleStatus,
};
use super::store::{self, VehicleQuery, VehicleRow};
use crate::context::Actor;
use crate::exports::{self, ListExport, NewJob, day, label, moment, text};

/// The kind's name in `export_job.kind`.
pub const KIND: &str = "vehicles";

/// The header row; the import reads the same titles, so an exported file
/// imports into another enterprise as it is.
pub const HEADER: [&str; 32] = [
    "车牌号",
    "车牌颜色",
    "车架号(VIN)",
    "发动机/电机号",
    "所属组织",
    "品牌",
    "车型",
    "车辆类型",
    "能源类型",
    "电池容量(kWh)",
    "续航里程(km)",
    "车身颜色",
    "座位数",
    "核定载质量(kg)",
    "整备质量(kg)",
    "使用性质",
    "车辆状态",
    "登记日期",
    "行驶证所有人",
    "发证日期",
    "年检有效期至",
    "保险到期日期",
    "司机",
    "终端号",
    "SIM卡号",
    "使用类型",
    "使用状态",
    "租期开始",
    "租期结束",
    "标签",
    "备注",
    "创建时间",
];

/// The job an `ExportVehicles` request queues: the list's filter (checked
/// now, so a bad one is a 4000 at once) as the record shows it.
pub fn job(filter: &pb::VehicleFilter) -> Result<NewJob, ServiceError> {
    convert::query(Some(filter.clone()))?;
    let filters_json = serde_json::json!({
        "plateNumbers": filter.plate_numbers,
        "vins": filter.vins,
        "terminalIds": filter.terminal_ids,
        "orgIds": filter.org_ids,
        "keyword": filter.keyword,
        "brand": filter.brand,
        "model": filter.model,
        "statuses": filter.statuses,
        "usageKinds": filter.usage_kinds,
        "ownershipTypes": filter.ownership_types,
        "energyTypes": filter.energy_types,
        "hasDriver": filter.has_driver,
        "hasTerminal": filter.has_terminal,
        "registerTime": exports::range_json(filter.register_time.as_ref()),
        "createTime": exports::range_json(filter.create_time.as_ref()),
        "leaseEndTime": exports::range_json(filter.lease_end_time.as_ref()),
    });
    Ok(NewJob {
        kind: KIND,
        name: "车辆档案".to_owned(),
        module: "carFiles",
        filter: prost::Message::encode_to_vec(filter),
        filters_json,
    })
}

/// The vehicle list as an export kind.
#[derive(Debug, Clone, Copy)]
pub struct VehiclesExport;

/// Battery capacity in kWh (stored in Wh).
fn kwh(wh: i64) -> Cell {
    Cell::Number(wh as f64 / 1000.0)
}

impl ListExport for VehiclesExport {
    type Scope = (Actor, VehicleQuery);
    type Row = VehicleRow;
    type Key = Cursor;

    fn header(&self) -> Vec<String> {
        exports::header(&HEADER)
    }

    async fn scope(
        &self,
        conn: &mut PgConnection,
        job: &JobScope,
    ) -> Result<Self::Scope, ServiceError> {
        let actor = exports::actor(job)?;
        let mut query = convert::query(Some(exports::filter::<pb::VehicleFilter>(job)?))?;
        query.org_ids = store::org_subtrees(conn, query.org_ids).await?;
        Ok((actor, query))
    }

    async fn count(
        &self,
        conn: &mut PgConnection,
        (actor, query): &Self::Scope,
    ) -> Result<i64, ServiceError> {
        store::count(conn, actor, query).await
    }

    async fn page(
        &self,
        conn: &mut PgConnection,
        (actor, query): &Self::Scope,
        after: Option<Cursor>,
        limit: i64,
    ) -> Result<Vec<VehicleRow>, ServiceError> {
        store::export_page(conn, actor, query, after, limit).await
    }

    fn key(row: &VehicleRow) -> Cursor {
        Cursor {
            at: row.created_at,
            id: row.id,
        }
    }

    fn cells(&self, row: VehicleRow) -> Vec<Cell> {
        vec![
            Cell::from(row.plate_number),
            label::<PlateColor>(Some(row.plate_color), PlateColor::label),
            Cell::from(row.vin),
            text(row.engine_number),
            text(row.org_name),
            Cell::from(row.brand),
            Cell::from(row.model),
            label::<VehicleCategory>(Some(row.category), VehicleCategory::label),
            label::<EnergyType>(Some(row.energy_type), EnergyType::label),
            kwh(row.battery_capacity_wh),
            Cell::from(row.rated_range_km),
            text(row.body_color),
            Cell::from(row.seat_count),
            Cell::from(row.rated_load_kg),
            Cell::from(row.curb_weight_kg),
            label::<OwnershipType>(Some(row.ownership_type), OwnershipType::label),
            label::<VehicleStatus>(Some(row.status), VehicleStatus::label),
            day(row.register_time),
            text(row.licence_owner),
            day(row.licence_issue_time),
            day(row.inspection_expire_time),
            day(row.insurance_expire_time),
            text(row.driver_name.unwrap_or_default()),
            text(row.terminal_id.unwrap_or_default()),
            text(row.terminal_sim.unwrap_or_default()),
            label::<UsageKind>(row.usage_kind, UsageKind::label),
            label::<UsageStatus>(row.usage_status, UsageStatus::label),
            day(row.lease_start_time),
            day(row.lease_end_time),
            text(row.tags.join("、")),
            text(row.remark),
            moment(Some(row.created_at)),
        ]
    }
}

//! The per-vehicle behaviour list as an export kind: the filter and the
//! requester's reach, in the list's order (most energy first) by keyset on
//! (energy, vehicle), with kilometres from the vehicle service per page.

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::scope::PageKey;
use fleetdesk_kit::export::{Cell, JobScope};
use fleetdesk_proto::energy::v1 as pb;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::convert;
use super::distances;
use super::store::{self, Query, Slice};
use crate::accounts;
use crate::exports::{self, ListExport, NewJob, money, text};
use crate::telemetry::Distances;

/// The kind's name in `export_job.kind`.
pub const KIND: &str = "vehicle_charging_behaviors";

pub const HEADER: [&str; 16] = [
    "车牌号",
    "组织",
    "充电次数",
    "充电量(kWh)",
    "金额(元)",
    "平均单价(元/kWh)",
    "峰时电量(kWh)",
    "平时电量(kWh)",
    "谷时电量(kWh)",
    "谷电占比(%)",
    "平均起充SOC(%)",
    "平均结束SOC(%)",
    "常用起充时段",
    "行驶里程(km)",
    "百公里电费(元)",
    "百公里电耗(kWh)",
];

/// The job an `ExportVehicleChargingBehaviors` request queues.
pub fn job(filter: &pb::ChargingBehaviorFilter) -> NewJob {
    NewJob {
        kind: KIND,
        name: "充电行为分析".to_owned(),
        module: "behaviorAnalyze",
        filter: prost::Message::encode_to_vec(filter),
        filters_json: serde_json::json!({
            "orgIds": filter.org_ids,
            "plateNumbers": filter.plate_numbers,
            "startTime": exports::range_json(filter.start_time.as_ref()),
        }),
    }
}

/// Vehicles' charging behaviour as an export kind; kilometres come from
/// the vehicle service when wired.
#[derive(Debug, Clone)]
pub struct BehaviorsExport {
    pub distances: Option<Distances>,
}

fn kwh(wh: i64) -> Cell {
    Cell::Number(wh as f64 / 1000.0)
}

/// fen per MWh as yuan per kWh with four decimals (0.8235 元/kWh).
fn yuan_per_kwh(fen_per_mwh: i64) -> Cell {
    Cell::Number(fen_per_mwh as f64 / 100_000.0)
}

fn cells(v: pb::VehicleChargingBehavior) -> Vec<Cell> {
    let f = v.figures.unwrap_or_default();
    vec![
        Cell::Text(v.plate_number),
        text(v.org_name),
        Cell::from(f.session_count),
        kwh(f.energy_wh),
        money(f.total_fen),
        yuan_per_kwh(f.avg_price_fen_per_mwh),
        kwh(f.peak_energy_wh),
        kwh(f.flat_energy_wh),
        kwh(f.valley_energy_wh),
        Cell::Number((f.off_peak_share * 1000.0).round() / 10.0),
        Cell::from(f.avg_start_soc_percent),
        Cell::from(f.avg_end_soc_percent),
        Cell::Text(format!(
            "{:02}:00-{:02}:00",
            v.usual_start_hour,
            v.usual_start_hour + 1
        )),
        if f.vehicles_with_distance > 0 {
            Cell::Number(f.distance_m as f64 / 1000.0)
        } else {
            Cell::Empty
        },
        f.fen_per_100km.map_or(Cell::Empty, money),
        f.wh_per_100km.map_or(Cell::Empty, kwh),
    ]
}

/// `<energy_wh>,<vehicle id>`: where the next page starts.
fn cursor(energy_wh: i64, vehicle: Uuid) -> String {
    format!("{energy_wh},{vehicle}")
}

fn after(after: Option<&str>) -> Result<Option<(i64, Uuid)>, ServiceError> {
    let Some(after) = after else {
        return Ok(None);
    };
    let (energy, id) = after.split_once(',').ok_or_else(bad_position)?;
    Ok(Some((
        energy.parse().map_err(|_| bad_position())?,
        Uuid::parse_str(id).map_err(|_| bad_position())?,
    )))
}

fn bad_position() -> ServiceError {
    ServiceError::invalid("after", "分页位置无效")
}

/// Where a page starts: the last vehicle's energy and id (the list's
/// order, most energy first).
#[derive(Debug, Clone, Copy)]
pub struct Position {
    energy_wh: i64,
    vehicle: Uuid,
}

impl PageKey for Position {
    fn encode(&self) -> String {
        cursor(self.energy_wh, self.vehicle)
    }

    fn decode(text: &str) -> Result<Self, ServiceError> {
        let (energy_wh, vehicle) = after(Some(text))?.ok_or_else(bad_position)?;
        Ok(Position { energy_wh, vehicle })
    }
}

/// A vehicle's row as the list shows it, with where it sorts.
#[derive(Debug)]
pub struct ExportedVehicle {
    position: Position,
    behavior: pb::VehicleChargingBehavior,
}

impl ListExport for BehaviorsExport {
    type Scope = Query;
    type Row = ExportedVehicle;
    type Key = Position;

    fn header(&self) -> Vec<String> {
        exports::header(&HEADER)
    }

    async fn scope(&self, conn: &mut PgConnection, job: &JobScope) -> Result<Query, ServiceError> {
        let actor = exports::actor(job)?;
        let filter: pb::ChargingBehaviorFilter = exports::filter(job)?;
        convert::query(conn, &actor, Some(&filter)).await
    }

    async fn count(&self, conn: &mut PgConnection, q: &Query) -> Result<i64, ServiceError> {
        store::vehicle_count(conn, q).await
    }

    async fn page(
        &self,
        conn: &mut PgConnection,
        q: &Query,
        after: Option<Position>,
        limit: i64,
    ) -> Result<Vec<ExportedVehicle>, ServiceError> {
        let after = after.map(|p| (p.energy_wh, p.vehicle));
        let rows = store::vehicles(conn, q, Slice::After(after, limit)).await?;
        let org_ids: Vec<Uuid> = rows.iter().map(|v| v.org_id).collect();
        let org_names = accounts::store::org_names(conn, &org_ids).await?;
        let ids: Vec<Uuid> = rows.iter().map(|v| v.vehicle_id).collect();
        let metres = distances::known(self.distances.as_ref(), q, &ids).await;
        Ok(rows
            .into_iter()
            .map(|v| ExportedVehicle {
                position: Position {
                    energy_wh: v.sums.energy_wh,
                    vehicle: v.vehicle_id,
                },
                behavior: convert::vehicle(v, &org_names, &metres),
            })
            .collect())
    }

    fn key(row: &ExportedVehicle) -> Position {
        row.position
    }

    fn cells(&self, row: ExportedVehicle) -> Vec<Cell> {
        cells(row.behavior)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_has_a_cell_per_header_column_and_the_cursor_reads_back() {
        let row = cells(pb::VehicleChargingBehavior {
            plate_number: "粤B00001".into(),
            usual_start_hour: 23,
            figures: Some(pb::ChargingBehaviorFigures {
                energy_wh: 120_500,
                avg_price_fen_per_mwh: 82_350,
                off_peak_share: 0.4567,
                fen_per_100km: Some(3_210),
                vehicles_with_distance: 1,
                distance_m: 250_000,
                ..Default::default()
            }),
            ..Default::default()
        });
        assert_eq!(row.len(), HEADER.len());
        assert_eq!(row[3], Cell::Number(120.5));
        assert_eq!(row[5], Cell::Number(0.8235));
        assert_eq!(row[9], Cell::Number(45.7));
        assert_eq!(row[12], Cell::Text("23:00-24:00".into()));
        assert_eq!(row[13], Cell::Number(250.0));
        assert_eq!(row[14], Cell::Text("32.10".into()));
        let id = Uuid::from_u128(5);
        assert_eq!(after(Some(&cursor(42, id))).unwrap(), Some((42, id)));
        assert!(after(Some("x")).is_err());
    }
}

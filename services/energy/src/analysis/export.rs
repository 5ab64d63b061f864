//! The per-vehicle behaviour list as an export kind: the filter and the
//! requester's reach, in the list's order (most energy first) by keyset on
//! (energy, vehicle), with kilometres from the vehicle service per page.

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::{Cell, ExportKind, JobScope, Page};
use fleetdesk_proto::energy::v1 as pb;
use futures::future::BoxFuture;
use sqlx::PgConnection;
use uuid::Uuid;

use super::convert;
use super::distances::{self, Distances};
use super::store::{self, Query, Slice};
use crate::exports::{self, NewJob, money, text};
use crate::reports;

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

async fn scope(conn: &mut PgConnection, job: &JobScope) -> Result<Query, ServiceError> {
    let actor = exports::actor(job)?;
    let filter: pb::ChargingBehaviorFilter = exports::filter(job)?;
    convert::query(conn, &actor, Some(&filter)).await
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
    let bad = || ServiceError::invalid("after", "分页位置无效");
    let (energy, id) = after.split_once(',').ok_or_else(bad)?;
    Ok(Some((
        energy.parse().map_err(|_| bad())?,
        Uuid::parse_str(id).map_err(|_| bad())?,
    )))
}

impl ExportKind for BehaviorsExport {
    fn header(&self) -> Vec<String> {
        HEADER.iter().map(|h| (*h).to_owned()).collect()
    }

    fn count<'a>(
        &'a self,
        conn: &'a mut PgConnection,
        job: &'a JobScope,
    ) -> BoxFuture<'a, Result<i64, ServiceError>> {
        Box::pin(async move {
            let q = scope(conn, job).await?;
            store::vehicle_count(conn, &q).await
        })
    }

    fn page<'a>(
        &'a self,
        conn: &'a mut PgConnection,
        job: &'a JobScope,
        after_page: Option<&'a str>,
        limit: i64,
    ) -> BoxFuture<'a, Result<Page, ServiceError>> {
        Box::pin(async move {
            let q = scope(conn, job).await?;
            let rows = store::vehicles(conn, &q, Slice::After(after(after_page)?, limit)).await?;
            let next = rows
                .last()
                .filter(|_| rows.len() as i64 == limit)
                .map(|r| cursor(r.sums.energy_wh, r.vehicle_id));
            let org_ids: Vec<Uuid> = rows.iter().map(|v| v.org_id).collect();
            let org_names = reports::org_names(conn, &org_ids).await?;
            let ids: Vec<Uuid> = rows.iter().map(|v| v.vehicle_id).collect();
            let metres = distances::known(self.distances.as_ref(), &q, &ids).await;
            Ok(Page {
                rows: rows
                    .into_iter()
                    .map(|v| cells(convert::vehicle(v, &org_names, &metres)))
                    .collect(),
                next,
            })
        })
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

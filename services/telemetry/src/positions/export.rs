//! One vehicle's track as an export kind: the fixes of the range, oldest
//! first, keyset on the fix time (unique per vehicle).

use chrono::{DateTime, Utc};
use fleetdesk_assets::vehicles;
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::convert::id;
use fleetdesk_kit::export::{Cell, JobScope};
use fleetdesk_proto::vehicle::v1 as pb;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::TrackRange;
use super::handlers::track_range;
use super::store::{self, HistoryRow};
use crate::exports::{self, ListExport, NewJob, moment};

/// The kind's name in `export_job.kind`.
pub const KIND: &str = "position_history";

const HEADER: [&str; 10] = [
    "定位时间",
    "纬度",
    "经度",
    "速度(km/h)",
    "方向(°)",
    "海拔(m)",
    "里程(km)",
    "电量(%)",
    "报警标志",
    "状态位",
];

/// The job of an `ExportPositionHistory` request (checked by the handler).
pub fn job(request: &pb::ExportPositionHistoryRequest, plate: &str, range: TrackRange) -> NewJob {
    NewJob {
        kind: KIND,
        name: format!("{plate} 轨迹"),
        module: "quicklyFindCar",
        filter: prost::Message::encode_to_vec(request),
        filters_json: serde_json::json!({
            "vehicleId": request.vehicle_id,
            "plateNumber": plate,
            "from": range.start.to_rfc3339(),
            "to": range.end.to_rfc3339(),
        }),
    }
}

#[derive(Debug, Clone, Copy)]
pub struct TrackExport;

impl ListExport for TrackExport {
    /// The tenant, vehicle and range a job reads.
    type Scope = (Uuid, Uuid, TrackRange);
    type Row = HistoryRow;
    type Key = DateTime<Utc>;

    fn header(&self) -> Vec<String> {
        exports::header(&HEADER)
    }

    /// The vehicle checked against the requester's reach again.
    async fn scope(
        &self,
        conn: &mut PgConnection,
        job: &JobScope,
    ) -> Result<Self::Scope, ServiceError> {
        let actor = exports::actor(job)?;
        let request: pb::ExportPositionHistoryRequest = exports::filter(job)?;
        let vehicle_id = id(&request.vehicle_id)?;
        vehicles::store::get(conn, &actor, vehicle_id, false).await?;
        Ok((
            actor.enterprise_id,
            vehicle_id,
            track_range(request.time_range.as_ref())?,
        ))
    }

    async fn count(
        &self,
        conn: &mut PgConnection,
        &(enterprise, vehicle, range): &Self::Scope,
    ) -> Result<i64, ServiceError> {
        store::history_count(conn, enterprise, vehicle, range).await
    }

    async fn page(
        &self,
        conn: &mut PgConnection,
        &(enterprise, vehicle, range): &Self::Scope,
        after: Option<DateTime<Utc>>,
        limit: i64,
    ) -> Result<Vec<HistoryRow>, ServiceError> {
        store::history_page(conn, enterprise, vehicle, range, after, limit).await
    }

    fn key(row: &HistoryRow) -> DateTime<Utc> {
        row.fix_time
    }

    fn cells(&self, row: HistoryRow) -> Vec<Cell> {
        vec![
            moment(Some(row.fix_time)),
            Cell::Number(row.lat),
            Cell::Number(row.lng),
            Cell::Number(f64::from(row.speed_dkmh) / 10.0),
            Cell::from(i32::from(row.heading)),
            Cell::from(row.altitude_m),
            row.mileage_m
                .map_or(Cell::Empty, |m| Cell::Number(m as f64 / 1000.0)),
            row.soc.map_or(Cell::Empty, |s| Cell::from(i32::from(s))),
            Cell::from(row.alarm_bits),
            Cell::from(row.status_bits),
        ]
    }
}

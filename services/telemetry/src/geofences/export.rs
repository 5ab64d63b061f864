//! Geofence crossings (crossRailPage) as an export kind: the list's filter
//! and reach (`store::crossings_filtered`), newest first by keyset on
//! (`cross_time`, `id`).

use fleetdesk_assets::vehicles;
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::{Cell, JobScope};
use fleetdesk_kit::list::Cursor;
use fleetdesk_proto::vehicle::v1 as pb;
use sqlx_postgres::PgConnection;

use super::convert;
use super::domain::Direction;
use super::store::{self, CrossingQuery, CrossingRow};
use crate::context::Actor;
use crate::exports::{self, ListExport, NewJob, label, moment, text};

/// The kind's name in `export_job.kind`.
pub const KIND: &str = "geofence_crossings";

pub const HEADER: [&str; 9] = [
    "围栏名称",
    "车牌号",
    "方向",
    "时间",
    "纬度",
    "经度",
    "速度(km/h)",
    "停留时长(秒)",
    "是否报警",
];

impl Direction {
    pub fn label(self) -> &'static str {
        match self {
            Direction::Enter => "驶入",
            Direction::Exit => "驶出",
        }
    }
}

/// The job an `ExportGeofenceCrossings` request queues (the filter checked now).
pub fn job(filter: &pb::ListGeofenceCrossingsRequest) -> Result<NewJob, ServiceError> {
    convert::crossing_query(filter)?;
    let filters_json = serde_json::json!({
        "geofenceIds": filter.geofence_ids,
        "plateNumbers": filter.plate_numbers,
        "orgIds": filter.org_ids,
        "directions": filter.directions,
        "crossTime": exports::range_json(filter.cross_time.as_ref()),
        "alarmedOnly": filter.alarmed_only,
    });
    Ok(NewJob {
        kind: KIND,
        name: "围栏进出记录".to_owned(),
        module: "crossRailPage",
        filter: prost::Message::encode_to_vec(filter),
        filters_json,
    })
}

/// The crossings list as an export kind.
#[derive(Debug, Clone, Copy)]
pub struct CrossingsExport;

impl ListExport for CrossingsExport {
    type Scope = (Actor, CrossingQuery);
    type Row = CrossingRow;
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
        let mut query =
            convert::crossing_query(&exports::filter::<pb::ListGeofenceCrossingsRequest>(job)?)?;
        query.org_ids = vehicles::store::org_subtrees(conn, query.org_ids).await?;
        Ok((actor, query))
    }

    async fn count(
        &self,
        conn: &mut PgConnection,
        (actor, query): &Self::Scope,
    ) -> Result<i64, ServiceError> {
        store::count_crossings(conn, actor, query).await
    }

    async fn page(
        &self,
        conn: &mut PgConnection,
        (actor, query): &Self::Scope,
        after: Option<Cursor>,
        limit: i64,
    ) -> Result<Vec<CrossingRow>, ServiceError> {
        store::crossings_page(conn, actor, query, after, limit).await
    }

    fn key(row: &CrossingRow) -> Cursor {
        Cursor {
            at: row.cross_time,
            id: row.id,
        }
    }

    fn cells(&self, row: CrossingRow) -> Vec<Cell> {
        vec![
            Cell::from(row.geofence_name),
            Cell::from(row.plate_number),
            label::<Direction>(Some(row.direction), Direction::label),
            moment(Some(row.cross_time)),
            text(format!("{:.6}", row.lat)),
            text(format!("{:.6}", row.lng)),
            text(format!("{:.1}", f64::from(row.speed_dkmh) / 10.0)),
            row.dwell_seconds
                .map_or(Cell::Empty, |d| text(d.to_string())),
            Cell::from(if row.alarmed { "是" } else { "否" }),
        ]
    }
}

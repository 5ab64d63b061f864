//! Geofence crossings (crossRailPage) as an export kind: the list's filter
//! and reach (`store::crossings_filtered`), newest first by keyset on
//! (`cross_time`, `id`).

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::{Cell, ExportKind, JobScope, Page};
use fleetdesk_proto::vehicle::v1 as pb;
use futures::future::BoxFuture;
use sqlx::PgConnection;

use super::convert;
use super::domain::Direction;
use super::store::{self, CrossingQuery, CrossingRow};
use crate::exports::{self, NewJob, label, moment, text};
use crate::grpc::Actor;
use crate::vehicles;

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

async fn scope(
    conn: &mut PgConnection,
    job: &JobScope,
) -> Result<(Actor, CrossingQuery), ServiceError> {
    let actor = exports::actor(job)?;
    let mut query =
        convert::crossing_query(&exports::filter::<pb::ListGeofenceCrossingsRequest>(job)?)?;
    query.org_ids = vehicles::store::org_subtrees(conn, query.org_ids).await?;
    Ok((actor, query))
}

fn cells(row: CrossingRow) -> Vec<Cell> {
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

impl ExportKind for CrossingsExport {
    fn header(&self) -> Vec<String> {
        HEADER.iter().map(|h| (*h).to_owned()).collect()
    }

    fn count<'a>(
        &'a self,
        conn: &'a mut PgConnection,
        job: &'a JobScope,
    ) -> BoxFuture<'a, Result<i64, ServiceError>> {
        Box::pin(async move {
            let (actor, query) = scope(conn, job).await?;
            store::count_crossings(conn, &actor, &query).await
        })
    }

    fn page<'a>(
        &'a self,
        conn: &'a mut PgConnection,
        job: &'a JobScope,
        after: Option<&'a str>,
        limit: i64,
    ) -> BoxFuture<'a, Result<Page, ServiceError>> {
        Box::pin(async move {
            let (actor, query) = scope(conn, job).await?;
            let cursor = exports::after(after)?;
            let rows = store::crossings_page(conn, &actor, &query, cursor, limit).await?;
            let next = rows.last().map(|r| exports::cursor(r.cross_time, r.id));
            Ok(Page {
                rows: rows.into_iter().map(cells).collect(),
                next,
            })
        })
    }
}

//! Plate recognitions (scanPlateRecord) as an export kind: the list's
//! filter and reach (`store::filtered`), newest first by keyset on
//! (`scan_time`, `id`).

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::{Cell, ExportKind, JobScope, Page};
use fleetdesk_proto::energy::v1 as pb;
use futures::future::BoxFuture;
use sqlx::PgConnection;

use super::convert;
use super::domain::ScanResult;
use super::store::{self, ScanQuery, ScanRow};
use crate::exports::{self, NewJob, label, moment, range_json, text};
use crate::filters;
use crate::grpc::Actor;

/// The kind's name in `export_job.kind`.
pub const KIND: &str = "plate_scans";

pub const HEADER: [&str; 7] = [
    "识别时间",
    "车牌号",
    "充电站",
    "桩号",
    "充电卡号",
    "所属组织",
    "识别结果",
];

/// The job an `ExportPlateScanRecords` request queues (the filter checked now).
pub fn job(filter: &pb::ListPlateScanRecordsRequest) -> Result<NewJob, ServiceError> {
    convert::query(filter)?;
    let filters_json = serde_json::json!({
        "plateNumbers": filter.plate_numbers,
        "orgIds": filter.org_ids,
        "stationId": filter.station_id,
        "results": filter.results,
        "scanTime": range_json(filter.scan_time.as_ref()),
    });
    Ok(NewJob {
        kind: KIND,
        name: "车牌识别记录".to_owned(),
        module: "scanPlateRecord",
        filter: prost::Message::encode_to_vec(filter),
        filters_json,
    })
}

/// The plate-scan list as an export kind.
#[derive(Debug, Clone, Copy)]
pub struct ScansExport;

async fn scope(
    conn: &mut PgConnection,
    job: &JobScope,
) -> Result<(Actor, ScanQuery), ServiceError> {
    let actor = exports::actor(job)?;
    let mut query = convert::query(&exports::filter::<pb::ListPlateScanRecordsRequest>(job)?)?;
    query.org_ids = filters::org_subtrees(conn, query.org_ids).await?;
    Ok((actor, query))
}

fn cells(row: ScanRow) -> Vec<Cell> {
    vec![
        moment(Some(row.scan_time)),
        Cell::from(row.plate_number),
        text(row.station_name),
        text(row.pile_no),
        text(row.card_no),
        text(row.org_name),
        row.result.map_or(Cell::Label("待定"), |r| {
            label::<ScanResult>(r, ScanResult::label)
        }),
    ]
}

impl ExportKind for ScansExport {
    fn header(&self) -> Vec<String> {
        exports::header(&HEADER)
    }

    fn count<'a>(
        &'a self,
        conn: &'a mut PgConnection,
        job: &'a JobScope,
    ) -> BoxFuture<'a, Result<i64, ServiceError>> {
        Box::pin(async move {
            let (actor, query) = scope(conn, job).await?;
            store::count(conn, &actor, &query).await
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
            let rows = store::export_page(conn, &actor, &query, cursor, limit).await?;
            Ok(exports::keyset_page(rows, |r| (r.scan_time, r.id), cells))
        })
    }
}

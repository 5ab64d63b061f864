//! Plate recognitions (scanPlateRecord) as an export kind: the list's
//! filter and reach (`store::filtered`), newest first by keyset on
//! (`scan_time`, `id`).

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::{Cell, JobScope};
use fleetdesk_kit::list::Cursor;
use fleetdesk_proto::energy::v1 as pb;
use sqlx_postgres::PgConnection;

use super::convert;
use super::domain::ScanResult;
use super::store::{self, ScanQuery, ScanRow};
use crate::context::Actor;
use crate::exports::{self, ListExport, NewJob, label, moment, range_json, text};
use crate::filters;

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

impl ListExport for ScansExport {
    type Scope = (Actor, ScanQuery);
    type Row = ScanRow;
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
        let mut query = convert::query(&exports::filter::<pb::ListPlateScanRecordsRequest>(job)?)?;
        query.org_ids = filters::org_subtrees(conn, query.org_ids).await?;
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
    ) -> Result<Vec<ScanRow>, ServiceError> {
        store::export_page(conn, actor, query, after, limit).await
    }

    fn key(row: &ScanRow) -> Cursor {
        Cursor {
            at: row.scan_time,
            id: row.id,
        }
    }

    fn cells(&self, row: ScanRow) -> Vec<Cell> {
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
}

//! Traffic violations (trafficViolations) as an export kind: the list's
//! filter and reach, newest violation first, walked by (time, id) keyset
//! pages from the list's indexes.

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::scope::money;
use fleetdesk_kit::export::{Cell, JobScope};
use fleetdesk_kit::list::Cursor;
use fleetdesk_proto::vehicle::v1 as pb;
use sqlx_postgres::PgConnection;

use super::convert::filter;
use super::domain::State;
use super::store::{self, ViolationQuery, ViolationRow};
use crate::context::Actor;
use crate::exports::{self, ListExport, NewJob, moment, text};
use fleetdesk_assets::vehicles;

/// The kind's name in `export_job.kind`.
pub const KIND: &str = "traffic_violations";

pub const HEADER: [&str; 15] = [
    "车牌号",
    "车架号",
    "所属组织",
    "违章时间",
    "违章地点",
    "违法代码",
    "违法行为",
    "罚款(元)",
    "扣分",
    "决定书编号",
    "处理机关",
    "责任司机",
    "状态",
    "处理人",
    "处理时间",
];

/// The job an `ExportViolations` request queues (the filter checked now).
pub fn job(f: &pb::ListViolationsRequest) -> Result<NewJob, ServiceError> {
    filter(f)?;
    let filters_json = serde_json::json!({
        "plateNumbers": f.plate_numbers,
        "vins": f.vins,
        "orgIds": f.org_ids,
        "driverId": f.driver_id,
        "statuses": f.statuses,
        "violationTime": exports::range_json(f.violation_time.as_ref()),
        "cityCode": f.city_code,
    });
    Ok(NewJob {
        kind: KIND,
        name: "违章记录".to_owned(),
        module: "trafficViolations",
        filter: prost::Message::encode_to_vec(f),
        filters_json,
    })
}

/// The violation list as an export kind.
#[derive(Debug, Clone, Copy)]
pub struct ViolationsExport;

impl ListExport for ViolationsExport {
    type Scope = (Actor, ViolationQuery);
    type Row = ViolationRow;
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
        let request = exports::filter::<pb::ListViolationsRequest>(job)?;
        let mut query = filter(&request)?;
        query.org_ids = vehicles::store::org_subtrees(conn, query.org_ids).await?;
        Ok((actor, query))
    }

    async fn count(
        &self,
        conn: &mut PgConnection,
        (actor, query): &Self::Scope,
    ) -> Result<i64, ServiceError> {
        Ok(store::totals(conn, actor, query).await?.count)
    }

    async fn page(
        &self,
        conn: &mut PgConnection,
        (actor, query): &Self::Scope,
        after: Option<Cursor>,
        limit: i64,
    ) -> Result<Vec<ViolationRow>, ServiceError> {
        store::after(conn, actor, query, after, limit).await
    }

    fn key(row: &ViolationRow) -> Cursor {
        Cursor {
            at: row.violation_time,
            id: row.id,
        }
    }

    fn cells(&self, row: ViolationRow) -> Vec<Cell> {
        let state = State::try_from(row.state).map_or("", State::label);
        let (by, at) = match State::try_from(row.state) {
            Ok(State::Paid) => (row.paid_by_name, row.paid_at),
            Ok(State::Handled) => (row.handled_by_name, row.handled_at),
            Ok(State::Unhandled) | Err(_) => (String::new(), None),
        };
        vec![
            text(row.plate_number),
            text(row.vin),
            text(row.org_name.unwrap_or_default()),
            moment(Some(row.violation_time)),
            text(row.address),
            text(row.offence_code),
            text(row.description),
            money(Some(row.fine_fen)),
            Cell::Text(row.penalty_points.to_string()),
            text(row.decision_no),
            text(row.authority),
            text(row.driver_name),
            text(state),
            text(by),
            moment(at),
        ]
    }
}

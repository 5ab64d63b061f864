//! The enterprise's charging-opening applications as an export kind: the
//! list's filter (`store::filtered`) on the requester's enterprise, newest
//! first by keyset on (`apply_time`, `id`). The applicant's phone is not
//! a column: it stays with org (see `convert::application`).

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::{Cell, JobScope};
use fleetdesk_kit::list::Cursor;
use fleetdesk_proto::energy::v1 as pb;
use sqlx_postgres::PgConnection;

use super::convert;
use super::domain::ApplicationStatus;
use super::store::{self, ApplicationQuery, ApplicationRow};
use crate::exports::{self, ListExport, NewJob, label, moment, text};

/// The kind's name in `export_job.kind`.
pub const KIND: &str = "charging_open_applications";

pub const HEADER: [&str; 7] = [
    "申请时间",
    "申请人",
    "状态",
    "处理时间",
    "处理人",
    "申请备注",
    "处理意见",
];

/// The job an `ExportChargingOpenApplications` request queues (the filter
/// checked now).
pub fn job(filter: &pb::ListChargingOpenApplicationsRequest) -> Result<NewJob, ServiceError> {
    convert::query(filter)?;
    Ok(NewJob {
        kind: KIND,
        name: "充电开通申请记录".to_owned(),
        module: "chargeIntroduce",
        filter: prost::Message::encode_to_vec(filter),
        filters_json: serde_json::json!({
            "statuses": filter.statuses,
            "applyTime": exports::range_json(filter.apply_time.as_ref()),
        }),
    })
}

/// The application list as an export kind.
#[derive(Debug, Clone, Copy)]
pub struct ApplicationsExport;

impl ListExport for ApplicationsExport {
    type Scope = ApplicationQuery;
    type Row = ApplicationRow;
    type Key = Cursor;

    fn header(&self) -> Vec<String> {
        exports::header(&HEADER)
    }

    async fn scope(
        &self,
        _conn: &mut PgConnection,
        job: &JobScope,
    ) -> Result<Self::Scope, ServiceError> {
        let mut query = convert::query(
            &exports::filter::<pb::ListChargingOpenApplicationsRequest>(job)?,
        )?;
        // The requester's own enterprise, whatever the stored filter names.
        query.enterprise_id = Some(exports::actor(job)?.enterprise_id);
        Ok(query)
    }

    async fn count(
        &self,
        conn: &mut PgConnection,
        query: &Self::Scope,
    ) -> Result<i64, ServiceError> {
        store::count(conn, query).await
    }

    async fn page(
        &self,
        conn: &mut PgConnection,
        query: &Self::Scope,
        after: Option<Cursor>,
        limit: i64,
    ) -> Result<Vec<ApplicationRow>, ServiceError> {
        store::export_page(conn, query, after, limit).await
    }

    fn key(row: &ApplicationRow) -> Cursor {
        Cursor {
            at: row.apply_time,
            id: row.id,
        }
    }

    fn cells(&self, row: ApplicationRow) -> Vec<Cell> {
        let ApplicationRow {
            id: _,
            enterprise_id: _,
            enterprise_name: _,
            applicant_id: _,
            applicant_name,
            status,
            apply_time,
            contact_time,
            handler_name,
            decide_time,
            reject_reason,
            remark,
            approve_remark,
        } = row;
        // A decision carries either a rejection's reason or an approval's remark.
        let opinion = if reject_reason.is_empty() {
            approve_remark
        } else {
            reject_reason
        };
        vec![
            moment(Some(apply_time)),
            text(applicant_name),
            label::<ApplicationStatus>(status, ApplicationStatus::label),
            moment(decide_time.or(contact_time)),
            text(handler_name),
            text(remark),
            text(opinion),
        ]
    }
}

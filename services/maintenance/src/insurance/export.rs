//! Insurance policies (carGuaranteeSlip) as an export kind: the list's
//! filter and reach, latest end first, walked by (end, id) keyset pages from
//! the list's indexes; expiry states read when the job runs.

use chrono::Utc;
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::{Cell, JobScope};
use fleetdesk_kit::list::Cursor;
use fleetdesk_proto::vehicle::v1 as pb;
use sqlx_postgres::PgConnection;

use super::convert::filter;
use fleetdesk_kit::export::scope::yuan;

use super::domain::{Expiry, Kind};
use super::store::{self, PolicyQuery, PolicyRow};
use crate::context::Actor;
use crate::exports::{self, ListExport, NewJob, moment, text};
use fleetdesk_assets::vehicles;

/// The kind's name in `export_job.kind`.
pub const KIND: &str = "insurance_policies";

pub const HEADER: [&str; 13] = [
    "车牌号",
    "车架号",
    "所属组织",
    "险种",
    "保险公司",
    "保单号",
    "被保险人",
    "保险起期",
    "保险止期",
    "保费(元)",
    "险别及保额(元)",
    "状态",
    "录入人",
];

/// The job an `ExportInsurancePolicies` request queues (the filter checked now).
pub fn job(f: &pb::ListInsurancePoliciesRequest) -> Result<NewJob, ServiceError> {
    filter(f, Utc::now())?;
    let filters_json = serde_json::json!({
        "plateNumbers": f.plate_numbers,
        "vins": f.vins,
        "orgIds": f.org_ids,
        "policyNo": f.policy_no,
        "kinds": f.kinds,
        "statuses": f.statuses,
        "insurers": f.insurers,
        "endTime": exports::range_json(f.end_time.as_ref()),
    });
    Ok(NewJob {
        kind: KIND,
        name: "保险保单".to_owned(),
        module: "carGuaranteeSlip",
        filter: prost::Message::encode_to_vec(f),
        filters_json,
    })
}

/// The policy list as an export kind.
#[derive(Debug, Clone, Copy)]
pub struct PoliciesExport;

impl ListExport for PoliciesExport {
    type Scope = (Actor, PolicyQuery);
    type Row = PolicyRow;
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
        let request = exports::filter::<pb::ListInsurancePoliciesRequest>(job)?;
        let mut query = filter(&request, Utc::now())?;
        query.org_ids = vehicles::store::org_subtrees(conn, query.org_ids).await?;
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
    ) -> Result<Vec<PolicyRow>, ServiceError> {
        store::after(conn, actor, query, after, limit).await
    }

    fn key(row: &PolicyRow) -> Cursor {
        Cursor {
            at: row.end_time,
            id: row.id,
        }
    }

    fn cells(&self, row: PolicyRow) -> Vec<Cell> {
        let kind = Kind::try_from(row.kind).map_or("", Kind::label);
        let state = Expiry::at(row.start_time, row.end_time, Utc::now()).label();
        let coverages: Vec<String> = row
            .coverages
            .0
            .iter()
            .map(|c| format!("{}:{}", c.name, yuan(c.sum_insured_fen)))
            .collect();
        vec![
            text(row.plate_number),
            text(row.vin),
            text(row.org_name.unwrap_or_default()),
            text(kind),
            text(row.insurer),
            text(row.policy_no),
            text(row.insured_name),
            moment(Some(row.start_time)),
            moment(Some(row.end_time)),
            Cell::Text(yuan(row.premium_fen)),
            text(coverages.join("；")),
            text(state),
            text(row.created_by_name),
        ]
    }
}

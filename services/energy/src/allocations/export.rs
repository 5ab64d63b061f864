//! The allocation record (balanceAllocationRecord) as an export kind: the
//! list's filter and reach (`store::filtered`), newest first by keyset on
//! (`created_at`, `id`).

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::{Cell, JobScope};
use fleetdesk_kit::list::Cursor;
use fleetdesk_proto::energy::v1 as pb;
use sqlx_postgres::PgConnection;

use super::convert;
use super::domain::Direction;
use super::store::{self, AllocationQuery, AllocationRow};
use crate::context::Actor;
use crate::exports::{self, ListExport, NewJob, label, moment, money, text};
use crate::filters;

/// The kind's name in `export_job.kind`.
pub const KIND: &str = "balance_allocations";

pub const HEADER: [&str; 9] = [
    "类型",
    "转出账户",
    "转入账户",
    "金额(元)",
    "转出后余额(元)",
    "转入后余额(元)",
    "操作人",
    "操作时间",
    "备注",
];

/// The job an `ExportBalanceAllocations` request queues (the filter checked now).
pub fn job(filter: &pb::ListBalanceAllocationsRequest) -> Result<NewJob, ServiceError> {
    convert::query(filter)?;
    Ok(NewJob {
        kind: KIND,
        name: "余额分配记录".to_owned(),
        module: "balanceAllocationRecord",
        filter: prost::Message::encode_to_vec(filter),
        filters_json: serde_json::json!({
            "accountId": filter.account_id,
            "orgIds": filter.org_ids,
            "direction": filter.direction,
            "allocateTime": exports::range_json(filter.allocate_time.as_ref()),
        }),
    })
}

/// The allocation record as an export kind.
#[derive(Debug, Clone, Copy)]
pub struct AllocationsExport;

impl ListExport for AllocationsExport {
    type Scope = (Actor, AllocationQuery);
    type Row = AllocationRow;
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
            convert::query(&exports::filter::<pb::ListBalanceAllocationsRequest>(job)?)?;
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
    ) -> Result<Vec<AllocationRow>, ServiceError> {
        store::export_page(conn, actor, query, after, limit).await
    }

    fn key(row: &AllocationRow) -> Cursor {
        Cursor {
            at: row.created_at,
            id: row.id,
        }
    }

    fn cells(&self, row: AllocationRow) -> Vec<Cell> {
        vec![
            label::<Direction>(row.direction, Direction::label),
            text(row.from_org_name),
            text(row.to_org_name),
            money(row.amount_fen),
            money(row.from_balance_after_fen),
            money(row.to_balance_after_fen),
            text(row.operator_name),
            moment(Some(row.created_at)),
            text(row.remark),
        ]
    }
}

//! Amount changes (countChangeRecord) as an export kind: the list's filter
//! and reach (`store::filtered`), newest first by keyset on
//! (`created_at`, `id`).

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::{Cell, JobScope};
use fleetdesk_kit::list::Cursor;
use fleetdesk_proto::energy::v1 as pb;
use sqlx_postgres::PgConnection;

use super::convert;
use super::domain::ChangeKind;
use super::store::{self, ChangeQuery, ChangeRow};
use crate::context::Actor;
use crate::exports::{self, ListExport, NewJob, label, moment, money, text};
use crate::filters;

/// The kind's name in `export_job.kind`.
pub const KIND: &str = "card_amount_changes";

pub const HEADER: [&str; 11] = [
    "卡号",
    "所属组织",
    "车牌号",
    "司机",
    "变动类型",
    "变动金额(元)",
    "变动前余额(元)",
    "变动后余额(元)",
    "操作人",
    "变动时间",
    "备注",
];

/// The job an `ExportCardAmountChanges` request queues (the filter checked now).
pub fn job(filter: &pb::ListCardAmountChangesRequest) -> Result<NewJob, ServiceError> {
    convert::query(filter)?;
    Ok(NewJob {
        kind: KIND,
        name: "充电卡金额变动记录".to_owned(),
        module: "countChangeRecord",
        filter: prost::Message::encode_to_vec(filter),
        filters_json: serde_json::json!({
            "cardId": filter.card_id,
            "cardNos": filter.card_nos,
            "plateNumbers": filter.plate_numbers,
            "orgIds": filter.org_ids,
            "kinds": filter.kinds,
            "changeTime": exports::range_json(filter.change_time.as_ref()),
        }),
    })
}

/// Amount changes as an export kind.
#[derive(Debug, Clone, Copy)]
pub struct ChangesExport;

impl ListExport for ChangesExport {
    type Scope = (Actor, ChangeQuery);
    type Row = ChangeRow;
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
        let mut query = convert::query(&exports::filter::<pb::ListCardAmountChangesRequest>(job)?)?;
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
    ) -> Result<Vec<ChangeRow>, ServiceError> {
        store::export_page(conn, actor, query, after, limit).await
    }

    fn key(row: &ChangeRow) -> Cursor {
        Cursor {
            at: row.created_at,
            id: row.id,
        }
    }

    fn cells(&self, row: ChangeRow) -> Vec<Cell> {
        vec![
            Cell::from(row.card_no),
            text(row.org_name),
            text(row.plate_number),
            text(row.driver_name),
            label::<ChangeKind>(row.kind, ChangeKind::label),
            money(row.amount_fen),
            money(row.balance_before_fen),
            money(row.balance_after_fen),
            text(row.operator_name),
            moment(Some(row.created_at)),
            text(row.remark),
        ]
    }
}

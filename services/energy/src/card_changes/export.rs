//! Amount changes (countChangeRecord) as an export kind: the list's filter
//! and reach (`store::filtered`), newest first by keyset on
//! (`created_at`, `id`).

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::{Cell, ExportKind, JobScope, Page};
use fleetdesk_proto::energy::v1 as pb;
use futures::future::BoxFuture;
use sqlx::PgConnection;

use super::convert;
use super::domain::ChangeKind;
use super::store::{self, ChangeQuery, ChangeRow};
use crate::exports::{self, NewJob, label, moment, money, text};
use crate::filters;
use crate::grpc::Actor;

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

async fn scope(
    conn: &mut PgConnection,
    job: &JobScope,
) -> Result<(Actor, ChangeQuery), ServiceError> {
    let actor = exports::actor(job)?;
    let mut query = convert::query(&exports::filter::<pb::ListCardAmountChangesRequest>(job)?)?;
    query.org_ids = filters::org_subtrees(conn, query.org_ids).await?;
    Ok((actor, query))
}

fn cells(row: ChangeRow) -> Vec<Cell> {
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

impl ExportKind for ChangesExport {
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
            Ok(exports::keyset_page(rows, |r| (r.created_at, r.id), cells))
        })
    }
}

//! The bill list (billList) as an export kind: the list's filter and reach,
//! overdue judged when the job runs, in the list's order (newest issued
//! first), walked by (issue time, id) keyset pages of its index.

use chrono::Utc;
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::scope::day;
use fleetdesk_kit::export::{Cell, JobScope};
use fleetdesk_kit::list::Cursor;
use fleetdesk_proto::finance::v1 as pb;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::convert::query;
use super::domain::{self, BillKind, BillStatus, InvoiceState};
use super::store::{self, BillQuery, BillRow};
use crate::calendar::Month;
use crate::context::Actor;
use crate::exports::{self, ListExport, NewJob, moment, money, text};
use crate::filters;

/// The kind's name in `export_job.kind`.
pub const KIND: &str = "bills";

pub const HEADER: [&str; 15] = [
    "账单编号",
    "账单名称",
    "所属组织",
    "账单类型",
    "账期",
    "账单状态",
    "账单金额(元)",
    "优惠金额(元)",
    "应付金额(元)",
    "已付金额(元)",
    "未付金额(元)",
    "开票状态",
    "出账时间",
    "到期日期",
    "是否逾期",
];

/// The job an export of the list `f` queues (the filter checked now).
pub fn job(f: &pb::ListBillsRequest, enterprise_id: Uuid) -> Result<NewJob, ServiceError> {
    query(f, enterprise_id)?;
    let filters_json = serde_json::json!({
        "billNos": f.bill_nos,
        "orgIds": f.org_ids,
        "channel": f.channel,
        "kinds": f.kinds,
        "statuses": f.statuses,
        "invoiceStates": f.invoice_states,
        "overdue": f.overdue,
        "plateNumbers": f.plate_numbers,
        "issueTime": exports::range_json(f.issue_time.as_ref()),
        "dueTime": exports::range_json(f.due_time.as_ref()),
    });
    Ok(NewJob {
        kind: KIND,
        name: "账单列表".to_owned(),
        module: "billList",
        filter: prost::Message::encode_to_vec(f),
        filters_json,
    })
}

/// The bill list as an export kind.
#[derive(Debug, Clone, Copy)]
pub struct BillsExport;

impl ListExport for BillsExport {
    type Scope = (Actor, BillQuery);
    type Row = BillRow;
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
        let request = exports::filter::<pb::ListBillsRequest>(job)?;
        let mut query = query(&request, actor.enterprise_id)?;
        query.org_ids = filters::org_subtrees(conn, query.org_ids).await?;
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
    ) -> Result<Vec<BillRow>, ServiceError> {
        store::after(conn, actor, query, after, limit).await
    }

    fn key(row: &BillRow) -> Cursor {
        Cursor {
            at: row.issue_time,
            id: row.id,
        }
    }

    fn cells(&self, row: BillRow) -> Vec<Cell> {
        let status = BillStatus::try_from(row.status).ok();
        let overdue = status.is_some_and(|s| domain::overdue(s, row.due_time, Utc::now()));
        vec![
            text(row.bill_no),
            text(row.title),
            text(row.org_name),
            text(BillKind::try_from(row.kind).map_or("", BillKind::label)),
            text(
                Month::from_code(row.period)
                    .map(Month::label)
                    .unwrap_or_default(),
            ),
            text(status.map_or("", BillStatus::label)),
            money(row.amount_fen),
            money(row.discount_fen),
            money(row.payable_fen),
            money(row.paid_fen),
            money(row.outstanding_fen),
            text(InvoiceState::try_from(row.invoice_state).map_or("", InvoiceState::label)),
            moment(Some(row.issue_time)),
            day(Some(row.due_time)),
            text(if overdue { "是" } else { "否" }),
        ]
    }
}

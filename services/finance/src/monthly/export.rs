//! The monthly bill list (monthPayBillList) as an export kind: the list's
//! months under the requester's reach, latest first, walked by period
//! (unique per month) as the page key.

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::scope::{PageKey, day};
use fleetdesk_kit::export::{Cell, JobScope};
use fleetdesk_proto::finance::v1 as pb;
use sqlx_postgres::PgConnection;
use tonic::Request;

use super::convert::query;
use super::store::{self, MonthQuery, MonthRow};
use crate::bills::RECONCILIATION;
use crate::bills::domain::BillStatus;
use crate::calendar::Month;
use crate::context::{Actor, Context};
use crate::exports::{self, ListExport, NewJob, money, text};

/// The kind's name in `export_job.kind`.
pub const KIND: &str = "monthly_bills";

pub const HEADER: [&str; 8] = [
    "账期",
    "账单数",
    "应付金额(元)",
    "已付金额(元)",
    "待付金额(元)",
    "状态",
    "最晚付款日",
    "是否逾期",
];

/// ExportMonthlyBills: queues the export of the list `filter` for the caller.
pub async fn start(
    ctx: &Context,
    req: Request<pb::ExportMonthlyBillsRequest>,
) -> Result<pb::ExportMonthlyBillsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, RECONCILIATION).await?;
    let filter = req.into_inner().filter.unwrap_or_default();
    let job = exports::start(&mut tx, &actor, job(&filter)?).await?;
    tx.commit().await?;
    Ok(pb::ExportMonthlyBillsResponse { job: Some(job) })
}

/// The job an export of the list `f` queues (the filter checked now).
pub fn job(f: &pb::ListMonthlyBillsRequest) -> Result<NewJob, ServiceError> {
    query(f)?;
    let month = |m: Option<&fleetdesk_proto::common::v1::YearMonth>| {
        m.map(|m| format!("{:04}-{:02}", m.year, m.month))
    };
    let filters_json = serde_json::json!({
        "startMonth": month(f.start_month.as_ref()),
        "endMonth": month(f.end_month.as_ref()),
        "statuses": f.statuses,
        "overdue": f.overdue,
    });
    Ok(NewJob {
        kind: KIND,
        name: "月结账单".to_owned(),
        module: "monthPayBillList",
        filter: prost::Message::encode_to_vec(f),
        filters_json,
    })
}

/// A month's yyyymm code: where the next page starts (the months before it).
#[derive(Debug, Clone, Copy)]
pub struct Period(i32);

impl PageKey for Period {
    fn encode(&self) -> String {
        self.0.to_string()
    }

    fn decode(text: &str) -> Result<Self, ServiceError> {
        text.parse()
            .map(Period)
            .map_err(|_| ServiceError::invalid("after", "分页位置无效"))
    }
}

/// The monthly bill list as an export kind.
#[derive(Debug, Clone, Copy)]
pub struct MonthlyExport;

impl ListExport for MonthlyExport {
    type Scope = (Actor, MonthQuery);
    type Row = MonthRow;
    type Key = Period;

    fn header(&self) -> Vec<String> {
        exports::header(&HEADER)
    }

    async fn scope(
        &self,
        _conn: &mut PgConnection,
        job: &JobScope,
    ) -> Result<Self::Scope, ServiceError> {
        let actor = exports::actor(job)?;
        let query = query(&exports::filter::<pb::ListMonthlyBillsRequest>(job)?)?;
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
        after: Option<Period>,
        limit: i64,
    ) -> Result<Vec<MonthRow>, ServiceError> {
        store::after(conn, actor, query, after.map(|p| p.0), limit).await
    }

    fn key(row: &MonthRow) -> Period {
        Period(row.period)
    }

    fn cells(&self, m: MonthRow) -> Vec<Cell> {
        vec![
            text(
                Month::from_code(m.period)
                    .map(Month::label)
                    .unwrap_or_default(),
            ),
            Cell::Number(m.bill_count as f64),
            money(m.payable_fen),
            money(m.paid_fen),
            money(m.outstanding_fen),
            Cell::Label(BillStatus::try_from(m.status).map_or("", BillStatus::label)),
            day(m.due_time),
            Cell::Label(if m.overdue { "是" } else { "否" }),
        ]
    }
}

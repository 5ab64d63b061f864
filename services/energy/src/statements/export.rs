//! The statement list as an export kind: the list's filter, newest month
//! first by keyset on the month (one statement per month), each statement
//! as the requester sees it (their reach's figures).

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::scope::PageKey;
use fleetdesk_kit::export::{Cell, JobScope};
use fleetdesk_proto::energy::v1 as pb;
use sqlx_postgres::PgConnection;

use super::convert;
use super::domain::StatementStatus;
use super::store::{self, StatementQuery};
use crate::calendar::Month;
use crate::context::Actor;
use crate::exports::{self, ListExport, NewJob, moment, money, text};

/// The kind's name in `export_job.kind`.
pub const KIND: &str = "reconciliation_statements";

pub const HEADER: [&str; 19] = [
    "对账单号",
    "账期",
    "状态",
    "充电次数",
    "充电卡数",
    "充电量(kWh)",
    "电费(元)",
    "服务费(元)",
    "停车费(元)",
    "时长费(元)",
    "启动费(元)",
    "预约费(元)",
    "优惠(元)",
    "未收回(元)",
    "退款(元)",
    "应付金额(元)",
    "生成时间",
    "确认人",
    "确认时间",
];

/// The job an `ExportReconciliationStatements` request queues (the filter checked now).
pub fn job(filter: &pb::ListReconciliationStatementsRequest) -> Result<NewJob, ServiceError> {
    convert::query(filter)?;
    let month = |m: Option<&fleetdesk_proto::common::v1::YearMonth>| {
        m.map(|m| format!("{:04}-{:02}", m.year, m.month))
    };
    Ok(NewJob {
        kind: KIND,
        name: "充电对账单".to_owned(),
        module: "chargeReconciliation",
        filter: prost::Message::encode_to_vec(filter),
        filters_json: serde_json::json!({
            "startMonth": month(filter.start_month.as_ref()),
            "endMonth": month(filter.end_month.as_ref()),
            "statuses": filter.statuses,
        }),
    })
}

/// Statements as an export kind.
#[derive(Debug, Clone, Copy)]
pub struct StatementsExport;

/// Where a page starts: the month of the last statement (`yyyymm`; one
/// statement per month, newest first).
#[derive(Debug, Clone, Copy)]
pub struct MonthKey(i32);

impl PageKey for MonthKey {
    fn encode(&self) -> String {
        self.0.to_string()
    }

    fn decode(text: &str) -> Result<Self, ServiceError> {
        text.parse::<i32>()
            .map(MonthKey)
            .map_err(|_| ServiceError::invalid("after", "分页位置无效"))
    }
}

/// A statement as the requester sees it (their reach's figures), with the
/// month it sorts by.
#[derive(Debug)]
pub struct ExportedStatement {
    month: i32,
    statement: pb::ReconciliationStatement,
}

fn kwh(wh: i64) -> Cell {
    Cell::Number(wh as f64 / 1000.0)
}

fn cells(s: pb::ReconciliationStatement) -> Vec<Cell> {
    let time = |t: Option<prost_types::Timestamp>| {
        moment(t.as_ref().and_then(fleetdesk_kit::convert::datetime))
    };
    vec![
        Cell::Text(s.statement_no),
        s.month
            .and_then(|m| Month::new(m.year, m.month))
            .map_or(Cell::Empty, |m| Cell::Text(m.label())),
        StatementStatus::from_pb(s.status).map_or(Cell::Empty, |v| Cell::Label(v.label())),
        Cell::from(s.session_count),
        Cell::from(s.card_count),
        kwh(s.energy_wh),
        money(s.electricity_fen),
        money(s.service_fee_fen),
        money(s.parking_fee_fen),
        money(s.time_fee_fen),
        money(s.fixed_fee_fen),
        money(s.reservation_fee_fen),
        money(s.discount_fen),
        money(s.uncollected_fen),
        money(s.refunded_fen),
        money(s.total_fen),
        time(s.generated_time),
        text(s.confirmed_by),
        time(s.confirm_time),
    ]
}

impl ListExport for StatementsExport {
    type Scope = (Actor, StatementQuery);
    type Row = ExportedStatement;
    type Key = MonthKey;

    fn header(&self) -> Vec<String> {
        exports::header(&HEADER)
    }

    async fn scope(
        &self,
        _conn: &mut PgConnection,
        job: &JobScope,
    ) -> Result<Self::Scope, ServiceError> {
        let actor = exports::actor(job)?;
        let filter: pb::ListReconciliationStatementsRequest = exports::filter(job)?;
        Ok((actor, convert::query(&filter)?))
    }

    async fn count(
        &self,
        conn: &mut PgConnection,
        (actor, query): &Self::Scope,
    ) -> Result<i64, ServiceError> {
        store::count(conn, actor.enterprise_id, query).await
    }

    async fn page(
        &self,
        conn: &mut PgConnection,
        (actor, query): &Self::Scope,
        after: Option<MonthKey>,
        limit: i64,
    ) -> Result<Vec<ExportedStatement>, ServiceError> {
        let before = after.map(|key| key.0);
        let rows = store::export_page(conn, actor.enterprise_id, query, before, limit).await?;
        let lines = store::org_lines(conn, &convert::ids(&rows), &actor.reach).await?;
        Ok(rows
            .into_iter()
            .map(|r| ExportedStatement {
                month: r.month,
                statement: convert::statement(r, &lines, &actor.reach),
            })
            .collect())
    }

    fn key(row: &ExportedStatement) -> MonthKey {
        MonthKey(row.month)
    }

    fn cells(&self, row: ExportedStatement) -> Vec<Cell> {
        cells(row.statement)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_has_a_cell_per_header_column() {
        let row = cells(pb::ReconciliationStatement {
            statement_no: "CS202611-00000000".into(),
            month: Some(fleetdesk_proto::common::v1::YearMonth {
                year: 2026,
                month: 11,
            }),
            status: pb::ReconciliationStatus::Confirmed as i32,
            total_fen: 12_345,
            energy_wh: 1_500,
            time_fee_fen: 200,
            fixed_fee_fen: 50,
            reservation_fee_fen: 25,
            ..Default::default()
        });
        assert_eq!(row.len(), HEADER.len());
        assert_eq!(row[1], Cell::Text("2026-11".into()));
        assert_eq!(row[2], Cell::Label("已确认"));
        assert_eq!(row[5], Cell::Number(1.5));
        assert_eq!(row[15], Cell::Text("123.45".into()));
        let column = |title: &str| HEADER.iter().position(|h| *h == title).unwrap();
        assert_eq!(row[column("时长费(元)")], money(200));
        assert_eq!(row[column("启动费(元)")], money(50));
        assert_eq!(row[column("预约费(元)")], money(25));
    }
}

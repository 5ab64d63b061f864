//! The repair lists as export kinds: orders and records walked by (time,
//! id) keyset pages from their lists' indexes; statements and bills (a few
//! per supplier and month) in one page.

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::scope::money;
use fleetdesk_kit::export::{Cell, JobScope};
use fleetdesk_kit::list::Cursor;
use fleetdesk_proto::vehicle::v1 as pb;
use sqlx_postgres::PgConnection;

use super::convert::{bill_filter, order_filter, record_filter, statement_filter};
use super::domain::{BillState, Kind, State, StatementState};
use super::settle::{self, BillRow, PeriodQuery, StatementRow};
use super::store::{self, OrderQuery, OrderRow, RecordQuery, RecordRow};
use crate::context::Actor;
use crate::exports::{self, ListExport, NewJob, day, moment, text};
use fleetdesk_assets::vehicles;

pub const ORDERS: &str = "repair_orders";
pub const RECORDS: &str = "repair_records";
pub const STATEMENTS: &str = "repair_statements";
pub const BILLS: &str = "repair_bills";

fn label<T: TryFrom<i16>>(code: i16, name: fn(T) -> &'static str) -> Cell {
    text(T::try_from(code).map_or("", name))
}

fn month(period: chrono::NaiveDate) -> Cell {
    text(period.format("%Y-%m").to_string())
}

pub fn orders_job(f: &pb::ListRepairOrdersRequest) -> Result<NewJob, ServiceError> {
    order_filter(f)?;
    Ok(NewJob {
        kind: ORDERS,
        name: "维修保养单".to_owned(),
        module: "maintainOrder",
        filter: prost::Message::encode_to_vec(f),
        filters_json: serde_json::json!({
            "plateNumbers": f.plate_numbers,
            "vins": f.vins,
            "orgIds": f.org_ids,
            "orderNo": f.order_no,
            "statuses": f.statuses,
            "kinds": f.kinds,
            "shopId": f.shop_id,
            "createTime": exports::range_json(f.create_time.as_ref()),
            "completedTime": exports::range_json(f.completed_time.as_ref()),
            "statementId": f.statement_id,
        }),
    })
}

pub fn records_job(f: &pb::ListRepairRecordsRequest) -> Result<NewJob, ServiceError> {
    record_filter(f)?;
    Ok(NewJob {
        kind: RECORDS,
        name: "维修保养记录".to_owned(),
        module: "maintainRecord",
        filter: prost::Message::encode_to_vec(f),
        filters_json: serde_json::json!({
            "plateNumbers": f.plate_numbers,
            "orgIds": f.org_ids,
            "shopId": f.shop_id,
            "kinds": f.kinds,
            "orderNo": f.order_no,
            "completedTime": exports::range_json(f.completed_time.as_ref()),
        }),
    })
}

fn month_json(m: Option<&fleetdesk_proto::common::v1::YearMonth>) -> serde_json::Value {
    m.map_or(serde_json::Value::Null, |m| {
        serde_json::json!(format!("{:04}-{:02}", m.year, m.month))
    })
}

pub fn statements_job(f: &pb::ListRepairStatementsRequest) -> Result<NewJob, ServiceError> {
    statement_filter(f)?;
    Ok(NewJob {
        kind: STATEMENTS,
        name: "维修对账单".to_owned(),
        module: "statement",
        filter: prost::Message::encode_to_vec(f),
        filters_json: serde_json::json!({
            "shopId": f.shop_id,
            "statementNo": f.statement_no,
            "statuses": f.statuses,
            "startMonth": month_json(f.start_month.as_ref()),
            "endMonth": month_json(f.end_month.as_ref()),
        }),
    })
}

pub fn bills_job(f: &pb::ListRepairBillsRequest) -> Result<NewJob, ServiceError> {
    bill_filter(f)?;
    Ok(NewJob {
        kind: BILLS,
        name: "维修账单".to_owned(),
        module: "maintainBill",
        filter: prost::Message::encode_to_vec(f),
        filters_json: serde_json::json!({
            "shopId": f.shop_id,
            "billNo": f.bill_no,
            "statuses": f.statuses,
            "startMonth": month_json(f.start_month.as_ref()),
            "endMonth": month_json(f.end_month.as_ref()),
            "dueTime": exports::range_json(f.due_time.as_ref()),
        }),
    })
}

/// The order list as an export kind.
#[derive(Debug, Clone, Copy)]
pub struct OrdersExport;

impl ListExport for OrdersExport {
    type Scope = (Actor, OrderQuery);
    type Row = OrderRow;
    type Key = Cursor;

    fn header(&self) -> Vec<String> {
        exports::header(&[
            "维修单号",
            "车牌号",
            "所属组织",
            "维修类型",
            "维修厂",
            "状态",
            "报价(元)",
            "确认金额(元)",
            "结算金额(元)",
            "故障描述",
            "送修时间",
            "完工时间",
        ])
    }

    async fn scope(
        &self,
        conn: &mut PgConnection,
        job: &JobScope,
    ) -> Result<Self::Scope, ServiceError> {
        let actor = exports::actor(job)?;
        let mut query = order_filter(&exports::filter::<pb::ListRepairOrdersRequest>(job)?)?;
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
    ) -> Result<Vec<OrderRow>, ServiceError> {
        store::after(conn, actor, query, after, limit).await
    }

    fn key(row: &OrderRow) -> Cursor {
        Cursor {
            at: row.created_at,
            id: row.id,
        }
    }

    fn cells(&self, row: OrderRow) -> Vec<Cell> {
        vec![
            text(row.order_no),
            text(row.plate_number),
            text(row.org_name.unwrap_or_default()),
            label(row.kind, Kind::label),
            text(row.shop_name),
            label(row.state, State::label),
            money(Some(row.quote_total_fen)),
            money(Some(row.confirmed_total_fen)),
            money(Some(row.final_total_fen)),
            text(row.fault_description),
            moment(Some(row.created_at)),
            moment(row.completed_at),
        ]
    }
}

/// The record list as an export kind.
#[derive(Debug, Clone, Copy)]
pub struct RecordsExport;

impl ListExport for RecordsExport {
    type Scope = (Actor, RecordQuery);
    type Row = RecordRow;
    type Key = Cursor;

    fn header(&self) -> Vec<String> {
        exports::header(&[
            "维修单号",
            "车牌号",
            "所属组织",
            "维修类型",
            "维修厂",
            "完工日期",
            "完工里程(公里)",
            "结算金额(元)",
            "维修项目",
            "备注",
        ])
    }

    async fn scope(
        &self,
        conn: &mut PgConnection,
        job: &JobScope,
    ) -> Result<Self::Scope, ServiceError> {
        let actor = exports::actor(job)?;
        let mut query = record_filter(&exports::filter::<pb::ListRepairRecordsRequest>(job)?)?;
        query.org_ids = vehicles::store::org_subtrees(conn, query.org_ids).await?;
        Ok((actor, query))
    }

    async fn count(
        &self,
        conn: &mut PgConnection,
        (actor, query): &Self::Scope,
    ) -> Result<i64, ServiceError> {
        store::record_count(conn, actor, query).await
    }

    async fn page(
        &self,
        conn: &mut PgConnection,
        (actor, query): &Self::Scope,
        after: Option<Cursor>,
        limit: i64,
    ) -> Result<Vec<RecordRow>, ServiceError> {
        store::records_after(conn, actor, query, after, limit).await
    }

    fn key(row: &RecordRow) -> Cursor {
        Cursor {
            at: row.completed_at,
            id: row.id,
        }
    }

    fn cells(&self, row: RecordRow) -> Vec<Cell> {
        let items = super::convert::items(&row.items)
            .into_iter()
            .map(|i| i.name)
            .collect::<Vec<_>>()
            .join("、");
        vec![
            text(row.order_no),
            text(row.plate_number),
            text(row.org_name.unwrap_or_default()),
            label(row.kind, Kind::label),
            text(row.shop_name),
            day(Some(row.completed_at)),
            Cell::Text((row.odometer_m / 1000).to_string()),
            money(Some(row.total_fen)),
            text(items),
            text(row.remark),
        ]
    }
}

/// The statement list as an export kind (one page: a few rows per supplier and month).
#[derive(Debug, Clone, Copy)]
pub struct StatementsExport;

impl ListExport for StatementsExport {
    type Scope = (Actor, PeriodQuery);
    type Row = StatementRow;
    type Key = Cursor;

    fn header(&self) -> Vec<String> {
        exports::header(&[
            "对账单号",
            "维修厂",
            "账期",
            "维修单数",
            "金额(元)",
            "状态",
            "出单时间",
            "确认人",
            "确认时间",
            "异议原因",
        ])
    }

    async fn scope(
        &self,
        _conn: &mut PgConnection,
        job: &JobScope,
    ) -> Result<Self::Scope, ServiceError> {
        let query = statement_filter(&exports::filter::<pb::ListRepairStatementsRequest>(job)?)?;
        Ok((exports::actor(job)?, query))
    }

    async fn count(
        &self,
        conn: &mut PgConnection,
        (actor, query): &Self::Scope,
    ) -> Result<i64, ServiceError> {
        Ok(settle::statements(conn, actor, query, None).await?.1)
    }

    async fn page(
        &self,
        conn: &mut PgConnection,
        (actor, query): &Self::Scope,
        after: Option<Cursor>,
        _limit: i64,
    ) -> Result<Vec<StatementRow>, ServiceError> {
        if after.is_some() {
            return Ok(Vec::new());
        }
        Ok(settle::statements(conn, actor, query, None).await?.0)
    }

    fn key(row: &StatementRow) -> Cursor {
        Cursor {
            at: row.created_at,
            id: row.id,
        }
    }

    fn cells(&self, row: StatementRow) -> Vec<Cell> {
        vec![
            text(row.statement_no),
            text(row.shop_name),
            month(row.period),
            Cell::Text(row.order_count.to_string()),
            money(Some(row.total_fen)),
            label(row.state, StatementState::label),
            moment(Some(row.issued_at)),
            text(row.confirmed_by_name),
            moment(row.confirm_at),
            text(row.dispute_reason),
        ]
    }
}

/// The bill list as an export kind (one page, like the statements).
#[derive(Debug, Clone, Copy)]
pub struct BillsExport;

impl ListExport for BillsExport {
    type Scope = (Actor, PeriodQuery);
    type Row = BillRow;
    type Key = Cursor;

    fn header(&self) -> Vec<String> {
        exports::header(&[
            "账单号",
            "对账单号",
            "维修厂",
            "账期",
            "金额(元)",
            "已付(元)",
            "未付(元)",
            "状态",
            "出账时间",
            "付款期限",
        ])
    }

    async fn scope(
        &self,
        _conn: &mut PgConnection,
        job: &JobScope,
    ) -> Result<Self::Scope, ServiceError> {
        let query = bill_filter(&exports::filter::<pb::ListRepairBillsRequest>(job)?)?;
        Ok((exports::actor(job)?, query))
    }

    async fn count(
        &self,
        conn: &mut PgConnection,
        (actor, query): &Self::Scope,
    ) -> Result<i64, ServiceError> {
        Ok(settle::bills(conn, actor, query, None).await?.1.0)
    }

    async fn page(
        &self,
        conn: &mut PgConnection,
        (actor, query): &Self::Scope,
        after: Option<Cursor>,
        _limit: i64,
    ) -> Result<Vec<BillRow>, ServiceError> {
        if after.is_some() {
            return Ok(Vec::new());
        }
        Ok(settle::bills(conn, actor, query, None).await?.0)
    }

    fn key(row: &BillRow) -> Cursor {
        Cursor {
            at: row.created_at,
            id: row.id,
        }
    }

    fn cells(&self, row: BillRow) -> Vec<Cell> {
        vec![
            text(row.bill_no),
            text(row.statement_no),
            text(row.shop_name),
            month(row.period),
            money(Some(row.amount_fen)),
            money(Some(row.paid_fen)),
            money(Some(row.amount_fen - row.paid_fen)),
            label(row.state, BillState::label),
            moment(Some(row.issued_at)),
            day(Some(row.due_at)),
        ]
    }
}

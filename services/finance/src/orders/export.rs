//! The order list (orderManage) as an export kind: the list's filter and
//! reach, newest placed first, walked by (placed time, id) keyset pages of
//! its index.

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::{Cell, JobScope};
use fleetdesk_kit::list::Cursor;
use fleetdesk_proto::finance::v1 as pb;
use sqlx_postgres::PgConnection;
use tonic::Request;

use super::PERMISSION;
use super::convert::query;
use super::domain::{OrderKind, OrderStatus};
use super::store::{self, OrderQuery, OrderRow};
use crate::context::{Actor, Context};
use crate::exports::{self, ListExport, NewJob, moment, money, text};
use crate::filters;

/// The kind's name in `export_job.kind`.
pub const KIND: &str = "orders";

pub const HEADER: [&str; 14] = [
    "订单编号",
    "订单名称",
    "订单类型",
    "所属组织",
    "订单状态",
    "订单金额(元)",
    "优惠金额(元)",
    "应付金额(元)",
    "已付金额(元)",
    "已退金额(元)",
    "合同编号",
    "下单人",
    "下单时间",
    "支付时间",
];

/// ExportOrders: queues the export of the list `filter` for the caller.
pub async fn start(
    ctx: &Context,
    req: Request<pb::ExportOrdersRequest>,
) -> Result<pb::ExportOrdersResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let filter = req.into_inner().filter.unwrap_or_default();
    let job = exports::start(&mut tx, &actor, job(&filter)?).await?;
    tx.commit().await?;
    Ok(pb::ExportOrdersResponse { job: Some(job) })
}

/// The job an export of the list `f` queues (the filter checked now).
pub fn job(f: &pb::ListOrdersRequest) -> Result<NewJob, ServiceError> {
    query(f)?;
    let filters_json = serde_json::json!({
        "orderNos": f.order_nos,
        "orgIds": f.org_ids,
        "kinds": f.kinds,
        "statuses": f.statuses,
        "plateNumbers": f.plate_numbers,
        "contractNo": f.contract_no,
        "placedTime": exports::range_json(f.placed_time.as_ref()),
        "paidTime": exports::range_json(f.paid_time.as_ref()),
    });
    Ok(NewJob {
        kind: KIND,
        name: "订单列表".to_owned(),
        module: "orderManage",
        filter: prost::Message::encode_to_vec(f),
        filters_json,
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
        exports::header(&HEADER)
    }

    async fn scope(
        &self,
        conn: &mut PgConnection,
        job: &JobScope,
    ) -> Result<Self::Scope, ServiceError> {
        let actor = exports::actor(job)?;
        let mut query = query(&exports::filter::<pb::ListOrdersRequest>(job)?)?;
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
    ) -> Result<Vec<OrderRow>, ServiceError> {
        store::after(conn, actor, query, after, limit).await
    }

    fn key(row: &OrderRow) -> Cursor {
        Cursor {
            at: row.placed_at,
            id: row.id,
        }
    }

    fn cells(&self, row: OrderRow) -> Vec<Cell> {
        vec![
            text(row.order_no),
            text(row.title),
            Cell::Label(OrderKind::try_from(row.kind).map_or("", OrderKind::label)),
            text(row.org_name),
            Cell::Label(OrderStatus::try_from(row.status).map_or("", status_label)),
            money(row.total_fen),
            money(row.discount_fen),
            money(row.payable_fen),
            money(row.paid_fen),
            money(row.refunded_fen),
            text(row.contract_no),
            text(row.placed_by_name),
            moment(Some(row.placed_at)),
            moment(row.paid_at),
        ]
    }
}

/// An order status as the order centre shows it.
fn status_label(status: OrderStatus) -> &'static str {
    match status {
        OrderStatus::PendingPayment => "待支付",
        OrderStatus::Paid => "已支付",
        OrderStatus::Fulfilling => "履约中",
        OrderStatus::Completed => "已完成",
        OrderStatus::Cancelled => "已取消",
        OrderStatus::Refunding => "退款中",
        OrderStatus::Refunded => "已退款",
    }
}

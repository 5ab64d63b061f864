//! The payment records (billSettlement) as an export kind: the list's
//! filter and reach, newest first, walked by (created time, id) keyset
//! pages of its index; each row names the bills it paid. The payer's
//! account is written masked, as it is stored and listed.

use std::collections::HashMap;

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::{Cell, JobScope};
use fleetdesk_kit::list::Cursor;
use fleetdesk_proto::finance::v1 as pb;
use sqlx_postgres::PgConnection;
use tonic::Request;
use uuid::Uuid;

use super::LIST_PERMISSIONS;
use super::convert::query;
use super::domain::{PaymentMethod, PaymentStatus};
use super::store::{self, PaymentQuery, PaymentRow};
use crate::context::{self, Actor, Context};
use crate::exports::{self, ListExport, NewJob, moment, money, text};

/// The kind's name in `export_job.kind`.
pub const KIND: &str = "bill_payments";

pub const HEADER: [&str; 14] = [
    "支付单号",
    "支付方式",
    "支付状态",
    "支付金额(元)",
    "优惠券抵扣(元)",
    "支付账单",
    "付款户名",
    "付款银行",
    "付款账号",
    "银行流水号",
    "发起人",
    "发起时间",
    "支付时间",
    "失败原因",
];

/// ExportBillPayments: queues the export of the list `filter` for the caller.
pub async fn start(
    ctx: &Context,
    req: Request<pb::ExportBillPaymentsRequest>,
) -> Result<pb::ExportBillPaymentsResponse, ServiceError> {
    let (actor, mut tx) = context::begin_read_any(&ctx.pool, &req, LIST_PERMISSIONS).await?;
    let filter = req.into_inner().filter.unwrap_or_default();
    let job = exports::start(&mut tx, &actor, job(&filter)?).await?;
    tx.commit().await?;
    Ok(pb::ExportBillPaymentsResponse { job: Some(job) })
}

/// The job an export of the list `f` queues (the filter checked now).
pub fn job(f: &pb::ListBillPaymentsRequest) -> Result<NewJob, ServiceError> {
    query(f.clone())?;
    let filters_json = serde_json::json!({
        "billId": f.bill_id,
        "paymentNo": f.payment_no,
        "methods": f.methods,
        "statuses": f.statuses,
        "createTime": exports::range_json(f.create_time.as_ref()),
    });
    Ok(NewJob {
        kind: KIND,
        name: "支付记录".to_owned(),
        module: "billSettlement",
        filter: prost::Message::encode_to_vec(f),
        filters_json,
    })
}

/// A payment with the numbers of the bills it paid.
#[derive(Debug)]
pub struct PaymentLine {
    payment: PaymentRow,
    bill_nos: String,
}

/// The payment records as an export kind.
#[derive(Debug, Clone, Copy)]
pub struct PaymentsExport;

impl ListExport for PaymentsExport {
    type Scope = (Actor, PaymentQuery);
    type Row = PaymentLine;
    type Key = Cursor;

    fn header(&self) -> Vec<String> {
        exports::header(&HEADER)
    }

    async fn scope(
        &self,
        _conn: &mut PgConnection,
        job: &JobScope,
    ) -> Result<Self::Scope, ServiceError> {
        let actor = exports::actor(job)?;
        let query = query(exports::filter::<pb::ListBillPaymentsRequest>(job)?)?;
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
    ) -> Result<Vec<PaymentLine>, ServiceError> {
        let rows = store::after(conn, actor, query, after, limit).await?;
        let ids: Vec<Uuid> = rows.iter().map(|r| r.id).collect();
        let mut nos: HashMap<Uuid, Vec<String>> = HashMap::new();
        for a in store::allocations(conn, actor.enterprise_id, &ids).await? {
            nos.entry(a.payment_id).or_default().push(a.bill_no);
        }
        Ok(rows
            .into_iter()
            .map(|payment| PaymentLine {
                bill_nos: nos.remove(&payment.id).unwrap_or_default().join("、"),
                payment,
            })
            .collect())
    }

    fn key(row: &PaymentLine) -> Cursor {
        Cursor {
            at: row.payment.created_at,
            id: row.payment.id,
        }
    }

    fn cells(&self, row: PaymentLine) -> Vec<Cell> {
        let PaymentLine {
            payment: p,
            bill_nos,
        } = row;
        vec![
            text(p.payment_no),
            Cell::Label(PaymentMethod::try_from(p.method).map_or("", PaymentMethod::label)),
            Cell::Label(PaymentStatus::try_from(p.status).map_or("", status_label)),
            money(p.amount_fen),
            money(p.coupon_deduction_fen),
            text(bill_nos),
            text(p.payer_name),
            text(p.payer_bank_name),
            text(p.payer_masked_account),
            text(p.bank_order_id),
            text(p.requested_by_name),
            moment(Some(p.created_at)),
            moment(p.paid_time),
            text(p.failure_reason),
        ]
    }
}

/// A payment status as the payment records show it.
fn status_label(status: PaymentStatus) -> &'static str {
    match status {
        PaymentStatus::Pending => "处理中",
        PaymentStatus::Succeeded => "成功",
        PaymentStatus::Failed => "失败",
        PaymentStatus::Closed => "已关闭",
    }
}

//! The refund records (refundRecord) as an export kind: the list's filter
//! (its channel included) and reach, newest applied first, walked by
//! (apply time, id) keyset pages of its index. The payee's account is
//! written masked, as it is stored and listed.

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::{Cell, JobScope};
use fleetdesk_kit::list::Cursor;
use fleetdesk_proto::finance::v1 as pb;
use sqlx_postgres::PgConnection;
use tonic::Request;

use super::PERMISSION;
use super::convert::query;
use super::domain::{RefundMethod, RefundReason, RefundStatus};
use super::store::{self, RefundQuery, RefundRow};
use crate::context::{Actor, Context};
use crate::exports::{self, ListExport, NewJob, moment, money, text};

/// The kind's name in `export_job.kind`.
pub const KIND: &str = "refunds";

pub const HEADER: [&str; 16] = [
    "退款编号",
    "账单编号",
    "退款原因",
    "退款说明",
    "申请金额(元)",
    "核准金额(元)",
    "已退金额(元)",
    "退款方式",
    "收款户名",
    "收款银行",
    "收款账号",
    "退款状态",
    "申请人",
    "申请时间",
    "退款时间",
    "银行流水号",
];

/// ExportRefunds: queues the export of the records `filter` for the caller.
pub async fn start(
    ctx: &Context,
    req: Request<pb::ExportRefundsRequest>,
) -> Result<pb::ExportRefundsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let filter = req.into_inner().filter.unwrap_or_default();
    let job = exports::start(&mut tx, &actor, job(&filter)?).await?;
    tx.commit().await?;
    Ok(pb::ExportRefundsResponse { job: Some(job) })
}

/// The job an export of the records `f` queues (the filter checked now).
pub fn job(f: &pb::ListRefundsRequest) -> Result<NewJob, ServiceError> {
    query(f.clone())?;
    let filters_json = serde_json::json!({
        "channel": f.channel,
        "refundNo": f.refund_no,
        "billId": f.bill_id,
        "reasons": f.reasons,
        "statuses": f.statuses,
        "applyTime": exports::range_json(f.apply_time.as_ref()),
    });
    Ok(NewJob {
        kind: KIND,
        name: "退款记录".to_owned(),
        module: "refundRecord",
        filter: prost::Message::encode_to_vec(f),
        filters_json,
    })
}

/// The refund records as an export kind.
#[derive(Debug, Clone, Copy)]
pub struct RefundsExport;

impl ListExport for RefundsExport {
    type Scope = (Actor, RefundQuery);
    type Row = RefundRow;
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
        let query = query(exports::filter::<pb::ListRefundsRequest>(job)?)?;
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
    ) -> Result<Vec<RefundRow>, ServiceError> {
        store::after(conn, actor, query, after, limit).await
    }

    fn key(row: &RefundRow) -> Cursor {
        Cursor {
            at: row.apply_time,
            id: row.id,
        }
    }

    fn cells(&self, r: RefundRow) -> Vec<Cell> {
        vec![
            text(r.refund_no),
            text(r.bill_no),
            Cell::Label(RefundReason::try_from(r.reason).map_or("", reason_label)),
            text(r.reason_detail),
            money(r.requested_fen),
            money(r.approved_fen),
            money(r.refunded_fen),
            Cell::Label(RefundMethod::try_from(r.method).map_or("", method_label)),
            text(r.payee_name),
            text(r.payee_bank_name),
            text(r.payee_masked_account),
            Cell::Label(RefundStatus::try_from(r.status).map_or("", RefundStatus::label)),
            text(r.applicant_name),
            moment(Some(r.apply_time)),
            moment(r.complete_time),
            text(r.transaction_no),
        ]
    }
}

/// A refund reason as the records show it.
fn reason_label(reason: RefundReason) -> &'static str {
    match reason {
        RefundReason::Overpayment => "多付退款",
        RefundReason::DepositReturn => "押金退还",
        RefundReason::ServiceCancelled => "服务取消",
        RefundReason::BillingError => "账单错误",
        RefundReason::Other => "其他",
    }
}

/// A refund method as the records show it.
fn method_label(method: RefundMethod) -> &'static str {
    match method {
        RefundMethod::OriginalRoute => "原路退回",
        RefundMethod::BankTransfer => "银行转账",
        RefundMethod::PrepaidBalance => "退回账户余额",
    }
}

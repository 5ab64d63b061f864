//! The invoice history (invoiceHistory) as an export kind: the list's
//! filter over the whole enterprise (applications have no reach, as the
//! list), newest applied first, walked by (apply time, id) keyset pages of
//! its index; each row with the buyer it names and the invoice issued.

use std::collections::HashMap;

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::{Cell, JobScope};
use fleetdesk_kit::list::Cursor;
use fleetdesk_proto::finance::v1 as pb;
use sqlx_postgres::PgConnection;
use tonic::Request;
use uuid::Uuid;

use super::PERMISSION;
use super::convert::{from_snapshot, query};
use super::domain::{ApplicationStatus, InvoiceType};
use super::store::{self, ApplicationQuery, ApplicationRow, InvoiceRow};
use crate::context::{Actor, Context};
use crate::exports::{self, ListExport, NewJob, moment, money, text};

/// The kind's name in `export_job.kind`.
pub const KIND: &str = "invoice_applications";

pub const HEADER: [&str; 13] = [
    "申请编号",
    "发票类型",
    "开票抬头",
    "纳税人识别号",
    "开票金额(元)",
    "开票内容",
    "申请状态",
    "发票号码",
    "开票时间",
    "申请人",
    "申请时间",
    "驳回原因",
    "是否红冲",
];

/// ExportInvoiceApplications: queues the export of the list `filter` for the caller.
pub async fn start(
    ctx: &Context,
    req: Request<pb::ExportInvoiceApplicationsRequest>,
) -> Result<pb::ExportInvoiceApplicationsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let filter = req.into_inner().filter.unwrap_or_default();
    let job = exports::start(&mut tx, &actor, job(&filter)?).await?;
    tx.commit().await?;
    Ok(pb::ExportInvoiceApplicationsResponse { job: Some(job) })
}

/// The job an export of the list `f` queues (the filter checked now).
pub fn job(f: &pb::ListInvoiceApplicationsRequest) -> Result<NewJob, ServiceError> {
    query(f)?;
    let filters_json = serde_json::json!({
        "channel": f.channel,
        "applicationNo": f.application_no,
        "invoiceTypes": f.invoice_types,
        "statuses": f.statuses,
        "billId": f.bill_id,
        "invoiceNumber": f.invoice_number,
        "applyTime": exports::range_json(f.apply_time.as_ref()),
    });
    Ok(NewJob {
        kind: KIND,
        name: "开票记录".to_owned(),
        module: "invoiceHistory",
        filter: prost::Message::encode_to_vec(f),
        filters_json,
    })
}

/// An application with the invoice issued for it, if any.
#[derive(Debug)]
pub struct ApplicationLine {
    application: ApplicationRow,
    invoice: Option<InvoiceRow>,
}

/// The invoice history as an export kind.
#[derive(Debug, Clone, Copy)]
pub struct ApplicationsExport;

impl ListExport for ApplicationsExport {
    type Scope = (Actor, ApplicationQuery);
    type Row = ApplicationLine;
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
        let query = query(&exports::filter::<pb::ListInvoiceApplicationsRequest>(job)?)?;
        Ok((actor, query))
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
        after: Option<Cursor>,
        limit: i64,
    ) -> Result<Vec<ApplicationLine>, ServiceError> {
        let rows = store::after(conn, actor.enterprise_id, query, after, limit).await?;
        let ids: Vec<Uuid> = rows.iter().map(|r| r.id).collect();
        let mut invoices: HashMap<Uuid, InvoiceRow> =
            store::invoices_of(conn, actor.enterprise_id, &ids)
                .await?
                .into_iter()
                .map(|i| (i.application_id, i))
                .collect();
        Ok(rows
            .into_iter()
            .map(|application| ApplicationLine {
                invoice: invoices.remove(&application.id),
                application,
            })
            .collect())
    }

    fn key(row: &ApplicationLine) -> Cursor {
        Cursor {
            at: row.application.apply_time,
            id: row.application.id,
        }
    }

    fn cells(&self, row: ApplicationLine) -> Vec<Cell> {
        let ApplicationLine {
            application: a,
            invoice,
        } = row;
        // The buyer as it was when applying (a kept copy).
        let title = from_snapshot::<pb::InvoiceTitle>(&a.title).unwrap_or_default();
        let (number, issued, reversed) = invoice.map_or((String::new(), None, None), |i| {
            (i.invoice_number, Some(i.issue_time), Some(i.reversed))
        });
        vec![
            text(a.application_no),
            Cell::Label(InvoiceType::try_from(a.invoice_type).map_or("", type_label)),
            text(title.name),
            text(title.tax_number),
            money(a.amount_fen),
            text(a.content),
            Cell::Label(ApplicationStatus::try_from(a.status).map_or("", status_label)),
            text(number),
            moment(issued),
            text(a.applicant_name),
            moment(Some(a.apply_time)),
            text(a.reject_reason),
            match reversed {
                Some(true) => Cell::Label("是"),
                Some(false) => Cell::Label("否"),
                None => Cell::Empty,
            },
        ]
    }
}

/// An invoice type as the history shows it.
fn type_label(kind: InvoiceType) -> &'static str {
    match kind {
        InvoiceType::DigitalSpecial => "数电专票",
        InvoiceType::DigitalGeneral => "数电普票",
        InvoiceType::PaperSpecial => "纸质专票",
        InvoiceType::PaperGeneral => "纸质普票",
    }
}

/// An application status as the history shows it.
fn status_label(status: ApplicationStatus) -> &'static str {
    match status {
        ApplicationStatus::PendingReview => "待审核",
        ApplicationStatus::Issuing => "开票中",
        ApplicationStatus::Issued => "已开票",
        ApplicationStatus::Mailed => "已邮寄",
        ApplicationStatus::Rejected => "已驳回",
        ApplicationStatus::Cancelled => "已撤回",
    }
}

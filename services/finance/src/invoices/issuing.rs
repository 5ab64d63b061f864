//! The issuing worker: takes applications in ISSUING whose time has come
//! from the table-driven queue (`for update skip locked`, so several
//! finance processes share it without taking one twice), asks the
//! invoicing platform to issue each, keeps the PDF in the object store and
//! records the invoice. A retryable failure (unreachable, 5xx) is tried
//! again later with the same request number, which the platform answers
//! with the same invoice, so a retry after a lost answer never issues twice;
//! a refusal rejects the application and frees its amounts.

use std::time::Duration;

use chrono::Utc;
use fleetdesk_kit::files::{self, FileStore};
use fleetdesk_kit::{ServiceError, Shutdown, db};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::finance::v1 as pb;
use sqlx_postgres::{PgConnection, PgPool};
use uuid::Uuid;

use super::domain::{self, ApplicationStatus, InvoiceType};
use super::store::{self, ApplicationRow, Issued};
use super::{convert, handlers};
use crate::bills::domain::BillKind;
use crate::invoicing::client::{Buyer, Invoicing, InvoicingError, IssueInvoice};

/// How often the queue is looked at when it was empty.
const POLL: Duration = Duration::from_millis(500);

/// The worker: the pool, the object store for the PDFs, the platform.
#[derive(Debug, Clone)]
pub struct IssuingWorker {
    pub pool: PgPool,
    pub files: FileStore,
    pub invoicing: Invoicing,
}

/// What one turn of the worker did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Turn {
    Idle,
    Issued,
    Retrying,
    Rejected,
}

impl IssuingWorker {
    /// Works the queue until `shutdown`.
    pub async fn run(self, shutdown: Shutdown) {
        while !shutdown.is_triggered() {
            let idle = match self.issue_next().await {
                Ok(turn) => turn == Turn::Idle,
                Err(err) => {
                    tracing::warn!(error = %err, "Issuing an invoice failed.");
                    true
                }
            };
            if idle {
                tokio::select! {
                    () = shutdown.wait() => return,
                    () = tokio::time::sleep(POLL) => {}
                }
            }
        }
    }

    /// Issues the next application due, if any.
    pub async fn issue_next(&self) -> Result<Turn, ServiceError> {
        let mut tx = db::begin_service(&self.pool).await?;
        let Some((id, enterprise_id)) = store::next_due(&mut tx).await? else {
            return Ok(Turn::Idle);
        };
        db::enter_tenant(&mut tx, enterprise_id).await?;
        let row = store::get(&mut tx, enterprise_id, id, false).await?;
        let request = request(&mut tx, &row).await?;
        let turn = match self.issue(enterprise_id, &request).await {
            Ok(issued) => {
                store::issued(&mut tx, enterprise_id, id, &issued).await?;
                Turn::Issued
            }
            Err(err) if err.retryable() => {
                let delay = domain::retry_delay(row.attempts + 1);
                tracing::info!(application = %id, error = %err, ?delay, "Invoicing platform failed; retrying later.");
                let delay_ms = i64::try_from(delay.as_millis()).unwrap_or(i64::MAX);
                store::retry_later(&mut tx, enterprise_id, id, delay_ms, &err.to_string()).await?;
                Turn::Retrying
            }
            Err(err) => {
                handlers::close(
                    &mut tx,
                    enterprise_id,
                    id,
                    ApplicationStatus::Rejected,
                    &refusal(&err),
                    "开票平台",
                )
                .await?;
                Turn::Rejected
            }
        };
        tx.commit().await?;
        Ok(turn)
    }

    /// Issues `request` and keeps its PDF.
    async fn issue(
        &self,
        enterprise_id: Uuid,
        request: &IssueInvoice,
    ) -> Result<Issued, InvoicingError> {
        let invoice = self.invoicing.issue(request).await?;
        let pdf = self.invoicing.download(&invoice.download_url).await?;
        let name = format!("{}.pdf", invoice.invoice_no);
        let key = files::key(enterprise_id, "invoice", &request.request_no, &name);
        let size_bytes = i64::try_from(pdf.len()).unwrap_or(i64::MAX);
        self.files
            .put(&key, pdf.into())
            .await
            .map_err(|e| InvoicingError::Unreadable(format!("keeping the PDF: {e}")))?;
        let file = common::FileRef {
            name,
            key,
            content_type: "application/pdf".to_owned(),
            size_bytes,
        };
        Ok(Issued {
            invoice_number: invoice.invoice_no,
            request_no: request.request_no.clone(),
            amount_fen: invoice.total_amount,
            tax_fen: invoice.total_tax,
            total_fen: invoice.total_with_tax,
            tax_rate_bp: request
                .lines
                .iter()
                .map(|l| i32::try_from(l.rate_bp).unwrap_or(0))
                .max()
                .unwrap_or(0),
            issue_time: invoice.issued_at.with_timezone(&Utc),
            file: crate::files::to_json(std::slice::from_ref(&file)),
        })
    }
}

/// The platform's refusal as the application's reason.
fn refusal(err: &InvoicingError) -> String {
    match err {
        InvoicingError::Invalid { message, .. } => format!("开票平台拒绝：{message}"),
        InvoicingError::Refused { message, .. } => format!("开票平台拒绝：{message}"),
        other => format!("开票平台拒绝：{other}"),
    }
}

/// What the platform is asked for application `row`: its title as the
/// buyer, a line per bill, the B2B numbers and remark in the remarks.
async fn request(
    conn: &mut PgConnection,
    row: &ApplicationRow,
) -> Result<IssueInvoice, ServiceError> {
    let invoice_type = fleetdesk_kit::codes::known::<InvoiceType>(row.invoice_type)?;
    let title: pb::InvoiceTitle = convert::from_snapshot(&row.title)?;
    let bills = store::bills_of(conn, row.enterprise_id, &[row.id]).await?;
    let ids: Vec<Uuid> = bills.iter().map(|b| b.bill_id).collect();
    let rates = store::line_rates(conn, row.enterprise_id, &ids).await?;
    let lines = bills
        .iter()
        .map(|b| {
            let kind = fleetdesk_kit::codes::known::<BillKind>(b.kind)?;
            let own = rates
                .iter()
                .find(|(id, _)| *id == b.bill_id)
                .map_or(&[][..], |(_, r)| r.as_slice());
            let rate = domain::rate_of(kind, own, invoice_type.special());
            Ok(domain::bill_line(
                kind,
                &row.content,
                &b.bill_no,
                b.amount_fen,
                rate,
            ))
        })
        .collect::<Result<Vec<_>, ServiceError>>()?;
    let remarks = [
        ("合同号：", row.contract_no.as_str()),
        ("订单号：", row.purchase_order_no.as_str()),
        ("", row.invoice_remark.as_str()),
    ]
    .iter()
    .filter(|(_, v)| !v.is_empty())
    .map(|(label, v)| format!("{label}{v}"))
    .collect::<Vec<_>>()
    .join("；");
    Ok(IssueInvoice {
        request_no: row.id.simple().to_string(),
        invoice_type: invoice_type.platform(),
        buyer: Buyer {
            name: title.name,
            tax_id: title.tax_number,
            address: title.registered_address,
            phone: title.registered_phone,
            bank: title.bank_name,
            account: title.bank_account,
        },
        lines,
        remarks,
    })
}

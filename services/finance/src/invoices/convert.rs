//! Applications between the wire and the store: the filters checked, the
//! title and address copies, rows as proto messages.

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::list::{self, TimeRange};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::finance::v1 as pb;
use prost::Message;

use super::domain::{ApplicationStatus, InvoiceType};
use super::store::{ApplicationBillRow, ApplicationQuery, ApplicationRow, InvoiceRow};
use crate::bills::domain::{BillKind, Channel};
use crate::bills::store::BillQuery;
use crate::calendar::{Month, month_range};
use crate::{files, filters};

/// The invoiceable bills' filter as a bill filter.
pub fn invoiceable_query(r: &pb::ListInvoiceableBillsRequest) -> Result<BillQuery, ServiceError> {
    let pb::ListInvoiceableBillsRequest {
        page: _,
        channel,
        kinds,
        bill_nos,
        start_month,
        end_month,
    } = r;
    let (from, to) = month_range(start_month.as_ref(), end_month.as_ref())?;
    Ok(BillQuery {
        bill_nos: list::batch("billNos", bill_nos)?,
        channel: Channel::from_pb(*channel).map(i16::from),
        kinds: filters::codes("kinds", kinds, BillKind::from_pb)?,
        from_month: from.map(Month::code),
        to_month: to.map(Month::code),
        ..BillQuery::default()
    })
}

pub fn query(r: &pb::ListInvoiceApplicationsRequest) -> Result<ApplicationQuery, ServiceError> {
    let pb::ListInvoiceApplicationsRequest {
        page: _,
        channel,
        application_no,
        invoice_types,
        statuses,
        bill_id,
        invoice_number,
        apply_time,
    } = r;
    Ok(ApplicationQuery {
        channel: Channel::from_pb(*channel).map(i16::from),
        application_no: application_no.trim().to_owned(),
        invoice_types: filters::codes("invoiceTypes", invoice_types, InvoiceType::from_pb)?,
        statuses: filters::codes("statuses", statuses, ApplicationStatus::from_pb)?,
        bill_id: filters::ids("billId", std::slice::from_ref(bill_id), "账单编号无效")?.pop(),
        invoice_number: invoice_number.trim().to_owned(),
        apply_time: TimeRange::parse("applyTime", apply_time.as_ref())?,
    })
}

/// A copy kept with an application (the answered message, encoded).
pub fn snapshot(message: &impl Message) -> Vec<u8> {
    message.encode_to_vec()
}

/// A kept copy back.
pub fn from_snapshot<M: Message + Default>(bytes: &[u8]) -> Result<M, ServiceError> {
    M::decode(bytes).map_err(|e| ServiceError::internal(&e))
}

fn invoice(row: InvoiceRow) -> pb::IssuedInvoice {
    let InvoiceRow {
        application_id: _,
        invoice_number,
        amount_fen,
        tax_fen,
        total_fen,
        tax_rate_bp,
        issue_time,
        file,
        reversed,
    } = row;
    pb::IssuedInvoice {
        invoice_number,
        // Fully digital invoices have no code.
        invoice_code: String::new(),
        amount_fen,
        tax_fen,
        total_fen,
        tax_rate_bp,
        issue_time: Some(timestamp(issue_time)),
        file: files::from_json(&file).pop(),
        reversed,
    }
}

fn bill(row: ApplicationBillRow) -> pb::InvoiceApplicationBill {
    let ApplicationBillRow {
        application_id: _,
        bill_id,
        bill_no,
        kind,
        period,
        amount_fen,
    } = row;
    pb::InvoiceApplicationBill {
        bill_id: bill_id.to_string(),
        bill_no,
        kind: BillKind::try_from(kind).map_or(0, BillKind::pb),
        period: Month::from_code(period).map(Month::to_pb),
        amount_fen,
    }
}

/// An application with its bills and invoice, taken from `bills` and `invoices`.
pub fn application(
    row: ApplicationRow,
    bills: &mut Vec<ApplicationBillRow>,
    invoices: &mut Vec<InvoiceRow>,
) -> Result<pb::InvoiceApplication, ServiceError> {
    let ApplicationRow {
        id,
        enterprise_id,
        application_no,
        channel,
        invoice_type,
        status,
        title,
        address,
        amount_fen,
        content,
        contract_no,
        purchase_order_no,
        invoice_remark,
        applicant_name,
        apply_time,
        review_time,
        reject_reason,
        cancel_reason,
        attempts: _,
        created_at,
        updated_by_name,
        updated_at,
    } = row;
    let (mine, rest): (Vec<_>, Vec<_>) = bills.drain(..).partition(|b| b.application_id == id);
    *bills = rest;
    let (issued, rest): (Vec<_>, Vec<_>) = invoices.drain(..).partition(|i| i.application_id == id);
    *invoices = rest;
    Ok(pb::InvoiceApplication {
        id: id.to_string(),
        application_no,
        enterprise_id: enterprise_id.to_string(),
        channel: Channel::try_from(channel).map_or(0, Channel::pb),
        invoice_type: InvoiceType::try_from(invoice_type).map_or(0, InvoiceType::pb),
        status: ApplicationStatus::try_from(status).map_or(0, ApplicationStatus::pb),
        title: Some(from_snapshot(&title)?),
        address: address.as_deref().map(from_snapshot).transpose()?,
        bills: mine.into_iter().map(bill).collect(),
        amount_fen,
        content,
        contract_no,
        purchase_order_no,
        invoice_remark,
        applicant_name: applicant_name.clone(),
        apply_time: Some(timestamp(apply_time)),
        review_time: review_time.map(timestamp),
        // The proto has one reason: the rejection's, or the cancellation's
        // (a red-letter reversal's included).
        reject_reason: if reject_reason.is_empty() {
            cancel_reason
        } else {
            reject_reason
        },
        invoices: issued.into_iter().map(invoice).collect(),
        express_company: String::new(),
        tracking_no: String::new(),
        mailed_time: None,
        audit: Some(common::Audit {
            created_by: applicant_name,
            create_time: Some(timestamp(created_at)),
            updated_by: updated_by_name,
            update_time: Some(timestamp(updated_at)),
        }),
    })
}

//! Bills between the wire and the store: the list filter and a new bill
//! checked, rows as proto messages (overdue judged at `now`).

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::codes::known;
use fleetdesk_kit::convert::{datetime, timestamp};
use fleetdesk_kit::list::{self, TimeRange};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::finance::v1 as pb;
use uuid::Uuid;

use super::domain::{
    self, BillKind, BillStatus, Channel, InvoiceState, Line, LineSource, NewBill, Source,
};
use super::store::{BillQuery, BillRow, LineRow};
use crate::calendar::{Month, month_range};
use crate::{files, filters};

/// The list's filter, checked (organisations not yet expanded); the
/// monthly bill named by `monthly_bill_id` narrows the period to its month.
pub fn query(r: &pb::ListBillsRequest, enterprise_id: Uuid) -> Result<BillQuery, ServiceError> {
    let pb::ListBillsRequest {
        page: _,
        bill_nos,
        org_ids,
        channel,
        kinds,
        statuses,
        invoice_states,
        overdue,
        plate_numbers,
        start_month,
        end_month,
        issue_time,
        due_time,
        monthly_bill_id,
    } = r;
    let (mut from, mut to) = month_range(start_month.as_ref(), end_month.as_ref())?;
    if !monthly_bill_id.trim().is_empty() {
        let month = monthly_month(monthly_bill_id, enterprise_id)
            .ok_or_else(|| ServiceError::invalid("monthlyBillId", "月账单编号无效"))?;
        from = Some(from.map_or(month, |f| f.max(month)));
        to = Some(to.map_or(month, |t| t.min(month)));
    }
    Ok(BillQuery {
        bill_nos: list::batch("billNos", bill_nos)?,
        org_ids: filters::ids("orgIds", org_ids, "组织编号无效")?,
        channel: Channel::from_pb(*channel).map(i16::from),
        kinds: filters::codes("kinds", kinds, BillKind::from_pb)?,
        statuses: filters::codes("statuses", statuses, BillStatus::from_pb)?,
        invoice_states: filters::codes("invoiceStates", invoice_states, InvoiceState::from_pb)?,
        overdue: *overdue,
        plate_numbers: list::batch("plateNumbers", plate_numbers)?,
        from_month: from.map(Month::code),
        to_month: to.map(Month::code),
        issue_time: TimeRange::parse("issueTime", issue_time.as_ref())?,
        due_time: TimeRange::parse("dueTime", due_time.as_ref())?,
    })
}

/// The id of the enterprise's monthly bill of `month`: derived, not stored
/// (the month's bills are aggregated on read), and reversible with the
/// enterprise (so another tenant's id names no month of this one).
pub fn monthly_id(enterprise_id: Uuid, month: Month) -> Uuid {
    Uuid::from_u128(enterprise_id.as_u128() ^ month.code() as u128)
}

/// The month a monthly bill id names for the enterprise, if any.
pub fn monthly_month(id: &str, enterprise_id: Uuid) -> Option<Month> {
    let id = Uuid::parse_str(id.trim()).ok()?;
    let code = i32::try_from(id.as_u128() ^ enterprise_id.as_u128()).ok()?;
    Month::from_code(code)
}

/// A new bill of a CreateBill request (the enterprise is the caller's).
pub fn new_bill(r: pb::CreateBillRequest) -> Result<NewBill, ServiceError> {
    let pb::CreateBillRequest {
        enterprise_id: _,
        org_id,
        channel,
        kind,
        title,
        period,
        lines,
        discount_fen,
        due_time,
        requires_confirmation,
        source_service,
        source_id,
        attachments,
        remark,
    } = r;
    let kind =
        BillKind::from_pb(kind).ok_or_else(|| ServiceError::invalid("kind", "请选择账单类型"))?;
    let org_id = Uuid::parse_str(org_id.trim())
        .map_err(|_| ServiceError::invalid("orgId", "请指定所属组织"))?;
    let lines = lines
        .into_iter()
        .enumerate()
        .map(|(i, l)| line(l, kind.line_source(), &source_id, i))
        .collect::<Result<_, _>>()?;
    Ok(NewBill {
        org_id,
        channel: Channel::from_pb(channel).unwrap_or(Channel::Standard),
        kind,
        title,
        period: Month::parse("period", period.as_ref())?,
        order_id: None,
        lines,
        discount_fen,
        due_time: due_time.as_ref().and_then(datetime),
        requires_confirmation,
        source: Source {
            service: source_service,
            id: source_id,
        },
        attachments: files::to_json(&attachments),
        remark,
    })
}

/// A line of the wire, billing `source` record `source_id`.
fn line(
    l: pb::BillLine,
    source: LineSource,
    source_id: &str,
    i: usize,
) -> Result<Line, ServiceError> {
    let pb::BillLine {
        description,
        vehicle_id,
        plate_number,
        period,
        quantity,
        unit_price_fen,
        amount_fen,
        tax_rate_bp,
    } = l;
    let vehicle_id = match vehicle_id.trim() {
        "" => None,
        v => Some(Uuid::parse_str(v).map_err(|_| {
            ServiceError::invalid(&format!("lines[{i}].vehicleId"), "车辆编号无效")
        })?),
    };
    let period = TimeRange::parse(&format!("lines[{i}].period"), period.as_ref())?;
    Ok(Line {
        description,
        vehicle_id,
        plate_number,
        period_start: period.start,
        period_end: period.end,
        quantity,
        unit_price_fen,
        amount_fen,
        tax_rate_bp,
        source,
        source_id: source_id.trim().to_owned(),
    })
}

fn line_pb(l: LineRow) -> pb::BillLine {
    let LineRow {
        bill_id: _,
        line_no: _,
        description,
        vehicle_id,
        plate_number,
        period_start,
        period_end,
        quantity,
        unit_price_fen,
        amount_fen,
        tax_rate_bp,
        source_kind: _,
        source_id: _,
    } = l;
    let period = (period_start.is_some() || period_end.is_some()).then(|| common::TimeRange {
        start: period_start.map(timestamp),
        end: period_end.map(timestamp),
    });
    pb::BillLine {
        description,
        vehicle_id: vehicle_id.map(|v| v.to_string()).unwrap_or_default(),
        plate_number,
        period,
        quantity,
        unit_price_fen,
        amount_fen,
        tax_rate_bp,
    }
}

/// A bill with its lines (those of `lines` that are its own), judged at `now`.
pub fn bill(
    row: BillRow,
    lines: &mut Vec<LineRow>,
    now: DateTime<Utc>,
) -> Result<pb::Bill, ServiceError> {
    let BillRow {
        id,
        enterprise_id,
        org_id,
        org_name,
        bill_no,
        channel,
        kind,
        status,
        title,
        period,
        order_id,
        source_service,
        source_id,
        amount_fen,
        discount_fen,
        late_fee_fen,
        payable_fen,
        paid_fen,
        outstanding_fen,
        refunded_fen,
        invoiced_fen,
        invoice_state,
        issue_time,
        due_time,
        paid_time,
        confirmed_by_name,
        confirm_time,
        attachments,
        remark,
        created_by: _,
        created_by_name,
        created_at,
        updated_by_name,
        updated_at,
    } = row;
    let status: BillStatus = known(status)?;
    let own: Vec<LineRow> = {
        let (own, rest) = std::mem::take(lines)
            .into_iter()
            .partition(|l| l.bill_id == id);
        *lines = rest;
        own
    };
    let month = Month::from_code(period);
    Ok(pb::Bill {
        id: id.to_string(),
        bill_no,
        enterprise_id: enterprise_id.to_string(),
        org_id: org_id.to_string(),
        org_name,
        channel: known::<Channel>(channel)?.pb(),
        kind: known::<BillKind>(kind)?.pb(),
        status: status.pb(),
        title,
        period: month.map(Month::to_pb),
        order_id: order_id.map(|o| o.to_string()).unwrap_or_default(),
        source_service,
        source_id,
        lines: own.into_iter().map(line_pb).collect(),
        amount_fen,
        discount_fen,
        late_fee_fen,
        payable_fen,
        paid_fen,
        outstanding_fen,
        refunded_fen,
        invoiced_fen,
        invoiceable_fen: (paid_fen - refunded_fen - invoiced_fen).max(0),
        invoice_state: known::<InvoiceState>(invoice_state)?.pb(),
        issue_time: Some(timestamp(issue_time)),
        due_time: Some(timestamp(due_time)),
        overdue: domain::overdue(status, due_time, now),
        overdue_days: domain::overdue_days(status, due_time, now),
        paid_time: paid_time.map(timestamp),
        confirmed_by: confirmed_by_name,
        confirm_time: confirm_time.map(timestamp),
        monthly_bill_id: month
            .map(|m| monthly_id(enterprise_id, m).to_string())
            .unwrap_or_default(),
        attachments: files::from_json(&attachments),
        remark,
        audit: Some(common::Audit {
            created_by: created_by_name,
            create_time: Some(timestamp(created_at)),
            updated_by: updated_by_name,
            update_time: Some(timestamp(updated_at)),
        }),
    })
}

/// Bills with their lines, in the rows' order.
pub fn bills(
    rows: Vec<BillRow>,
    mut lines: Vec<LineRow>,
    now: DateTime<Utc>,
) -> Result<Vec<pb::Bill>, ServiceError> {
    rows.into_iter()
        .map(|row| bill(row, &mut lines, now))
        .collect()
}

//! Monthly bills between the wire and the store.

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::codes::known;
use fleetdesk_kit::convert::timestamp;
use fleetdesk_proto::finance::v1 as pb;
use uuid::Uuid;

use super::handlers::counted;
use super::store::{KindRow, MonthQuery, MonthRow};
use crate::bills::convert::monthly_id;
use crate::bills::domain::{BillKind, BillStatus};
use crate::calendar::{Month, month_range};
use crate::filters;

/// The months a list (or its export) shows, checked.
pub fn query(r: &pb::ListMonthlyBillsRequest) -> Result<MonthQuery, ServiceError> {
    let pb::ListMonthlyBillsRequest {
        page: _,
        start_month,
        end_month,
        statuses,
        overdue,
    } = r;
    let (from, to) = month_range(start_month.as_ref(), end_month.as_ref())?;
    Ok(MonthQuery {
        bills: counted(from, to),
        statuses: filters::codes("statuses", statuses, BillStatus::from_pb)?,
        overdue: *overdue,
    })
}

/// Per-kind figures, in kind order, of the rows `keep` selects.
pub fn by_kind(
    rows: &[KindRow],
    keep: impl Fn(&KindRow) -> bool,
) -> Result<Vec<pb::BillKindAmount>, ServiceError> {
    let mut out: Vec<pb::BillKindAmount> = Vec::new();
    for row in rows.iter().filter(|r| keep(r)) {
        let kind = known::<BillKind>(row.kind)?.pb();
        let count = i32::try_from(row.bill_count).unwrap_or(i32::MAX);
        match out.iter_mut().find(|k| k.kind == kind) {
            Some(k) => {
                k.bill_count = k.bill_count.saturating_add(count);
                k.amount_fen += row.payable_fen;
                k.outstanding_fen += row.outstanding_fen;
            }
            None => out.push(pb::BillKindAmount {
                kind,
                bill_count: count,
                amount_fen: row.payable_fen,
                outstanding_fen: row.outstanding_fen,
            }),
        }
    }
    out.sort_by_key(|k| k.kind);
    Ok(out)
}

/// The enterprise's month with its per-kind figures.
pub fn monthly(
    enterprise_id: Uuid,
    row: MonthRow,
    kinds: &[KindRow],
) -> Result<pb::MonthlyBill, ServiceError> {
    let MonthRow {
        period,
        bill_count,
        payable_fen,
        paid_fen,
        outstanding_fen,
        due_time,
        overdue,
        status,
        generated_at,
    } = row;
    let month = Month::from_code(period).ok_or_else(|| ServiceError::internal(&std::fmt::Error))?;
    Ok(pb::MonthlyBill {
        id: monthly_id(enterprise_id, month).to_string(),
        enterprise_id: enterprise_id.to_string(),
        month: Some(month.to_pb()),
        status: known::<BillStatus>(status)?.pb(),
        bill_count: i32::try_from(bill_count).unwrap_or(i32::MAX),
        payable_fen,
        paid_fen,
        outstanding_fen,
        due_time: due_time.map(timestamp),
        overdue,
        by_kind: by_kind(kinds, |k| k.period == period)?,
        // The month's workbook is not built yet.
        file: None,
        generated_time: generated_at.map(timestamp),
    })
}

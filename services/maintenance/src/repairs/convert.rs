//! Repair rows to proto and list requests to checked filters, by
//! destructuring: a new proto field fails to compile here until handled.

use chrono::NaiveDate;
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::codes::known;
use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::list::{TimeRange, batch};
use fleetdesk_kit::mask;
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use uuid::Uuid;

use super::domain::{BillState, ItemKind, Kind, Line, State, StatementState};
use super::settle::{BillRow, PeriodQuery, StatementRow, year_month};
use super::store::{OrderQuery, OrderRow, RecordQuery, RecordRow};
use crate::filters::{codes, uuids};

/// An optional id filter; a malformed one is refused naming `field`.
fn optional_id(field: &str, value: &str) -> Result<Option<Uuid>, ServiceError> {
    let value = value.trim();
    if value.is_empty() {
        return Ok(None);
    }
    Uuid::parse_str(value)
        .map(Some)
        .map_err(|_| ServiceError::invalid(field, "编号无效"))
}

pub fn order_filter(req: &pb::ListRepairOrdersRequest) -> Result<OrderQuery, ServiceError> {
    let pb::ListRepairOrdersRequest {
        page: _,
        plate_numbers,
        vins,
        org_ids,
        order_no,
        statuses,
        kinds,
        shop_id,
        create_time,
        completed_time,
        statement_id,
    } = req;
    Ok(OrderQuery {
        plates: batch("plateNumbers", plate_numbers)?,
        vins: batch("vins", vins)?,
        org_ids: uuids("orgIds", org_ids)?,
        order_no: order_no.trim().to_owned(),
        states: codes(statuses, State::from_pb),
        kinds: codes(kinds, Kind::from_pb),
        shop_id: optional_id("shopId", shop_id)?,
        created: TimeRange::parse("createTime", create_time.as_ref())?,
        completed: TimeRange::parse("completedTime", completed_time.as_ref())?,
        statement_id: optional_id("statementId", statement_id)?,
    })
}

pub fn record_filter(req: &pb::ListRepairRecordsRequest) -> Result<RecordQuery, ServiceError> {
    let pb::ListRepairRecordsRequest {
        page: _,
        plate_numbers,
        org_ids,
        shop_id,
        kinds,
        completed_time,
        order_no,
    } = req;
    Ok(RecordQuery {
        plates: batch("plateNumbers", plate_numbers)?,
        org_ids: uuids("orgIds", org_ids)?,
        shop_id: optional_id("shopId", shop_id)?,
        kinds: codes(kinds, Kind::from_pb),
        completed: TimeRange::parse("completedTime", completed_time.as_ref())?,
        order_no: order_no.trim().to_owned(),
    })
}

/// A month bound of a filter: its first day.
fn month(
    field: &str,
    value: Option<&common::YearMonth>,
) -> Result<Option<NaiveDate>, ServiceError> {
    let Some(common::YearMonth { year, month }) = value.copied() else {
        return Ok(None);
    };
    if year == 0 && month == 0 {
        return Ok(None);
    }
    u32::try_from(month)
        .ok()
        .and_then(|m| NaiveDate::from_ymd_opt(year, m, 1))
        .map(Some)
        .ok_or_else(|| ServiceError::invalid(field, "月份无效"))
}

pub fn statement_filter(
    req: &pb::ListRepairStatementsRequest,
) -> Result<PeriodQuery, ServiceError> {
    let pb::ListRepairStatementsRequest {
        page: _,
        shop_id,
        statement_no,
        statuses,
        start_month,
        end_month,
    } = req;
    Ok(PeriodQuery {
        shop_id: optional_id("shopId", shop_id)?,
        number: statement_no.trim().to_owned(),
        states: codes(statuses, StatementState::from_pb),
        from: month("startMonth", start_month.as_ref())?,
        to: month("endMonth", end_month.as_ref())?,
        due: TimeRange::default(),
    })
}

pub fn bill_filter(req: &pb::ListRepairBillsRequest) -> Result<PeriodQuery, ServiceError> {
    let pb::ListRepairBillsRequest {
        page: _,
        shop_id,
        bill_no,
        statuses,
        start_month,
        end_month,
        due_time,
    } = req;
    Ok(PeriodQuery {
        shop_id: optional_id("shopId", shop_id)?,
        number: bill_no.trim().to_owned(),
        states: codes(statuses, BillState::from_pb),
        from: month("startMonth", start_month.as_ref())?,
        to: month("endMonth", end_month.as_ref())?,
        due: TimeRange::parse("dueTime", due_time.as_ref())?,
    })
}

/// Stored lines as the wire's quote items.
pub fn items(value: &serde_json::Value) -> Vec<pb::RepairQuoteItem> {
    let lines: Vec<Line> = serde_json::from_value(value.clone()).unwrap_or_default();
    lines
        .into_iter()
        .map(|line| {
            let Line {
                name,
                kind,
                part_no,
                quantity,
                unit_price_fen,
                amount_fen,
                warranty,
            } = line;
            pb::RepairQuoteItem {
                name,
                kind: ItemKind::try_from(kind).map_or(0, ItemKind::pb),
                part_no,
                quantity,
                unit_price_fen,
                amount_fen,
                warranty,
            }
        })
        .collect()
}

pub use crate::violations::convert::{files, files_json};

pub fn order(row: OrderRow, enterprise: Uuid) -> Result<pb::RepairOrder, ServiceError> {
    let OrderRow {
        id,
        org_id,
        org_name,
        order_no,
        vehicle_id,
        plate_number,
        vin,
        driver_id,
        driver_name,
        contact_name,
        contact_phone,
        kind,
        state,
        fault_description,
        fault_images,
        odometer_m,
        shop_id,
        shop_name,
        shop_address,
        appointment_at,
        quote_items,
        quote_total_fen,
        quote_at,
        quote_remark,
        quote_round: _,
        quote_reject_reason,
        confirmed_total_fen,
        confirmed_by_name,
        confirm_at,
        approval_id,
        final_items: _,
        final_total_fen,
        completed_at,
        completed_odometer_m,
        completion_images,
        statement_id,
        record_id,
        accident_id,
        cancel_reason,
        remark,
        created_by: _,
        created_by_name,
        updated_by_name,
        created_at,
        updated_at,
    } = row;
    let state: State = known(state)?;
    let kind: Kind = known(kind)?;
    Ok(pb::RepairOrder {
        id: id.to_string(),
        order_no,
        enterprise_id: enterprise.to_string(),
        org_id: org_id.to_string(),
        org_name: org_name.unwrap_or_default(),
        vehicle_id: vehicle_id.to_string(),
        plate_number,
        vin,
        driver_id: driver_id.map(|d| d.to_string()).unwrap_or_default(),
        driver_name,
        contact_name,
        contact_masked_phone: mask::centre(&contact_phone),
        kind: kind.pb(),
        status: state.pb(),
        fault_description,
        fault_images: files(&fault_images),
        odometer_m,
        shop_id: shop_id.to_string(),
        shop_name,
        shop_address,
        appointment_time: appointment_at.map(timestamp),
        quote_items: items(&quote_items),
        quote_total_fen,
        quote_time: quote_at.map(timestamp),
        quote_remark,
        confirmed_total_fen,
        confirmed_by: confirmed_by_name,
        confirm_time: confirm_at.map(timestamp),
        quote_reject_reason,
        completed_time: completed_at.map(timestamp),
        completion_images: files(&completion_images),
        statement_id: statement_id.map(|s| s.to_string()).unwrap_or_default(),
        accident_id,
        cancel_reason,
        audit: Some(common::Audit {
            created_by: created_by_name,
            create_time: Some(timestamp(created_at)),
            updated_by: updated_by_name,
            update_time: Some(timestamp(updated_at)),
        }),
        final_total_fen,
        completed_odometer_m,
        record_id: record_id.map(|r| r.to_string()).unwrap_or_default(),
        approval_id,
        remark,
    })
}

pub fn record(row: RecordRow) -> Result<pb::RepairRecord, ServiceError> {
    let RecordRow {
        id,
        repair_order_id,
        order_no,
        org_id,
        org_name,
        vehicle_id,
        plate_number,
        kind,
        shop_id,
        shop_name,
        completed_at,
        odometer_m,
        items: lines,
        total_fen,
        remark,
        created_by_name,
        created_at,
    } = row;
    let kind: Kind = known(kind)?;
    Ok(pb::RepairRecord {
        id: id.to_string(),
        repair_order_id: repair_order_id.to_string(),
        order_no,
        org_id: org_id.to_string(),
        org_name: org_name.unwrap_or_default(),
        vehicle_id: vehicle_id.to_string(),
        plate_number,
        kind: kind.pb(),
        shop_id: shop_id.to_string(),
        shop_name,
        completed_time: Some(timestamp(completed_at)),
        odometer_m,
        items: items(&lines),
        total_fen,
        remark,
        operator_name: created_by_name,
        create_time: Some(timestamp(created_at)),
    })
}

pub fn statement(
    row: StatementRow,
    enterprise: Uuid,
    repair_order_ids: &[Uuid],
) -> Result<pb::RepairStatement, ServiceError> {
    let StatementRow {
        id,
        org_id,
        statement_no,
        shop_id,
        shop_name,
        period,
        order_count,
        total_fen,
        state,
        issued_at,
        confirmed_by_name,
        confirm_at,
        dispute_reason,
        bill_id,
        created_at,
        updated_at,
    } = row;
    let state: StatementState = known(state)?;
    Ok(pb::RepairStatement {
        id: id.to_string(),
        statement_no,
        enterprise_id: enterprise.to_string(),
        shop_id: shop_id.to_string(),
        shop_name,
        period: Some(year_month(period)),
        order_count,
        total_fen,
        status: state.pb(),
        repair_order_ids: repair_order_ids.iter().map(Uuid::to_string).collect(),
        file: None,
        issued_time: Some(timestamp(issued_at)),
        confirmed_by: confirmed_by_name,
        confirm_time: confirm_at.map(timestamp),
        dispute_reason,
        bill_id: bill_id.map(|b| b.to_string()).unwrap_or_default(),
        audit: Some(common::Audit {
            created_by: String::new(),
            create_time: Some(timestamp(created_at)),
            updated_by: String::new(),
            update_time: Some(timestamp(updated_at)),
        }),
        org_id: org_id.to_string(),
    })
}

pub fn bill(row: BillRow, enterprise: Uuid) -> Result<pb::RepairBill, ServiceError> {
    let BillRow {
        id,
        org_id: _,
        bill_no,
        statement_id,
        statement_no,
        shop_id,
        shop_name,
        period,
        amount_fen,
        paid_fen,
        state,
        issued_at,
        due_at,
        paid_at,
        finance_bill_id,
        created_at,
        updated_at,
    } = row;
    let state: BillState = known(state)?;
    Ok(pb::RepairBill {
        id: id.to_string(),
        bill_no,
        enterprise_id: enterprise.to_string(),
        statement_id: statement_id.to_string(),
        statement_no,
        shop_id: shop_id.to_string(),
        shop_name,
        period: Some(year_month(period)),
        amount_fen,
        paid_fen,
        outstanding_fen: amount_fen - paid_fen,
        status: state.pb(),
        issued_time: Some(timestamp(issued_at)),
        due_time: Some(timestamp(due_at)),
        paid_time: paid_at.map(timestamp),
        invoices: Vec::new(),
        finance_bill_id,
        audit: Some(common::Audit {
            created_by: String::new(),
            create_time: Some(timestamp(created_at)),
            updated_by: String::new(),
            update_time: Some(timestamp(updated_at)),
        }),
    })
}

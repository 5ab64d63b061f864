//! Proto ↔ domain for usage records: the input and filter off the wire, the
//! row onto it. Inputs are destructured field by field, so a new proto field
//! breaks the build here until it is handled.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::convert::{datetime, timestamp};
use fleetdesk_kit::list::{self, TimeRange};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use uuid::Uuid;

use super::domain::{
    Purchase, Rent, RentToOwn, Replacement, ReplacementFields, ReplacementReason, Terms,
    TermsFields, UsageDraft, UsageFields, state,
};
use super::store::{UsageQuery, UsageRow};
use crate::codes::optional;
use crate::vehicles::convert::{files_from_json, files_to_json};
use crate::vehicles::domain::{UsageKind, UsageStatus};

fn time(ts: Option<prost_types::Timestamp>) -> Option<DateTime<Utc>> {
    ts.as_ref().and_then(datetime)
}

fn rent(d: pb::RentDetails) -> Rent {
    let pb::RentDetails {
        monthly_rent_fen,
        deposit_fen,
        term_months,
        payment_day,
        return_time,
    } = d;
    Rent {
        monthly_rent_fen,
        deposit_fen,
        term_months,
        payment_day,
        return_time: time(return_time),
    }
}

fn purchase(d: pb::PurchaseDetails) -> Purchase {
    let pb::PurchaseDetails {
        price_fen,
        purchase_tax_fen,
        invoice_no,
        delivery_time,
    } = d;
    Purchase {
        price_fen,
        purchase_tax_fen,
        invoice_no,
        delivery_time: time(delivery_time),
    }
}

fn replacement(d: pb::ReplacementDetails) -> ReplacementFields {
    let pb::ReplacementDetails {
        replaced_vehicle_id,
        // Filled from the replaced vehicle, never taken from the caller.
        replaced_plate_number: _,
        reason,
        temporary,
    } = d;
    ReplacementFields {
        replaced_vehicle_id,
        reason: ReplacementReason::from_pb(reason),
        temporary,
    }
}

fn rent_to_own(d: pb::RentToOwnDetails) -> RentToOwn {
    let pb::RentToOwnDetails {
        term_months,
        down_payment_fen,
        monthly_payment_fen,
        total_price_fen,
        final_payment_fen,
        paid_periods,
        ownership_transfer_time,
        overdue_periods,
    } = d;
    RentToOwn {
        term_months,
        down_payment_fen,
        monthly_payment_fen,
        total_price_fen,
        final_payment_fen,
        paid_periods,
        overdue_periods,
        ownership_transfer_time: time(ownership_transfer_time),
    }
}

pub fn fields(input: pb::UsageRecordInput) -> UsageFields {
    use pb::usage_record_input::Details;
    let pb::UsageRecordInput {
        vehicle_id,
        contract_no,
        counterparty,
        start_time,
        end_time,
        details,
        attachments,
        remark,
    } = input;
    UsageFields {
        vehicle_id,
        contract_no,
        counterparty,
        start_time: time(start_time),
        end_time: time(end_time),
        terms: details.map(|d| match d {
            Details::Rent(d) => TermsFields::Rent(rent(d)),
            Details::Purchase(d) => TermsFields::Purchase(purchase(d)),
            Details::Replacement(d) => TermsFields::Replacement(replacement(d)),
            Details::RentToOwn(d) => TermsFields::RentToOwn(rent_to_own(d)),
        }),
        attachments: files_to_json(&attachments),
        remark,
    }
}

pub fn query(filter: Option<pb::UsageRecordFilter>) -> Result<UsageQuery, ServiceError> {
    let pb::UsageRecordFilter {
        kind,
        plate_numbers,
        vins,
        org_ids,
        statuses,
        contract_no,
        counterparty,
        period,
        vehicle_id,
    } = filter.unwrap_or_default();
    let org_ids = org_ids
        .iter()
        .map(|o| Uuid::parse_str(o.trim()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| ServiceError::invalid("orgIds", "所选组织不存在"))?;
    let statuses = statuses
        .iter()
        .map(|s| UsageStatus::from_pb(*s))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| ServiceError::invalid("statuses", "筛选条件的取值无效"))?;
    let vehicle_id = match vehicle_id.trim() {
        "" => None,
        v => {
            Some(Uuid::parse_str(v).map_err(|_| ServiceError::invalid("vehicleId", "车辆不存在"))?)
        }
    };
    Ok(UsageQuery {
        kind: UsageKind::from_pb(kind).map(i16::from),
        plates: list::batch("plateNumbers", &plate_numbers)?
            .into_iter()
            .map(|p| p.to_uppercase())
            .collect(),
        vins: list::batch("vins", &vins)?
            .into_iter()
            .map(|v| v.to_ascii_uppercase())
            .collect(),
        org_ids,
        statuses,
        contract_no,
        counterparty,
        period: TimeRange::parse("period", period.as_ref())?,
        vehicle_id,
    })
}

/// The stored record's terms.
pub fn terms(row: &UsageRow) -> Option<Terms> {
    Some(match optional::<UsageKind>(Some(row.kind))? {
        UsageKind::Rent => Terms::Rent(Rent {
            monthly_rent_fen: row.monthly_rent_fen.unwrap_or_default(),
            deposit_fen: row.deposit_fen.unwrap_or_default(),
            term_months: row.term_months.unwrap_or_default(),
            payment_day: row.payment_day.unwrap_or(1),
            return_time: row.return_time,
        }),
        UsageKind::Purchase => Terms::Purchase(Purchase {
            price_fen: row.price_fen.unwrap_or_default(),
            purchase_tax_fen: row.purchase_tax_fen.unwrap_or_default(),
            invoice_no: row.invoice_no.clone().unwrap_or_default(),
            delivery_time: row.delivery_time,
        }),
        UsageKind::Replacement => Terms::Replacement(Replacement {
            replaced_vehicle_id: row.replaced_vehicle_id?,
            replaced_plate_number: row.replaced_plate_number.clone().unwrap_or_default(),
            reason: optional(row.replacement_reason)?,
            temporary: row.temporary.unwrap_or_default(),
        }),
        UsageKind::RentToOwn => Terms::RentToOwn(RentToOwn {
            term_months: row.term_months.unwrap_or_default(),
            down_payment_fen: row.down_payment_fen.unwrap_or_default(),
            monthly_payment_fen: row.monthly_payment_fen.unwrap_or_default(),
            total_price_fen: row.total_price_fen.unwrap_or_default(),
            final_payment_fen: row.final_payment_fen.unwrap_or_default(),
            paid_periods: row.paid_periods.unwrap_or_default(),
            overdue_periods: row.overdue_periods.unwrap_or_default(),
            ownership_transfer_time: row.ownership_transfer_time,
        }),
    })
}

/// The stored record as a draft, to compare an edit with.
pub fn draft(row: &UsageRow) -> Option<UsageDraft> {
    Some(UsageDraft {
        vehicle_id: row.vehicle_id,
        contract_no: row.contract_no.clone(),
        counterparty: row.counterparty.clone(),
        start_time: row.start_time,
        end_time: row.end_time,
        terms: terms(row)?,
        attachments: row.attachments.clone(),
        remark: row.remark.clone(),
    })
}

/// The record's state as of now.
pub fn status(row: &UsageRow) -> Option<UsageStatus> {
    optional::<UsageStatus>(Some(row.state))
        .map(|s| state::effective(s, row.start_time, Utc::now()))
}

pub fn record(row: UsageRow, enterprise_id: Uuid) -> pb::UsageRecord {
    use pb::usage_record::Details;
    let id_text = |id: Option<Uuid>| id.map(|i| i.to_string()).unwrap_or_default();
    let details = terms(&row).map(|t| match t {
        Terms::Rent(r) => Details::Rent(pb::RentDetails {
            monthly_rent_fen: r.monthly_rent_fen,
            deposit_fen: r.deposit_fen,
            term_months: r.term_months,
            payment_day: r.payment_day,
            return_time: r.return_time.map(timestamp),
        }),
        Terms::Purchase(p) => Details::Purchase(pb::PurchaseDetails {
            price_fen: p.price_fen,
            purchase_tax_fen: p.purchase_tax_fen,
            invoice_no: p.invoice_no,
            delivery_time: p.delivery_time.map(timestamp),
        }),
        Terms::Replacement(r) => Details::Replacement(pb::ReplacementDetails {
            replaced_vehicle_id: r.replaced_vehicle_id.to_string(),
            replaced_plate_number: r.replaced_plate_number,
            reason: r.reason.pb(),
            temporary: r.temporary,
        }),
        Terms::RentToOwn(r) => Details::RentToOwn(pb::RentToOwnDetails {
            term_months: r.term_months,
            down_payment_fen: r.down_payment_fen,
            monthly_payment_fen: r.monthly_payment_fen,
            total_price_fen: r.total_price_fen,
            final_payment_fen: r.final_payment_fen,
            paid_periods: r.paid_periods,
            ownership_transfer_time: r.ownership_transfer_time.map(timestamp),
            overdue_periods: r.overdue_periods,
        }),
    });
    pb::UsageRecord {
        id: row.id.to_string(),
        enterprise_id: enterprise_id.to_string(),
        org_id: row.org_id.to_string(),
        org_name: row.org_name.clone(),
        vehicle_id: row.vehicle_id.to_string(),
        plate_number: row.plate_number.clone(),
        vin: row.vin.clone(),
        kind: optional::<UsageKind>(Some(row.kind)).map_or(0, UsageKind::pb),
        status: status(&row).map_or(0, UsageStatus::pb),
        contract_no: row.contract_no,
        counterparty: row.counterparty,
        start_time: Some(timestamp(row.start_time)),
        end_time: row.end_time.map(timestamp),
        details,
        attachments: files_from_json(&row.attachments),
        remark: row.remark,
        audit: Some(common::Audit {
            created_by: id_text(row.created_by),
            create_time: Some(timestamp(row.created_at)),
            updated_by: id_text(row.updated_by),
            update_time: Some(timestamp(row.updated_at)),
        }),
    }
}

/// The record's state after a change as the event announcing it, written
/// at `changed` (the database clock under the record's lock).
pub fn changed(
    row: UsageRow,
    enterprise_id: Uuid,
    changed: DateTime<Utc>,
) -> pb::UsageRecordChanged {
    let ended_time = row.ended_at.map(timestamp);
    pb::UsageRecordChanged {
        record: Some(record(row, enterprise_id)),
        ended_time,
        changed_time: Some(timestamp(changed)),
    }
}

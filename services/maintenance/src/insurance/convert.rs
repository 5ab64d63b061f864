//! Policies between proto and domain, by destructuring: a new proto field
//! fails to compile here until it is handled.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::codes::known;
use fleetdesk_kit::convert::{datetime, timestamp};
use fleetdesk_kit::list::{TimeRange, batch};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use uuid::Uuid;

use super::domain::{Coverage, Document, Expiry, Kind, PolicyForm};
use super::store::{PolicyQuery, PolicyRow};
use crate::filters::{codes, uuids};

/// A list request's filter, checked (organisations not yet expanded), its
/// expiry states read at `now`; the export reads it the same way.
pub fn filter(
    req: &pb::ListInsurancePoliciesRequest,
    now: DateTime<Utc>,
) -> Result<PolicyQuery, ServiceError> {
    let pb::ListInsurancePoliciesRequest {
        page: _,
        plate_numbers,
        vins,
        org_ids,
        policy_no,
        kinds,
        statuses,
        end_time,
        insurers,
    } = req;
    Ok(PolicyQuery {
        plates: batch("plateNumbers", plate_numbers)?,
        vins: batch("vins", vins)?,
        org_ids: uuids("orgIds", org_ids)?,
        kinds: codes(kinds, Kind::from_pb),
        insurers: batch("insurers", insurers)?,
        policy_no: policy_no.trim().to_owned(),
        expiry: statuses
            .iter()
            .filter_map(|s| Expiry::from_pb(*s))
            .collect(),
        end: TimeRange::parse("endTime", end_time.as_ref())?,
        now,
    })
}

pub fn document(f: common::FileRef) -> Document {
    let common::FileRef {
        name,
        key,
        content_type,
        size_bytes,
    } = f;
    Document {
        name,
        key,
        content_type,
        size_bytes,
    }
}

pub fn file_ref(d: &Document) -> common::FileRef {
    let Document {
        name,
        key,
        content_type,
        size_bytes,
    } = d;
    common::FileRef {
        name: name.clone(),
        key: key.clone(),
        content_type: content_type.clone(),
        size_bytes: *size_bytes,
    }
}

/// The form as the domain checks it (a missing form is an empty one).
pub fn form(form: Option<pb::InsurancePolicyForm>) -> PolicyForm {
    let pb::InsurancePolicyForm {
        plate_number,
        kind,
        insurer,
        policy_no,
        insured_name,
        start_time,
        end_time,
        premium_fen,
        coverages,
        documents,
    } = form.unwrap_or_default();
    PolicyForm {
        plate: plate_number,
        kind: Kind::from_pb(kind),
        insurer,
        policy_no,
        insured_name,
        start: start_time.as_ref().and_then(datetime),
        end: end_time.as_ref().and_then(datetime),
        premium_fen,
        coverages: coverages
            .into_iter()
            .map(|c| {
                let pb::InsuranceCoverage {
                    name,
                    sum_insured_fen,
                    premium_fen,
                    deductible_fen,
                } = c;
                Coverage {
                    name,
                    sum_insured_fen,
                    premium_fen,
                    deductible_fen,
                }
            })
            .collect(),
        documents: documents.into_iter().map(document).collect(),
    }
}

pub fn policy(
    row: PolicyRow,
    enterprise: Uuid,
    now: DateTime<Utc>,
) -> Result<pb::InsurancePolicy, ServiceError> {
    let PolicyRow {
        id,
        org_id,
        org_name,
        vehicle_id,
        plate_number,
        vin,
        kind,
        insurer,
        policy_no,
        insured_name,
        start_time,
        end_time,
        premium_fen,
        coverages,
        documents,
        created_by: _,
        created_by_name,
        updated_by_name,
        created_at,
        updated_at,
    } = row;
    let kind: Kind = known(kind)?;
    let documents: Vec<common::FileRef> = documents.0.iter().map(file_ref).collect();
    Ok(pb::InsurancePolicy {
        id: id.to_string(),
        policy_no,
        enterprise_id: enterprise.to_string(),
        org_id: org_id.to_string(),
        org_name: org_name.unwrap_or_default(),
        vehicle_id: vehicle_id.to_string(),
        plate_number,
        vin,
        kind: kind.pb(),
        insurer,
        insured_name,
        start_time: Some(timestamp(start_time)),
        end_time: Some(timestamp(end_time)),
        premium_fen,
        coverages: coverages
            .0
            .into_iter()
            .map(|c| pb::InsuranceCoverage {
                name: c.name,
                sum_insured_fen: c.sum_insured_fen,
                premium_fen: c.premium_fen,
                deductible_fen: c.deductible_fen,
            })
            .collect(),
        status: Expiry::at(start_time, end_time, now).to_pb().into(),
        policy_document: documents.first().cloned(),
        documents,
        audit: Some(common::Audit {
            created_by: created_by_name,
            create_time: Some(timestamp(created_at)),
            updated_by: updated_by_name,
            update_time: Some(timestamp(updated_at)),
        }),
    })
}

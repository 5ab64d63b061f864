//! proto ↔ domain for refunds: the records' filter and a refund on the wire.

use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::list::TimeRange;
use fleetdesk_kit::{ServiceError, codes};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::finance::v1 as pb;

use super::domain::{RefundMethod, RefundReason, RefundStatus};
use super::store::{RefundQuery, RefundRow};
use crate::bills::domain::Channel;
use crate::filters;

pub fn query(r: pb::ListRefundsRequest) -> Result<RefundQuery, ServiceError> {
    let pb::ListRefundsRequest {
        page: _,
        channel,
        refund_no,
        bill_id,
        reasons,
        statuses,
        apply_time,
    } = r;
    let bill_id = match bill_id.trim() {
        "" => None,
        id => Some(
            fleetdesk_kit::convert::id(id)
                .map_err(|_| ServiceError::invalid("billId", "账单编号无效"))?,
        ),
    };
    Ok(RefundQuery {
        channel: Channel::from_pb(channel).map(i16::from),
        refund_no,
        bill_id,
        reasons: filters::codes("reasons", &reasons, RefundReason::from_pb)?,
        statuses: filters::codes("statuses", &statuses, RefundStatus::from_pb)?,
        applied: TimeRange::parse("applyTime", apply_time.as_ref())?,
    })
}

pub fn refund(row: RefundRow) -> Result<pb::Refund, ServiceError> {
    let RefundRow {
        id,
        enterprise_id,
        refund_no,
        channel,
        bill_id,
        bill_no,
        order_id,
        payment_id,
        reason,
        reason_detail,
        requested_fen,
        approved_fen,
        refunded_fen,
        method,
        payee_name,
        payee_bank_name,
        payee_masked_account,
        status,
        applicant_name,
        apply_time,
        reviewer_name,
        review_time,
        reject_reason,
        confirmed_by_name,
        confirm_time,
        complete_time,
        transaction_no,
        failure_reason,
        created_at,
        updated_by_name,
        updated_at,
    } = row;
    Ok(pb::Refund {
        id: id.to_string(),
        refund_no,
        enterprise_id: enterprise_id.to_string(),
        channel: codes::known::<Channel>(channel)?.pb(),
        bill_id: bill_id.to_string(),
        bill_no,
        order_id: order_id.map(|o| o.to_string()).unwrap_or_default(),
        payment_id: payment_id.map(|p| p.to_string()).unwrap_or_default(),
        reason: codes::known::<RefundReason>(reason)?.pb(),
        reason_detail,
        requested_fen,
        approved_fen,
        refunded_fen,
        method: codes::known::<RefundMethod>(method)?.pb(),
        payee_name,
        payee_bank_name,
        payee_masked_account,
        status: codes::known::<RefundStatus>(status)?.pb(),
        applicant_name: applicant_name.clone(),
        apply_time: Some(timestamp(apply_time)),
        reviewer_name,
        review_time: review_time.map(timestamp),
        reject_reason,
        confirmed_by: confirmed_by_name,
        confirm_time: confirm_time.map(timestamp),
        complete_time: complete_time.map(timestamp),
        transaction_no,
        failure_reason,
        attachments: Vec::new(),
        audit: Some(common::Audit {
            created_by: applicant_name,
            create_time: Some(timestamp(created_at)),
            updated_by: updated_by_name,
            update_time: Some(timestamp(updated_at)),
        }),
    })
}

//! proto ↔ domain for payments: the list's filter and a payment on the wire.

use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::list::TimeRange;
use fleetdesk_kit::{ServiceError, codes};
use fleetdesk_proto::finance::v1 as pb;

use super::domain::{PaymentMethod, PaymentStatus};
use super::store::{AllocationRow, PaymentQuery, PaymentRow};
use crate::filters;

pub fn query(r: pb::ListBillPaymentsRequest) -> Result<PaymentQuery, ServiceError> {
    let pb::ListBillPaymentsRequest {
        page: _,
        bill_id,
        payment_no,
        methods,
        statuses,
        create_time,
    } = r;
    let bill_id = match bill_id.trim() {
        "" => None,
        id => Some(
            fleetdesk_kit::convert::id(id)
                .map_err(|_| ServiceError::invalid("billId", "账单编号无效"))?,
        ),
    };
    Ok(PaymentQuery {
        bill_id,
        payment_no,
        methods: filters::codes("methods", &methods, PaymentMethod::from_pb)?,
        statuses: filters::codes("statuses", &statuses, PaymentStatus::from_pb)?,
        created: TimeRange::parse("createTime", create_time.as_ref())?,
    })
}

/// The payment with its allocations (`allocations` may hold other
/// payments'; this one's are taken out).
pub fn payment(
    row: PaymentRow,
    allocations: &mut Vec<AllocationRow>,
) -> Result<pb::BillPayment, ServiceError> {
    let PaymentRow {
        id,
        enterprise_id,
        org_id: _,
        payment_no,
        method,
        status,
        amount_fen,
        coupon_id,
        coupon_deduction_fen,
        payer_name,
        payer_bank_name,
        payer_masked_account,
        bank_order_id,
        pay_url,
        expire_time,
        paid_time,
        failure_reason,
        requested_by_name,
        created_at,
    } = row;
    let method = codes::known::<PaymentMethod>(method)?;
    let status = codes::known::<PaymentStatus>(status)?;
    let (mine, others): (Vec<_>, Vec<_>) = std::mem::take(allocations)
        .into_iter()
        .partition(|a| a.payment_id == id);
    *allocations = others;
    Ok(pb::BillPayment {
        id: id.to_string(),
        payment_no,
        enterprise_id: enterprise_id.to_string(),
        method: method.pb(),
        status: status.pb(),
        amount_fen,
        coupon_id: coupon_id.map(|c| c.to_string()).unwrap_or_default(),
        coupon_deduction_fen,
        allocations: mine
            .into_iter()
            .map(|a| pb::PaymentAllocation {
                bill_id: a.bill_id.to_string(),
                bill_no: a.bill_no,
                amount_fen: a.amount_fen,
            })
            .collect(),
        payer_name,
        payer_bank_name,
        payer_masked_account,
        transaction_no: bank_order_id,
        voucher: None,
        // The pay page matters only while the payer still has to pay.
        pay_url: if status == PaymentStatus::Pending {
            pay_url
        } else {
            String::new()
        },
        expire_time: expire_time.map(timestamp),
        paid_time: paid_time.map(timestamp),
        failure_reason,
        requested_by: requested_by_name,
        create_time: Some(timestamp(created_at)),
    })
}

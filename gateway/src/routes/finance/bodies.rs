//! The finance subjects as the edge shows them, shared by the finance routes:
//! the edge enums of finance.proto and one answer body per message, mapped
//! once with the proto's field names. Money is fen, months `yyyy-MM`, times
//! RFC 3339 (empty when unset).

use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::finance::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::edge::enums::edge_enum;
use crate::edge::file_ref::FileRefBody;
use crate::edge::time::rfc3339;
use crate::routes::energy::convert::month_text;

edge_enum!(
    /// The console flow a row belongs to: STANDARD, or B2B (reconciliation, page pay, B2B invoices and refunds).
    Channel => pb::Channel { Standard, B2b }
);
edge_enum!(
    /// What an order is for.
    OrderKind => pb::OrderKind {
        VehicleRent, VehiclePurchase, RentToOwn, ChargingTopUp, Insurance, Maintenance, ValueAddedService, Other
    }
);
edge_enum!(
    /// PENDING_PAYMENT → PAID → FULFILLING → COMPLETED; CANCELLED before payment; REFUNDING → REFUNDED.
    OrderStatus => pb::OrderStatus {
        PendingPayment, Paid, Fulfilling, Completed, Cancelled, Refunding, Refunded
    }
);
edge_enum!(
    /// What a bill charges for.
    BillKind => pb::BillKind {
        Rent, RentToOwnInstalment, Charging, Repair, Insurance, ViolationFine, Deposit, ServiceFee, Compensation, Order, Other
    }
);
edge_enum!(
    /// PENDING_CONFIRMATION (B2B reconciliation) → UNPAID → PARTIALLY_PAID → PAID; or CANCELLED.
    BillStatus => pb::BillStatus { PendingConfirmation, Unpaid, PartiallyPaid, Paid, Cancelled }
);
edge_enum!(
    /// How much of a bill's paid amount is invoiced.
    InvoiceState => pb::InvoiceState { NotInvoiced, PartiallyInvoiced, Invoiced }
);
edge_enum!(
    /// How a payment is made; ONLINE_BANKING answers a bank page to open, PREPAID_BALANCE settles at once.
    PaymentMethod => pb::PaymentMethod { CorporateTransfer, OnlineBanking, WechatPay, Alipay, PrepaidBalance }
);
edge_enum!(
    /// PENDING until the bank (or voucher review) settles it.
    PaymentStatus => pb::PaymentStatus { Pending, Succeeded, Failed, Closed }
);
edge_enum!(
    /// COMPANY needs a tax number; INSTITUTION may leave it empty.
    InvoiceTitleType => pb::InvoiceTitleType { Company, Institution }
);
edge_enum!(
    /// Fully digital or paper, special or general VAT invoice.
    InvoiceType => pb::InvoiceType { DigitalSpecial, DigitalGeneral, PaperSpecial, PaperGeneral }
);
edge_enum!(
    /// PENDING_REVIEW → ISSUING → ISSUED (→ MAILED for paper); or REJECTED, CANCELLED.
    InvoiceApplicationStatus => pb::InvoiceApplicationStatus {
        PendingReview, Issuing, Issued, Mailed, Rejected, Cancelled
    }
);
edge_enum!(
    /// Why money goes back.
    RefundReason => pb::RefundReason { Overpayment, DepositReturn, ServiceCancelled, BillingError, Other }
);
edge_enum!(
    /// Where a refund is paid.
    RefundMethod => pb::RefundMethod { OriginalRoute, BankTransfer, PrepaidBalance }
);
edge_enum!(
    /// PENDING_REVIEW (applied) or PENDING_CONFIRMATION (proposed by the operator) → PROCESSING → COMPLETED; or REJECTED, CANCELLED, FAILED.
    RefundStatus => pb::RefundStatus {
        PendingReview, PendingConfirmation, Processing, Completed, Rejected, Cancelled, Failed
    }
);
edge_enum!(
    /// A fixed amount or a capped percentage off.
    CouponKind => pb::CouponKind { AmountOff, PercentOff }
);
edge_enum!(
    /// LOCKED while a pending payment or order holds it.
    CouponStatus => pb::CouponStatus { Available, Locked, Used, Expired, Voided }
);
edge_enum!(
    /// The enterprise's money held by the operator.
    LedgerAccount => pb::LedgerAccount { PrepaidBalance, Deposit, Receivable }
);
edge_enum!(
    /// CREDIT increases the account, DEBIT decreases it.
    LedgerDirection => pb::LedgerDirection { Credit, Debit }
);
edge_enum!(
    /// What caused a ledger entry.
    LedgerBusinessType => pb::LedgerBusinessType {
        BillRaised, BillPayment, Refund, TopUp, ChargingTransfer, DepositHeld, DepositReleased, Adjustment
    }
);

/// Who created and last changed a row.
#[derive(Debug, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditBody {
    pub created_by: String,
    pub create_time: String,
    pub updated_by: String,
    pub update_time: String,
}

fn audit(a: Option<common::Audit>) -> AuditBody {
    let a = a.unwrap_or_default();
    AuditBody {
        create_time: rfc3339(a.create_time.as_ref()),
        update_time: rfc3339(a.update_time.as_ref()),
        created_by: a.created_by,
        updated_by: a.updated_by,
    }
}

fn files(refs: Vec<common::FileRef>) -> Vec<FileRefBody> {
    refs.into_iter().map(Into::into).collect()
}

/// One line of an order.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrderItemBody {
    pub name: String,
    pub sku: String,
    pub quantity: i32,
    pub unit_price_fen: i64,
    pub amount_fen: i64,
    pub vehicle_id: String,
    pub plate_number: String,
}

impl From<pb::OrderItem> for OrderItemBody {
    fn from(i: pb::OrderItem) -> Self {
        let pb::OrderItem {
            name,
            sku,
            quantity,
            unit_price_fen,
            amount_fen,
            vehicle_id,
            plate_number,
        } = i;
        OrderItemBody {
            name,
            sku,
            quantity,
            unit_price_fen,
            amount_fen,
            vehicle_id,
            plate_number,
        }
    }
}

/// An order for vehicles, services or a top-up.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrderBody {
    pub id: String,
    pub order_no: String,
    pub org_id: String,
    pub org_name: String,
    pub kind: Option<OrderKind>,
    pub status: Option<OrderStatus>,
    pub title: String,
    pub items: Vec<OrderItemBody>,
    pub total_fen: i64,
    pub discount_fen: i64,
    pub coupon_id: String,
    pub payable_fen: i64,
    pub paid_fen: i64,
    pub refunded_fen: i64,
    pub contract_no: String,
    pub source_service: String,
    pub source_id: String,
    pub placed_by: String,
    pub placed_time: String,
    pub paid_time: String,
    pub complete_time: String,
    pub payment_deadline: String,
    pub cancel_reason: String,
    pub remark: String,
    pub audit: AuditBody,
}

impl From<pb::Order> for OrderBody {
    fn from(o: pb::Order) -> Self {
        let pb::Order {
            id,
            order_no,
            enterprise_id: _,
            org_id,
            org_name,
            kind,
            status,
            title,
            items,
            total_fen,
            discount_fen,
            coupon_id,
            payable_fen,
            paid_fen,
            refunded_fen,
            contract_no,
            source_service,
            source_id,
            placed_by,
            placed_time,
            paid_time,
            complete_time,
            payment_deadline,
            cancel_reason,
            remark,
            audit: a,
        } = o;
        OrderBody {
            id,
            order_no,
            org_id,
            org_name,
            kind: OrderKind::from_pb(kind),
            status: OrderStatus::from_pb(status),
            title,
            items: items.into_iter().map(Into::into).collect(),
            total_fen,
            discount_fen,
            coupon_id,
            payable_fen,
            paid_fen,
            refunded_fen,
            contract_no,
            source_service,
            source_id,
            placed_by,
            placed_time: rfc3339(placed_time.as_ref()),
            paid_time: rfc3339(paid_time.as_ref()),
            complete_time: rfc3339(complete_time.as_ref()),
            payment_deadline: rfc3339(payment_deadline.as_ref()),
            cancel_reason,
            remark,
            audit: audit(a),
        }
    }
}

/// One line of a bill; `vehicleId` and the bill's source lead to the record behind it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BillLineBody {
    pub description: String,
    pub vehicle_id: String,
    pub plate_number: String,
    pub period_start: String,
    pub period_end: String,
    pub quantity: i32,
    pub unit_price_fen: i64,
    pub amount_fen: i64,
    /// Basis points (1300 = 13%).
    pub tax_rate_bp: i32,
}

impl From<pb::BillLine> for BillLineBody {
    fn from(l: pb::BillLine) -> Self {
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
        let period = period.unwrap_or_default();
        BillLineBody {
            description,
            vehicle_id,
            plate_number,
            period_start: rfc3339(period.start.as_ref()),
            period_end: rfc3339(period.end.as_ref()),
            quantity,
            unit_price_fen,
            amount_fen,
            tax_rate_bp,
        }
    }
}

/// Money the enterprise owes for one thing.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BillBody {
    pub id: String,
    pub bill_no: String,
    pub org_id: String,
    pub org_name: String,
    pub channel: Option<Channel>,
    pub kind: Option<BillKind>,
    pub status: Option<BillStatus>,
    pub title: String,
    /// yyyy-MM.
    pub period: String,
    pub order_id: String,
    /// The service that raised it (`vehicle`, `energy`, `maintenance`…) and its record there.
    pub source_service: String,
    pub source_id: String,
    pub lines: Vec<BillLineBody>,
    pub amount_fen: i64,
    pub discount_fen: i64,
    pub late_fee_fen: i64,
    pub payable_fen: i64,
    pub paid_fen: i64,
    pub outstanding_fen: i64,
    pub refunded_fen: i64,
    pub invoiced_fen: i64,
    pub invoiceable_fen: i64,
    pub invoice_state: Option<InvoiceState>,
    pub issue_time: String,
    pub due_time: String,
    pub overdue: bool,
    pub overdue_days: i32,
    pub paid_time: String,
    pub confirmed_by: String,
    pub confirm_time: String,
    pub monthly_bill_id: String,
    pub attachments: Vec<FileRefBody>,
    pub remark: String,
    pub audit: AuditBody,
}

impl From<pb::Bill> for BillBody {
    fn from(b: pb::Bill) -> Self {
        let pb::Bill {
            id,
            bill_no,
            enterprise_id: _,
            org_id,
            org_name,
            channel,
            kind,
            status,
            title,
            period,
            order_id,
            source_service,
            source_id,
            lines,
            amount_fen,
            discount_fen,
            late_fee_fen,
            payable_fen,
            paid_fen,
            outstanding_fen,
            refunded_fen,
            invoiced_fen,
            invoiceable_fen,
            invoice_state,
            issue_time,
            due_time,
            overdue,
            overdue_days,
            paid_time,
            confirmed_by,
            confirm_time,
            monthly_bill_id,
            attachments,
            remark,
            audit: a,
        } = b;
        BillBody {
            id,
            bill_no,
            org_id,
            org_name,
            channel: Channel::from_pb(channel),
            kind: BillKind::from_pb(kind),
            status: BillStatus::from_pb(status),
            title,
            period: month_text(period.as_ref()),
            order_id,
            source_service,
            source_id,
            lines: lines.into_iter().map(Into::into).collect(),
            amount_fen,
            discount_fen,
            late_fee_fen,
            payable_fen,
            paid_fen,
            outstanding_fen,
            refunded_fen,
            invoiced_fen,
            invoiceable_fen,
            invoice_state: InvoiceState::from_pb(invoice_state),
            issue_time: rfc3339(issue_time.as_ref()),
            due_time: rfc3339(due_time.as_ref()),
            overdue,
            overdue_days,
            paid_time: rfc3339(paid_time.as_ref()),
            confirmed_by,
            confirm_time: rfc3339(confirm_time.as_ref()),
            monthly_bill_id,
            attachments: files(attachments),
            remark,
            audit: audit(a),
        }
    }
}

/// The part of a payment applied to one bill.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PaymentAllocationBody {
    pub bill_id: String,
    pub bill_no: String,
    pub amount_fen: i64,
}

/// One payment against one or more bills.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BillPaymentBody {
    pub id: String,
    pub payment_no: String,
    pub method: Option<PaymentMethod>,
    pub status: Option<PaymentStatus>,
    pub amount_fen: i64,
    pub coupon_id: String,
    pub coupon_deduction_fen: i64,
    pub allocations: Vec<PaymentAllocationBody>,
    pub payer_name: String,
    pub payer_bank_name: String,
    pub payer_masked_account: String,
    pub transaction_no: String,
    pub voucher: Option<FileRefBody>,
    /// While PENDING by an online method: the bank page to open.
    pub pay_url: String,
    pub expire_time: String,
    pub paid_time: String,
    pub failure_reason: String,
    pub requested_by: String,
    pub create_time: String,
}

impl From<pb::BillPayment> for BillPaymentBody {
    fn from(p: pb::BillPayment) -> Self {
        let pb::BillPayment {
            id,
            payment_no,
            enterprise_id: _,
            method,
            status,
            amount_fen,
            coupon_id,
            coupon_deduction_fen,
            allocations,
            payer_name,
            payer_bank_name,
            payer_masked_account,
            transaction_no,
            voucher,
            pay_url,
            expire_time,
            paid_time,
            failure_reason,
            requested_by,
            create_time,
        } = p;
        BillPaymentBody {
            id,
            payment_no,
            method: PaymentMethod::from_pb(method),
            status: PaymentStatus::from_pb(status),
            amount_fen,
            coupon_id,
            coupon_deduction_fen,
            allocations: allocations
                .into_iter()
                .map(|a| PaymentAllocationBody {
                    bill_id: a.bill_id,
                    bill_no: a.bill_no,
                    amount_fen: a.amount_fen,
                })
                .collect(),
            payer_name,
            payer_bank_name,
            payer_masked_account,
            transaction_no,
            voucher: voucher.filter(|v| !v.key.is_empty()).map(Into::into),
            pay_url,
            expire_time: rfc3339(expire_time.as_ref()),
            paid_time: rfc3339(paid_time.as_ref()),
            failure_reason,
            requested_by,
            create_time: rfc3339(create_time.as_ref()),
        }
    }
}

/// Amount of one bill kind.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BillKindAmountBody {
    pub kind: Option<BillKind>,
    pub bill_count: i32,
    pub amount_fen: i64,
    pub outstanding_fen: i64,
}

impl From<pb::BillKindAmount> for BillKindAmountBody {
    fn from(k: pb::BillKindAmount) -> Self {
        BillKindAmountBody {
            kind: BillKind::from_pb(k.kind),
            bill_count: k.bill_count,
            amount_fen: k.amount_fen,
            outstanding_fen: k.outstanding_fen,
        }
    }
}

/// All of an enterprise's bills of one month.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MonthlyBillBody {
    pub id: String,
    /// yyyy-MM.
    pub month: String,
    pub status: Option<BillStatus>,
    pub bill_count: i32,
    pub payable_fen: i64,
    pub paid_fen: i64,
    pub outstanding_fen: i64,
    pub due_time: String,
    pub overdue: bool,
    pub by_kind: Vec<BillKindAmountBody>,
    /// The statement workbook can be downloaded (the detail answers its link).
    pub has_file: bool,
    pub generated_time: String,
}

impl From<pb::MonthlyBill> for MonthlyBillBody {
    fn from(m: pb::MonthlyBill) -> Self {
        let pb::MonthlyBill {
            id,
            enterprise_id: _,
            month,
            status,
            bill_count,
            payable_fen,
            paid_fen,
            outstanding_fen,
            due_time,
            overdue,
            by_kind,
            file,
            generated_time,
        } = m;
        MonthlyBillBody {
            id,
            month: month_text(month.as_ref()),
            status: BillStatus::from_pb(status),
            bill_count,
            payable_fen,
            paid_fen,
            outstanding_fen,
            due_time: rfc3339(due_time.as_ref()),
            overdue,
            by_kind: by_kind.into_iter().map(Into::into).collect(),
            has_file: file.is_some_and(|f| !f.key.is_empty()),
            generated_time: rfc3339(generated_time.as_ref()),
        }
    }
}

/// The buyer named on invoices.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InvoiceTitleBody {
    pub id: String,
    pub title_type: Option<InvoiceTitleType>,
    pub name: String,
    /// Unified social credit code.
    pub tax_number: String,
    pub registered_address: String,
    pub registered_phone: String,
    pub bank_name: String,
    pub bank_account: String,
    pub is_default: bool,
    pub audit: AuditBody,
}

impl From<pb::InvoiceTitle> for InvoiceTitleBody {
    fn from(t: pb::InvoiceTitle) -> Self {
        let pb::InvoiceTitle {
            id,
            enterprise_id: _,
            title_type,
            name,
            tax_number,
            registered_address,
            registered_phone,
            bank_name,
            bank_account,
            is_default,
            audit: a,
        } = t;
        InvoiceTitleBody {
            id,
            title_type: InvoiceTitleType::from_pb(title_type),
            name,
            tax_number,
            registered_address,
            registered_phone,
            bank_name,
            bank_account,
            is_default,
            audit: audit(a),
        }
    }
}

/// A region down to the district.
#[derive(Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct InvoiceAreaBody {
    pub province_code: String,
    pub province_name: String,
    pub city_code: String,
    pub city_name: String,
    pub district_code: String,
    pub district_name: String,
}

impl From<common::Area> for InvoiceAreaBody {
    fn from(a: common::Area) -> Self {
        let common::Area {
            province_code,
            province_name,
            city_code,
            city_name,
            district_code,
            district_name,
        } = a;
        InvoiceAreaBody {
            province_code,
            province_name,
            city_code,
            city_name,
            district_code,
            district_name,
        }
    }
}

impl From<InvoiceAreaBody> for common::Area {
    fn from(a: InvoiceAreaBody) -> Self {
        let InvoiceAreaBody {
            province_code,
            province_name,
            city_code,
            city_name,
            district_code,
            district_name,
        } = a;
        common::Area {
            province_code,
            province_name,
            city_code,
            city_name,
            district_code,
            district_name,
        }
    }
}

/// Where paper invoices are posted and electronic ones e-mailed.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InvoiceAddressBody {
    pub id: String,
    pub recipient_name: String,
    pub recipient_masked_phone: String,
    pub area: InvoiceAreaBody,
    pub detail_address: String,
    pub postal_code: String,
    pub email: String,
    pub is_default: bool,
    pub audit: AuditBody,
}

impl From<pb::InvoiceAddress> for InvoiceAddressBody {
    fn from(a: pb::InvoiceAddress) -> Self {
        let pb::InvoiceAddress {
            id,
            enterprise_id: _,
            recipient_name,
            recipient_masked_phone,
            area,
            detail_address,
            postal_code,
            email,
            is_default,
            audit: au,
        } = a;
        InvoiceAddressBody {
            id,
            recipient_name,
            recipient_masked_phone,
            area: area.unwrap_or_default().into(),
            detail_address,
            postal_code,
            email,
            is_default,
            audit: audit(au),
        }
    }
}

/// A granted coupon.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CouponBody {
    pub id: String,
    pub coupon_no: String,
    pub name: String,
    pub kind: Option<CouponKind>,
    pub face_value_fen: i64,
    /// Basis points off (1000 = 10% off).
    pub percent_off_bp: i32,
    /// 0 = no cap.
    pub max_discount_fen: i64,
    /// 0 = none.
    pub min_spend_fen: i64,
    pub applicable_bill_kinds: Vec<BillKind>,
    pub applicable_order_kinds: Vec<OrderKind>,
    pub valid_from: String,
    pub valid_until: String,
    pub status: Option<CouponStatus>,
    pub campaign: String,
    pub issued_time: String,
    pub used_payment_id: String,
    pub used_order_id: String,
    pub used_time: String,
    pub used_discount_fen: i64,
}

impl From<pb::Coupon> for CouponBody {
    fn from(c: pb::Coupon) -> Self {
        let pb::Coupon {
            id,
            coupon_no,
            enterprise_id: _,
            name,
            kind,
            face_value_fen,
            percent_off_bp,
            max_discount_fen,
            min_spend_fen,
            applicable_bill_kinds,
            applicable_order_kinds,
            valid_from,
            valid_until,
            status,
            campaign,
            issued_time,
            used_payment_id,
            used_order_id,
            used_time,
            used_discount_fen,
        } = c;
        CouponBody {
            id,
            coupon_no,
            name,
            kind: CouponKind::from_pb(kind),
            face_value_fen,
            percent_off_bp,
            max_discount_fen,
            min_spend_fen,
            applicable_bill_kinds: applicable_bill_kinds
                .into_iter()
                .filter_map(BillKind::from_pb)
                .collect(),
            applicable_order_kinds: applicable_order_kinds
                .into_iter()
                .filter_map(OrderKind::from_pb)
                .collect(),
            valid_from: rfc3339(valid_from.as_ref()),
            valid_until: rfc3339(valid_until.as_ref()),
            status: CouponStatus::from_pb(status),
            campaign,
            issued_time: rfc3339(issued_time.as_ref()),
            used_payment_id,
            used_order_id,
            used_time: rfc3339(used_time.as_ref()),
            used_discount_fen,
        }
    }
}

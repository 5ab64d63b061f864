//! Every FinanceService RPC, none built yet: the finance issue replaces this
//! list method by method with handlers.

use fleetdesk_proto::finance::v1 as pb;
use fleetdesk_proto::finance::v1::finance_service_server::FinanceService;

/// The finance API before its issue is built.
#[derive(Debug, Clone, Copy)]
pub struct NotBuilt;

fleetdesk_kit::not_built! {
    FinanceService for NotBuilt, "fleetdesk.finance.v1.FinanceService" {
        list_orders(pb::ListOrdersRequest) -> pb::ListOrdersResponse;
        get_order(pb::GetOrderRequest) -> pb::GetOrderResponse;
        create_order(pb::CreateOrderRequest) -> pb::CreateOrderResponse;
        cancel_order(pb::CancelOrderRequest) -> pb::CancelOrderResponse;
        list_bills(pb::ListBillsRequest) -> pb::ListBillsResponse;
        get_bill(pb::GetBillRequest) -> pb::GetBillResponse;
        create_bill(pb::CreateBillRequest) -> pb::CreateBillResponse;
        confirm_bills(pb::ConfirmBillsRequest) -> pb::ConfirmBillsResponse;
        pay_bill(pb::PayBillRequest) -> pb::PayBillResponse;
        list_bill_payments(pb::ListBillPaymentsRequest) -> pb::ListBillPaymentsResponse;
        get_bill_payment(pb::GetBillPaymentRequest) -> pb::GetBillPaymentResponse;
        list_monthly_bills(pb::ListMonthlyBillsRequest) -> pb::ListMonthlyBillsResponse;
        get_monthly_bill(pb::GetMonthlyBillRequest) -> pb::GetMonthlyBillResponse;
        get_bill_dashboard(pb::GetBillDashboardRequest) -> pb::GetBillDashboardResponse;
        list_invoice_titles(pb::ListInvoiceTitlesRequest) -> pb::ListInvoiceTitlesResponse;
        create_invoice_title(pb::CreateInvoiceTitleRequest) -> pb::CreateInvoiceTitleResponse;
        update_invoice_title(pb::UpdateInvoiceTitleRequest) -> pb::UpdateInvoiceTitleResponse;
        delete_invoice_title(pb::DeleteInvoiceTitleRequest) -> pb::DeleteInvoiceTitleResponse;
        list_invoice_addresses(pb::ListInvoiceAddressesRequest) -> pb::ListInvoiceAddressesResponse;
        create_invoice_address(pb::CreateInvoiceAddressRequest) -> pb::CreateInvoiceAddressResponse;
        update_invoice_address(pb::UpdateInvoiceAddressRequest) -> pb::UpdateInvoiceAddressResponse;
        delete_invoice_address(pb::DeleteInvoiceAddressRequest) -> pb::DeleteInvoiceAddressResponse;
        list_invoiceable_bills(pb::ListInvoiceableBillsRequest) -> pb::ListInvoiceableBillsResponse;
        apply_invoice(pb::ApplyInvoiceRequest) -> pb::ApplyInvoiceResponse;
        list_invoice_applications(pb::ListInvoiceApplicationsRequest) -> pb::ListInvoiceApplicationsResponse;
        get_invoice_application(pb::GetInvoiceApplicationRequest) -> pb::GetInvoiceApplicationResponse;
        cancel_invoice_application(pb::CancelInvoiceApplicationRequest) -> pb::CancelInvoiceApplicationResponse;
        list_refunds(pb::ListRefundsRequest) -> pb::ListRefundsResponse;
        get_refund(pb::GetRefundRequest) -> pb::GetRefundResponse;
        create_refund(pb::CreateRefundRequest) -> pb::CreateRefundResponse;
        confirm_refund(pb::ConfirmRefundRequest) -> pb::ConfirmRefundResponse;
        cancel_refund(pb::CancelRefundRequest) -> pb::CancelRefundResponse;
        list_coupons(pb::ListCouponsRequest) -> pb::ListCouponsResponse;
        get_ledger_balances(pb::GetLedgerBalancesRequest) -> pb::GetLedgerBalancesResponse;
        list_ledger_entries(pb::ListLedgerEntriesRequest) -> pb::ListLedgerEntriesResponse;
    }
}

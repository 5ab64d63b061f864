//! FinanceService: each RPC one line into its subject's handlers.

use fleetdesk_proto::finance::v1 as pb;
use fleetdesk_proto::finance::v1::finance_service_server::FinanceService;
use tonic::{Request, Response, Status};

use super::respond;
use crate::context::Context;
use crate::enterprise_rules::{self, Call};
use crate::{
    bills, coupons, dashboard, invoice_addresses, invoice_titles, invoices, ledger, monthly,
    orders, payments, refunds,
};

#[derive(Debug, Clone)]
pub struct FinanceApi(pub Context);

type Answer<T> = Result<Response<T>, Status>;

/// Refuses a call the caller's enterprise may not make (console spec §6).
fn admit<T>(req: &Request<T>, call: Call) -> Result<(), Status> {
    enterprise_rules::admit(req, call).map_err(Status::from)
}

#[tonic::async_trait]
impl FinanceService for FinanceApi {
    // --- Orders (orderManage) ---

    async fn list_orders(
        &self,
        req: Request<pb::ListOrdersRequest>,
    ) -> Answer<pb::ListOrdersResponse> {
        admit(&req, Call::ListOrders)?;
        respond(orders::handlers::list(&self.0, req).await)
    }

    async fn get_order(&self, req: Request<pb::GetOrderRequest>) -> Answer<pb::GetOrderResponse> {
        admit(&req, Call::GetOrder)?;
        respond(orders::handlers::get(&self.0, req).await)
    }

    async fn create_order(
        &self,
        req: Request<pb::CreateOrderRequest>,
    ) -> Answer<pb::CreateOrderResponse> {
        admit(&req, Call::CreateOrder)?;
        respond(orders::handlers::create(&self.0, req).await)
    }

    async fn cancel_order(
        &self,
        req: Request<pb::CancelOrderRequest>,
    ) -> Answer<pb::CancelOrderResponse> {
        admit(&req, Call::CancelOrder)?;
        respond(orders::handlers::cancel(&self.0, req).await)
    }

    async fn export_orders(
        &self,
        req: Request<pb::ExportOrdersRequest>,
    ) -> Answer<pb::ExportOrdersResponse> {
        admit(&req, Call::ExportOrders)?;
        respond(orders::export::start(&self.0, req).await)
    }

    // --- Bills (billManagement, billDetail) ---

    async fn list_bills(
        &self,
        req: Request<pb::ListBillsRequest>,
    ) -> Answer<pb::ListBillsResponse> {
        respond(bills::handlers::list(&self.0, req).await)
    }

    async fn get_bill(&self, req: Request<pb::GetBillRequest>) -> Answer<pb::GetBillResponse> {
        respond(payments::handlers::bill_detail(&self.0, req).await)
    }

    async fn create_bill(
        &self,
        req: Request<pb::CreateBillRequest>,
    ) -> Answer<pb::CreateBillResponse> {
        respond(bills::handlers::create(&self.0, req).await)
    }

    async fn confirm_bills(
        &self,
        req: Request<pb::ConfirmBillsRequest>,
    ) -> Answer<pb::ConfirmBillsResponse> {
        admit(&req, Call::ConfirmBills)?;
        respond(bills::handlers::confirm(&self.0, req).await)
    }

    async fn export_bills(
        &self,
        req: Request<pb::ExportBillsRequest>,
    ) -> Answer<pb::ExportBillsResponse> {
        respond(bills::handlers::export(&self.0, req).await)
    }

    // --- Payments (billPay) ---

    async fn pay_bill(&self, req: Request<pb::PayBillRequest>) -> Answer<pb::PayBillResponse> {
        admit(&req, Call::PayBill)?;
        respond(payments::handlers::pay(&self.0, req).await)
    }

    async fn list_bill_payments(
        &self,
        req: Request<pb::ListBillPaymentsRequest>,
    ) -> Answer<pb::ListBillPaymentsResponse> {
        respond(payments::handlers::list(&self.0, req).await)
    }

    async fn get_bill_payment(
        &self,
        req: Request<pb::GetBillPaymentRequest>,
    ) -> Answer<pb::GetBillPaymentResponse> {
        respond(payments::handlers::get(&self.0, req).await)
    }

    async fn export_bill_payments(
        &self,
        req: Request<pb::ExportBillPaymentsRequest>,
    ) -> Answer<pb::ExportBillPaymentsResponse> {
        respond(payments::export::start(&self.0, req).await)
    }

    // --- Monthly bills and dashboard (monthPayBillList, billDashboard) ---

    async fn list_monthly_bills(
        &self,
        req: Request<pb::ListMonthlyBillsRequest>,
    ) -> Answer<pb::ListMonthlyBillsResponse> {
        admit(&req, Call::ListMonthlyBills)?;
        respond(monthly::handlers::list(&self.0, req).await)
    }

    async fn get_monthly_bill(
        &self,
        req: Request<pb::GetMonthlyBillRequest>,
    ) -> Answer<pb::GetMonthlyBillResponse> {
        admit(&req, Call::GetMonthlyBill)?;
        respond(monthly::handlers::get(&self.0, req).await)
    }

    async fn get_bill_dashboard(
        &self,
        req: Request<pb::GetBillDashboardRequest>,
    ) -> Answer<pb::GetBillDashboardResponse> {
        respond(dashboard::handlers::get(&self.0, req).await)
    }

    async fn export_monthly_bills(
        &self,
        req: Request<pb::ExportMonthlyBillsRequest>,
    ) -> Answer<pb::ExportMonthlyBillsResponse> {
        admit(&req, Call::ExportMonthlyBills)?;
        respond(monthly::export::start(&self.0, req).await)
    }

    // --- Invoice titles, addresses and applications (ticketManagement) ---

    async fn list_invoice_titles(
        &self,
        req: Request<pb::ListInvoiceTitlesRequest>,
    ) -> Answer<pb::ListInvoiceTitlesResponse> {
        respond(invoice_titles::handlers::list(&self.0, req).await)
    }

    async fn create_invoice_title(
        &self,
        req: Request<pb::CreateInvoiceTitleRequest>,
    ) -> Answer<pb::CreateInvoiceTitleResponse> {
        respond(invoice_titles::handlers::create(&self.0, req).await)
    }

    async fn update_invoice_title(
        &self,
        req: Request<pb::UpdateInvoiceTitleRequest>,
    ) -> Answer<pb::UpdateInvoiceTitleResponse> {
        respond(invoice_titles::handlers::update(&self.0, req).await)
    }

    async fn delete_invoice_title(
        &self,
        req: Request<pb::DeleteInvoiceTitleRequest>,
    ) -> Answer<pb::DeleteInvoiceTitleResponse> {
        respond(invoice_titles::handlers::delete(&self.0, req).await)
    }

    async fn list_invoice_addresses(
        &self,
        req: Request<pb::ListInvoiceAddressesRequest>,
    ) -> Answer<pb::ListInvoiceAddressesResponse> {
        respond(invoice_addresses::handlers::list(&self.0, req).await)
    }

    async fn create_invoice_address(
        &self,
        req: Request<pb::CreateInvoiceAddressRequest>,
    ) -> Answer<pb::CreateInvoiceAddressResponse> {
        respond(invoice_addresses::handlers::create(&self.0, req).await)
    }

    async fn update_invoice_address(
        &self,
        req: Request<pb::UpdateInvoiceAddressRequest>,
    ) -> Answer<pb::UpdateInvoiceAddressResponse> {
        respond(invoice_addresses::handlers::update(&self.0, req).await)
    }

    async fn delete_invoice_address(
        &self,
        req: Request<pb::DeleteInvoiceAddressRequest>,
    ) -> Answer<pb::DeleteInvoiceAddressResponse> {
        respond(invoice_addresses::handlers::delete(&self.0, req).await)
    }

    async fn list_invoiceable_bills(
        &self,
        req: Request<pb::ListInvoiceableBillsRequest>,
    ) -> Answer<pb::ListInvoiceableBillsResponse> {
        respond(invoices::handlers::list_invoiceable(&self.0, req).await)
    }

    async fn apply_invoice(
        &self,
        req: Request<pb::ApplyInvoiceRequest>,
    ) -> Answer<pb::ApplyInvoiceResponse> {
        let channel = enterprise_rules::channel(req.get_ref().channel);
        admit(&req, Call::ApplyInvoice(channel))?;
        respond(invoices::handlers::apply(&self.0, req).await)
    }

    async fn list_invoice_applications(
        &self,
        req: Request<pb::ListInvoiceApplicationsRequest>,
    ) -> Answer<pb::ListInvoiceApplicationsResponse> {
        respond(invoices::handlers::list(&self.0, req).await)
    }

    async fn get_invoice_application(
        &self,
        req: Request<pb::GetInvoiceApplicationRequest>,
    ) -> Answer<pb::GetInvoiceApplicationResponse> {
        respond(invoices::handlers::get(&self.0, req).await)
    }

    async fn cancel_invoice_application(
        &self,
        req: Request<pb::CancelInvoiceApplicationRequest>,
    ) -> Answer<pb::CancelInvoiceApplicationResponse> {
        respond(invoices::handlers::cancel(&self.0, req).await)
    }

    async fn export_invoice_applications(
        &self,
        req: Request<pb::ExportInvoiceApplicationsRequest>,
    ) -> Answer<pb::ExportInvoiceApplicationsResponse> {
        respond(invoices::export::start(&self.0, req).await)
    }

    // --- Refunds, coupons, ledger ---

    async fn list_refunds(
        &self,
        req: Request<pb::ListRefundsRequest>,
    ) -> Answer<pb::ListRefundsResponse> {
        respond(refunds::handlers::list(&self.0, req).await)
    }

    async fn get_refund(
        &self,
        req: Request<pb::GetRefundRequest>,
    ) -> Answer<pb::GetRefundResponse> {
        respond(refunds::handlers::get(&self.0, req).await)
    }

    async fn create_refund(
        &self,
        req: Request<pb::CreateRefundRequest>,
    ) -> Answer<pb::CreateRefundResponse> {
        respond(refunds::handlers::create(&self.0, req).await)
    }

    async fn confirm_refund(
        &self,
        req: Request<pb::ConfirmRefundRequest>,
    ) -> Answer<pb::ConfirmRefundResponse> {
        respond(refunds::handlers::confirm(&self.0, req).await)
    }

    async fn cancel_refund(
        &self,
        req: Request<pb::CancelRefundRequest>,
    ) -> Answer<pb::CancelRefundResponse> {
        respond(refunds::handlers::cancel(&self.0, req).await)
    }

    async fn export_refunds(
        &self,
        req: Request<pb::ExportRefundsRequest>,
    ) -> Answer<pb::ExportRefundsResponse> {
        respond(refunds::export::start(&self.0, req).await)
    }

    async fn list_coupons(
        &self,
        req: Request<pb::ListCouponsRequest>,
    ) -> Answer<pb::ListCouponsResponse> {
        respond(coupons::handlers::list(&self.0, req).await)
    }

    async fn grant_coupons(
        &self,
        req: Request<pb::GrantCouponsRequest>,
    ) -> Answer<pb::GrantCouponsResponse> {
        respond(coupons::handlers::grant(&self.0, req).await)
    }

    async fn export_coupons(
        &self,
        req: Request<pb::ExportCouponsRequest>,
    ) -> Answer<pb::ExportCouponsResponse> {
        respond(coupons::export::start(&self.0, req).await)
    }

    async fn get_ledger_balances(
        &self,
        req: Request<pb::GetLedgerBalancesRequest>,
    ) -> Answer<pb::GetLedgerBalancesResponse> {
        respond(ledger::handlers::balances(&self.0, req).await)
    }

    async fn list_ledger_entries(
        &self,
        req: Request<pb::ListLedgerEntriesRequest>,
    ) -> Answer<pb::ListLedgerEntriesResponse> {
        respond(ledger::handlers::entries(&self.0, req).await)
    }
}

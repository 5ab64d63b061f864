import { withProps, type PageTable } from '@/lib/page-table';
import './messages';

/** 财务管理 by route name; each page loads as its own chunk. The B2B variants are their standard page with `b2b`. */
export const pages: PageTable = {
  orderManage: () => import('./routes/order-manage'),
  billDashboard: () => import('./routes/bill-dashboard'),
  billList: () => import('./routes/bill-list'),
  billDetail: () => import('./routes/bill-detail'),
  billPay: () => import('./routes/bill-pay'),
  monthPayBillList: () => import('./routes/month-pay-bill-list'),
  billSettlement: () => import('./routes/bill-settlement'),
  applyInvoice: () => import('./routes/apply-invoice'),
  applyInvoiceSubmit: withProps(() => import('./routes/apply-invoice'), { b2b: false }),
  applyInvoiceB2BSubmit: withProps(() => import('./routes/apply-invoice'), { b2b: true }),
  addressManage: () => import('./routes/address-manage'),
  applyBill: () => import('./routes/apply-bill'),
  invoiceHistory: () => import('./routes/invoice-history'),
  invoiceHistoryDetail: () => import('./routes/invoice-history-detail'),
  invoiceHistoryB2BDetail: withProps(() => import('./routes/invoice-history-detail'), { b2b: true }),
  billRefund: () => import('./routes/bill-refund'),
  billRefundSure: () => import('./routes/bill-refund-sure'),
  billRefundSureB2B: withProps(() => import('./routes/bill-refund-sure'), { b2b: true }),
  refundRecord: () => import('./routes/refund-record'),
  companyManage: () => import('./routes/company-manage'),
};

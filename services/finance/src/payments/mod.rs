//! Bill payments (billPay): one payment pays one or more bills, from the
//! prepaid balance or through the bank.
//!
//! State machine: PREPAID_BALANCE payments are SUCCEEDED in the
//! transaction that moves the money (MAIN → REVENUE, the bills' paid
//! amounts and statuses, the payment with its allocations: all or
//! nothing; a short balance is 4009 naming the prepaid account). Bank
//! methods (ONLINE_BANKING, WECHAT_PAY, ALIPAY) start PENDING with the
//! bank's order (merchant order number: the payment id) and its pay URL;
//! the bank's signed callback ([`settle`]) ends them SUCCEEDED (BANK →
//! REVENUE, the bills paid; what the bills no longer owe — another payment
//! paid them meanwhile — goes BANK → MAIN to the prepaid balance) or
//! FAILED (the bills stay payable). A PENDING bank payment keeps its bills
//! from being paid again for 30 minutes. CORPORATE_TRANSFER (a voucher an
//! operator reviews) and CLOSED are not built: the method is refused.
//!
//! Rules: every PayBill carries an idempotency key (header or field); the
//! first answer is stored with the effect and replayed for the same
//! request, another request under the key is 4009. The total the user saw
//! (`expected_total_fen`, after the coupon) must be the total (else 4009).
//! A coupon (`coupons::apply`) is priced and used in the payment's own
//! transaction on the balance route (its part COUPON_FUNDING → REVENUE);
//! bank payments refuse one (4000) until a coupon can be held across the
//! callback.
//!
//! Depends on bills (the bills it pays) and the ledger.

pub mod convert;
pub mod domain;
pub mod export;
pub mod handlers;
pub mod settle;
pub mod store;

/// The permission of paying bills (billPay).
pub const PAY_PERMISSION: &str = "oss:bill:pagepay";
/// The permissions of the payment list (billSettlement, billList).
pub const LIST_PERMISSIONS: &[&str] = &["bill:settlement", "bill:biz:pageInfo"];
/// The permissions of one payment (billPay polls it too).
pub const READ_PERMISSIONS: &[&str] = &["oss:bill:pagepay", "bill:settlement", "bill:biz:pageInfo"];

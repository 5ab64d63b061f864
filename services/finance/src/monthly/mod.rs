//! Monthly bills (monthPayBillList): all of an enterprise's bills of one
//! period taken together. Nothing is stored: a monthly bill is the
//! aggregation of the month's bills (cancelled ones left out) under the
//! caller's reach, read from the `(enterprise_id, period)` index, so it
//! can never disagree with its bills; its id is derived from the
//! enterprise and the month (`bills::convert::monthly_id`). Its status is
//! PAID when nothing is outstanding, UNPAID when nothing is paid, else
//! PARTIALLY_PAID; it is overdue when one of its bills is. Depends on
//! `bills`; the dashboard reads its per-kind figures.

pub mod convert;
pub mod export;
pub mod handlers;
pub mod store;

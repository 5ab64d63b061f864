//! Opening charging (the energy menu's apply flow): an enterprise applies,
//! its state becomes APPLYING (further applications refused), and the
//! platform operator approves — which opens the MAIN account and its
//! organisation sub-accounts — or rejects, after which it may apply again.
//!
//! Who the operator is: an internal token whose subject is
//! [`domain::OPERATOR_SUBJECT`] (`svc:operator`, signed with the platform's
//! internal key by the operator's tools, e.g. the charging stand-in's admin)
//! and that acts for no enterprise. Enterprise users — whatever their
//! permissions — and other services are refused.
//!
//! Every change of the state is announced as `ChargingOpenChanged`
//! (`fleetdesk.energy.opening.changed`, through the outbox); org keeps the
//! enterprise flags `isChargeAccount` and `isChargeApplying` by it, so the
//! console's `/me` reads them from the principal it already has.
//!
//! The enterprise's own applications also export (`export`), with the
//! list's filter; the operator's list of every enterprise does not.

pub mod convert;
pub mod domain;
pub mod export;
pub mod handlers;
mod org;
pub mod store;

//! Energy's charging state of each enterprise, kept from energy's
//! `ChargingOpenChanged` events, so the enterprise flags (isChargeAccount,
//! isChargeApplying) travel with the principal the gateway caches and
//! `/me` stays a read of it. A change announces the enterprise's
//! principals as changed, so gateways drop their cached copies at once.

pub mod consumer;
pub mod domain;
pub mod store;

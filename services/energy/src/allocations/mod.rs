//! Balance allocation (accountBalanceAllocation) and its record
//! (balanceAllocationRecord): money moves from an account to its direct
//! children (ALLOCATE, several at once, all or nothing) or from a child back
//! to its parent (RECLAIM), each a ledger transfer under the request's
//! Idempotency-Key, with one record row per child.

pub mod convert;
pub mod domain;
pub mod export;
pub mod handlers;
pub mod store;

//! Charging accounts (accountManagement): the enterprise's MAIN account —
//! the root organisation's — and one ORGANIZATION sub-account per
//! organisation below it, forming a tree that mirrors the organisation tree
//! of this service's org_unit replica. Sub-accounts are opened on demand
//! ([`store::sync_tree`], when charging opens and whenever the tree is
//! read or allocated over), and re-hung under their organisation's parent
//! when organisations move. Balances are the accounts' ledger balances.

pub mod convert;
pub mod domain;
pub mod export;
pub mod handlers;
pub mod store;

/// The permission of accountManagement (accounts, allocation and its record).
pub const PERMISSION: &str = "as:charge:fee";

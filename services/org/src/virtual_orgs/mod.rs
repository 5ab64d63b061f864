//! Virtual organisations (虚拟组织): a named grouping of organisation units
//! across the tree (`virtual_org`, `virtual_org_unit`), e.g. the branches
//! one account manager looks after. A read-only lookup for any member: each
//! virtual organisation with the grouped units the caller reaches and the
//! enabled units below them (the "down org map" of console spec §7); one
//! whose units the caller reaches none of is not shown.
//!
//! Depends on `orgs` (the tree's rows) and `scope` (the reach and subtrees).

pub mod handlers;
pub mod store;

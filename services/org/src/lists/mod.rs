//! Enterprise lists (docs/console-spec.md §6): which enterprises are on the
//! white, SF, mt, behaviour-analysis, lock-car, charge-blacklist,
//! insurance-blacklist, order-centre and need-open-page lists. Operator data
//! in `enterprise_list_entry` (the SF id list is list type SF), edited
//! through service-level RPCs; [`rules`] turns membership into permissions.

pub mod convert;
pub mod domain;
pub mod handlers;
pub mod rules;
pub mod store;

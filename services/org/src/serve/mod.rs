//! Serve organisations (服务组织) and serve areas (服务区域): the cities an
//! organisation unit serves (`org_unit_area`, GB/T 2260 prefecture codes).
//! A unit serving at least one city is a serve organisation. Lookups for
//! any member of the enterprise, within their data scope: the serve
//! organisations of one level or as a tree (kept whole by their reached
//! ancestors), and the cities they serve, each once. In organisation
//! settings an administrator reads and replaces the cities of one unit
//! (known GB/T 2260 cities only, each once, in the order picked).
//!
//! Depends on `orgs` (the tree's rows) and `scope` (the reach).

pub mod convert;
pub mod domain;
pub mod handlers;
pub mod store;

//! The whole stack in one process against real PostgreSQL and NATS:
//! services over loopback gRPC, the gateway over real HTTP.

mod approvals;
mod drivers;
mod edge;
mod enterprise_lists;
mod enterprises;
mod export_jobs;
mod exports_help;
mod files;
mod helpers;
mod isolation;
mod lockout;
mod login_log;
mod notices;
mod org_fixtures;
mod org_replica;
mod org_rules;
mod password;
mod production;
mod reflection;
mod route_matrix;
mod scoped_records;
mod sensitive;
mod sessions;
mod shared_data;
mod shared_isolation;
mod sign_in;
mod sms;
mod system_settings;
mod tenancy;
mod usage_records;
mod vehicle_exports;
mod vehicle_imports;
mod vehicles;
mod vehicles_plans;
mod wecom;

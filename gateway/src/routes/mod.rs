//! Edge routes under `/api/v1`, one folder per domain, one module per
//! resource. This module only assembles their routers; what routes share
//! lives in `crate::edge`.

mod energy;
mod finance;
mod maintenance;
mod monitoring;
mod reports;
mod risk;
mod session;
mod system;
mod vehicles;

use utoipa_axum::router::OpenApiRouter;

use crate::state::AppState;

/// Every `/api/v1` route. The order is the OpenAPI document's path order.
pub fn api_v1() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .merge(session::auth::router())
        .merge(session::password::router())
        .merge(system::login_logs::router())
        .merge(system::dev::router())
        .merge(session::me::router())
        .merge(system::settings::router())
        .merge(system::users::router())
        .merge(system::shared_data::router())
        .merge(system::org_lookups::router())
        .merge(system::pickers::router())
        .merge(vehicles::brand_types::router())
        .merge(system::notices::router())
        .merge(system::approvals::router())
        .merge(system::exports::router())
        .merge(system::files::router())
        .merge(system::help::router())
        .merge(system::sensitive::router())
        .merge(vehicles::drivers::router())
        .merge(vehicles::usage_records::router())
        .merge(system::operation_logs::router())
        .merge(vehicles::assets::router())
        .merge(vehicles::bindings::router())
        .merge(vehicles::private_cars::router())
        .merge(monitoring::geofences::router())
        .merge(monitoring::monitor::router())
        .merge(monitoring::lock::router())
        .merge(monitoring::temperature::router())
        .merge(risk::accidents::router())
        .merge(risk::alarms::router())
        .merge(risk::rules::router())
        .merge(risk::service_records::router())
        .merge(risk::warnings::router())
        .merge(risk::video::router())
        .merge(maintenance::reminders::router())
        .merge(maintenance::plans::router())
        .merge(maintenance::violations::router())
        .merge(maintenance::repairs::router())
        .merge(maintenance::repair_settlement::router())
        .merge(maintenance::inspections::router())
        .merge(maintenance::insurance::router())
        .merge(reports::operation_logs::router())
        .merge(reports::safety::router())
        .merge(energy::opening::router())
        .merge(energy::dashboard::router())
        .merge(energy::accounts::router())
        .merge(energy::cards::router())
        .merge(energy::sessions::router())
        .merge(energy::stations::router())
        .merge(energy::statements::router())
        .merge(energy::behavior::router())
        .merge(finance::orders::router())
        .merge(finance::bills::router())
        .merge(finance::payments::router())
        .merge(finance::ledger::router())
        .merge(finance::invoice_settings::router())
        .merge(finance::invoices::router())
        .merge(finance::refunds::router())
        .merge(finance::coupons::router())
}

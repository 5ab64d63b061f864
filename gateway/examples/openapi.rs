//! Prints the edge's OpenAPI document from the gateway crate alone (the
//! `fleetdesk openapi` command links every service):
//! `cargo run -p fleetdesk-gateway --example openapi > apps/console/src/lib/api/openapi.json`.

fn main() {
    println!("{}", fleetdesk_gateway::openapi_json());
}

//! The invoicing platform in the tests: the invoicing stand-in on a real
//! socket, and what finance is told to issue through it.

use fleetdesk_finance::invoicing::client::InvoicingConfig;
use fleetdesk_invoice_standin::{Settings, StandIn};

const APP_ID: &str = "fleetdesk-finance-test";
const SECRET: &str = "invoices-test-secret";

/// The stand-in serving on a free port, and finance's configuration for it.
pub async fn standin() -> (StandIn, InvoicingConfig) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let standin = StandIn::new(Settings::single(APP_ID, SECRET, &base));
    let serving = standin.clone();
    tokio::spawn(async move {
        fleetdesk_invoice_standin::serve(listener, serving, std::future::pending())
            .await
            .unwrap();
    });
    let config = InvoicingConfig {
        url: base,
        app_id: APP_ID.to_owned(),
        secret: SECRET.to_owned(),
    };
    (standin, config)
}

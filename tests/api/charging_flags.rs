//! The charging flags of /me over the whole stack: energy announces an
//! application and the operator's approval through its outbox and NATS,
//! org keeps them, and the gateway's next /me shows 申请中 and then the
//! charging account — no call to energy on /me.

use std::time::Duration;

use fleetdesk_kit::internal_token::{Claims, TokenSigner};
use fleetdesk_kit::reach::ReachClaim;
use fleetdesk_proto::energy::v1 as pb;
use fleetdesk_proto::energy::v1::energy_service_client::EnergyServiceClient;
use serde_json::Value;

use crate::helpers::{TestApp, spawn_app};

async fn energy(app: &TestApp) -> EnergyServiceClient<tonic::transport::Channel> {
    let port = app
        .grpc_ports
        .iter()
        .find(|(name, _)| *name == "energy")
        .unwrap()
        .1;
    EnergyServiceClient::connect(format!("http://127.0.0.1:{port}"))
        .await
        .unwrap()
}

fn signer(app: &TestApp) -> TokenSigner {
    TokenSigner::from_base64_seed(app.common.internal_signing_key.as_deref().unwrap()).unwrap()
}

/// Waits until /me's flags satisfy `done`; the flags then.
async fn flags_once(app: &TestApp, token: &str, done: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..100 {
        let (_, me) = app.get("/api/v1/me", Some(token)).await;
        let flags = me["data"]["flags"].clone();
        if done(&flags) {
            return flags;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the flags never changed");
}

#[tokio::test]
async fn me_shows_applying_and_then_the_charging_account_energy_announced() {
    let app = spawn_app().await;
    let token = app.token("demo").await;
    let (_, me) = app.get("/api/v1/me", Some(&token)).await;
    assert_eq!(me["data"]["flags"]["isChargeAccount"], false);
    assert_eq!(me["data"]["flags"]["isChargeApplying"], false);
    let enterprise = me["data"]["enterpriseId"].as_str().unwrap().to_owned();
    let user = me["data"]["id"].as_str().unwrap().to_owned();

    let as_user = Claims {
        iss: "gateway".into(),
        sub: format!("user:{user}"),
        ent: Some(enterprise),
        acc: None,
        perms: vec!["oss:pc:energy:management".into()],
        reach: Some(ReachClaim {
            all: true,
            ..ReachClaim::default()
        }),
        flags: Vec::new(),
        iat: 0,
        exp: 0,
    };
    let application = energy(&app)
        .await
        .apply_charging_open(fleetdesk_kit::grpc::outgoing(
            pb::ApplyChargingOpenRequest::default(),
            &signer(&app),
            &as_user,
        ))
        .await
        .unwrap()
        .into_inner()
        .application
        .unwrap();
    let flags = flags_once(&app, &token, |f| f["isChargeApplying"] == true).await;
    assert_eq!(flags["isChargeAccount"], false);

    energy(&app)
        .await
        .approve_charging_open_application(fleetdesk_kit::grpc::outgoing(
            pb::ApproveChargingOpenApplicationRequest {
                application_id: application.id,
                credit_limit_fen: 0,
                remark: String::new(),
            },
            &signer(&app),
            &Claims::service("operator"),
        ))
        .await
        .unwrap();
    let flags = flags_once(&app, &token, |f| f["isChargeAccount"] == true).await;
    assert_eq!(flags["isChargeApplying"], false);
    // The other enterprise stays as it was.
    let (_, other) = app.get("/api/v1/me", Some(&app.token("demo2").await)).await;
    assert_eq!(other["data"]["flags"]["isChargeAccount"], false);
}

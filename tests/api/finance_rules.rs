//! The enterprise rules of console spec §6 through the whole stack: the
//! gateway signs the enterprise's list markers into its internal token and
//! finance, which checks the rules again, admits the same calls — a B2B
//! enterprise reads its monthly bills, the SF group its order centre — and
//! an enterprise that is no longer B2B is refused (9999).

use fleetdesk_proto::org::v1::EnterpriseListType;

use crate::enterprise_lists::set;
use crate::helpers::spawn_app;

#[tokio::test]
async fn the_enterprise_rules_hold_at_the_gateway_and_in_finance_alike() {
    let app = spawn_app().await;
    let token = app.token("demo").await;
    let (_, me) = app.get("/api/v1/me", Some(&token)).await;
    let enterprise = me["data"]["enterpriseId"].as_str().unwrap().to_owned();
    assert_eq!(
        me["data"]["flags"]["isB2B"], true,
        "{}",
        me["data"]["flags"]
    );

    // B2B: the gateway lets it through and finance, seeing the marker, answers.
    let (status, body) = app.get("/api/v1/finance/monthly-bills", Some(&token)).await;
    assert_eq!((status, body["code"].as_u64()), (200, Some(200)), "{body}");

    // On the MT list it is no longer B2B: 9999.
    set(&app, EnterpriseListType::Mt, &enterprise, true).await;
    let token = app.token("demo").await;
    let (status, body) = app.get("/api/v1/finance/monthly-bills", Some(&token)).await;
    assert_eq!((status, body["code"].as_u64()), (403, Some(9999)), "{body}");
    set(&app, EnterpriseListType::Mt, &enterprise, false).await;

    // The SF group sees the order centre, finance too.
    set(&app, EnterpriseListType::White, &enterprise, true).await;
    set(&app, EnterpriseListType::Sf, &enterprise, true).await;
    let token = app.token("demo").await;
    let (status, body) = app.get("/api/v1/finance/orders", Some(&token)).await;
    assert_eq!((status, body["code"].as_u64()), (200, Some(200)), "{body}");
}

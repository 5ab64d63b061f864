//! Operators edit the enterprise lists through org's service-only calls; the
//! next principal resolved follows them (console spec §6).

use fleetdesk_kit::internal_token::{Claims, TokenSigner};
use fleetdesk_proto::org::v1::org_service_client::OrgServiceClient;
use fleetdesk_proto::org::v1::{
    EnterpriseListType, ListEnterpriseListEntriesRequest, SetEnterpriseListMembershipRequest,
};

use crate::helpers::{TestApp, spawn_app};

async fn org_client(app: &TestApp) -> OrgServiceClient<tonic::transport::Channel> {
    let port = app
        .grpc_ports
        .iter()
        .find(|(name, _)| *name == "org")
        .unwrap()
        .1;
    OrgServiceClient::connect(format!("http://127.0.0.1:{port}"))
        .await
        .unwrap()
}

fn signer(app: &TestApp) -> TokenSigner {
    TokenSigner::from_base64_seed(app.common.internal_signing_key.as_deref().unwrap()).unwrap()
}

/// Puts `enterprise_id` on `list` (`member`) or takes it off, as an operator.
pub async fn set(app: &TestApp, list: EnterpriseListType, enterprise_id: &str, member: bool) {
    let request = SetEnterpriseListMembershipRequest {
        list_type: list as i32,
        enterprise_id: enterprise_id.to_owned(),
        member,
    };
    let call =
        fleetdesk_kit::grpc::outgoing(request, &signer(app), &Claims::service("operator-test"));
    org_client(app)
        .await
        .set_enterprise_list_membership(call)
        .await
        .unwrap();
}

async fn entries(app: &TestApp, list: EnterpriseListType) -> Vec<String> {
    let request = ListEnterpriseListEntriesRequest {
        list_type: list as i32,
    };
    let call =
        fleetdesk_kit::grpc::outgoing(request, &signer(app), &Claims::service("operator-test"));
    org_client(app)
        .await
        .list_enterprise_list_entries(call)
        .await
        .unwrap()
        .into_inner()
        .enterprise_ids
}

#[tokio::test]
async fn an_operator_puts_an_enterprise_on_the_sf_group_and_its_next_session_follows() {
    let app = spawn_app().await;
    let (_, me) = app.get("/api/v1/me", Some(&app.token("demo").await)).await;
    let enterprise_a = me["data"]["enterpriseId"].as_str().unwrap().to_owned();
    assert!(
        me["data"]["permissions"]
            .to_string()
            .contains("bill:biz:pageInfo")
    );

    set(&app, EnterpriseListType::White, &enterprise_a, true).await;
    set(&app, EnterpriseListType::Sf, &enterprise_a, true).await;
    assert_eq!(
        entries(&app, EnterpriseListType::Sf).await,
        std::slice::from_ref(&enterprise_a)
    );

    let (_, me) = app.get("/api/v1/me", Some(&app.token("demo").await)).await;
    assert_eq!(me["data"]["flags"]["isSF"], true, "{}", me["data"]["flags"]);
    let values = me["data"]["permissions"].to_string();
    assert!(
        !values.contains("bill:biz:pageInfo"),
        "rule 2: SF loses every bill value"
    );
    assert!(
        values.contains("as:order:center"),
        "rule 4: SF keeps the order centre"
    );

    // Taking it off again restores the bill values.
    set(&app, EnterpriseListType::Sf, &enterprise_a, false).await;
    assert!(entries(&app, EnterpriseListType::Sf).await.is_empty());
    let (_, me) = app.get("/api/v1/me", Some(&app.token("demo").await)).await;
    assert_eq!(me["data"]["flags"]["isSF"], false);
    assert!(
        me["data"]["permissions"]
            .to_string()
            .contains("bill:biz:pageInfo")
    );
}

#[tokio::test]
async fn a_person_cannot_edit_the_lists() {
    let app = spawn_app().await;
    let mut claims = Claims::service("gateway");
    claims.sub = "user:someone".to_owned();
    claims.ent = Some(uuid::Uuid::new_v4().to_string());
    claims.perms = vec!["oss:pc:system:settings".to_owned()];
    let request = SetEnterpriseListMembershipRequest {
        list_type: EnterpriseListType::White as i32,
        enterprise_id: uuid::Uuid::new_v4().to_string(),
        member: true,
    };
    let call = fleetdesk_kit::grpc::outgoing(request, &signer(&app), &claims);
    let status = org_client(&app)
        .await
        .set_enterprise_list_membership(call)
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::PermissionDenied);
}

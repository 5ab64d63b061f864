//! Insurance policy documents at the edge: a policy's document opens through
//! a short-lived signed link that downloads the PDF, stops working once it
//! expires or is tampered with, and is never issued on another tenant's
//! policy; the insurance blacklist refuses the routes (console spec §6).

use fleetdesk_gateway::files::LinkSigner;
use fleetdesk_kit::internal_token::{Claims, TokenSigner};
use fleetdesk_proto::org::v1::org_service_client::OrgServiceClient;
use fleetdesk_proto::org::v1::{EnterpriseListType, SetEnterpriseListMembershipRequest};
use serde_json::{Value, json};

use crate::helpers::{TestApp, envelope, spawn_app};

const PDF: &[u8] =
    b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n";

fn signer(app: &TestApp) -> TokenSigner {
    TokenSigner::from_base64_seed(app.common.internal_signing_key.as_deref().unwrap()).unwrap()
}

/// The gateway's link signer (derived from the stack's signing key).
fn links(app: &TestApp) -> LinkSigner {
    LinkSigner::derive(signer(app).seed_base64().as_bytes())
}

async fn upload_pdf(app: &TestApp, token: &str) -> Value {
    let part = reqwest::multipart::Part::bytes(PDF.to_vec()).file_name("交强险保单.pdf");
    let form = reqwest::multipart::Form::new()
        .text("purpose", "document")
        .part("file", part);
    let response = app
        .http
        .post(format!("{}/api/v1/files", app.base))
        .header("token", token)
        .multipart(form)
        .send()
        .await
        .unwrap();
    let (status, body) = envelope(response).await;
    assert_eq!(status, 200, "{body}");
    body["data"].clone()
}

/// A vehicle of enterprise A and a compulsory policy on it with a PDF.
async fn policy_of_a(app: &TestApp, admin: &str) -> (String, String) {
    let (_, orgs) = app.get("/api/v1/system/orgs", Some(admin)).await;
    let (status, vehicle) = app
        .post(
            "/api/v1/vehicles",
            Some(admin),
            json!({
                "orgId": orgs["data"][0]["id"], "plateNumber": "粤BD12345",
                "vin": "1M8GDM9AXKP042788", "brand": "比亚迪", "model": "T5",
                "category": "LIGHT_TRUCK", "energyType": "BATTERY_ELECTRIC",
                "ownershipType": "RENTED", "status": "IDLE", "batteryCapacityWh": 81000,
                "terminalId": "", "terminalSim": "", "approve": true, "remark": ""
            }),
        )
        .await;
    assert_eq!(status, 200, "{vehicle}");
    let file = upload_pdf(app, admin).await;
    let (status, policy) = app
        .post(
            "/api/v1/maintenance/insurance/policies",
            Some(admin),
            json!({
                "plateNumber": "粤BD12345", "kind": "COMPULSORY", "insurer": "中国人民财产保险",
                "policyNo": "PDZA20264400001", "insuredName": "演示物流有限公司",
                "startTime": "2026-01-01 00:00:00", "endTime": "2026-12-31 23:59:59",
                "premiumFen": 95000, "coverages": [],
                "documents": [{ "key": file["key"], "name": file["name"],
                                "contentType": file["contentType"], "sizeBytes": file["size"] }]
            }),
        )
        .await;
    assert_eq!(status, 200, "{policy}");
    (
        policy["data"]["id"].as_str().unwrap().to_owned(),
        file["key"].as_str().unwrap().to_owned(),
    )
}

fn link_path(policy: &str, key: &str) -> String {
    format!(
        "/api/v1/maintenance/insurance/policies/{policy}/documents/link?{}",
        serde_urlencoded::to_string([("key", key)]).unwrap()
    )
}

async fn download(app: &TestApp, url: &str) -> (u16, Vec<u8>) {
    let response = app
        .http
        .get(format!("{}{url}", app.base))
        .send()
        .await
        .unwrap();
    (
        response.status().as_u16(),
        response.bytes().await.unwrap().to_vec(),
    )
}

#[tokio::test]
async fn a_policy_document_downloads_through_a_link_that_expires_and_is_never_issued_to_another_tenant()
 {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    let (policy, key) = policy_of_a(&app, &admin).await;

    let (status, link) = app.get(&link_path(&policy, &key), Some(&admin)).await;
    assert_eq!(status, 200, "{link}");
    assert_eq!(link["data"]["name"], "交强险保单.pdf");
    let url = link["data"]["url"].as_str().unwrap();
    let (status, bytes) = download(&app, url).await;
    assert_eq!(status, 200);
    assert_eq!(bytes, PDF);

    // The link lives ten minutes; a link past its expiry, or one whose expiry
    // was moved, is refused.
    let query: Vec<(String, String)> =
        serde_urlencoded::from_str(url.split_once('?').unwrap().1).unwrap();
    let expires: i64 = query
        .iter()
        .find(|(k, _)| k == "expires")
        .unwrap()
        .1
        .parse()
        .unwrap();
    let now = chrono::Utc::now().timestamp();
    assert!(
        (now + 590..=now + 610).contains(&expires),
        "{expires} vs {now}"
    );
    let signer = links(&app);
    let past = now - 1;
    let expired = format!(
        "/api/v1/files/download?{}",
        serde_urlencoded::to_string([
            ("key", key.as_str()),
            ("expires", &past.to_string()),
            ("sig", &signer.sign(&key, past)),
        ])
        .unwrap()
    );
    let moved = url.replace(
        &format!("expires={expires}"),
        &format!("expires={}", expires + 3600),
    );
    for refused in [expired, moved] {
        let response = app
            .http
            .get(format!("{}{refused}", app.base))
            .send()
            .await
            .unwrap();
        let (status, body) = envelope(response).await;
        assert_eq!(
            (status, body["code"].as_u64()),
            (404, Some(4004)),
            "{refused}"
        );
    }

    // Another tenant's policy, and a key the policy does not hold: 4004.
    let b = app.token("demo2").await;
    let (status, body) = app.get(&link_path(&policy, &key), Some(&b)).await;
    assert_eq!((status, body["code"].as_u64()), (404, Some(4004)), "{body}");
    let (status, body) = app
        .get(&link_path(&policy, "other/document/x/a.pdf"), Some(&admin))
        .await;
    assert_eq!((status, body["code"].as_u64()), (404, Some(4004)), "{body}");
    let (status, body) = app
        .get(
            &format!("/api/v1/maintenance/insurance/policies/{policy}"),
            Some(&b),
        )
        .await;
    assert_eq!((status, body["code"].as_u64()), (404, Some(4004)), "{body}");
}

#[tokio::test]
async fn the_insurance_blacklist_refuses_the_insurance_routes() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    let (policy, key) = policy_of_a(&app, &admin).await;
    let (_, me) = app.get("/api/v1/me", Some(&admin)).await;
    let enterprise = me["data"]["enterpriseId"].as_str().unwrap().to_owned();
    let port = app.grpc_ports.iter().find(|(n, _)| *n == "org").unwrap().1;
    let request = SetEnterpriseListMembershipRequest {
        list_type: EnterpriseListType::InsuranceBlacklist as i32,
        enterprise_id: enterprise,
        member: true,
    };
    OrgServiceClient::connect(format!("http://127.0.0.1:{port}"))
        .await
        .unwrap()
        .set_enterprise_list_membership(fleetdesk_kit::grpc::outgoing(
            request,
            &signer(&app),
            &Claims::service("operator-test"),
        ))
        .await
        .unwrap();

    let token = app.token("demo").await;
    let (_, me) = app.get("/api/v1/me", Some(&token)).await;
    assert_eq!(
        me["data"]["flags"]["inInsuranceBlacklist"], true,
        "{}",
        me["data"]["flags"]
    );
    assert!(
        !me["data"]["permissions"]
            .to_string()
            .contains("\"as:insurance\"")
    );
    for path in [
        "/api/v1/maintenance/insurance/policies".to_owned(),
        format!("/api/v1/maintenance/insurance/policies/{policy}"),
        link_path(&policy, &key),
    ] {
        let (status, body) = app.get(&path, Some(&token)).await;
        assert_eq!(
            (status, body["code"].as_u64()),
            (403, Some(9999)),
            "{path}: {body}"
        );
    }
}

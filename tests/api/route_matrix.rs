//! The permission catalogue against the gateway's route table: every route
//! has an access decision, every value a route names is in the catalogue and
//! lists that route, and every (role fixture, route) pair answers as the
//! decision says over the running stack — allowed: never 9999; denied: 9999.

use std::collections::{BTreeMap, BTreeSet};

use fleetdesk_gateway::access::{Access, AccessTable};
use fleetdesk_proto::org::v1::EnterpriseFlags;
use serde_json::{Value, json};

use crate::helpers::{PASSWORD, TestApp, spawn_app};

fn table() -> AccessTable {
    AccessTable::from_openapi(&fleetdesk_gateway::api().1).expect("every route has a decision")
}

/// value -> operations the catalogue says it guards.
fn catalogue() -> BTreeMap<String, BTreeSet<String>> {
    fleetdesk_org::catalogue::entries()
        .into_iter()
        .map(|e| (e.value, e.operations.into_iter().collect()))
        .collect()
}

#[test]
fn every_route_names_only_catalogue_values_and_the_catalogue_names_every_guarded_route() {
    let table = table();
    let catalogue = catalogue();
    let mut problems = Vec::new();
    let mut guarded = 0;
    for (method, path, access) in table.entries() {
        let operation = format!("{method} {path}");
        if let Access::AnyOf(values) = access {
            guarded += 1;
            for value in values {
                match catalogue.get(value) {
                    None => problems.push(format!("{operation}: {value} is not in the catalogue")),
                    Some(ops) if !ops.contains(&operation) => problems.push(format!(
                        "{operation}: the catalogue entry {value} does not list it in `operations`"
                    )),
                    Some(_) => {}
                }
            }
        }
    }
    for (value, ops) in &catalogue {
        for operation in ops {
            let (method, path) = operation.split_once(' ').unwrap();
            let declared = table
                .entries()
                .find(|(m, p, _)| *m == method && *p == path)
                .map(|(_, _, a)| a.clone());
            match declared {
                Some(Access::AnyOf(values)) if values.contains(value) => {}
                other => problems.push(format!(
                    "catalogue {value} lists {operation}, whose decision is {other:?}"
                )),
            }
        }
    }
    assert!(guarded >= 10, "only {guarded} guarded routes");
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// A route path with every `{param}` replaced by a fresh id nobody owns.
fn concrete(path: &str) -> String {
    let mut out = String::new();
    let mut rest = path;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = rest[open..].find('}').map_or(rest.len(), |c| open + c + 1);
        out.push_str(&uuid::Uuid::new_v4().to_string());
        rest = &rest[close..];
    }
    out.push_str(rest);
    out
}

async fn effective(app: &TestApp, token: &str) -> (BTreeSet<String>, EnterpriseFlags) {
    let (status, me) = app.get("/api/v1/me", Some(token)).await;
    assert_eq!(status, 200, "{me}");
    let held = me["data"]["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["permissionValue"].as_str().unwrap().to_owned())
        .collect();
    // The switches the routes' enterprise rules read (console spec §6).
    let flags = &me["data"]["flags"];
    let on = |key: &str| flags[key].as_bool().unwrap_or_default();
    let enterprise = EnterpriseFlags {
        b2b: on("isB2B"),
        sf: on("isSF"),
        order_center: on("inOrderCenterList"),
        ..EnterpriseFlags::default()
    };
    (held, enterprise)
}

/// An enterprise session of demo_multi in enterprise A (operations role).
async fn multi_in_a(app: &TestApp) -> String {
    let (_, login) = app.login("demo_multi", PASSWORD).await;
    let personal = login["data"]["token"].as_str().unwrap().to_owned();
    let (_, list) = app.get("/api/v1/auth/enterprises", Some(&personal)).await;
    let a = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["enterpriseName"] == "演示物流有限公司")
        .unwrap()["enterpriseId"]
        .clone();
    let (status, chosen) = app
        .post(
            "/api/v1/auth/select-enterprise",
            Some(&personal),
            json!({ "enterpriseId": a }),
        )
        .await;
    assert_eq!(status, 200, "{chosen}");
    chosen["data"]["token"].as_str().unwrap().to_owned()
}

/// A user whose only role grants two values.
async fn limited(app: &TestApp, admin: &str) -> String {
    let (status, role) = app
        .post(
            "/api/v1/system/roles",
            Some(admin),
            json!({ "name": "受限", "permissionValues": ["as:sys:user:getList", "as:message:pageInfo"], "dataScope": 1 }),
        )
        .await;
    assert_eq!(status, 200, "{role}");
    let (_, orgs) = app.get("/api/v1/system/orgs", Some(admin)).await;
    let root = orgs["data"][0]["id"].clone();
    let (status, user) = app
        .post(
            "/api/v1/system/users",
            Some(admin),
            json!({ "name": "受限用户", "userName": "limited", "phone": "13900009999",
                    "orgId": root, "roleIds": [role["data"]["id"]], "password": "Secret@123" }),
        )
        .await;
    assert_eq!(status, 200, "{user}");
    let (_, login) = app.login("limited", "Secret@123").await;
    login["data"]["token"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn every_role_fixture_meets_every_route_as_its_decision_says() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    let fixtures = vec![
        ("demo (A, every permission)", admin.clone()),
        ("demo_ops (A, vehicles)", app.token("demo_ops").await),
        ("demo2 (B, every permission)", app.token("demo2").await),
        ("demo_multi (A, operations)", multi_in_a(&app).await),
        ("limited (A, users + notices)", limited(&app, &admin).await),
    ];
    let table = table();
    let mut pairs = 0;
    let mut mismatches = Vec::new();
    for (name, token) in &fixtures {
        let (held, enterprise) = effective(&app, token).await;
        for (method, path, access) in table.entries() {
            let permitted = match access {
                Access::SignedIn => true,
                Access::AnyOf(values) => values.iter().any(|v| held.contains(v)),
                // Public and personal routes carry no permission (and include sign-out).
                Access::Public | Access::Personal => continue,
            };
            let method_of = axum::http::Method::from_bytes(method.as_bytes()).unwrap();
            let allowed = permitted
                && table
                    .enterprise_rule(&method_of, path)
                    .is_none_or(|rule| rule.admits(&enterprise));
            // Templates answer a file, not an envelope.
            let (status, body) = app
                .send_any(method, &concrete(path), Some(token), json!({}))
                .await;
            let refused = body["code"] == 9999;
            if allowed == refused {
                mismatches.push(format!(
                    "{name}: {method} {path} allowed={allowed} answered {status} {}",
                    body["code"]
                ));
            }
            assert_ne!(
                body["code"],
                Value::from(1001),
                "{name} lost its session at {method} {path}"
            );
            pairs += 1;
        }
    }
    assert!(pairs >= 50, "only {pairs} pairs");
    assert!(
        mismatches.is_empty(),
        "{} mismatches of {pairs}:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

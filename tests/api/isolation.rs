use serde_json::Value;

use crate::helpers::{TestApp, charging_not_opened, enterprise_rule_refused, spawn_app};

/// Ids and names of enterprise A (演示物流有限公司) straight from the database.
async fn enterprise_a_secrets(app: &TestApp) -> Vec<String> {
    let pool = sqlx_postgres::PgPool::connect(&app.db.url).await.unwrap();
    let a: (String,) =
        sqlx::query_as("select id::text from org.enterprise where name = '演示物流有限公司'")
            .fetch_one(&pool)
            .await
            .unwrap();
    let mut secrets: Vec<String> = sqlx::query_scalar(
        "select id::text from org.org_unit where enterprise_id = $1::uuid \
         union all select id::text from org.role where enterprise_id = $1::uuid \
         union all select id::text from org.member where enterprise_id = $1::uuid \
         union all select name from org.org_unit where enterprise_id = $1::uuid",
    )
    .bind(&a.0)
    .fetch_all(&pool)
    .await
    .unwrap();
    secrets.push(a.0);
    pool.close().await;
    secrets
}

async fn enterprise_a_role_ids(app: &TestApp) -> Vec<String> {
    let pool = sqlx_postgres::PgPool::connect(&app.db.url).await.unwrap();
    let ids = sqlx::query_scalar(
        "select r.id::text from org.role r join org.enterprise e on e.id = r.enterprise_id where e.name = '演示物流有限公司'",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    pool.close().await;
    ids
}

/// Every GET route of the edge API, from its OpenAPI document.
fn get_routes() -> Vec<String> {
    let doc = serde_json::to_value(fleetdesk_gateway::api().1).unwrap();
    doc["paths"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, item)| item.get("get").is_some())
        .map(|(path, _)| path.clone())
        .collect()
}

#[tokio::test]
async fn a_route_without_its_permission_gives_9999() {
    let app = spawn_app().await;
    let token = app.token("demo_ops").await;
    let (status, me) = app.get("/api/v1/me", Some(&token)).await;
    assert_eq!(status, 200);
    assert!(
        !me["data"]["permissions"]
            .to_string()
            .contains("oss:pc:system:settings")
    );
    for path in [
        "/api/v1/system/roles",
        "/api/v1/system/orgs",
        "/api/v1/system/permissions",
    ] {
        let (status, body) = app.get(path, Some(&token)).await;
        assert_eq!((status, body["code"].as_u64()), (403, Some(9999)), "{path}");
    }
    // The administrator of the same enterprise passes.
    let admin = app.token("demo").await;
    assert_eq!(app.get("/api/v1/system/roles", Some(&admin)).await.0, 200);
}

#[tokio::test]
async fn enterprise_b_cannot_read_enterprise_a_through_any_route() {
    let app = spawn_app().await;
    // B on the behaviour-analysis white list, so its routes are met, not refused.
    app.sql(
        "insert into org.enterprise_list_entry (list_type, enterprise_id) \
         select 4, id from org.enterprise where name = '示例冷链科技有限公司'",
    )
    .await;
    let token_b = app.token("demo2").await;
    let secrets = enterprise_a_secrets(&app).await;
    assert!(secrets.len() > 8, "enterprise A has data to leak");
    let routes = get_routes();
    assert!(routes.len() >= 5, "{routes:?}");

    for route in &routes {
        if route.contains('{') {
            // Every A id in the path answers 4004, never A's data.
            for id in enterprise_a_role_ids(&app).await {
                let path = route.replace("{id}", &id);
                let (status, body) = app.get(&path, Some(&token_b)).await;
                if !charging_not_opened(route, status, &body)
                    && !enterprise_rule_refused("GET", route, status, &body)
                {
                    assert_eq!(
                        (status, body["code"].as_u64()),
                        (404, Some(4004)),
                        "{path}: {body}"
                    );
                }
            }
        } else if route == "/api/v1/operation-logs" {
            // A log names its business: without one it is a 4000, never a
            // list (tenancy.rs sends A's business ids and gets 4004).
            let (status, body) = app.get(route, Some(&token_b)).await;
            assert_eq!((status, body["code"].as_u64()), (400, Some(4000)), "{body}");
        } else if route.ends_with("/import-template") {
            // A template is a file holding no enterprise's data: B gets its own.
            let (status, _) = app
                .send_any("GET", route, Some(&token_b), serde_json::Value::Null)
                .await;
            assert_eq!(status, 200, "{route}");
        } else if route == "/api/v1/monitor/stream" {
            // A live stream never ends: its isolation is monitoring.rs's.
            let (status, _) = app
                .send_any("GET", route, Some(&token_b), serde_json::Value::Null)
                .await;
            assert_eq!(status, 200, "{route}");
        } else if route == "/api/v1/files/download" {
            // Public by signature: without a link signed for A's key, nothing.
            let (status, body) = app.get(route, Some(&token_b)).await;
            assert_eq!((status, body["code"].as_u64()), (404, Some(4004)), "{body}");
        } else {
            // Lists that must be bounded in time get the widest range they take.
            let path = match route.as_str() {
                "/api/v1/temperature/readings" => {
                    let to = chrono::Utc::now();
                    let from = to - chrono::Duration::days(6);
                    let at = |t: chrono::DateTime<chrono::Utc>| t.format("%Y-%m-%dT%H:%M:%SZ");
                    format!("{route}?from={}&to={}", at(from), at(to))
                }
                "/api/v1/charging/behavior" | "/api/v1/charging/behavior/vehicles" => {
                    let to = chrono::Utc::now();
                    let from = to - chrono::Duration::days(90);
                    let at = |t: chrono::DateTime<chrono::Utc>| t.format("%Y-%m-%dT%H:%M:%SZ");
                    format!(
                        "{route}?startTimeStart={}&startTimeEnd={}",
                        at(from),
                        at(to)
                    )
                }
                "/api/v1/risk/alarms" => {
                    let to = chrono::Utc::now();
                    let from = to - chrono::Duration::days(90);
                    let day = |t: chrono::DateTime<chrono::Utc>| t.format("%Y-%m-%d");
                    format!(
                        "{route}?alarmTimeStart={}&alarmTimeEnd={}",
                        day(from),
                        day(to)
                    )
                }
                "/api/v1/reports/daily-logs"
                | "/api/v1/reports/safety/summary"
                | "/api/v1/reports/safety/ranking"
                | "/api/v1/reports/safety/trend" => {
                    let to = chrono::Utc::now();
                    let from = to - chrono::Duration::days(90);
                    let day = |t: chrono::DateTime<chrono::Utc>| t.format("%Y-%m-%d");
                    format!(
                        "{route}?reportDateStart={}&reportDateEnd={}",
                        day(from),
                        day(to)
                    )
                }
                "/api/v1/reports/monthly-logs" => {
                    let to = chrono::Utc::now();
                    let from = to - chrono::Duration::days(300);
                    let month = |t: chrono::DateTime<chrono::Utc>| t.format("%Y-%m");
                    format!("{route}?startMonth={}&endMonth={}", month(from), month(to))
                }
                "/api/v1/charging/sessions" | "/api/v1/charging/plate-scans" => {
                    let to = chrono::Utc::now();
                    let from = to - chrono::Duration::days(90);
                    let at = |t: chrono::DateTime<chrono::Utc>| t.format("%Y-%m-%dT%H:%M:%SZ");
                    let field = if route.ends_with("sessions") {
                        "startTime"
                    } else {
                        "scanTime"
                    };
                    format!("{route}?{field}Start={}&{field}End={}", at(from), at(to))
                }
                _ => route.clone(),
            };
            let (status, body) = app.get(&path, Some(&token_b)).await;
            if route.starts_with("/api/v1/charging/") && status == 409 {
                // B has not opened charging (demo2 stays unopened): the
                // refusal that says so, and nothing of A's.
                assert_eq!(body["code"].as_u64(), Some(4009), "{path}: {body}");
                assert!(
                    body["msg"]
                        .as_str()
                        .unwrap_or_default()
                        .contains("尚未开通"),
                    "{path}: {body}"
                );
            } else if !enterprise_rule_refused("GET", route, status, &body) {
                assert_eq!(status, 200, "{path}: {body}");
            }
            let text = body.to_string();
            for secret in &secrets {
                assert!(!text.contains(secret.as_str()), "{route} leaks {secret}");
            }
        }
    }
}

#[tokio::test]
async fn each_enterprise_sees_its_own_tree_roles_and_name() {
    let app = spawn_app().await;
    for (user, enterprise) in [
        ("demo", "演示物流有限公司"),
        ("demo2", "示例冷链科技有限公司"),
    ] {
        let token = app.token(user).await;
        let (_, me) = app.get("/api/v1/me", Some(&token)).await;
        assert_eq!(me["data"]["enterpriseName"], enterprise);
        let (_, ent) = app.get("/api/v1/enterprise", Some(&token)).await;
        assert_eq!(ent["data"]["name"], enterprise);
        let (_, orgs) = app.get("/api/v1/system/orgs", Some(&token)).await;
        let roots: &Vec<Value> = orgs["data"].as_array().unwrap();
        assert_eq!(roots.len(), 1);
        assert_eq!(roots[0]["name"], enterprise);
        let (_, roles) = app.get("/api/v1/system/roles", Some(&token)).await;
        let role_enterprises: Vec<String> = roles["data"]["list"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].to_string())
            .collect();
        assert!(!role_enterprises.is_empty());
    }
}

#[tokio::test]
async fn the_org_tree_has_three_levels_and_drops_empty_children() {
    let app = spawn_app().await;
    let token = app.token("demo").await;
    let (_, orgs) = app.get("/api/v1/system/orgs", Some(&token)).await;
    let root = &orgs["data"][0];
    let leaf = &root["childs"][0]["childs"][0];
    assert_eq!(leaf["level"], 3);
    assert!(
        leaf.get("childs").is_none(),
        "empty child lists are removed: {leaf}"
    );
    let (_, found) = app
        .get("/api/v1/system/orgs?name=%20深圳%20", Some(&token))
        .await;
    assert_eq!(
        found["data"][0]["childs"][0]["childs"][0]["name"],
        "深圳运营中心"
    );
    assert_eq!(found["data"][0]["childs"].as_array().unwrap().len(), 1);
}

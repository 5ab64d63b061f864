//! Data scopes over approvals, export records and the organisation picker:
//! a member created with a narrower scope sees, counts and opens only what
//! their scope reaches; anything else answers 4004.

use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn_app};

/// Creates (as the administrator) a role with `values` and `scope`, and a user
/// of the east office in it; returns (user id, the user's token).
async fn scoped_user(
    app: &TestApp,
    admin: &str,
    user_name: &str,
    phone: &str,
    values: &[&str],
    scope: Value,
) -> (String, String) {
    let mut role = json!({ "name": format!("{user_name}角色"), "permissionValues": values });
    for (k, v) in scope.as_object().unwrap() {
        role[k] = v.clone();
    }
    let (status, body) = app.post("/api/v1/system/roles", Some(admin), role).await;
    assert_eq!(status, 200, "{body}");
    let role_id = body["data"]["id"].as_str().unwrap().to_owned();
    let east = app.org_a("A01").await;
    let (status, body) = app
        .post(
            "/api/v1/system/users",
            Some(admin),
            json!({ "name": "孙九", "userName": user_name, "phone": phone, "orgId": east,
                    "roleIds": [role_id], "password": "Secret@123" }),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let user_id = body["data"]["id"].as_str().unwrap().to_owned();
    let (status, login) = app.login(user_name, "Secret@123").await;
    assert_eq!(status, 200, "{login}");
    (user_id, login["data"]["token"].as_str().unwrap().to_owned())
}

fn ids(list: &Value) -> Vec<String> {
    list["data"]["list"]
        .as_array()
        .unwrap_or_else(|| panic!("no list in {list}"))
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn approvals_are_listed_counted_and_opened_only_within_the_data_scope() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    let seeded_without_org = app
        .count(
            "select count(*) from org.approval a join org.enterprise e on e.id = a.enterprise_id \
             where e.code = 'DEMO-LOGISTICS' and a.org_id is null",
        )
        .await;
    assert_eq!(seeded_without_org, 0, "every seeded approval has an org");

    // The Hangzhou subtree: demo_multi's refund, not demo_ops's Shanghai allotments.
    let hangzhou = app.org_a("A0102").await;
    let (_, token) = scoped_user(
        &app,
        &admin,
        "hz_approver",
        "13900002221",
        &["as:approval:pageInfo", "oss:as:approval"],
        json!({ "dataScope": 3, "dataScopeOrgIds": [hangzhou] }),
    )
    .await;

    let (_, all) = app.get("/api/v1/approvals?size=50", Some(&admin)).await;
    assert_eq!(all["data"]["total"], 4);
    let (_, count) = app.get("/api/v1/approvals/count", Some(&admin)).await;
    assert_eq!(count["data"], 3);

    let (status, count) = app.get("/api/v1/approvals/count", Some(&token)).await;
    assert_eq!(status, 200, "{count}");
    assert_eq!(
        count["data"], 1,
        "only the Hangzhou applicant's pending approval"
    );
    let (status, mine) = app.get("/api/v1/approvals?size=50", Some(&token)).await;
    assert_eq!(status, 200, "{mine}");
    assert_eq!(mine["data"]["total"], 1, "{mine}");
    assert_eq!(mine["data"]["list"][0]["applicantName"], "跨企业专员");
    let (_, allotments) = app
        .get("/api/v1/approvals/vehicle-allotments", Some(&token))
        .await;
    assert_eq!(allotments["data"]["total"], 0, "{allotments}");

    let visible = ids(&mine);
    let (status, detail) = app
        .get(&format!("/api/v1/approvals/{}", visible[0]), Some(&token))
        .await;
    assert_eq!(status, 200, "{detail}");

    let outside: Vec<&Value> = all["data"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["applicantName"] == "运营专员" && a["status"] == 1)
        .collect();
    assert_eq!(outside.len(), 2);
    let outside_id = outside[0]["id"].as_str().unwrap();
    let (status, body) = app
        .get(&format!("/api/v1/approvals/{outside_id}"), Some(&token))
        .await;
    assert_eq!((status, body["code"].as_u64()), (404, Some(4004)), "{body}");
    let (status, body) = app
        .post(
            &format!("/api/v1/approvals/{outside_id}/decision"),
            Some(&token),
            json!({ "approve": true }),
        )
        .await;
    assert_eq!((status, body["code"].as_u64()), (404, Some(4004)), "{body}");
    let (_, detail) = app
        .get(&format!("/api/v1/approvals/{outside_id}"), Some(&admin))
        .await;
    assert_eq!(detail["data"]["status"], 1, "nothing changed");
    let (_, count) = app.get("/api/v1/approvals/count", Some(&admin)).await;
    assert_eq!(count["data"], 3);

    // Deciding the one in scope lowers both counts.
    let (status, body) = app
        .post(
            &format!("/api/v1/approvals/{}/decision", visible[0]),
            Some(&token),
            json!({ "approve": true }),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let (_, count) = app.get("/api/v1/approvals/count", Some(&token)).await;
    assert_eq!(count["data"], 0);
    let (_, count) = app.get("/api/v1/approvals/count", Some(&admin)).await;
    assert_eq!(count["data"], 2);
}

#[tokio::test]
async fn export_records_follow_the_requesting_member_through_the_data_scope() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    // Besides the seeded (failed) export of demo_ops: the administrator's finished and running ones.
    app.export_record("demo", "车辆档案导出", 3, "exports/a/car-files.xlsx")
        .await;
    app.export_record("demo", "账单明细导出", 2, "").await;
    let (_, all) = app.get("/api/v1/export-records", Some(&admin)).await;
    assert_eq!(all["data"]["total"], 3, "{all}");
    let by = |name: &str| -> String {
        all["data"]["list"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["requestedByName"] == name)
            .map(|r| r["id"].as_str().unwrap().to_owned())
            .unwrap()
    };
    let (admins, ops) = (by("演示管理员"), by("运营专员"));

    // East subtree: demo_ops (Shanghai) is in it, the administrator (root) is not.
    let east = app.org_a("A01").await;
    let (_, east_token) = scoped_user(
        &app,
        &admin,
        "east_viewer",
        "13900002222",
        &["as:approval:pageInfo"],
        json!({ "dataScope": 3, "dataScopeOrgIds": [east] }),
    )
    .await;
    let (status, list) = app.get("/api/v1/export-records", Some(&east_token)).await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["data"]["total"], 1, "{list}");
    assert_eq!(ids(&list), vec![ops.clone()]);
    let (status, _) = app
        .get(&format!("/api/v1/export-records/{ops}"), Some(&east_token))
        .await;
    assert_eq!(status, 200);
    let (status, body) = app
        .get(
            &format!("/api/v1/export-records/{admins}"),
            Some(&east_token),
        )
        .await;
    assert_eq!((status, body["code"].as_u64()), (404, Some(4004)), "{body}");
    let (_, filtered) = app
        .get("/api/v1/export-records?status=3", Some(&east_token))
        .await;
    assert_eq!(
        filtered["data"]["total"], 0,
        "the finished one is the root's"
    );

    // Self scope: only the member's own records.
    let (self_id, self_token) = scoped_user(
        &app,
        &admin,
        "self_viewer",
        "13900002223",
        &["as:approval:pageInfo"],
        json!({ "dataScope": 1 }),
    )
    .await;
    let (_, none) = app.get("/api/v1/export-records", Some(&self_token)).await;
    assert_eq!(none["data"]["total"], 0, "{none}");
    app.sql(&format!(
        "insert into org.export_record (id, enterprise_id, name, module, requested_by, requested_by_name) \
         select gen_random_uuid(), enterprise_id, '我的导出', 'carFiles', id, name from org.member where id = '{self_id}'"
    ))
    .await;
    let (_, own) = app.get("/api/v1/export-records", Some(&self_token)).await;
    assert_eq!(own["data"]["total"], 1, "{own}");
    assert_eq!(own["data"]["list"][0]["name"], "我的导出");
    let own_id = ids(&own)[0].clone();
    let (status, body) = app
        .get(&format!("/api/v1/export-records/{ops}"), Some(&self_token))
        .await;
    assert_eq!((status, body["code"].as_u64()), (404, Some(4004)), "{body}");

    // The self-scoped member sits in the east office: the east subtree sees
    // their record too, and the enterprise scope sees everything.
    let (_, list) = app.get("/api/v1/export-records", Some(&east_token)).await;
    assert_eq!(list["data"]["total"], 2, "{list}");
    assert!(ids(&list).contains(&own_id));
    let (_, all) = app.get("/api/v1/export-records", Some(&admin)).await;
    assert_eq!(all["data"]["total"], 4, "{all}");
}

fn codes(body: &Value) -> Vec<String> {
    let mut out: Vec<String> = body["data"]
        .as_array()
        .unwrap_or_else(|| panic!("no list in {body}"))
        .iter()
        .map(|o| o["orgCode"].as_str().unwrap().to_owned())
        .collect();
    out.sort();
    out
}

#[tokio::test]
async fn the_org_picker_lists_enabled_organisations_within_the_data_scope() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    let (status, body) = app.get("/api/v1/orgs/simple", Some(&admin)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        codes(&body),
        ["A00", "A01", "A0101", "A0102", "A02", "A0201", "A0202"]
    );
    let root = &body["data"][0];
    assert_eq!(root["orgCode"], "A00");
    assert_eq!(root["level"], 1);
    assert_eq!(root["parentId"], "");
    assert_eq!(root["orgId"], app.org_a("A00").await);
    assert!(root["name"].as_str().is_some_and(|n| !n.is_empty()));
    let shanghai = body["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["orgCode"] == "A0101")
        .unwrap();
    assert_eq!(shanghai["name"], "上海运营中心");
    assert_eq!(shanghai["parentId"], app.org_a("A01").await);
    assert_eq!(shanghai["level"], 3);

    // Any member of the enterprise may ask; no permission is needed.
    let east = app.org_a("A01").await;
    let (_, token) = scoped_user(
        &app,
        &admin,
        "picker_user",
        "13900002224",
        &["as:approval:pageInfo"],
        json!({ "dataScope": 3, "dataScopeOrgIds": [east] }),
    )
    .await;
    let (status, body) = app.get("/api/v1/orgs/simple", Some(&token)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(codes(&body), ["A01", "A0101", "A0102"]);

    // Disabled organisations are not offered.
    let (status, body) = app
        .post(
            &format!("/api/v1/system/orgs/{}/status", app.org_a("A0102").await),
            Some(&admin),
            json!({ "status": 2 }),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let (_, body) = app.get("/api/v1/orgs/simple", Some(&token)).await;
    assert_eq!(codes(&body), ["A01", "A0101"]);

    // Another tenant's organisations never appear, and A's never appear to B.
    let other = app.token("demo2").await;
    let (status, body) = app.get("/api/v1/orgs/simple", Some(&other)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(codes(&body), ["B00", "B01", "B0101"]);
    let (_, body) = app.get("/api/v1/orgs/simple", Some(&admin)).await;
    assert!(codes(&body).iter().all(|c| c.starts_with('A')), "{body}");

    let (status, body) = app.get("/api/v1/orgs/simple", None).await;
    assert_eq!((status, body["code"].as_u64()), (401, Some(1001)), "{body}");
}

#[tokio::test]
async fn the_vehicle_and_driver_pickers_answer_a_member_without_the_asset_pages() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    let hangzhou = app.org_a("A0102").await;
    // A violations clerk of Hangzhou: no vehicle or driver page of their own
    // (the scope the pickers keep is tested at the asset service).
    let (_, token) = scoped_user(
        &app,
        &admin,
        "hz_clerk",
        "13900002231",
        &["as:violation"],
        json!({ "dataScope": 3, "dataScopeOrgIds": [hangzhou] }),
    )
    .await;
    let (status, _) = app.get("/api/v1/vehicles", Some(&token)).await;
    assert_eq!(status, 403);
    for picker in [
        "/api/v1/pickers/vehicles",
        "/api/v1/pickers/drivers?keyword=王",
    ] {
        let (status, picked) = app.get(picker, Some(&token)).await;
        assert_eq!(status, 200, "{picker}: {picked}");
        assert!(picked["data"].is_array(), "{picker}: {picked}");
        let (status, _) = app.get(picker, None).await;
        assert_eq!(status, 401, "{picker}");
    }
}

//! System settings over the running stack: the organisation tree, roles with
//! catalogue permissions and data scopes, users (accounts made through auth,
//! masked phones), and changes that bite on the very next request.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::helpers::{TestApp, eventually, get_at, login_at, spawn_app, spawn_second_stack};

async fn member_id(app: &TestApp, user_name: &str) -> String {
    app.sql_text(&format!(
        "select m.id::text from org.member m join org.enterprise e on e.id = m.enterprise_id \
             where e.code = 'DEMO-LOGISTICS' and m.user_name = '{user_name}'"
    ))
    .await
}

fn field(body: &Value) -> &str {
    body["data"]["fields"][0]["field"].as_str().unwrap_or("")
}

fn find<'a>(nodes: &'a Value, id: &str) -> Option<&'a Value> {
    nodes.as_array()?.iter().find_map(|n| {
        if n["id"] == id {
            Some(n)
        } else {
            n.get("childs").and_then(|c| find(c, id))
        }
    })
}

/// Creates a role and a user in it who signs in with a password; returns
/// (role id, user id, the user's token).
async fn user_with_role(
    app: &TestApp,
    admin: &str,
    user_name: &str,
    phone: &str,
    values: &[&str],
    scope: Value,
) -> (String, String, String) {
    let mut role =
        json!({ "name": format!("{user_name}角色"), "permissionValues": values, "dataScope": 5 });
    if let Some(obj) = scope.as_object() {
        for (k, v) in obj {
            role[k] = v.clone();
        }
    }
    let (status, body) = app.post("/api/v1/system/roles", Some(admin), role).await;
    assert_eq!(status, 200, "{body}");
    let role_id = body["data"]["id"].as_str().unwrap().to_owned();
    let east = app.org_a("A01").await;
    let (status, body) = app
        .post(
            "/api/v1/system/users",
            Some(admin),
            json!({ "name": "钱八", "userName": user_name, "phone": phone, "orgId": east,
                    "roleIds": [role_id], "password": "Secret@123" }),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let user_id = body["data"]["id"].as_str().unwrap().to_owned();
    let (status, login) = app.login(user_name, "Secret@123").await;
    assert_eq!(status, 200, "{login}");
    let token = login["data"]["token"].as_str().unwrap().to_owned();
    (role_id, user_id, token)
}

#[tokio::test]
async fn an_organisation_tree_grows_moves_and_disables_but_never_loops() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    let root = app.org_a("A00").await;
    let east = app.org_a("A01").await;

    let (status, north) = app
        .post(
            "/api/v1/system/orgs",
            Some(&admin),
            json!({ "parentId": root, "orgCode": "A03", "name": " 华北大区 ", "sort": 7 }),
        )
        .await;
    assert_eq!(status, 200, "{north}");
    assert_eq!(
        (
            north["data"]["level"].as_i64(),
            north["data"]["name"].as_str(),
            north["data"]["sort"].as_i64()
        ),
        (Some(2), Some("华北大区"), Some(7))
    );
    let north = north["data"]["id"].as_str().unwrap().to_owned();
    let (_, beijing) = app
        .post(
            "/api/v1/system/orgs",
            Some(&admin),
            json!({ "parentId": north, "orgCode": "A0301", "name": "北京运营中心" }),
        )
        .await;
    assert_eq!(beijing["data"]["level"], 3);
    let beijing = beijing["data"]["id"].as_str().unwrap().to_owned();

    // Validation names the field; duplicates are conflicts.
    let (status, body) = app
        .post(
            "/api/v1/system/orgs",
            Some(&admin),
            json!({ "parentId": root, "orgCode": "A09" }),
        )
        .await;
    assert_eq!(
        (status, field(&body), body["msg"].as_str()),
        (400, "name", Some("请输入组织名称"))
    );
    let (status, body) = app
        .post(
            "/api/v1/system/orgs",
            Some(&admin),
            json!({ "parentId": root, "orgCode": "A03", "name": "重复" }),
        )
        .await;
    assert_eq!(
        (status, body["code"].as_u64(), body["msg"].as_str()),
        (409, Some(4009), Some("组织编码已存在"))
    );
    // The taken value's field is named as a 4000 names its fields.
    assert_eq!(field(&body), "orgCode", "{body}");

    // Moving takes the subtree along and renumbers levels.
    let (status, moved) = app
        .post(
            &format!("/api/v1/system/orgs/{north}/move"),
            Some(&admin),
            json!({ "parentId": east }),
        )
        .await;
    assert_eq!(
        (status, moved["data"]["level"].as_i64()),
        (200, Some(3)),
        "{moved}"
    );
    let (_, tree) = app.get("/api/v1/system/orgs", Some(&admin)).await;
    let node = find(&tree["data"], &beijing).expect("still in the tree");
    assert_eq!(node["level"], 4);
    assert_eq!(
        find(&tree["data"], &north).unwrap()["parentId"],
        east.as_str()
    );

    // Never under itself or below itself.
    for target in [&north, &beijing] {
        let (status, body) = app
            .post(
                &format!("/api/v1/system/orgs/{north}/move"),
                Some(&admin),
                json!({ "parentId": target }),
            )
            .await;
        assert_eq!((status, field(&body)), (400, "newParentId"), "{body}");
    }
    let (status, _) = app
        .post(
            &format!("/api/v1/system/orgs/{east}/move"),
            Some(&admin),
            json!({ "parentId": beijing }),
        )
        .await;
    assert_eq!(status, 400);

    // Renaming.
    let (status, body) = app
        .send(
            "PUT",
            &format!("/api/v1/system/orgs/{north}"),
            Some(&admin),
            json!({ "orgCode": "A03", "name": "华北区" }),
        )
        .await;
    assert_eq!(
        (status, body["data"]["name"].as_str()),
        (200, Some("华北区"))
    );

    // Disabling hides the subtree; a child cannot come back before its parent.
    let (status, body) = app
        .post(
            &format!("/api/v1/system/orgs/{north}/status"),
            Some(&admin),
            json!({ "status": 2 }),
        )
        .await;
    assert_eq!((status, body["data"]["status"].as_i64()), (200, Some(2)));
    let (_, tree) = app.get("/api/v1/system/orgs", Some(&admin)).await;
    assert!(find(&tree["data"], &north).is_none() && find(&tree["data"], &beijing).is_none());
    let (_, all) = app
        .get("/api/v1/system/orgs?includeDisabled=true", Some(&admin))
        .await;
    assert_eq!(find(&all["data"], &beijing).unwrap()["status"], 2);
    let (status, body) = app
        .post(
            &format!("/api/v1/system/orgs/{beijing}/status"),
            Some(&admin),
            json!({ "status": 1 }),
        )
        .await;
    assert_eq!((status, body["code"].as_u64()), (409, Some(4009)));
    let (status, body) = app
        .post(
            &format!("/api/v1/system/orgs/{north}/status"),
            Some(&admin),
            json!({ "status": 3 }),
        )
        .await;
    assert_eq!((status, field(&body)), (400, "status"));
}

#[tokio::test]
async fn roles_take_catalogue_values_shown_as_a_tree_and_a_data_scope() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    let (status, tree) = app
        .get("/api/v1/system/permissions/tree", Some(&admin))
        .await;
    assert_eq!(status, 200);
    let settings = tree["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["value"] == "oss:pc:system:settings")
        .expect("system settings group");
    let children: Vec<&str> = settings["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["value"].as_str().unwrap())
        .collect();
    assert!(
        children.contains(&"as:sys:org:getList") && children.contains(&"as:sys:user:edit"),
        "{children:?}"
    );

    let role = |values: Value, scope: Value| json!({ "name": "调度员", "permissionValues": values, "dataScope": scope });
    let (status, body) = app
        .post(
            "/api/v1/system/roles",
            Some(&admin),
            role(json!(["as:nope"]), json!(5)),
        )
        .await;
    assert_eq!((status, field(&body)), (400, "permissionValues"), "{body}");
    let (status, body) = app
        .post(
            "/api/v1/system/roles",
            Some(&admin),
            role(json!(["as:sys:car"]), Value::Null),
        )
        .await;
    assert_eq!((status, field(&body)), (400, "dataScope"));
    let (status, body) = app
        .post(
            "/api/v1/system/roles",
            Some(&admin),
            role(json!(["as:sys:car"]), json!(4)),
        )
        .await;
    assert_eq!((status, field(&body)), (400, "dataScopeOrgIds"));
    let (status, body) = app
        .post(
            "/api/v1/system/roles",
            Some(&admin),
            json!({ "permissionValues": [], "dataScope": 5 }),
        )
        .await;
    assert_eq!(
        (status, field(&body), body["msg"].as_str()),
        (400, "name", Some("请输入角色名称"))
    );

    let east = app.org_a("A01").await;
    let (status, created) = app
        .post("/api/v1/system/roles", Some(&admin), json!({ "name": "调度员", "permissionValues": ["as:sys:car", "as:sys:car"], "dataScope": 3, "dataScopeOrgIds": [east] }))
        .await;
    assert_eq!(status, 200, "{created}");
    assert_eq!(created["data"]["permissionValues"], json!(["as:sys:car"]));
    assert_eq!(
        (
            created["data"]["dataScope"].as_i64(),
            created["data"]["dataScopeOrgIds"][0].as_str()
        ),
        (Some(3), Some(east.as_str()))
    );
    let id = created["data"]["id"].as_str().unwrap();
    let (status, body) = app
        .post(
            "/api/v1/system/roles",
            Some(&admin),
            role(json!(["as:sys:car"]), json!(5)),
        )
        .await;
    assert_eq!(
        (status, body["msg"].as_str()),
        (409, Some("角色名称已存在"))
    );

    let (status, updated) = app
        .send("PUT", &format!("/api/v1/system/roles/{id}"), Some(&admin), json!({ "name": "调度员", "permissionValues": ["as:mancar"], "dataScope": 1, "status": 2 }))
        .await;
    assert_eq!(status, 200, "{updated}");
    assert_eq!(
        (
            updated["data"]["status"].as_i64(),
            updated["data"]["permissionValues"].clone()
        ),
        (Some(2), json!(["as:mancar"]))
    );
    let (status, _) = app
        .send(
            "DELETE",
            &format!("/api/v1/system/roles/{id}"),
            Some(&admin),
            Value::Null,
        )
        .await;
    assert_eq!(status, 200);
    let (status, body) = app
        .get(&format!("/api/v1/system/roles/{id}"), Some(&admin))
        .await;
    assert_eq!((status, body["code"].as_u64()), (404, Some(4004)));
}

#[tokio::test]
async fn a_new_user_signs_in_with_only_their_roles_and_sees_only_their_subtree() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    let east = app.org_a("A01").await;
    let (role_id, user_id, token) = user_with_role(
        &app,
        &admin,
        "qianba",
        "13900001111",
        &["oss:pc:system:settings", "as:sys:user:getList"],
        json!({ "dataScope": 3, "dataScopeOrgIds": [east] }),
    )
    .await;

    let (_, user) = app
        .get(&format!("/api/v1/system/users/{user_id}"), Some(&admin))
        .await;
    assert_eq!(
        user["data"]["phone"], "139****1111",
        "the server masks: {user}"
    );
    assert!(!user.to_string().contains("13900001111"));
    assert_eq!(user["data"]["orgName"], "华东大区");

    let (_, me) = app.get("/api/v1/me", Some(&token)).await;
    let mut permissions: Vec<&str> = me["data"]["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["permissionValue"].as_str().unwrap())
        .collect();
    permissions.sort_unstable();
    assert_eq!(
        permissions,
        ["as:sys:user:getList", "oss:pc:system:settings"]
    );
    let (status, _) = app.get("/api/v1/system/roles", Some(&token)).await;
    assert_eq!(status, 403);

    // East subtree: the east office, Shanghai (demo_ops), Hangzhou (demo_multi); not the root (demo).
    let (status, list) = app.get("/api/v1/system/users?size=100", Some(&token)).await;
    assert_eq!(status, 200, "{list}");
    let mut names: Vec<&str> = list["data"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["userName"].as_str().unwrap())
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["demo_multi", "demo_ops", "qianba"]);
    assert_eq!(list["data"]["total"], 3);
    let demo = member_id(&app, "demo").await;
    let (status, body) = app
        .get(&format!("/api/v1/system/users/{demo}"), Some(&token))
        .await;
    assert_eq!((status, body["code"].as_u64()), (404, Some(4004)));

    // The administrator filters by organisation (and everything below it).
    let shanghai = app.org_a("A0101").await;
    let (_, filtered) = app
        .get(
            &format!("/api/v1/system/users?orgId={shanghai}"),
            Some(&admin),
        )
        .await;
    assert_eq!(filtered["data"]["total"], 1);
    assert_eq!(filtered["data"]["list"][0]["userName"], "demo_ops");

    // Adding the same person twice is a conflict (linking finds them already here).
    let (status, body) = app
        .post(
            "/api/v1/system/users",
            Some(&admin),
            json!({ "name": "重复", "userName": "qianba", "phone": "13900002222", "orgId": east,
                    "roleIds": [role_id] }),
        )
        .await;
    assert_eq!(
        (status, body["msg"].as_str()),
        (409, Some("该人员已是本企业成员")),
        "{body}"
    );
    let (status, body) = app
        .post(
            "/api/v1/system/users",
            Some(&admin),
            json!({ "name": "新人", "userName": "xinren", "phone": "139", "orgId": east, "roleIds": [role_id] }),
        )
        .await;
    assert_eq!(
        (status, field(&body), body["msg"].as_str()),
        (400, "phone", Some("请输入正确的手机号"))
    );
}

#[tokio::test]
async fn removing_a_role_or_disabling_a_user_bites_on_the_next_request() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    let east = app.org_a("A01").await;
    let (role_id, user_id, token) = user_with_role(
        &app,
        &admin,
        "sunjiu",
        "13900003333",
        &["as:sys:user:getList"],
        json!({}),
    )
    .await;
    // Warm the gateway's principal cache.
    assert_eq!(app.get("/api/v1/system/users", Some(&token)).await.0, 200);

    // Every user keeps a role: the user-list role is swapped for one without it.
    let (status, other) = app
        .post(
            "/api/v1/system/roles",
            Some(&admin),
            json!({ "name": "仅消息", "permissionValues": ["as:message:pageInfo"], "dataScope": 5 }),
        )
        .await;
    assert_eq!(status, 200, "{other}");
    let (status, body) = app
        .send(
            "PUT",
            &format!("/api/v1/system/users/{user_id}"),
            Some(&admin),
            json!({ "name": "钱八", "orgId": east, "roleIds": [other["data"]["id"]] }),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = app.get("/api/v1/system/users", Some(&token)).await;
    assert_eq!(
        (status, body["code"].as_u64()),
        (403, Some(9999)),
        "the role is gone at once"
    );

    let (status, _) = app
        .send(
            "PUT",
            &format!("/api/v1/system/users/{user_id}"),
            Some(&admin),
            json!({ "name": "钱八", "orgId": east, "roleIds": [role_id] }),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(app.get("/api/v1/system/users", Some(&token)).await.0, 200);
    // A role its members hold is not deleted (they would be left without
    // it unawares); taking the permission off the role bites at once.
    let (status, body) = app
        .send(
            "DELETE",
            &format!("/api/v1/system/roles/{role_id}"),
            Some(&admin),
            Value::Null,
        )
        .await;
    assert_eq!((status, body["code"].as_u64()), (409, Some(4009)), "{body}");
    assert_eq!(app.get("/api/v1/system/users", Some(&token)).await.0, 200);
    let (status, body) = app
        .send(
            "PUT",
            &format!("/api/v1/system/roles/{role_id}"),
            Some(&admin),
            json!({ "name": "用户查看", "permissionValues": ["as:message:pageInfo"], "dataScope": 5 }),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        app.get("/api/v1/system/users", Some(&token)).await.0,
        403,
        "a permission taken off the role is gone at once"
    );

    let (status, body) = app
        .post(
            &format!("/api/v1/system/users/{user_id}/status"),
            Some(&admin),
            json!({ "status": 2 }),
        )
        .await;
    assert_eq!((status, body["data"]["status"].as_i64()), (200, Some(2)));
    let (status, body) = app.get("/api/v1/me", Some(&token)).await;
    assert_eq!(
        (status, body["code"].as_u64()),
        (401, Some(1001)),
        "a disabled user is out at once"
    );

    // Nobody disables themselves.
    let me = member_id(&app, "demo").await;
    let (status, body) = app
        .post(
            &format!("/api/v1/system/users/{me}/status"),
            Some(&admin),
            json!({ "status": 2 }),
        )
        .await;
    assert_eq!((status, field(&body)), (400, "id"));
}

#[tokio::test]
async fn another_gateway_drops_a_disabled_user_through_the_event_before_its_cache_expires() {
    let app = spawn_app().await;
    let (other, _stop) = spawn_second_stack(&app).await;
    let admin = app.token("demo").await;
    let (_, user_id, _) = user_with_role(
        &app,
        &admin,
        "zhoushi",
        "13900004444",
        &["as:sys:user:getList"],
        json!({}),
    )
    .await;
    let (_, login) = login_at(&app.http, &other, "zhoushi", "Secret@123").await;
    let token = login["data"]["token"].as_str().unwrap().to_owned();
    assert_eq!(
        get_at(&app.http, &other, "/api/v1/me", Some(&token))
            .await
            .0,
        200
    );

    let started = Instant::now();
    let (status, _) = app
        .post(
            &format!("/api/v1/system/users/{user_id}/status"),
            Some(&admin),
            json!({ "status": 2 }),
        )
        .await;
    assert_eq!(status, 200);
    let refused = eventually(Duration::from_secs(8), async || {
        get_at(&app.http, &other, "/api/v1/me", Some(&token))
            .await
            .0
            == 401
    })
    .await;
    assert!(refused, "the other gateway still serves the disabled user");
    assert!(
        started.elapsed() < Duration::from_secs(9),
        "faster than the 10 s cache: {:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn the_enterprise_lists_shape_flags_and_permissions() {
    let app = spawn_app().await;
    app.sql(
        "insert into org.enterprise_list_entry (list_type, enterprise_id) \
         select t, id from org.enterprise, unnest(array[1, 3, 5]) t where code = 'DEMO-LOGISTICS'",
    )
    .await;
    let token = app.token("demo").await;
    let (_, me) = app.get("/api/v1/me", Some(&token)).await;
    let flags = &me["data"]["flags"];
    assert_eq!(
        (
            flags["isWhiteList"].as_bool(),
            flags["isMt"].as_bool(),
            flags["isB2B"].as_bool(),
            flags["isSF"].as_bool()
        ),
        (Some(true), Some(true), Some(false), Some(false)),
        "{flags}"
    );
    assert_eq!(flags["inLockCarList"], true);
    let values = me["data"]["permissions"].to_string();
    // White-listed mt (rule 1) loses page pay and reconciliation; keeps bill recovery.
    assert!(!values.contains("oss:bill:pagepay") && !values.contains("oss:bill:reconciliation"));
    assert!(values.contains("b2b:bill:recover") && values.contains("as:lockcar"));
    // Enterprise B is on no list: b2b, and the non-empty lock-car list leaves it out.
    let (_, me_b) = app.get("/api/v1/me", Some(&app.token("demo2").await)).await;
    assert_eq!(me_b["data"]["flags"]["isB2B"], true);
    assert_eq!(me_b["data"]["flags"]["inLockCarList"], false);
    assert!(
        !me_b["data"]["permissions"]
            .to_string()
            .contains("as:lockcar")
    );
    let (_, ent) = app.get("/api/v1/enterprise", Some(&token)).await;
    assert_eq!(ent["code"], 200);
}

//! What 停用 and 删除 mean for organisations, and how members are added:
//! the root cannot be disabled or deleted, members of a disabled organisation
//! are refused until it is enabled again, only an empty organisation can be
//! deleted, names are unique under one parent; a person who already has an
//! account is linked, never duplicated, and nothing stays behind when adding
//! fails.

use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn_app};

const ORG_DISABLED: &str =
    "您所在的组织已停用，暂时无法使用该企业，请联系管理员启用组织或调整您的所属组织";

fn field(body: &Value) -> &str {
    body["data"]["fields"][0]["field"].as_str().unwrap_or("")
}

async fn set_status(app: &TestApp, admin: &str, org: &str, status: i32) -> (u16, Value) {
    app.post(
        &format!("/api/v1/system/orgs/{org}/status"),
        Some(admin),
        json!({ "status": status }),
    )
    .await
}

async fn role_id(app: &TestApp, name: &str) -> String {
    app.sql_text(&format!(
        "select r.id::text from org.role r join org.enterprise e on e.id = r.enterprise_id \
         where e.code = 'DEMO-LOGISTICS' and r.name = '{name}'"
    ))
    .await
}

#[tokio::test]
async fn the_root_organisation_is_the_enterprise_and_cannot_be_disabled_or_deleted() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    let root = app.org_a("A00").await;
    let (status, body) = set_status(&app, &admin, &root, 2).await;
    assert_eq!(
        (status, body["code"].as_u64(), body["msg"].as_str()),
        (409, Some(4009), Some("根组织即企业本身，不能停用")),
        "{body}"
    );
    let (status, body) = app
        .send(
            "DELETE",
            &format!("/api/v1/system/orgs/{root}"),
            Some(&admin),
            Value::Null,
        )
        .await;
    assert_eq!(
        (status, body["msg"].as_str()),
        (409, Some("根组织即企业本身，不能删除"))
    );
    let disabled = app
        .count("select count(*) from org.org_unit where status = 2")
        .await;
    assert_eq!(disabled, 0, "nothing was disabled");
}

#[tokio::test]
async fn members_of_a_disabled_organisation_are_refused_until_it_is_enabled_again() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    let ops = app.token("demo_ops").await;
    let east = app.org_a("A01").await;
    let (status, _) = app.get("/api/v1/me", Some(&ops)).await;
    assert_eq!(status, 200);

    // demo_ops works in Shanghai, below the east region.
    let (status, body) = set_status(&app, &admin, &east, 2).await;
    assert_eq!(
        (status, body["data"]["status"].as_i64()),
        (200, Some(2)),
        "{body}"
    );
    let (status, body) = app.get("/api/v1/me", Some(&ops)).await;
    assert_eq!(
        (status, body["code"].as_u64(), body["msg"].as_str()),
        (401, Some(1001), Some(ORG_DISABLED)),
        "the next request is refused: {body}"
    );
    let (status, login) = app.login("demo_ops", crate::helpers::PASSWORD).await;
    if status == 200 {
        let token = login["data"]["token"].as_str().unwrap();
        let (status, body) = app.get("/api/v1/me", Some(token)).await;
        assert_eq!((status, body["msg"].as_str()), (401, Some(ORG_DISABLED)));
    }
    // The administrator in the root is untouched.
    let (status, _) = app.get("/api/v1/me", Some(&admin)).await;
    assert_eq!(status, 200);

    // Enabling brings the whole subtree back, and its members with it.
    let (status, _) = set_status(&app, &admin, &east, 1).await;
    assert_eq!(status, 200);
    let shanghai = app.org_a("A0101").await;
    let back = app
        .count(&format!(
            "select count(*) from org.org_unit where status = 1 and id = '{shanghai}'"
        ))
        .await;
    assert_eq!(back, 1);
    let ops = app.token("demo_ops").await;
    let (status, body) = app.get("/api/v1/me", Some(&ops)).await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn only_an_empty_organisation_can_be_deleted() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    let east = app.org_a("A01").await;
    let shanghai = app.org_a("A0101").await;
    let (status, created) = app
        .post(
            "/api/v1/system/orgs",
            Some(&admin),
            json!({ "parentId": east, "orgCode": "A0199", "name": "临时组织" }),
        )
        .await;
    assert_eq!(status, 200, "{created}");
    let id = created["data"]["id"].as_str().unwrap().to_owned();

    let delete = |org: String| {
        let app = &app;
        let admin = admin.clone();
        async move {
            app.send(
                "DELETE",
                &format!("/api/v1/system/orgs/{org}"),
                Some(&admin),
                Value::Null,
            )
            .await
        }
    };
    let (status, body) = delete(east.clone()).await;
    assert_eq!(
        (status, body["msg"].as_str()),
        (409, Some("该组织下还有下级组织，请先删除或移走下级组织")),
        "{body}"
    );
    let (status, body) = delete(shanghai.clone()).await;
    assert_eq!(status, 409, "{body}");
    assert!(body["msg"].as_str().unwrap().contains("名成员"), "{body}");
    let (status, body) = delete(id.clone()).await;
    assert_eq!(status, 200, "{body}");
    let left = app
        .count(&format!(
            "select count(*) from org.org_unit where id = '{id}'"
        ))
        .await;
    assert_eq!(left, 0);
    let (status, body) = delete(id).await;
    assert_eq!((status, body["code"].as_u64()), (404, Some(4004)));
}

#[tokio::test]
async fn two_organisations_under_one_parent_cannot_share_a_name() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    let (root, east, south) = (
        app.org_a("A00").await,
        app.org_a("A01").await,
        app.org_a("A02").await,
    );
    let create = |parent: String, code: &'static str, name: &'static str| {
        let app = &app;
        let admin = admin.clone();
        async move {
            app.post(
                "/api/v1/system/orgs",
                Some(&admin),
                json!({ "parentId": parent, "orgCode": code, "name": name }),
            )
            .await
        }
    };
    let (status, body) = create(root.clone(), "A05", "华东大区").await;
    assert_eq!(
        (status, body["code"].as_u64(), body["msg"].as_str()),
        (409, Some(4009), Some("同一上级组织下已有同名组织")),
        "{body}"
    );
    // The same name under another parent is fine.
    let (status, _) = create(east.clone(), "A0103", "苏州运营中心").await;
    assert_eq!(status, 200);
    let (status, _) = create(south.clone(), "A0203", "苏州运营中心").await;
    assert_eq!(status, 200);
    // Renaming onto a sibling's name is refused too.
    let (status, body) = app
        .send(
            "PUT",
            &format!("/api/v1/system/orgs/{south}"),
            Some(&admin),
            json!({ "orgCode": "A02", "name": "华东大区" }),
        )
        .await;
    assert_eq!(
        (status, body["msg"].as_str()),
        (409, Some("同一上级组织下已有同名组织")),
        "{body}"
    );
}

#[tokio::test]
async fn adding_a_person_who_already_has_an_account_links_them_to_the_enterprise() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    let east = app.org_a("A01").await;
    let ops_role = role_id(&app, "车辆运营").await;
    // demo2 works for the other demo enterprise; enterprise A adds them by phone.
    let (status, body) = app
        .post(
            "/api/v1/system/users",
            Some(&admin),
            json!({ "name": "冷链借调", "userName": "lenglian_a", "phone": "13800000003",
                    "orgId": east, "roleIds": [ops_role] }),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["linked"], true);
    assert_eq!(
        body["data"]["userName"], "demo2",
        "they keep the account they sign in with"
    );
    let accounts = app
        .count("select count(*) from auth.account where phone = '13800000003'")
        .await;
    assert_eq!(accounts, 1, "no second account");
    // Their next sign-in asks which enterprise (/selectNet).
    let (status, login) = app.login("demo2", crate::helpers::PASSWORD).await;
    assert_eq!(status, 200, "{login}");
    assert_eq!(login["data"]["sessionKind"], "personal");
    let personal = login["data"]["token"].as_str().unwrap();
    let (_, list) = app.get("/api/v1/auth/enterprises", Some(personal)).await;
    assert_eq!(list["data"].as_array().map(Vec::len), Some(2), "{list}");

    // Adding them again is a conflict, and leaves nothing behind.
    let (status, body) = app
        .post(
            "/api/v1/system/users",
            Some(&admin),
            json!({ "name": "冷链借调", "userName": "demo2", "phone": "13800000003",
                    "orgId": east, "roleIds": [ops_role] }),
        )
        .await;
    assert_eq!(
        (status, body["msg"].as_str()),
        (409, Some("该人员已是本企业成员")),
        "{body}"
    );

    // Name of one person, phone of another: refused, nothing created.
    let (status, body) = app
        .post(
            "/api/v1/system/users",
            Some(&admin),
            json!({ "name": "混淆", "userName": "demo_multi", "phone": "13800000003",
                    "orgId": east, "roleIds": [ops_role] }),
        )
        .await;
    assert_eq!((status, body["code"].as_u64()), (409, Some(4009)), "{body}");
}

#[tokio::test]
async fn a_member_that_cannot_be_added_leaves_no_account_behind() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    let east = app.org_a("A01").await;
    let ops_role = role_id(&app, "车辆运营").await;
    // A member already answers to the name "ghost" here (their account is named otherwise).
    app.sql("update org.member set user_name = 'ghost' where user_name = 'demo_ops'")
        .await;
    let (status, body) = app
        .post(
            "/api/v1/system/users",
            Some(&admin),
            json!({ "name": "幽灵", "userName": "ghost", "phone": "13900007777",
                    "orgId": east, "roleIds": [ops_role], "password": "Secret@123" }),
        )
        .await;
    assert_eq!(
        (
            status,
            body["msg"].as_str(),
            body["data"]["fields"][0]["field"].as_str()
        ),
        (409, Some("账号已存在"), Some("userName")),
        "{body}"
    );
    let left = app
        .count(
            "select count(*) from auth.account where username = 'ghost' or phone = '13900007777'",
        )
        .await;
    assert_eq!(left, 0, "the account auth created was taken back");
}

#[tokio::test]
async fn users_need_a_role_come_first_when_new_and_can_change_phone() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    let east = app.org_a("A01").await;
    let ops_role = role_id(&app, "车辆运营").await;
    let (status, body) = app
        .post(
            "/api/v1/system/users",
            Some(&admin),
            json!({ "name": "无角色", "userName": "norole", "phone": "13900001111",
                    "orgId": east, "roleIds": [] }),
        )
        .await;
    assert_eq!(
        (status, field(&body), body["msg"].as_str()),
        (400, "roleIds", Some("请至少选择一个角色")),
        "{body}"
    );
    assert_eq!(
        app.count("select count(*) from auth.account where username = 'norole'")
            .await,
        0
    );

    let (status, body) = app
        .post(
            "/api/v1/system/users",
            Some(&admin),
            json!({ "name": "新同事", "userName": "newbie", "phone": "13900001112",
                    "orgId": east, "roleIds": [ops_role], "password": "Secret@123" }),
        )
        .await;
    assert_eq!(
        (status, body["data"]["linked"].as_bool()),
        (200, Some(false)),
        "{body}"
    );
    let id = body["data"]["id"].as_str().unwrap().to_owned();
    let (_, list) = app.get("/api/v1/system/users", Some(&admin)).await;
    assert_eq!(list["data"]["list"][0]["id"], id.as_str(), "newest first");

    // The administrator changes the phone: the sign-in phone follows.
    let (status, body) = app
        .send(
            "PUT",
            &format!("/api/v1/system/users/{id}"),
            Some(&admin),
            json!({ "name": "新同事", "orgId": east, "roleIds": [ops_role], "phone": "13900001113" }),
        )
        .await;
    assert_eq!(
        (status, body["data"]["phone"].as_str()),
        (200, Some("139****1113")),
        "{body}"
    );
    assert_eq!(
        app.count(
            "select count(*) from auth.account where username = 'newbie' and phone = '13900001113'"
        )
        .await,
        1
    );
    // Another person's phone is refused and changes nothing.
    let (status, body) = app
        .send(
            "PUT",
            &format!("/api/v1/system/users/{id}"),
            Some(&admin),
            json!({ "name": "新同事", "orgId": east, "roleIds": [ops_role], "phone": "13800000001" }),
        )
        .await;
    assert_eq!(
        (status, body["msg"].as_str()),
        (409, Some("手机号已被其他账号使用")),
        "{body}"
    );
    assert_eq!(
        app.count(
            "select count(*) from org.member where user_name = 'newbie' and phone = '13900001113'"
        )
        .await,
        1
    );
}

#[tokio::test]
async fn a_role_without_any_function_permission_cannot_be_saved() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    let (status, body) = app
        .post(
            "/api/v1/system/roles",
            Some(&admin),
            json!({ "name": "空角色", "permissionValues": [], "dataScope": 5 }),
        )
        .await;
    assert_eq!(
        (status, field(&body), body["msg"].as_str()),
        (400, "permissionValues", Some("请至少选择一项功能权限")),
        "{body}"
    );
}

//! Drivers over the whole stack: masked answers, the audited reveal, field
//! errors and conflicts in Chinese, Idempotency-Key, the operation log of an
//! edit, and another tenant on every driver route.

use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn_app};

/// The root organisation of the caller's enterprise.
pub async fn root_org(app: &TestApp, token: &str) -> String {
    let (status, orgs) = app.get("/api/v1/system/orgs", Some(token)).await;
    assert_eq!(status, 200, "{orgs}");
    orgs["data"][0]["id"].as_str().unwrap().to_owned()
}

fn driver_form(org: &str, phone: &str, id_number: &str) -> Value {
    json!({
        "orgId": org, "name": "张伟", "phone": phone, "idNumber": id_number,
        "licenceClass": "C1", "licenceFirstIssueTime": "2012-05-01",
        "licenceExpireTime": "2027-05-01", "address": "广东省深圳市南山区科技园南区8栋",
        "employeeNo": "SJ001"
    })
}

async fn create_with_key(app: &TestApp, token: &str, key: &str, form: &Value) -> (u16, Value) {
    let response = app
        .http
        .post(format!("{}/api/v1/drivers", app.base))
        .header("token", token)
        .header("Idempotency-Key", key)
        .json(form)
        .send()
        .await
        .unwrap();
    crate::helpers::envelope(response).await
}

#[tokio::test]
async fn a_created_driver_answers_masked_and_a_reveal_writes_the_audit() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    let org = root_org(&app, &admin).await;
    let (status, created) = app
        .post(
            "/api/v1/drivers",
            Some(&admin),
            driver_form(&org, "13812345678", "11010519491231002X"),
        )
        .await;
    assert_eq!(status, 200, "{created}");
    let driver = &created["data"];
    assert_eq!(driver["phone"], "138****5678");
    assert_eq!(driver["idNumber"], "110***********002X");
    assert_eq!(driver["address"], "广东省深圳市南山区*******");
    assert_eq!(driver["licenceClass"], "C1");
    assert_eq!(driver["status"], "ACTIVE");
    let id = driver["id"].as_str().unwrap().to_owned();

    let (status, detail) = app
        .get(&format!("/api/v1/drivers/{id}"), Some(&admin))
        .await;
    assert_eq!(status, 200, "{detail}");
    assert_eq!(detail["data"]["phone"], "138****5678");

    let (status, revealed) = app
        .post(
            &format!("/api/v1/drivers/{id}/reveal"),
            Some(&admin),
            json!({ "sensitiveType": 1, "pageUrl": "/carManagement/assetsData/driverManagement" }),
        )
        .await;
    assert_eq!(status, 200, "{revealed}");
    assert_eq!(revealed["data"]["value"], "13812345678");
    assert_eq!(revealed["data"]["needsConfirmation"], false);
    let log_id = revealed["data"]["logId"].as_str().unwrap();
    let content = app
        .sql_text(&format!(
            "select log_content from org.sensitive_view_log where id = '{log_id}' \
             and subject_kind = 4 and subject_id = '{id}' and sensitive_type = 1"
        ))
        .await;
    assert_eq!(content, "查看手机号：138****5678");

    // The address reveals too; a type a driver does not have is refused and not audited.
    let (status, address) = app
        .post(
            &format!("/api/v1/drivers/{id}/reveal"),
            Some(&admin),
            json!({ "sensitiveType": 8 }),
        )
        .await;
    assert_eq!(status, 200, "{address}");
    assert_eq!(address["data"]["value"], "广东省深圳市南山区科技园南区8栋");
    let (status, bank) = app
        .post(
            &format!("/api/v1/drivers/{id}/reveal"),
            Some(&admin),
            json!({ "sensitiveType": 3 }),
        )
        .await;
    assert_eq!(status, 400, "{bank}");
    let audited = app
        .count(&format!(
            "select count(*) from org.sensitive_view_log where subject_id = '{id}'"
        ))
        .await;
    assert_eq!(audited, 2);
}

#[tokio::test]
async fn bad_and_taken_phones_and_id_numbers_are_refused_naming_the_field() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    let org = root_org(&app, &admin).await;
    let (status, bad) = app
        .post(
            "/api/v1/drivers",
            Some(&admin),
            driver_form(&org, "2381234567", "110105194912310021"),
        )
        .await;
    assert_eq!(status, 400, "{bad}");
    assert_eq!(bad["code"], 4000);
    let fields: Vec<&str> = bad["data"]["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["phone", "idNumber"], "{bad}");
    assert_eq!(bad["data"]["fields"][0]["message"], "请输入正确的手机号");

    let (status, _) = app
        .post(
            "/api/v1/drivers",
            Some(&admin),
            driver_form(&org, "13812345678", "11010519491231002X"),
        )
        .await;
    assert_eq!(status, 200);
    let (status, taken) = app
        .post(
            "/api/v1/drivers",
            Some(&admin),
            driver_form(&org, "13812345678", "44030519900101123X"),
        )
        .await;
    assert_eq!(status, 409, "{taken}");
    assert_eq!(taken["code"], 4009);
    assert_eq!(taken["msg"], "该手机号已被其他司机使用");
    assert_eq!(app.count("select count(*) from vehicle.driver").await, 1);
}

#[tokio::test]
async fn an_idempotency_key_replay_creates_one_driver_and_another_body_is_4009() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    let org = root_org(&app, &admin).await;
    let form = driver_form(&org, "13812345678", "11010519491231002X");
    let (status, first) = create_with_key(&app, &admin, "drv-key-1", &form).await;
    assert_eq!(status, 200, "{first}");
    let (status, again) = create_with_key(&app, &admin, "drv-key-1", &form).await;
    assert_eq!(status, 200, "{again}");
    assert_eq!(again["data"]["id"], first["data"]["id"]);
    let mut other = form.clone();
    other["name"] = json!("李强");
    let (status, reused) = create_with_key(&app, &admin, "drv-key-1", &other).await;
    assert_eq!(status, 409, "{reused}");
    assert_eq!(app.count("select count(*) from vehicle.driver").await, 1);
}

#[tokio::test]
async fn an_edit_keeps_the_masked_values_and_its_operation_log_names_each_change() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    let org = root_org(&app, &admin).await;
    let (_, created) = app
        .post(
            "/api/v1/drivers",
            Some(&admin),
            driver_form(&org, "13812345678", "11010519491231002X"),
        )
        .await;
    let id = created["data"]["id"].as_str().unwrap().to_owned();
    // The console sends back no phone, ID number or address: the stored ones stay.
    let mut edit = driver_form(&org, "", "");
    edit["address"] = json!("");
    edit["name"] = json!("张伟明");
    edit["licenceClass"] = json!("B2");
    let (status, updated) = app
        .send("PUT", &format!("/api/v1/drivers/{id}"), Some(&admin), edit)
        .await;
    assert_eq!(status, 200, "{updated}");
    assert_eq!(updated["data"]["phone"], "138****5678");
    assert_eq!(updated["data"]["name"], "张伟明");

    let (status, logs) = app
        .get(
            &format!(
                "/api/v1/operation-logs?businessType=DRIVER&businessId={id}&pageNum=1&pageSize=10"
            ),
            Some(&admin),
        )
        .await;
    assert_eq!(status, 200, "{logs}");
    assert_eq!(logs["data"]["totalNum"], 2);
    let newest = &logs["data"]["list"][0];
    assert_eq!(
        newest["remark"],
        "司机姓名：由「张伟」改为「张伟明」；准驾车型：由「C1」改为「B2」"
    );
    assert_eq!(newest["operName"], "演示管理员");
    assert!(!newest["operTime"].as_str().unwrap().is_empty());
    assert_eq!(logs["data"]["list"][1]["remark"], "新增司机：张伟");

    // Filters: part of the name, licence expiring before a date.
    let (_, found) = app.get("/api/v1/drivers?name=伟明", Some(&admin)).await;
    assert_eq!(found["data"]["total"], 1, "{found}");
    let (_, none) = app
        .get(
            "/api/v1/drivers?licenceExpireTimeEnd=2026-01-01",
            Some(&admin),
        )
        .await;
    assert_eq!(none["data"]["total"], 0, "{none}");
    let (_, soon) = app
        .get(
            "/api/v1/drivers?licenceExpireTimeEnd=2027-12-31",
            Some(&admin),
        )
        .await;
    assert_eq!(soon["data"]["total"], 1, "{soon}");
}

#[tokio::test]
async fn tenant_b_sees_none_of_a_s_drivers_and_changes_nothing() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    let org = root_org(&app, &admin).await;
    let (_, created) = app
        .post(
            "/api/v1/drivers",
            Some(&admin),
            driver_form(&org, "13812345678", "11010519491231002X"),
        )
        .await;
    let id = created["data"]["id"].as_str().unwrap().to_owned();
    let other = app.token("demo2").await;
    let other_org = root_org(&app, &other).await;

    let (status, list) = app.get("/api/v1/drivers", Some(&other)).await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["data"]["total"], 0);
    for (method, path, body) in [
        ("GET", format!("/api/v1/drivers/{id}"), json!({})),
        (
            "PUT",
            format!("/api/v1/drivers/{id}"),
            driver_form(&other_org, "13900000009", ""),
        ),
        (
            "POST",
            format!("/api/v1/drivers/{id}/reveal"),
            json!({ "sensitiveType": 1 }),
        ),
        (
            "GET",
            format!("/api/v1/operation-logs?businessType=DRIVER&businessId={id}"),
            json!({}),
        ),
    ] {
        let (status, answer) = app.send(method, &path, Some(&other), body).await;
        assert_eq!(status, 404, "{method} {path}: {answer}");
        assert_eq!(answer["code"], 4004);
    }
    assert_eq!(
        app.sql_text(&format!(
            "select name from vehicle.driver where id = '{id}'"
        ))
        .await,
        "张伟"
    );
    assert_eq!(
        app.count(&format!(
            "select count(*) from org.sensitive_view_log where subject_id = '{id}'"
        ))
        .await,
        0
    );
}

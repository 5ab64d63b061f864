//! Usage records over the whole stack: at most one open record per vehicle
//! (4009), the state machine (pending → active → ended, ended is final), the
//! lists per kind, the operation log, another tenant on every route, and the
//! demo seed's idempotence.

use serde_json::{Value, json};

use crate::drivers::root_org;
use crate::helpers::{TestApp, common_config, spawn_app};

/// A vehicle of the caller's enterprise, made through the vehicle API.
async fn vehicle(app: &TestApp, token: &str, org: &str, plate: &str, vin: &str) -> String {
    let form = json!({
        "orgId": org, "plateNumber": plate, "vin": vin, "brand": "比亚迪", "model": "比亚迪T5",
        "category": "LIGHT_TRUCK", "energyType": "BATTERY_ELECTRIC", "ownershipType": "RENTED",
        "status": "IN_SERVICE", "batteryCapacityWh": 81140, "ratedRangeKm": 260,
        "registerTime": "2025-06-01", "licenceOwner": "演示物流有限公司"
    });
    let (status, created) = app.post("/api/v1/vehicles", Some(token), form).await;
    assert_eq!(status, 200, "{created}");
    created["data"]["id"].as_str().unwrap().to_owned()
}

fn rent(vehicle: &str, contract: &str, start: &str, end: &str) -> Value {
    json!({
        "vehicleId": vehicle, "contractNo": contract, "counterparty": "地上铁租车（深圳）有限公司",
        "startTime": start, "endTime": end,
        "rent": { "monthlyRentFen": 450000, "depositFen": 900000, "termMonths": 12, "paymentDay": 10 }
    })
}

#[tokio::test]
async fn a_vehicle_holds_one_open_record_and_an_ended_record_never_changes() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    let org = root_org(&app, &admin).await;
    let car = vehicle(&app, &admin, &org, "粤BD10001", "LGXCE4CB9P0123456").await;

    let (status, first) = app
        .post(
            "/api/v1/usage-records",
            Some(&admin),
            rent(&car, "ZL-2026-001", "2026-01-01", "2027-01-01"),
        )
        .await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["data"]["status"], "ACTIVE");
    assert_eq!(first["data"]["kind"], "RENT");
    assert_eq!(first["data"]["plateNumber"], "粤BD10001");
    assert_eq!(first["data"]["rent"]["monthlyRentFen"], 450000);
    let id = first["data"]["id"].as_str().unwrap().to_owned();

    let (status, second) = app
        .post(
            "/api/v1/usage-records",
            Some(&admin),
            rent(&car, "ZL-2026-002", "2026-02-01", "2027-02-01"),
        )
        .await;
    assert_eq!(status, 409, "{second}");
    assert_eq!(second["code"], 4009);
    assert_eq!(
        second["msg"],
        "该车辆已有未结束的使用记录，请先结束后再新增"
    );

    let (status, vehicle_detail) = app
        .get(&format!("/api/v1/vehicles/{car}"), Some(&admin))
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        vehicle_detail["data"]["usageKind"], "RENT",
        "{vehicle_detail}"
    );

    let (status, ended) = app
        .post(
            &format!("/api/v1/usage-records/{id}/end"),
            Some(&admin),
            json!({ "remark": "到期还车" }),
        )
        .await;
    assert_eq!(status, 200, "{ended}");
    assert_eq!(ended["data"]["status"], "ENDED");
    assert!(
        !ended["data"]["rent"]["returnTime"]
            .as_str()
            .unwrap()
            .is_empty()
    );
    let (status, again) = app
        .post(
            &format!("/api/v1/usage-records/{id}/end"),
            Some(&admin),
            json!({}),
        )
        .await;
    assert_eq!(status, 409, "{again}");
    let (status, edit) = app
        .send(
            "PUT",
            &format!("/api/v1/usage-records/{id}"),
            Some(&admin),
            rent(&car, "ZL-2026-001-改", "2026-01-01", "2027-01-01"),
        )
        .await;
    assert_eq!(status, 409, "{edit}");
    assert_eq!(edit["msg"], "该使用记录已结束，不能修改");

    // Once the first ended, the vehicle takes a new record.
    let (status, next) = app
        .post(
            "/api/v1/usage-records",
            Some(&admin),
            rent(&car, "ZL-2026-002", "2026-02-01", "2027-02-01"),
        )
        .await;
    assert_eq!(status, 200, "{next}");

    // Create and end are in the record's log, newest first.
    let (_, logs) = app
        .get(
            &format!("/api/v1/operation-logs?businessType=USAGE_RECORD&businessId={id}"),
            Some(&admin),
        )
        .await;
    assert_eq!(logs["data"]["totalNum"], 2, "{logs}");
    assert!(
        logs["data"]["list"][0]["remark"]
            .as_str()
            .unwrap()
            .starts_with("结束租赁记录")
    );
    assert_eq!(
        logs["data"]["list"][1]["remark"],
        "新增租赁记录：合同编号 ZL-2026-001，使用中"
    );
}

#[tokio::test]
async fn a_future_record_is_pending_an_edit_is_logged_and_lists_filter_by_kind_and_state() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    let org = root_org(&app, &admin).await;
    let car = vehicle(&app, &admin, &org, "沪AD20002", "LGXCE4CB0P0654321").await;
    let (status, created) = app
        .post(
            "/api/v1/usage-records",
            Some(&admin),
            rent(&car, "ZL-2030-001", "2030-01-01", "2031-01-01"),
        )
        .await;
    assert_eq!(status, 200, "{created}");
    assert_eq!(created["data"]["status"], "PENDING");
    let id = created["data"]["id"].as_str().unwrap().to_owned();

    let mut edit = rent(&car, "ZL-2030-001", "2030-01-01", "2031-01-01");
    edit["rent"]["monthlyRentFen"] = json!(460050);
    let (status, edited) = app
        .send(
            "PUT",
            &format!("/api/v1/usage-records/{id}"),
            Some(&admin),
            edit,
        )
        .await;
    assert_eq!(status, 200, "{edited}");
    let (_, logs) = app
        .get(
            &format!("/api/v1/operation-logs?businessType=USAGE_RECORD&businessId={id}"),
            Some(&admin),
        )
        .await;
    assert_eq!(
        logs["data"]["list"][0]["remark"],
        "月租金：由「4500.00元」改为「4600.50元」"
    );

    // The kind of a record cannot change.
    let purchase = json!({
        "vehicleId": car, "contractNo": "GC-1", "startTime": "2030-01-01",
        "purchase": { "priceFen": 21800000 }
    });
    let (status, refused) = app
        .send(
            "PUT",
            &format!("/api/v1/usage-records/{id}"),
            Some(&admin),
            purchase,
        )
        .await;
    assert_eq!(status, 400, "{refused}");

    for (query, total) in [
        ("kind=RENT&status=PENDING", 1),
        ("kind=RENT&status=ACTIVE", 0),
        ("kind=PURCHASE", 0),
        ("contractNo=2030", 1),
        ("plate=沪AD20002&plate=粤BD99999", 1),
        ("periodStart=2029-01-01&periodEnd=2029-12-31", 0),
        ("periodStart=2030-06-01&periodEnd=2030-06-30", 1),
    ] {
        let (status, list) = app
            .get(&format!("/api/v1/usage-records?{query}"), Some(&admin))
            .await;
        assert_eq!(status, 200, "{query}: {list}");
        assert_eq!(list["data"]["total"], total, "{query}: {list}");
    }
    // A record that never started may be called off.
    let (status, ended) = app
        .post(
            &format!("/api/v1/usage-records/{id}/end"),
            Some(&admin),
            json!({}),
        )
        .await;
    assert_eq!(status, 200, "{ended}");
    assert_eq!(ended["data"]["status"], "ENDED");
}

#[tokio::test]
async fn tenant_b_sees_none_of_a_s_usage_records_and_changes_nothing() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    let org = root_org(&app, &admin).await;
    let car = vehicle(&app, &admin, &org, "粤BD30003", "LGXCE4CB0P0777777").await;
    let (_, created) = app
        .post(
            "/api/v1/usage-records",
            Some(&admin),
            rent(&car, "ZL-2026-009", "2026-01-01", "2027-01-01"),
        )
        .await;
    let id = created["data"]["id"].as_str().unwrap().to_owned();
    let other = app.token("demo2").await;

    let (status, list) = app.get("/api/v1/usage-records", Some(&other)).await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["data"]["total"], 0);
    for (method, path, body) in [
        ("GET", format!("/api/v1/usage-records/{id}"), json!({})),
        (
            "PUT",
            format!("/api/v1/usage-records/{id}"),
            rent(&car, "X", "2026-01-01", "2027-01-01"),
        ),
        ("POST", format!("/api/v1/usage-records/{id}/end"), json!({})),
        (
            "GET",
            format!("/api/v1/operation-logs?businessType=USAGE_RECORD&businessId={id}"),
            json!({}),
        ),
        (
            "GET",
            format!("/api/v1/operation-logs?businessType=VEHICLE&businessId={car}"),
            json!({}),
        ),
    ] {
        let (status, answer) = app.send(method, &path, Some(&other), body).await;
        assert_eq!(status, 404, "{method} {path}: {answer}");
    }
    // Nor can B open a record on A's vehicle.
    let (status, refused) = app
        .post(
            "/api/v1/usage-records",
            Some(&other),
            rent(&car, "ZL-B-1", "2026-01-01", "2027-01-01"),
        )
        .await;
    assert_eq!(status, 400, "{refused}");
    assert_eq!(refused["data"]["fields"][0]["field"], "vehicleId");
    assert_eq!(
        app.sql_text(&format!(
            "select contract_no from vehicle.usage_record where id = '{id}'"
        ))
        .await,
        "ZL-2026-009"
    );
    assert_eq!(
        app.count("select count(*) from vehicle.usage_record where state = 2")
            .await,
        1
    );
}

#[tokio::test]
async fn the_demo_vehicle_seed_is_idempotent_and_keeps_one_open_record_per_vehicle() {
    let app = spawn_app().await;
    let common = common_config(&app.db);
    fleetdesk_seed::vehicles(&common).await.expect("seed");
    fleetdesk_seed::vehicles(&common).await.expect("seed again");
    assert_eq!(
        app.count("select count(*) from vehicle.vehicle").await,
        2000
    );
    assert_eq!(app.count("select count(*) from vehicle.driver").await, 1200);
    let open_per_vehicle = app
        .count(
            "select count(*) from (select vehicle_id from vehicle.usage_record \
             where state in (1, 2) group by vehicle_id having count(*) > 1) twice",
        )
        .await;
    assert_eq!(open_per_vehicle, 0);
    // Every open record is copied onto its vehicle, and the demo admin lists them.
    assert_eq!(
        app.count("select count(*) from vehicle.vehicle where usage_kind is not null")
            .await,
        app.count("select count(*) from vehicle.usage_record where state in (1, 2)")
            .await
    );
    let admin = app.token("demo").await;
    let (status, drivers) = app.get("/api/v1/drivers?size=5", Some(&admin)).await;
    assert_eq!(status, 200, "{drivers}");
    assert_eq!(drivers["data"]["total"], 1200);
    assert!(
        drivers["data"]["list"][0]["phone"]
            .as_str()
            .unwrap()
            .contains("****")
    );
    let (_, rents) = app
        .get("/api/v1/usage-records?kind=RENT&size=5", Some(&admin))
        .await;
    assert!(rents["data"]["total"].as_i64().unwrap() > 500, "{rents}");
}

//! Exports of every vehicle-assets list over the whole stack: `POST
//! .../export` with the list's query answers the record at once, the job runs
//! in the vehicle service's worker, and the xlsx (read back with calamine)
//! has the header and exactly the rows the list's filters and the
//! requester's data scope select, personal data masked and money in yuan.

use std::time::Duration;

use serde_json::{Value, json};

use crate::helpers::{TestApp, eventually, spawn_app};
use crate::vehicle_imports::{
    DRIVER_HEADER, VEHICLE_HEADER, driver_row, id_number, import, nth_vehicle, replica_ready,
    sheet_rows, workbook,
};
use crate::vehicles::vin;

/// Starts the export at `path` (the list's query included) and answers the
/// file's rows once its record is done, checking the record on the way.
async fn exported(app: &TestApp, token: &str, path: &str, name: &str) -> Vec<Vec<String>> {
    exported_record(app, token, path, name).await.1
}

/// [`exported`] with the export record's id.
async fn exported_record(
    app: &TestApp,
    token: &str,
    path: &str,
    name: &str,
) -> (String, Vec<Vec<String>>) {
    let (status, body) = app.post(path, Some(token), json!({})).await;
    assert_eq!(status, 200, "{path}: {body}");
    assert_eq!(
        body["msg"],
        "导出结果请到右上方个人信息下【导出记录】中查看下载结果"
    );
    assert_eq!(body["data"]["status"], 1, "queued at once: {body}");
    assert_eq!(body["data"]["name"], name, "{body}");
    let id = body["data"]["id"].as_str().unwrap().to_owned();
    let rows = finished_file(app, token, &id).await;
    (id, rows)
}

/// The rows of export `id`'s file once its record is done.
async fn finished_file(app: &TestApp, token: &str, id: &str) -> Vec<Vec<String>> {
    let mut last = Value::Null;
    let done = eventually(Duration::from_secs(20), async || {
        let (code, record) = app
            .get(&format!("/api/v1/export-records/{id}"), Some(token))
            .await;
        last = record["data"].clone();
        code == 200 && last["status"] == 3
    })
    .await;
    assert!(done, "{id}: the export never finished: {last}");
    let (status, link) = app
        .get(&format!("/api/v1/export-records/{id}/file"), Some(token))
        .await;
    assert_eq!(status, 200, "{link}");
    let bytes = app
        .http
        .get(format!(
            "{}{}",
            app.base,
            link["data"]["url"].as_str().unwrap()
        ))
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let rows = sheet_rows(&bytes);
    assert_eq!(
        last["rowCount"].as_u64().unwrap() as usize,
        rows.len() - 1,
        "{id}: the record counts the file's rows"
    );
    rows
}

/// The cell of `title` in `row` under `header`.
fn cell<'a>(rows: &'a [Vec<String>], row: &'a [String], title: &str) -> &'a str {
    let at = rows[0]
        .iter()
        .position(|t| t == title)
        .unwrap_or_else(|| panic!("no column {title} in {:?}", rows[0]));
    row.get(at).map_or("", String::as_str)
}

/// The data row whose `title` cell is `value`.
fn row_with<'a>(rows: &'a [Vec<String>], title: &str, value: &str) -> &'a [String] {
    rows[1..]
        .iter()
        .find(|r| cell(rows, r, title) == value)
        .unwrap_or_else(|| panic!("no row with {title} = {value} in {rows:?}"))
}

/// The id of the vehicle with `plate`.
async fn vehicle_id(app: &TestApp, token: &str, plate: &str) -> String {
    let (status, found) = app
        .get(
            &format!("/api/v1/vehicles?plate={}", urlencode(plate)),
            Some(token),
        )
        .await;
    assert_eq!(status, 200, "{found}");
    found["data"]["list"][0]["id"].as_str().unwrap().to_owned()
}

fn urlencode(text: &str) -> String {
    serde_urlencoded::to_string([("v", text)]).unwrap()[2..].to_owned()
}

/// Demo enterprise A with two vehicles (and a driver, a usage record, a
/// private car and a terminal binding) under the root, the Shanghai centre
/// (in 华东大区) and 华南大区 each. Answers the plates by organisation code.
async fn assets(app: &TestApp, admin: &str) -> Vec<(&'static str, String)> {
    replica_ready(app).await;
    let orgs = ["A00", "A00", "A0101", "A0101", "A02", "A02"];
    let rows: Vec<Vec<String>> = orgs
        .iter()
        .enumerate()
        .map(|(i, org)| nth_vehicle(i, org))
        .collect();
    let (status, body) = import(
        app,
        admin,
        "/api/v1/vehicles/import",
        workbook(&VEHICLE_HEADER, &rows),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let drivers = vec![
        driver_row("张伟", "13812340001", &id_number(1), "A00"),
        driver_row("李娜", "13812340002", &id_number(2), "A0101"),
        driver_row("王芳", "13812340003", &id_number(3), "A02"),
    ];
    let (status, body) = import(
        app,
        admin,
        "/api/v1/drivers/import",
        workbook(&DRIVER_HEADER, &drivers),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let plates: Vec<(&'static str, String)> = orgs
        .iter()
        .zip(rows)
        .map(|(org, row)| (*org, row[0].clone()))
        .collect();

    // Terminals on one Shanghai and one southern vehicle; the southern one unbound again.
    for (plate, terminal) in [(&plates[2].1, "T-EXP-0001"), (&plates[4].1, "T-EXP-0002")] {
        let id = vehicle_id(app, admin, plate).await;
        let (status, body) = app
            .post(
                &format!("/api/v1/vehicles/{id}/terminal/bind"),
                Some(admin),
                json!({ "terminalId": terminal, "terminalSim": "14400001111" }),
            )
            .await;
        assert_eq!(status, 200, "{body}");
    }
    let south = vehicle_id(app, admin, &plates[4].1).await;
    let (status, body) = app
        .post(
            &format!("/api/v1/vehicles/{south}/terminal/unbind"),
            Some(admin),
            json!({ "remark": "换装" }),
        )
        .await;
    assert_eq!(status, 200, "{body}");

    // A rental of a Shanghai vehicle, a purchase of a southern one.
    let shanghai = vehicle_id(app, admin, &plates[2].1).await;
    let (status, body) = app
        .post(
            "/api/v1/usage-records",
            Some(admin),
            json!({ "vehicleId": shanghai, "contractNo": "ZL-EXP-1", "counterparty": "地上铁",
                    "startTime": "2026-01-01", "endTime": "2027-01-01",
                    "rent": { "monthlyRentFen": 350050, "depositFen": 700000, "termMonths": 12 } }),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = app
        .post(
            "/api/v1/usage-records",
            Some(admin),
            json!({ "vehicleId": south, "contractNo": "GC-EXP-1", "startTime": "2026-01-01",
                    "purchase": { "priceFen": 21800000 } }),
        )
        .await;
    assert_eq!(status, 200, "{body}");

    // Private cars: one in Shanghai (pending), one at the root (rejected).
    for (org, plate, vin_seed) in [
        ("A0101", "浙A66601", "LSVAU2180N2166601"),
        ("A00", "浙A66602", "LSVAU2180N2166602"),
    ] {
        let org_id = app.org_a(org).await;
        let (status, car) = app
            .post(
                "/api/v1/private-cars",
                Some(admin),
                json!({ "orgId": org_id, "plateNumber": plate, "vin": vin(vin_seed),
                        "brand": "大众", "model": "朗逸", "energyType": "FUEL",
                        "ownerName": "张三", "ownerPhone": "13912345678",
                        "allowanceFenPerKm": 85 }),
            )
            .await;
        assert_eq!(status, 200, "{car}");
        if org == "A00" {
            let id = car["data"]["id"].as_str().unwrap();
            let (status, body) = app
                .post(
                    &format!("/api/v1/private-cars/{id}/review"),
                    Some(admin),
                    json!({ "approve": false, "rejectReason": "材料不全" }),
                )
                .await;
            assert_eq!(status, 200, "{body}");
        }
    }
    plates
}

#[tokio::test]
async fn every_vehicle_asset_list_exports_its_filtered_rows_into_an_xlsx() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    let plates = assets(&app, &admin).await;

    // Vehicles: all, a subtree, a batch of plates.
    let all = exported(&app, &admin, "/api/v1/vehicles/export", "车辆档案").await;
    assert_eq!(all.len(), 7, "{all:?}");
    assert_eq!(&all[0][..3], ["车牌号", "车牌颜色", "车架号(VIN)"]);
    let shanghai = row_with(&all, "车牌号", &plates[2].1);
    assert_eq!(cell(&all, shanghai, "所属组织"), "上海运营中心");
    assert_eq!(cell(&all, shanghai, "电池容量(kWh)"), "81.5");
    assert_eq!(cell(&all, shanghai, "能源类型"), "纯电动");
    assert_eq!(cell(&all, shanghai, "使用性质"), "租赁");
    assert_eq!(cell(&all, shanghai, "登记日期"), "2024-01-31");
    assert_eq!(cell(&all, shanghai, "终端号"), "T-EXP-0001");
    assert_eq!(cell(&all, shanghai, "使用类型"), "租赁");
    let east = app.org_a("A01").await;
    let subtree = exported(
        &app,
        &admin,
        &format!("/api/v1/vehicles/export?orgId={east}"),
        "车辆档案",
    )
    .await;
    assert_eq!(subtree.len(), 3, "{subtree:?}");
    let batch = exported(
        &app,
        &admin,
        &format!(
            "/api/v1/vehicles/export?plate={}&plate={}&page=2&size=5",
            urlencode(&plates[0].1),
            urlencode(&plates[5].1)
        ),
        "车辆档案",
    )
    .await;
    assert_eq!(batch.len(), 3, "paging is ignored: {batch:?}");
    // ... but checked as the list checks it: the contract is the list's.
    for bad in ["size=7", "page=0", "page=0.5"] {
        let (status, body) = app
            .post(
                &format!("/api/v1/drivers/export?{bad}"),
                Some(&admin),
                json!({}),
            )
            .await;
        assert_eq!(
            (status, body["code"].as_i64()),
            (400, Some(4000)),
            "{bad}: {body}"
        );
    }
    // The vehicle service runs its own jobs' retry: the same filter, a new file.
    let (id, _) = exported_record(
        &app,
        &admin,
        &format!("/api/v1/vehicles/export?orgId={east}"),
        "车辆档案",
    )
    .await;
    let (status, retried) = app
        .post(
            &format!("/api/v1/export-records/{id}/retry"),
            Some(&admin),
            json!({}),
        )
        .await;
    assert_eq!(status, 200, "{retried}");
    let run_two = eventually(Duration::from_secs(20), async || {
        app.count(&format!(
            "select count(*) from org.export_record where id = '{id}' and run = 2 and status = 3"
        ))
        .await
            == 1
    })
    .await;
    assert!(run_two, "the retry ran and its record followed");
    assert_eq!(finished_file(&app, &admin, &id).await.len(), 3);

    // The binding log: both bindings, then the active one only.
    let bindings = exported(&app, &admin, "/api/v1/vehicle-bindings/export", "绑定记录").await;
    assert_eq!(bindings.len(), 3, "{bindings:?}");
    let ended = row_with(&bindings, "绑定对象", "T-EXP-0002");
    assert_eq!(cell(&bindings, ended, "绑定状态"), "已解绑");
    assert_eq!(cell(&bindings, ended, "绑定人"), "演示管理员");
    let active = exported(
        &app,
        &admin,
        "/api/v1/vehicle-bindings/export?active=true",
        "绑定记录",
    )
    .await;
    assert_eq!(active.len(), 2, "{active:?}");

    // Usage records: every kind with every kind's terms; a kind's own export.
    let usage = exported(&app, &admin, "/api/v1/usage-records/export", "用车记录").await;
    assert_eq!(usage.len(), 3, "{usage:?}");
    assert!(usage[0].iter().any(|t| t == "购车价(元)"));
    let purchase = row_with(&usage, "合同编号", "GC-EXP-1");
    assert_eq!(cell(&usage, purchase, "购车价(元)"), "218000.00");
    assert_eq!(cell(&usage, purchase, "月租金(元)"), "");
    let rent = exported(
        &app,
        &admin,
        "/api/v1/usage-records/export?kind=RENT",
        "租赁记录",
    )
    .await;
    assert_eq!(rent.len(), 2, "{rent:?}");
    assert!(!rent[0].iter().any(|t| t == "购车价(元)"), "{:?}", rent[0]);
    assert_eq!(cell(&rent, &rent[1], "月租金(元)"), "3500.50");
    assert_eq!(cell(&rent, &rent[1], "押金(元)"), "7000.00");
    assert_eq!(cell(&rent, &rent[1], "开始日期"), "2026-01-01");
    assert_eq!(cell(&rent, &rent[1], "记录状态"), "使用中");

    // Private cars: both, then the pending one; the owner's phone masked.
    let cars = exported(&app, &admin, "/api/v1/private-cars/export", "私车公用").await;
    assert_eq!(cars.len(), 3, "{cars:?}");
    let rejected = row_with(&cars, "车牌号", "浙A66602");
    assert_eq!(cell(&cars, rejected, "审核状态"), "已驳回");
    assert_eq!(cell(&cars, rejected, "车主手机号"), "139****5678");
    assert_eq!(cell(&cars, rejected, "每公里补贴(元)"), "0.85");
    let pending = exported(
        &app,
        &admin,
        "/api/v1/private-cars/export?status=PENDING_REVIEW",
        "私车公用",
    )
    .await;
    assert_eq!(pending.len(), 2, "{pending:?}");

    // Drivers: phone, ID number and address masked; a name filter.
    let drivers = exported(&app, &admin, "/api/v1/drivers/export", "司机信息").await;
    assert_eq!(drivers.len(), 4, "{drivers:?}");
    let li = row_with(&drivers, "司机姓名", "李娜");
    assert_eq!(cell(&drivers, li, "手机号"), "138****0002");
    assert_eq!(cell(&drivers, li, "身份证号"), "110***********0024");
    assert_eq!(cell(&drivers, li, "驾驶证有效期"), "2030-05-01");
    assert!(
        !drivers.iter().flatten().any(|c| c == "13812340002"),
        "no unmasked phone in the file"
    );
    let named = exported(
        &app,
        &admin,
        &format!("/api/v1/drivers/export?name={}", urlencode("王")),
        "司机信息",
    )
    .await;
    assert_eq!(named.len(), 2, "{named:?}");

    // A filter the list refuses is refused at once, no job queued.
    let (status, body) = app
        .post(
            "/api/v1/vehicles/export?status=FLYING",
            Some(&admin),
            json!({}),
        )
        .await;
    assert_eq!((status, body["code"].as_i64()), (400, Some(4000)), "{body}");
}

#[tokio::test]
async fn a_user_whose_reach_is_one_subtree_exports_only_its_rows() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    let plates = assets(&app, &admin).await;
    let east = app.org_a("A01").await;
    let (status, role) = app
        .post(
            "/api/v1/system/roles",
            Some(&admin),
            json!({ "name": "华东资产", "permissionValues": ["as:sys:car", "as:sys:car:used", "as:sys:driver"],
                    "dataScope": 3, "dataScopeOrgIds": [east] }),
        )
        .await;
    assert_eq!(status, 200, "{role}");
    let (status, user) = app
        .post(
            "/api/v1/system/users",
            Some(&admin),
            json!({ "name": "华东资产", "userName": "east_exports", "phone": "13900007713",
                    "orgId": east, "roleIds": [role["data"]["id"]], "password": "Secret@123" }),
        )
        .await;
    assert_eq!(status, 200, "{user}");
    let (_, login) = app.login("east_exports", "Secret@123").await;
    let token = login["data"]["token"].as_str().unwrap().to_owned();

    let shanghai: Vec<&String> = plates
        .iter()
        .filter(|(org, _)| *org == "A0101")
        .map(|(_, p)| p)
        .collect();
    let vehicles = exported(&app, &token, "/api/v1/vehicles/export", "车辆档案").await;
    let mut seen: Vec<&String> = vehicles[1..].iter().map(|r| &r[0]).collect();
    seen.sort();
    let mut expected = shanghai.clone();
    expected.sort();
    assert_eq!(seen, expected, "only the subtree's vehicles");
    // Even a filter naming other organisations stays within the reach.
    let root = app.org_a("A00").await;
    let filtered = exported(
        &app,
        &token,
        &format!("/api/v1/vehicles/export?orgId={root}"),
        "车辆档案",
    )
    .await;
    assert_eq!(filtered.len(), 3, "{filtered:?}");

    for (path, name, rows) in [
        ("/api/v1/vehicle-bindings/export", "绑定记录", 1),
        ("/api/v1/usage-records/export", "用车记录", 1),
        ("/api/v1/private-cars/export", "私车公用", 1),
        ("/api/v1/drivers/export", "司机信息", 1),
    ] {
        let file = exported(&app, &token, path, name).await;
        assert_eq!(file.len(), rows + 1, "{path}: {file:?}");
    }

    // Another tenant's exports hold none of A's rows.
    let token_b = app.token("demo2").await;
    let before = app
        .count("select count(*) from vehicle.export_job j join org.enterprise e on e.id = j.enterprise_id where e.code = 'DEMO-LOGISTICS'")
        .await;
    for (path, name) in [
        ("/api/v1/vehicles/export", "车辆档案"),
        ("/api/v1/vehicle-bindings/export", "绑定记录"),
        ("/api/v1/usage-records/export", "用车记录"),
        ("/api/v1/private-cars/export", "私车公用"),
        ("/api/v1/drivers/export", "司机信息"),
    ] {
        let file = exported(&app, &token_b, path, name).await;
        assert_eq!(
            file.len(),
            1,
            "{path}: B's file has the header only: {file:?}"
        );
    }
    assert_eq!(
        app.count("select count(*) from vehicle.export_job j join org.enterprise e on e.id = j.enterprise_id where e.code = 'DEMO-LOGISTICS'")
            .await,
        before,
        "no job of A's was made"
    );
}

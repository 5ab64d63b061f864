//! Vehicle asset files over the whole stack: create, batch search, detail,
//! field errors in Chinese, Idempotency-Key, terminal bindings, private cars,
//! and another tenant on every vehicle route.

use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn_app};

/// The root organisation of the caller's enterprise.
async fn root_org(app: &TestApp, token: &str) -> String {
    let (status, orgs) = app.get("/api/v1/system/orgs", Some(token)).await;
    assert_eq!(status, 200, "{orgs}");
    orgs["data"][0]["id"].as_str().unwrap().to_owned()
}

/// A VIN with a valid check digit from 16 other characters (the 9th is replaced).
pub fn vin(seed: &str) -> String {
    const WEIGHTS: [u32; 17] = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2];
    let value = |c: char| match c {
        '0'..='9' => c.to_digit(10).unwrap(),
        'A' | 'J' => 1,
        'B' | 'K' | 'S' => 2,
        'C' | 'L' | 'T' => 3,
        'D' | 'M' | 'U' => 4,
        'E' | 'N' | 'V' => 5,
        'F' | 'W' => 6,
        'G' | 'P' | 'X' => 7,
        'H' | 'Y' => 8,
        'R' | 'Z' => 9,
        other => panic!("not a VIN character: {other}"),
    };
    let mut chars: Vec<char> = seed.chars().collect();
    assert_eq!(chars.len(), 17, "{seed}");
    chars[8] = '0';
    let sum: u32 = chars.iter().zip(WEIGHTS).map(|(c, w)| value(*c) * w).sum();
    chars[8] = match sum % 11 {
        10 => 'X',
        d => char::from_digit(d, 10).unwrap(),
    };
    chars.into_iter().collect()
}

pub fn vehicle_form(org: &str, plate: &str, vin: &str) -> Value {
    json!({
        "orgId": org, "plateNumber": plate, "vin": vin, "brand": "比亚迪", "model": "T5 EV",
        "category": "LIGHT_TRUCK", "energyType": "BATTERY_ELECTRIC", "ownershipType": "RENTED",
        "status": "IN_SERVICE", "batteryCapacityWh": 81000, "ratedRangeKm": 260,
        "registerTime": "2025-06-01", "licenceOwner": "演示物流有限公司"
    })
}

async fn create(app: &TestApp, token: &str, form: Value) -> (u16, Value) {
    app.post("/api/v1/vehicles", Some(token), form).await
}

async fn create_with_key(app: &TestApp, token: &str, key: &str, form: &Value) -> (u16, Value) {
    let response = app
        .http
        .post(format!("{}/api/v1/vehicles", app.base))
        .header("token", token)
        .header("Idempotency-Key", key)
        .json(form)
        .send()
        .await
        .unwrap();
    crate::helpers::envelope(response).await
}

#[tokio::test]
async fn a_created_vehicle_is_found_by_a_batch_plate_search_and_opens_in_detail() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    let org = root_org(&app, &admin).await;
    let mut form = vehicle_form(&org, "粤bd12345", &vin("LGXCE4CB0P0123456").to_lowercase());
    form["terminalId"] = json!("T-808-0001");
    form["terminalSim"] = json!("14412345678");
    let (status, created) = create(&app, &admin, form).await;
    assert_eq!(status, 200, "{created}");
    let id = created["data"]["id"].as_str().unwrap().to_owned();
    assert_eq!(created["data"]["plateNumber"], "粤BD12345");
    let (status, other) = create(
        &app,
        &admin,
        vehicle_form(&org, "粤B12345", &vin("LGXCE4CB0P0654321")),
    )
    .await;
    assert_eq!(status, 200, "{other}");

    let (status, found) = app
        .get(
            "/api/v1/vehicles?plate=%E7%B2%A4BD12345&plate=%E4%BA%ACA00001&size=10",
            Some(&admin),
        )
        .await;
    assert_eq!(status, 200, "{found}");
    assert_eq!(found["data"]["total"], 1, "{found}");
    assert_eq!(found["data"]["list"][0]["id"], id.as_str());
    let (_, all) = app.get("/api/v1/vehicles", Some(&admin)).await;
    assert_eq!(all["data"]["total"], 2, "{all}");
    let (_, none) = app
        .get("/api/v1/vehicles?status=RETIRED", Some(&admin))
        .await;
    assert_eq!(none["data"]["total"], 0, "{none}");
    let (_, by_keyword) = app
        .get("/api/v1/vehicles?keyword=bd123", Some(&admin))
        .await;
    assert_eq!(by_keyword["data"]["total"], 1, "{by_keyword}");

    // Moving the second vehicle to another organisation keeps the totals
    // (kept by counters when unfiltered) and the organisation filter exact.
    let east = app.org_a("A01").await;
    let other_id = other["data"]["id"].as_str().unwrap();
    let mut moved = vehicle_form(&east, "粤B12345", &vin("LGXCE4CB0P0654321"));
    moved["status"] = json!("IDLE");
    let (status, body) = app
        .send(
            "PUT",
            &format!("/api/v1/vehicles/{other_id}"),
            Some(&admin),
            moved,
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["orgId"], east.as_str());
    let (_, all) = app.get("/api/v1/vehicles", Some(&admin)).await;
    assert_eq!(all["data"]["total"], 2, "{all}");
    let (_, in_east) = app
        .get(&format!("/api/v1/vehicles?orgId={east}"), Some(&admin))
        .await;
    assert_eq!(in_east["data"]["total"], 1, "{in_east}");
    assert_eq!(in_east["data"]["list"][0]["status"], "IDLE");
    let counted = app
        .count("select sum(vehicles)::bigint from vehicle.vehicle_org_count")
        .await;
    assert_eq!(counted, 2);
    // Both changes are in the vehicle's operation log, newest first.
    let (status, logs) = app
        .get(
            &format!("/api/v1/operation-logs?businessType=VEHICLE&businessId={other_id}"),
            Some(&admin),
        )
        .await;
    assert_eq!(status, 200, "{logs}");
    assert_eq!(logs["data"]["totalNum"], 2, "{logs}");
    let edit = logs["data"]["list"][0]["remark"].as_str().unwrap();
    assert!(edit.contains("所属组织：由「"), "{edit}");
    let created = logs["data"]["list"][1]["remark"].as_str().unwrap();
    assert!(created.starts_with("新增车辆 "), "{created}");

    let (status, detail) = app
        .get(&format!("/api/v1/vehicles/{id}"), Some(&admin))
        .await;
    assert_eq!(status, 200, "{detail}");
    let v = &detail["data"];
    assert_eq!(v["vin"], vin("LGXCE4CB0P0123456").as_str());
    assert_eq!(v["energyType"], "BATTERY_ELECTRIC");
    assert_eq!(v["status"], "IN_SERVICE");
    assert_eq!(v["batteryCapacityWh"], 81000);
    assert_eq!(v["terminalId"], "T-808-0001");
    assert_eq!(v["registerTime"], "2025-05-31T16:00:00Z");

    let (_, log) = app
        .get(
            &format!("/api/v1/vehicle-bindings?vehicleId={id}"),
            Some(&admin),
        )
        .await;
    assert_eq!(log["data"]["total"], 1, "{log}");
    let binding = &log["data"]["list"][0];
    assert_eq!(binding["terminalSim"], "14412345678");
    assert_eq!(binding["active"], true);
    assert!(
        !binding["operatorName"].as_str().unwrap().is_empty(),
        "{binding}"
    );
}

#[tokio::test]
async fn a_taken_plate_or_vin_and_a_wrong_check_digit_are_field_errors_in_chinese() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    let org = root_org(&app, &admin).await;
    let first = vin("LFV2A21K0P3000001");
    let (status, body) = create(&app, &admin, vehicle_form(&org, "沪AD00001", &first)).await;
    assert_eq!(status, 200, "{body}");

    let (status, body) = create(
        &app,
        &admin,
        vehicle_form(&org, "沪AD00001", &vin("LFV2A21K0P3000002")),
    )
    .await;
    assert_eq!((status, body["code"].as_u64()), (400, Some(4000)), "{body}");
    assert_eq!(body["data"]["fields"][0]["field"], "plateNumber");
    assert_eq!(body["data"]["fields"][0]["message"], "该车牌号已存在");

    let (status, body) = create(&app, &admin, vehicle_form(&org, "沪AD00002", &first)).await;
    assert_eq!((status, body["code"].as_u64()), (400, Some(4000)), "{body}");
    assert_eq!(body["data"]["fields"][0]["field"], "vin");
    assert_eq!(body["data"]["fields"][0]["message"], "该车架号(VIN)已存在");

    let mut wrong = first.clone().into_bytes();
    wrong[8] = if wrong[8] == b'1' { b'2' } else { b'1' };
    let wrong = String::from_utf8(wrong).unwrap();
    let (status, body) = create(&app, &admin, vehicle_form(&org, "沪AD00003", &wrong)).await;
    assert_eq!((status, body["code"].as_u64()), (400, Some(4000)), "{body}");
    assert_eq!(body["data"]["fields"][0]["field"], "vin");
    assert!(body["msg"].as_str().unwrap().contains("校验位"), "{body}");

    let (status, body) = create(
        &app,
        &admin,
        vehicle_form(&org, "沪A1", &vin("LFV2A21K0P3000004")),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["data"]["fields"][0]["field"], "plateNumber");

    // An edit onto another vehicle's plate is refused the same way.
    let (_, second) = create(
        &app,
        &admin,
        vehicle_form(&org, "沪AD00005", &vin("LFV2A21K0P3000005")),
    )
    .await;
    let id = second["data"]["id"].as_str().unwrap();
    let (status, body) = app
        .send(
            "PUT",
            &format!("/api/v1/vehicles/{id}"),
            Some(&admin),
            vehicle_form(&org, "沪AD00001", &vin("LFV2A21K0P3000005")),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["data"]["fields"][0]["message"], "该车牌号已存在");
    let (_, all) = app.get("/api/v1/vehicles", Some(&admin)).await;
    assert_eq!(all["data"]["total"], 2, "{all}");
}

#[tokio::test]
async fn an_idempotency_key_replay_creates_nothing_twice_and_another_body_under_it_is_4009() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    let org = root_org(&app, &admin).await;
    let form = vehicle_form(&org, "京AF12345", &vin("LNBSCB3F0PW000001"));
    let (status, first) = create_with_key(&app, &admin, "key-1", &form).await;
    assert_eq!(status, 200, "{first}");
    let (status, replay) = create_with_key(&app, &admin, "key-1", &form).await;
    assert_eq!(status, 200, "{replay}");
    assert_eq!(replay["data"]["id"], first["data"]["id"]);
    assert_eq!(app.count("select count(*) from vehicle.vehicle").await, 1);

    let other = vehicle_form(&org, "京AF54321", &vin("LNBSCB3F0PW000002"));
    let (status, body) = create_with_key(&app, &admin, "key-1", &other).await;
    assert_eq!((status, body["code"].as_u64()), (409, Some(4009)), "{body}");
    assert_eq!(body["msg"], "该幂等键已用于另一请求");
    assert_eq!(app.count("select count(*) from vehicle.vehicle").await, 1);

    // The same key in another enterprise is another key.
    let token_b = app.token("demo2").await;
    let org_b = root_org(&app, &token_b).await;
    let (status, body) = create_with_key(
        &app,
        &token_b,
        "key-1",
        &vehicle_form(&org_b, "京AF12345", &vin("LNBSCB3F0PW000001")),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(app.count("select count(*) from vehicle.vehicle").await, 2);
}

/// The total and the ids of every page of `size` at `query` (a list URL),
/// in order; every page must carry the same total.
async fn all_pages(app: &TestApp, token: &str, query: &str, size: usize) -> (i64, Vec<String>) {
    let mut ids = Vec::new();
    let mut total = None;
    for page in 1.. {
        let (status, body) = app
            .get(&format!("{query}&size={size}&page={page}"), Some(token))
            .await;
        assert_eq!(status, 200, "{body}");
        let this_total = body["data"]["total"].as_i64().unwrap();
        assert_eq!(
            *total.get_or_insert(this_total),
            this_total,
            "page {page} of {query}"
        );
        let list = body["data"]["list"].as_array().unwrap();
        ids.extend(list.iter().map(|v| v["id"].as_str().unwrap().to_owned()));
        if list.len() < size {
            return (this_total, ids);
        }
    }
    unreachable!()
}

#[tokio::test]
async fn a_batch_search_counts_pages_and_orders_its_matches_as_the_whole_list_does() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    let root = root_org(&app, &admin).await;
    let east = app.org_a("A01").await;
    // 12 vehicles in two organisations, registered on different days, every
    // other one with a terminal.
    let (mut plates, mut ids) = (Vec::new(), Vec::new());
    for i in 0..12 {
        let plate = format!("粤BD{:05}", 30_000 - i * 7);
        let mut form = vehicle_form(
            if i % 3 == 0 { &east } else { &root },
            &plate,
            &vin(&format!("LGXCE4CB0P0{:06}", 200 + i)),
        );
        form["registerTime"] = json!(format!("2025-0{}-1{}", 1 + i % 6, i % 10));
        if i % 2 == 0 {
            form["terminalId"] = json!(format!("T-BATCH-{i}"));
            form["terminalSim"] = json!(format!("1441234{i:04}"));
        }
        let (status, body) = create(&app, &admin, form).await;
        assert_eq!(status, 200, "{body}");
        plates.push(plate);
        ids.push(body["data"]["id"].as_str().unwrap().to_owned());
    }
    // All plates but the first, and one that matches nothing.
    let mut batch: Vec<String> = plates[1..].iter().map(|p| format!("plate={p}")).collect();
    batch.push("plate=京A99999".to_owned());
    let batch = batch.join("&");
    for sort in [
        "CREATE_TIME_DESC",
        "CREATE_TIME_ASC",
        "PLATE_NUMBER_ASC",
        "REGISTER_TIME_DESC",
        "LEASE_END_TIME_ASC",
    ] {
        let (total, whole) =
            all_pages(&app, &admin, &format!("/api/v1/vehicles?sort={sort}"), 50).await;
        assert_eq!((total, whole.len()), (12, 12), "{sort}");
        let expected: Vec<String> = whole.into_iter().filter(|id| *id != ids[0]).collect();
        // Pages of 5: 5, 5, 1, each carrying the batch's total.
        let (total, found) = all_pages(
            &app,
            &admin,
            &format!("/api/v1/vehicles?sort={sort}&{batch}"),
            5,
        )
        .await;
        assert_eq!((total, &found), (11, &expected), "{sort}");
    }
    // A page past the matches is empty and still counts them.
    let (_, past) = app
        .get(
            &format!("/api/v1/vehicles?{batch}&size=5&page=4"),
            Some(&admin),
        )
        .await;
    assert_eq!(past["data"]["total"], 11, "{past}");
    assert_eq!(past["data"]["list"].as_array().unwrap().len(), 0);
    // VINs and terminals are batches too, and narrow with the other filters.
    let vins: Vec<String> = (0..4)
        .map(|i| format!("vin={}", vin(&format!("LGXCE4CB0P0{:06}", 200 + i))))
        .collect();
    let (_, by_vin) = app
        .get(
            &format!("/api/v1/vehicles?{}", vins.join("&")),
            Some(&admin),
        )
        .await;
    assert_eq!(by_vin["data"]["total"], 4, "{by_vin}");
    let terminals: Vec<String> = (0..12).map(|i| format!("terminalId=T-BATCH-{i}")).collect();
    let (_, by_terminal) = app
        .get(
            &format!("/api/v1/vehicles?{}", terminals.join("&")),
            Some(&admin),
        )
        .await;
    assert_eq!(by_terminal["data"]["total"], 6, "{by_terminal}");
    let (_, in_east) = app
        .get(
            &format!("/api/v1/vehicles?orgId={east}&{}", terminals.join("&")),
            Some(&admin),
        )
        .await;
    // East holds 0, 3, 6 and 9; of those 0 and 6 have terminals.
    assert_eq!(in_east["data"]["total"], 2, "{in_east}");
}

#[tokio::test]
async fn more_than_250_plates_in_one_search_are_refused_with_the_spec_text() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    let query: Vec<String> = (0..251).map(|i| format!("plate=P{i}")).collect();
    let (status, body) = app
        .get(
            &format!("/api/v1/vehicles?{}", query.join("&")),
            Some(&admin),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["msg"], "每次批量查询，最大不超过250台");
    let (status, body) = app
        .get(
            &format!("/api/v1/vehicles?{}", query[..250].join("&")),
            Some(&admin),
        )
        .await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn a_terminal_fits_one_vehicle_at_a_time_and_every_change_is_in_the_binding_log() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    let org = root_org(&app, &admin).await;
    let (_, a) = create(
        &app,
        &admin,
        vehicle_form(&org, "粤BD00001", &vin("LGXCE4CB0P0000001")),
    )
    .await;
    let (_, b) = create(
        &app,
        &admin,
        vehicle_form(&org, "粤BD00002", &vin("LGXCE4CB0P0000002")),
    )
    .await;
    let a = a["data"]["id"].as_str().unwrap().to_owned();
    let b = b["data"]["id"].as_str().unwrap().to_owned();
    let terminal = json!({ "terminalId": "JT808-42", "terminalSim": "89860012345678901234" });

    let (status, bound) = app
        .post(
            &format!("/api/v1/vehicles/{a}/terminal/bind"),
            Some(&admin),
            terminal.clone(),
        )
        .await;
    assert_eq!(status, 200, "{bound}");
    let (status, body) = app
        .post(
            &format!("/api/v1/vehicles/{b}/terminal/bind"),
            Some(&admin),
            terminal.clone(),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["data"]["fields"][0]["message"], "该终端已绑定其他车辆");

    let (status, ended) = app
        .post(
            &format!("/api/v1/vehicles/{a}/terminal/unbind"),
            Some(&admin),
            json!({ "remark": "拆机" }),
        )
        .await;
    assert_eq!(status, 200, "{ended}");
    assert_eq!(ended["data"]["active"], false);
    assert!(!ended["data"]["unbindTime"].as_str().unwrap().is_empty());
    let (status, body) = app
        .post(
            &format!("/api/v1/vehicles/{a}/terminal/unbind"),
            Some(&admin),
            json!({}),
        )
        .await;
    assert_eq!((status, body["code"].as_u64()), (409, Some(4009)), "{body}");

    let (status, moved) = app
        .post(
            &format!("/api/v1/vehicles/{b}/terminal/bind"),
            Some(&admin),
            terminal,
        )
        .await;
    assert_eq!(status, 200, "{moved}");
    let (_, detail) = app
        .get(&format!("/api/v1/vehicles/{b}"), Some(&admin))
        .await;
    assert_eq!(detail["data"]["terminalId"], "JT808-42");
    let (_, detail) = app
        .get(&format!("/api/v1/vehicles/{a}"), Some(&admin))
        .await;
    assert_eq!(detail["data"]["terminalId"], "");
    // Binding and unbinding are in the vehicle's operation log, newest first.
    let (_, logs) = app
        .get(
            &format!("/api/v1/operation-logs?businessType=VEHICLE&businessId={a}"),
            Some(&admin),
        )
        .await;
    let remarks: Vec<&str> = logs["data"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["remark"].as_str().unwrap())
        .collect();
    assert_eq!(remarks.len(), 3, "{logs}");
    assert_eq!(remarks[0], "解绑终端 JT808-42");
    assert_eq!(remarks[1], "绑定终端 JT808-42（SIM 89860012345678901234）");
    assert!(remarks[2].starts_with("新增车辆 "), "{logs}");

    let (_, log) = app
        .get("/api/v1/vehicle-bindings?targetId=JT808-42", Some(&admin))
        .await;
    assert_eq!(log["data"]["total"], 2, "{log}");
    let (_, active) = app
        .get("/api/v1/vehicle-bindings?active=true", Some(&admin))
        .await;
    assert_eq!(active["data"]["total"], 1, "{active}");
    assert_eq!(active["data"]["list"][0]["plateNumber"], "粤BD00002");
}

#[tokio::test]
async fn an_approved_private_car_becomes_a_private_vehicle_and_its_owner_phone_is_masked() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    let org = root_org(&app, &admin).await;
    let (status, car) = app
        .post(
            "/api/v1/private-cars",
            Some(&admin),
            json!({ "orgId": org, "plateNumber": "浙A88888", "vin": vin("LSVAU2180N2183294"),
                    "brand": "大众", "model": "朗逸", "energyType": "FUEL",
                    "ownerName": "张三", "ownerPhone": "13912345678", "allowanceFenPerKm": 80 }),
        )
        .await;
    assert_eq!(status, 200, "{car}");
    assert_eq!(car["data"]["status"], "PENDING_REVIEW");
    assert_eq!(car["data"]["ownerPhone"], "139****5678");
    let id = car["data"]["id"].as_str().unwrap();

    let (status, body) = app
        .post(
            &format!("/api/v1/private-cars/{id}/review"),
            Some(&admin),
            json!({ "approve": false }),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["data"]["fields"][0]["field"], "rejectReason");
    let (status, approved) = app
        .post(
            &format!("/api/v1/private-cars/{id}/review"),
            Some(&admin),
            json!({ "approve": true }),
        )
        .await;
    assert_eq!(status, 200, "{approved}");
    assert_eq!(approved["data"]["status"], "APPROVED");
    let vehicle = approved["data"]["vehicleId"].as_str().unwrap();
    let (_, detail) = app
        .get(&format!("/api/v1/vehicles/{vehicle}"), Some(&admin))
        .await;
    assert_eq!(detail["data"]["ownershipType"], "PRIVATE", "{detail}");
    let (status, again) = app
        .post(
            &format!("/api/v1/private-cars/{id}/review"),
            Some(&admin),
            json!({ "approve": true }),
        )
        .await;
    assert_eq!(
        (status, again["code"].as_u64()),
        (409, Some(4009)),
        "{again}"
    );
}

/// A fingerprint of one enterprise's rows in every table of the vehicle schema.
async fn vehicle_rows_of(app: &TestApp, enterprise: &str) -> String {
    let mut parts = Vec::new();
    for table in [
        "vehicle",
        "vehicle_binding",
        "private_car",
        "idempotency_key",
        "vehicle_org_count",
    ] {
        parts.push(
            app.sql_text(&format!(
                "select md5(coalesce(string_agg(t::text, ',' order by t::text), '')) \
                 from vehicle.{table} t where t.enterprise_id = '{enterprise}'"
            ))
            .await,
        );
    }
    parts.join("|")
}

#[tokio::test]
async fn tenant_b_on_every_vehicle_route_finds_nothing_of_tenant_a_and_changes_nothing() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    let org = root_org(&app, &admin).await;
    let mut form = vehicle_form(&org, "粤BD66666", &vin("LGXCE4CB0P0066666"));
    form["terminalId"] = json!("T-66666");
    form["terminalSim"] = json!("14466666666");
    let (_, vehicle) = create(&app, &admin, form.clone()).await;
    let vehicle_id = vehicle["data"]["id"].as_str().unwrap().to_owned();
    let (_, car) = app
        .post(
            "/api/v1/private-cars",
            Some(&admin),
            json!({ "orgId": org, "plateNumber": "浙A66666", "vin": vin("LSVAU2180N2166666"),
                    "brand": "大众", "model": "朗逸", "energyType": "FUEL",
                    "ownerName": "张三", "ownerPhone": "13912345678" }),
        )
        .await;
    let car_id = car["data"]["id"].as_str().unwrap().to_owned();

    let token_b = app.token("demo2").await;
    let org_b = root_org(&app, &token_b).await;
    let enterprise_a = app
        .sql_text(&format!(
            "select enterprise_id::text from vehicle.vehicle where id = '{vehicle_id}'"
        ))
        .await;
    let before = vehicle_rows_of(&app, &enterprise_a).await;
    let table =
        fleetdesk_gateway::access::AccessTable::from_openapi(&fleetdesk_gateway::api().1).unwrap();
    let routes: Vec<(String, String)> = table
        .entries()
        .filter(|(_, path, _)| {
            path.starts_with("/api/v1/vehicle") || path.starts_with("/api/v1/private-car")
        })
        // The template is a file, not an envelope (vehicle_imports covers it).
        .filter(|(_, path, _)| !path.ends_with("/import-template"))
        .map(|(m, p, _)| (m.to_owned(), p.to_owned()))
        .collect();
    assert!(routes.len() >= 10, "{routes:?}");
    let mut wrong = Vec::new();
    for (method, route) in &routes {
        let ids: Vec<&str> = if route.contains("private-cars/{id}") {
            vec![&car_id, &vehicle_id]
        } else {
            vec![&vehicle_id, &car_id]
        };
        for id in ids {
            let path = route.replace("{id}", id);
            // A body B could legitimately send: its own organisation, A's plate.
            let mut body = form.clone();
            body["orgId"] = json!(org_b);
            body["approve"] = json!(true);
            let (status, answer) = app.send(method, &path, Some(&token_b), body).await;
            let code = answer["code"].as_u64();
            let ok = if route.contains('{') {
                matches!((status, code), (404, Some(4004)) | (403, Some(9999)))
            } else if method == "GET" {
                // Lists answer B's own rows: none of A's.
                status == 200 && !answer.to_string().contains(id)
            } else {
                // Creates act in B's enterprise only (checked below).
                true
            };
            if !ok {
                wrong.push(format!("{method} {path}: {status} {answer}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert_eq!(
        vehicle_rows_of(&app, &enterprise_a).await,
        before,
        "tenant A's rows changed"
    );
    let (_, detail) = app
        .get(&format!("/api/v1/vehicles/{vehicle_id}"), Some(&admin))
        .await;
    assert_eq!(detail["data"]["terminalId"], "T-66666");
}

#[tokio::test]
async fn a_user_whose_reach_is_one_subtree_lists_counts_and_opens_only_its_vehicles() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    let root = root_org(&app, &admin).await;
    let east = app.org_a("A01").await;
    let (_, at_root) = create(
        &app,
        &admin,
        vehicle_form(&root, "粤BD10001", &vin("LGXCE4CB0P0010001")),
    )
    .await;
    let (_, in_east) = create(
        &app,
        &admin,
        vehicle_form(&east, "粤BD10002", &vin("LGXCE4CB0P0010002")),
    )
    .await;
    let at_root = at_root["data"]["id"].as_str().unwrap().to_owned();
    let in_east = in_east["data"]["id"].as_str().unwrap().to_owned();

    let (status, role) = app
        .post(
            "/api/v1/system/roles",
            Some(&admin),
            json!({ "name": "华东车管", "permissionValues": ["as:sys:car"],
                    "dataScope": 3, "dataScopeOrgIds": [east] }),
        )
        .await;
    assert_eq!(status, 200, "{role}");
    let (status, user) = app
        .post(
            "/api/v1/system/users",
            Some(&admin),
            json!({ "name": "华东车管", "userName": "east_cars", "phone": "13900007777",
                    "orgId": east, "roleIds": [role["data"]["id"]], "password": "Secret@123" }),
        )
        .await;
    assert_eq!(status, 200, "{user}");
    let (_, login) = app.login("east_cars", "Secret@123").await;
    let token = login["data"]["token"].as_str().unwrap().to_owned();

    let (status, list) = app.get("/api/v1/vehicles", Some(&token)).await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["data"]["total"], 1, "{list}");
    assert_eq!(list["data"]["list"][0]["id"], in_east.as_str());
    assert!(
        !list["data"]["list"][0]["orgName"]
            .as_str()
            .unwrap()
            .is_empty()
    );
    let (status, body) = app
        .get(&format!("/api/v1/vehicles/{at_root}"), Some(&token))
        .await;
    assert_eq!((status, body["code"].as_u64()), (404, Some(4004)), "{body}");
    let (status, body) = app
        .get(&format!("/api/v1/vehicles/{in_east}"), Some(&token))
        .await;
    assert_eq!(status, 200, "{body}");

    // Creating outside the reach is refused; inside, the creator sees it.
    let (status, body) = create(
        &app,
        &token,
        vehicle_form(&root, "粤BD10003", &vin("LGXCE4CB0P0010003")),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(
        body["data"]["fields"][0]["message"],
        "所选组织不在您的数据权限内"
    );
    let (status, body) = create(
        &app,
        &token,
        vehicle_form(&east, "粤BD10003", &vin("LGXCE4CB0P0010003")),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let (_, list) = app.get("/api/v1/vehicles", Some(&token)).await;
    assert_eq!(list["data"]["total"], 2, "{list}");
    // A batch naming vehicles inside and outside the reach finds the inside ones.
    let (_, batch) = app
        .get(
            "/api/v1/vehicles?plate=粤BD10001&plate=粤BD10002&plate=粤BD10003",
            Some(&token),
        )
        .await;
    assert_eq!(batch["data"]["total"], 2, "{batch}");
    assert!(
        batch["data"]["list"]
            .as_array()
            .unwrap()
            .iter()
            .all(|v| v["id"] != at_root.as_str()),
        "{batch}"
    );
    let (_, all) = app.get("/api/v1/vehicles", Some(&admin)).await;
    assert_eq!(all["data"]["total"], 3, "{all}");
    // An organisation filter is a subtree: the root's covers the east office.
    let (_, under_root) = app
        .get(&format!("/api/v1/vehicles?orgId={root}"), Some(&admin))
        .await;
    assert_eq!(under_root["data"]["total"], 3, "{under_root}");
}

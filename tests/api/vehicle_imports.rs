//! Vehicle and driver imports over the whole stack: a multipart xlsx through
//! the gateway, every row checked by the create's rules in the vehicle
//! service, the spec's error table (row, column, reason) with nothing
//! written, or every row in one transaction; duplicates inside the file and
//! against stored data; organisations by code or name within the caller's
//! reach; the templates (permission-gated); another tenant on every route.

use std::time::{Duration, Instant};

use fleetdesk_kit::internal_token::{Claims, TokenSigner};
use fleetdesk_proto::vehicle::v1 as pb;
use fleetdesk_proto::vehicle::v1::asset_service_client::AssetServiceClient;
use serde_json::{Value, json};

use crate::helpers::{TestApp, envelope, eventually, spawn_app};
use crate::vehicles::{vehicle_form, vin};

pub const XLSX: &str = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

/// An xlsx of `header` and `rows`, every cell text (as an operator types).
pub fn workbook(header: &[&str], rows: &[Vec<String>]) -> Vec<u8> {
    let mut book = rust_xlsxwriter::Workbook::new();
    let sheet = book.add_worksheet();
    for (col, title) in header.iter().enumerate() {
        sheet.write_string(0, col as u16, *title).unwrap();
    }
    for (r, row) in rows.iter().enumerate() {
        for (col, value) in row.iter().enumerate() {
            if !value.is_empty() {
                sheet.write_string(r as u32 + 1, col as u16, value).unwrap();
            }
        }
    }
    book.save_to_buffer().unwrap()
}

/// Posts `bytes` as the form's one file to an import route.
pub async fn import(app: &TestApp, token: &str, path: &str, bytes: Vec<u8>) -> (u16, Value) {
    let part = reqwest::multipart::Part::bytes(bytes)
        .file_name("导入.xlsx")
        .mime_str(XLSX)
        .unwrap();
    let form = reqwest::multipart::Form::new().part("file", part);
    let response = app
        .http
        .post(format!("{}{path}", app.base))
        .header("token", token)
        .multipart(form)
        .send()
        .await
        .unwrap();
    envelope(response).await
}

/// Waits until the vehicle service's organisation replica knows every unit
/// of the demo enterprises with its code.
pub async fn replica_ready(app: &TestApp) {
    let ready = eventually(Duration::from_secs(10), async || {
        app.count(
            "select count(*) from org.org_unit o left join vehicle.org_unit r \
             on r.id = o.id and r.code = o.org_code where r.id is null",
        )
        .await
            == 0
    })
    .await;
    assert!(ready, "the org replica never caught up");
}

pub const VEHICLE_HEADER: [&str; 10] = [
    "车牌号",
    "车架号(VIN)",
    "所属组织",
    "品牌",
    "车型",
    "车辆类型",
    "能源类型",
    "使用性质",
    "电池容量(kWh)",
    "登记日期",
];

/// A vehicle row: an electric light truck of `org` (code or name).
pub fn vehicle_row(plate: &str, vin: &str, org: &str) -> Vec<String> {
    [
        plate,
        vin,
        org,
        "比亚迪",
        "T5 EV",
        "轻型货车",
        "纯电动",
        "租赁",
        "81.5",
        "2024-01-31",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect()
}

/// The `i`th distinct vehicle: even ones with 8-character new-energy plates.
pub fn nth_vehicle(i: usize, org: &str) -> Vec<String> {
    let plate = if i.is_multiple_of(2) {
        format!("粤BD{i:05}")
    } else {
        format!("粤B{i:05}")
    };
    vehicle_row(&plate, &vin(&format!("LGXCE4CB0P{i:07}")), org)
}

pub const DRIVER_HEADER: [&str; 6] = [
    "司机姓名",
    "手机号",
    "身份证号",
    "所属组织",
    "准驾车型",
    "驾驶证有效期",
];

/// A valid ID number (GB 11643) for sequence `seq` (below 1000).
pub fn id_number(seq: u32) -> String {
    let body = format!("11010519800101{seq:03}");
    let check = fleetdesk_kit::ids::IdNumber::check_char_for(&body).unwrap();
    format!("{body}{check}")
}

pub fn driver_row(name: &str, phone: &str, id: &str, org: &str) -> Vec<String> {
    [name, phone, id, org, "C1", "2030-05-01"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect()
}

/// The error table's entries as (row, column, reason).
fn errors(body: &Value) -> Vec<(i64, String, String)> {
    body["data"]["errorList"]
        .as_array()
        .unwrap_or_else(|| panic!("no error table in {body}"))
        .iter()
        .map(|e| {
            (
                e["row"].as_i64().unwrap(),
                e["column"].as_str().unwrap().to_owned(),
                e["reason"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn enterprise_a_vehicles() -> &'static str {
    "select count(*) from vehicle.vehicle v join org.enterprise e on e.id = v.enterprise_id \
     where e.code = 'DEMO-LOGISTICS'"
}

#[tokio::test]
async fn a_thousand_vehicles_with_one_bad_row_write_nothing_and_the_corrected_file_writes_all() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    replica_ready(&app).await;
    // Half name the organisation by code, half by name (both the Shanghai centre's subtree).
    let mut rows: Vec<Vec<String>> = (0..1000)
        .map(|i| {
            nth_vehicle(
                i,
                if i.is_multiple_of(2) {
                    "A0101"
                } else {
                    "杭州运营中心"
                },
            )
        })
        .collect();
    let good_vin = rows[500][1].clone();
    let mut bad_vin: Vec<char> = good_vin.chars().collect();
    bad_vin[8] = if bad_vin[8] == '1' { '2' } else { '1' };
    rows[500][1] = bad_vin.into_iter().collect();

    let (status, body) = import(
        &app,
        &admin,
        "/api/v1/vehicles/import",
        workbook(&VEHICLE_HEADER, &rows),
    )
    .await;
    assert_eq!((status, body["code"].as_i64()), (400, Some(4000)), "{body}");
    assert_eq!(
        body["data"]["errorHeader"],
        json!(["行号", "列名", "错误原因"])
    );
    let table = errors(&body);
    assert_eq!(table.len(), 1, "{table:?}");
    // Row 502 of the sheet: the header is row 1.
    assert_eq!(table[0].0, 502);
    assert_eq!(table[0].1, "车架号(VIN)");
    assert!(table[0].2.contains("校验位"), "{table:?}");
    assert_eq!(
        app.count(enterprise_a_vehicles()).await,
        0,
        "nothing written"
    );

    rows[500][1] = good_vin;
    let started = Instant::now();
    let (status, body) = import(
        &app,
        &admin,
        "/api/v1/vehicles/import",
        workbook(&VEHICLE_HEADER, &rows),
    )
    .await;
    let took = started.elapsed();
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["imported"], 1000);
    assert!(took < Duration::from_secs(10), "1,000 rows took {took:?}");
    assert_eq!(app.count(enterprise_a_vehicles()).await, 1000);

    // The list counts them (the per-organisation counters followed the one
    // statement), reads them as the create would have stored them, and each
    // has its operation-log row.
    let (_, list) = app.get("/api/v1/vehicles?size=5", Some(&admin)).await;
    assert_eq!(list["data"]["total"], 1000, "{list}");
    let (_, found) = app
        .get("/api/v1/vehicles?plate=%E7%B2%A4BD00500", Some(&admin))
        .await;
    let vehicle = &found["data"]["list"][0];
    assert_eq!(vehicle["batteryCapacityWh"], 81_500, "{found}");
    assert_eq!(vehicle["orgName"], "上海运营中心");
    assert_eq!(vehicle["status"], "IDLE");
    assert_eq!(vehicle["plateColor"], "GREEN");
    assert_eq!(vehicle["registerTime"], "2024-01-30T16:00:00Z");
    let (_, hangzhou) = app
        .get("/api/v1/vehicles?plate=%E7%B2%A4B00501", Some(&admin))
        .await;
    assert_eq!(hangzhou["data"]["list"][0]["orgName"], "杭州运营中心");
    assert_eq!(
        app.count(
            "select count(*) from vehicle.operation_log where business_type = 1 \
             and remark like '导入车辆%' and operator_name = '演示管理员'"
        )
        .await,
        1000
    );
}

#[tokio::test]
async fn duplicates_inside_the_file_and_against_stored_vehicles_are_reported_by_row_and_column() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    replica_ready(&app).await;
    let east = app.org_a("A01").await;
    let (status, stored) = app
        .post(
            "/api/v1/vehicles",
            Some(&admin),
            vehicle_form(&east, "粤BD77777", &vin("LGXCE4CB0P0077777")),
        )
        .await;
    assert_eq!(status, 200, "{stored}");

    // Inside the file: the second use of a plate and of a VIN, each naming the first row.
    let rows = vec![
        vehicle_row("粤BD10001", &vin("LGXCE4CB0P0010001"), "A01"),
        vehicle_row("粤bd10001", &vin("LGXCE4CB0P0010002"), "A01"),
        vehicle_row("粤B10003", &vin("LGXCE4CB0P0010001").to_lowercase(), "A01"),
        vehicle_row("粤BD100", &vin("LGXCE4CB0P0010004"), "不存在的组织"),
    ];
    let (status, body) = import(
        &app,
        &admin,
        "/api/v1/vehicles/import",
        workbook(&VEHICLE_HEADER, &rows),
    )
    .await;
    assert_eq!((status, body["code"].as_i64()), (400, Some(4000)), "{body}");
    let table = errors(&body);
    assert!(
        table.contains(&(3, "车牌号".into(), "车牌号与第2行重复".into())),
        "{table:?}"
    );
    assert!(
        table.contains(&(4, "车架号(VIN)".into(), "车架号(VIN)与第2行重复".into())),
        "{table:?}"
    );
    assert!(
        table.contains(&(
            5,
            "车牌号".into(),
            "请输入正确的车牌号，如 粤B12345 或新能源车牌 粤BD12345".into()
        )),
        "{table:?}"
    );
    assert!(
        table.contains(&(5, "所属组织".into(), "所属组织“不存在的组织”不存在".into())),
        "{table:?}"
    );

    // Against stored vehicles: a taken plate and a taken VIN.
    let rows = vec![
        vehicle_row("粤BD10001", &vin("LGXCE4CB0P0010001"), "A01"),
        vehicle_row("粤BD77777", &vin("LGXCE4CB0P0010002"), "华东大区"),
        vehicle_row("粤B10003", &vin("LGXCE4CB0P0077777"), "A01"),
    ];
    let (status, body) = import(
        &app,
        &admin,
        "/api/v1/vehicles/import",
        workbook(&VEHICLE_HEADER, &rows),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(
        errors(&body),
        vec![
            (3, "车牌号".into(), "该车牌号已存在".into()),
            (4, "车架号(VIN)".into(), "该车架号(VIN)已存在".into()),
        ]
    );
    assert_eq!(app.count(enterprise_a_vehicles()).await, 1);

    // A missing required column is refused by the header alone.
    let (status, body) = import(
        &app,
        &admin,
        "/api/v1/vehicles/import",
        workbook(&VEHICLE_HEADER[1..], &[]),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(
        errors(&body),
        vec![(1, "车牌号".into(), "缺少“车牌号”列".into())]
    );
}

#[tokio::test]
async fn an_import_names_only_organisations_within_the_callers_reach() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    replica_ready(&app).await;
    let east = app.org_a("A01").await;
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
            json!({ "name": "华东车管", "userName": "east_importer", "phone": "13900007711",
                    "orgId": east, "roleIds": [role["data"]["id"]], "password": "Secret@123" }),
        )
        .await;
    assert_eq!(status, 200, "{user}");
    let (_, login) = app.login("east_importer", "Secret@123").await;
    let token = login["data"]["token"].as_str().unwrap().to_owned();

    let rows = vec![
        vehicle_row("粤BD20001", &vin("LGXCE4CB0P0020001"), "A0102"),
        vehicle_row("粤BD20002", &vin("LGXCE4CB0P0020002"), "华南大区"),
    ];
    let (status, body) = import(
        &app,
        &token,
        "/api/v1/vehicles/import",
        workbook(&VEHICLE_HEADER, &rows),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(
        errors(&body),
        vec![(3, "所属组织".into(), "所选组织不在您的数据权限内".into())]
    );
    let (status, body) = import(
        &app,
        &token,
        "/api/v1/vehicles/import",
        workbook(&VEHICLE_HEADER, &rows[..1]),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    // The importer sees what they imported.
    let (_, list) = app.get("/api/v1/vehicles", Some(&token)).await;
    assert_eq!(list["data"]["total"], 1, "{list}");
}

#[tokio::test]
async fn a_driver_file_with_a_bad_row_writes_nothing_and_the_corrected_one_writes_every_driver() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    replica_ready(&app).await;
    let mut rows = vec![
        driver_row("张伟", "13812340001", &id_number(1), "A01"),
        driver_row("李娜", "13812340002", &id_number(2), "上海运营中心"),
        driver_row("王芳", "13812340003", &id_number(3), "A00"),
        driver_row("刘洋", "2381234000", "110105198001010041", "A01"),
    ];
    rows[3][4] = "Z9".into();
    let (status, body) = import(
        &app,
        &admin,
        "/api/v1/drivers/import",
        workbook(&DRIVER_HEADER, &rows),
    )
    .await;
    assert_eq!((status, body["code"].as_i64()), (400, Some(4000)), "{body}");
    let table = errors(&body);
    let columns: Vec<&str> = table
        .iter()
        .filter(|e| e.0 == 5)
        .map(|e| e.1.as_str())
        .collect();
    assert_eq!(columns.len(), 3, "{table:?}");
    for column in ["手机号", "身份证号", "准驾车型"] {
        assert!(columns.contains(&column), "{column}: {table:?}");
    }
    assert!(table.iter().all(|e| e.0 == 5), "{table:?}");
    assert_eq!(
        app.count("select count(*) from vehicle.driver").await,
        0,
        "nothing written"
    );

    rows[3] = driver_row("刘洋", "13812340004", &id_number(4), "A01");
    let (status, body) = import(
        &app,
        &admin,
        "/api/v1/drivers/import",
        workbook(&DRIVER_HEADER, &rows),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["imported"], 4);
    let (_, list) = app
        .get("/api/v1/drivers?name=%E6%9D%8E", Some(&admin))
        .await;
    assert_eq!(list["data"]["total"], 1, "{list}");
    assert_eq!(list["data"]["list"][0]["phone"], "138****0002");
    assert_eq!(list["data"]["list"][0]["orgName"], "上海运营中心");
    assert_eq!(list["data"]["list"][0]["licenceClass"], "C1");

    // The same file again: every phone and ID number is taken now.
    let (status, body) = import(
        &app,
        &admin,
        "/api/v1/drivers/import",
        workbook(&DRIVER_HEADER, &rows),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    let table = errors(&body);
    assert_eq!(table.len(), 8, "{table:?}");
    assert!(table.contains(&(2, "手机号".into(), "该手机号已被其他司机使用".into())));
    assert!(table.contains(&(5, "身份证号".into(), "该身份证号已被其他司机使用".into())));
    assert_eq!(app.count("select count(*) from vehicle.driver").await, 4);
}

/// The first sheet's rows as text.
pub fn sheet_rows(bytes: &[u8]) -> Vec<Vec<String>> {
    use calamine::Reader as _;
    let mut book =
        calamine::open_workbook_auto_from_rs(std::io::Cursor::new(bytes.to_vec())).unwrap();
    let range = book.worksheet_range_at(0).unwrap().unwrap();
    range
        .rows()
        .map(|row| row.iter().map(|c| c.to_string()).collect())
        .collect()
}

async fn template(app: &TestApp, token: &str, path: &str) -> reqwest::Response {
    app.http
        .get(format!("{}{path}", app.base))
        .header("token", token)
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn each_template_downloads_for_holders_of_the_import_permission_and_imports_as_it_is() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    replica_ready(&app).await;
    for (path, import_path, first, imported) in [
        (
            "/api/v1/vehicles/import-template",
            "/api/v1/vehicles/import",
            "车牌号",
            "select count(*) from vehicle.vehicle",
        ),
        (
            "/api/v1/drivers/import-template",
            "/api/v1/drivers/import",
            "司机姓名",
            "select count(*) from vehicle.driver",
        ),
    ] {
        let response = template(&app, &admin, path).await;
        assert_eq!(response.status(), 200, "{path}");
        assert_eq!(response.headers()["content-type"], XLSX);
        assert!(
            response.headers()["content-disposition"]
                .to_str()
                .unwrap()
                .contains("xlsx")
        );
        let bytes = response.bytes().await.unwrap().to_vec();
        let rows = sheet_rows(&bytes);
        assert_eq!(rows.len(), 2, "{path}: header and one example");
        assert_eq!(rows[0][0], first);
        // The example names the demo enterprise's 华东大区: it imports as it is.
        let (status, body) = import(&app, &admin, import_path, bytes).await;
        assert_eq!(status, 200, "{path}: {body}");
        assert_eq!(app.count(imported).await, 1, "{path}");
    }

    // Without the permission: 9999 on the templates, the imports and the exports.
    let (status, role) = app
        .post(
            "/api/v1/system/roles",
            Some(&admin),
            json!({ "name": "仅用户", "permissionValues": ["as:sys:user:getList"], "dataScope": 1 }),
        )
        .await;
    assert_eq!(status, 200, "{role}");
    let root = app.org_a("A00").await;
    let (status, user) = app
        .post(
            "/api/v1/system/users",
            Some(&admin),
            json!({ "name": "无车辆权限", "userName": "no_cars", "phone": "13900007712",
                    "orgId": root, "roleIds": [role["data"]["id"]], "password": "Secret@123" }),
        )
        .await;
    assert_eq!(status, 200, "{user}");
    let (_, login) = app.login("no_cars", "Secret@123").await;
    let token = login["data"]["token"].as_str().unwrap().to_owned();
    for path in [
        "/api/v1/vehicles/import-template",
        "/api/v1/drivers/import-template",
    ] {
        let (status, body) = envelope(template(&app, &token, path).await).await;
        assert_eq!((status, body["code"].as_i64()), (403, Some(9999)), "{path}");
    }
    for path in ["/api/v1/vehicles/import", "/api/v1/drivers/import"] {
        let (status, body) = import(&app, &token, path, workbook(&VEHICLE_HEADER, &[])).await;
        assert_eq!((status, body["code"].as_i64()), (403, Some(9999)), "{path}");
    }
    for path in [
        "/api/v1/vehicles/export",
        "/api/v1/vehicle-bindings/export",
        "/api/v1/usage-records/export",
        "/api/v1/private-cars/export",
        "/api/v1/drivers/export",
    ] {
        let (status, body) = app.post(path, Some(&token), json!({})).await;
        assert_eq!((status, body["code"].as_i64()), (403, Some(9999)), "{path}");
    }
}

/// Everything of enterprise A in the vehicle schema, as one fingerprint.
async fn vehicle_schema_of_a(app: &TestApp) -> String {
    let mut parts = Vec::new();
    for table in [
        "vehicle",
        "driver",
        "vehicle_binding",
        "usage_record",
        "private_car",
        "export_job",
        "operation_log",
    ] {
        parts.push(
            app.sql_text(&format!(
                "select md5(coalesce(string_agg(t::text, ',' order by t::text), '')) \
                 from vehicle.{table} t join org.enterprise e on e.id = t.enterprise_id \
                 where e.code = 'DEMO-LOGISTICS'"
            ))
            .await,
        );
    }
    parts.join("|")
}

#[tokio::test]
async fn tenant_b_on_every_import_and_template_route_finds_nothing_of_tenant_a() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    replica_ready(&app).await;
    let (status, body) = import(
        &app,
        &admin,
        "/api/v1/vehicles/import",
        workbook(&VEHICLE_HEADER, &[nth_vehicle(1, "A01")]),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let before = vehicle_schema_of_a(&app).await;

    let token_b = app.token("demo2").await;
    // B names A's organisations by A's codes and names: unknown in B.
    let (status, body) = import(
        &app,
        &token_b,
        "/api/v1/vehicles/import",
        workbook(
            &VEHICLE_HEADER,
            &[nth_vehicle(2, "A01"), nth_vehicle(3, "华东大区")],
        ),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(
        errors(&body),
        vec![
            (2, "所属组织".into(), "所属组织“A01”不存在".into()),
            (3, "所属组织".into(), "所属组织“华东大区”不存在".into()),
        ]
    );
    let (status, body) = import(
        &app,
        &token_b,
        "/api/v1/drivers/import",
        workbook(
            &DRIVER_HEADER,
            &[driver_row("张伟", "13812349999", &id_number(9), "A00")],
        ),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(
        errors(&body)[0],
        (2, "所属组织".into(), "所属组织“A00”不存在".into())
    );
    // B's templates are its own download (no data in them).
    for path in [
        "/api/v1/vehicles/import-template",
        "/api/v1/drivers/import-template",
    ] {
        let response = template(&app, &token_b, path).await;
        assert_eq!(response.status(), 200, "{path}");
        assert_eq!(sheet_rows(&response.bytes().await.unwrap()).len(), 2);
    }

    // Straight to the service: B naming a file A uploaded is not found.
    let enterprise_a = app
        .sql_text("select id::text from org.enterprise where code = 'DEMO-LOGISTICS'")
        .await;
    let enterprise_b = app
        .sql_text("select enterprise_id::text from org.member where user_name = 'demo2'")
        .await;
    let key = format!("{enterprise_a}/import/{}/a.xlsx", uuid::Uuid::new_v4());
    let path = app.objects.join(&key);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, workbook(&VEHICLE_HEADER, &[nth_vehicle(4, "A01")])).unwrap();
    let signer =
        TokenSigner::from_base64_seed(app.common.internal_signing_key.as_deref().unwrap()).unwrap();
    let mut claims = Claims::service("gateway");
    claims.sub = format!("user:{}", uuid::Uuid::new_v4());
    claims.ent = Some(enterprise_b);
    claims.perms = vec!["as:sys:car".into()];
    claims.reach = Some(fleetdesk_kit::reach::ReachClaim {
        all: true,
        ..Default::default()
    });
    let port = app
        .grpc_ports
        .iter()
        .find(|(n, _)| *n == "vehicle")
        .unwrap()
        .1;
    let mut assets = AssetServiceClient::connect(format!("http://127.0.0.1:{port}"))
        .await
        .unwrap();
    let refused = assets
        .import_vehicles(fleetdesk_kit::grpc::outgoing(
            pb::ImportVehiclesRequest {
                file: Some(pb::ImportFile {
                    key,
                    name: "a.xlsx".into(),
                }),
            },
            &signer,
            &claims,
        ))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), tonic::Code::NotFound, "{refused:?}");

    assert_eq!(
        vehicle_schema_of_a(&app).await,
        before,
        "tenant A's rows changed"
    );
}

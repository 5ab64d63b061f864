//! The charging reports over the whole stack: a month's statement built on
//! demand (the current month as a DRAFT with its workbook to download), its
//! card lines by organisation then card number page by page, and the
//! charging behaviour analysis with its vehicle list and export — each
//! refused without its permission (or, for the analysis, off its white
//! list), and another enterprise finding nothing of A's. Settled sessions
//! are written straight into energy's table: what is checked is the edge
//! and the reports, not how sessions settle (energy's own tests).

use chrono::{Duration, FixedOffset, Utc};
use serde_json::{Value, json};

use crate::helpers::{TestApp, eventually, spawn_app};

/// Now in Asia/Shanghai.
fn shanghai_now() -> chrono::DateTime<FixedOffset> {
    Utc::now().with_timezone(&FixedOffset::east_opt(8 * 3600).unwrap())
}

/// One settled session of demo enterprise A.
struct Session {
    card_no: &'static str,
    org_code: &'static str,
    plate: &'static str,
    /// Vehicle key (a fixed id per plate).
    vehicle: u8,
    /// Shanghai hour of yesterday the session started.
    hour: u32,
    energy_wh: i64,
    total_fen: i64,
    start_soc: Option<i16>,
}

const SESSIONS: [Session; 4] = [
    Session {
        card_no: "CARD-A-001",
        org_code: "A0101",
        plate: "沪A10001",
        vehicle: 1,
        hour: 2,
        energy_wh: 30_000,
        total_fen: 3_000,
        start_soc: Some(15),
    },
    Session {
        card_no: "CARD-A-009",
        org_code: "A0101",
        plate: "沪A10009",
        vehicle: 2,
        hour: 14,
        energy_wh: 20_000,
        total_fen: 2_500,
        start_soc: Some(45),
    },
    Session {
        card_no: "CARD-B-002",
        org_code: "A0102",
        plate: "沪A10002",
        vehicle: 3,
        hour: 2,
        energy_wh: 10_000,
        total_fen: 1_200,
        start_soc: None,
    },
    Session {
        card_no: "CARD-B-002",
        org_code: "A0102",
        plate: "沪A10002",
        vehicle: 3,
        hour: 23,
        energy_wh: 10_000,
        total_fen: 1_300,
        start_soc: Some(95),
    },
];

fn card_id(card_no: &str) -> String {
    uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_OID, card_no.as_bytes()).to_string()
}

/// Writes [`SESSIONS`] as settled sessions of A, started yesterday
/// (Shanghai) and on the current month's statement.
async fn settle_sessions(app: &TestApp) {
    let now = shanghai_now();
    let yesterday = (now - Duration::days(1)).format("%Y-%m-%d").to_string();
    let month = now.format("%Y%m").to_string();
    let enterprise = fleetdesk_kit::demo_id("enterprise:a");
    for (i, s) in SESSIONS.iter().enumerate() {
        let org = app.org_a(s.org_code).await;
        let soc = s.start_soc.map_or("null".to_owned(), |v| v.to_string());
        let start = format!("{yesterday} {:02}:05:00+08", s.hour);
        app.sql(&format!(
            "insert into energy.charging_session (id, enterprise_id, org_id, account_id, card_id, \
             card_no, card_ledger_account_id, vehicle_id, plate_number, driver_name, start_method, \
             party_id, session_no, start_time, end_time, energy_wh, electricity_fen, \
             service_fee_fen, cost_fen, total_fen, held_fen, hold_count, start_soc, end_soc, \
             status, last_updated, settle_time, statement_month) values (gen_random_uuid(), \
             '{enterprise}', '{org}', gen_random_uuid(), '{card}', '{card_no}', gen_random_uuid(), \
             '{vehicle}', '{plate}', '司机{i}', 1, 'TST', 'EDGE-{i}', '{start}', \
             timestamptz '{start}' + interval '40 minutes', {wh}, {electricity}, {service}, \
             {total}, {total}, {total}, 1, {soc}, 90, 2, now(), now(), {month})",
            card = card_id(s.card_no),
            card_no = s.card_no,
            vehicle = uuid::Uuid::from_u128(0xED6E_0000 + u128::from(s.vehicle)),
            plate = s.plate,
            wh = s.energy_wh,
            electricity = s.total_fen * 2 / 3,
            service = s.total_fen - s.total_fen * 2 / 3,
            total = s.total_fen,
        ))
        .await;
    }
}

/// A stack with A's charging opened and its sessions, once energy's
/// replica of A's organisation tree (subtree filters read it) is complete.
async fn stack_with_sessions() -> TestApp {
    let app = spawn_app().await;
    fleetdesk_seed::energy(&app.common)
        .await
        .expect("seed energy");
    settle_sessions(&app).await;
    let enterprise = fleetdesk_kit::demo_id("enterprise:a");
    let query =
        format!("select count(*) from energy.org_unit where enterprise_id = '{enterprise}'");
    assert!(
        eventually(std::time::Duration::from_secs(20), async || app
            .count(&query)
            .await
            >= 7)
        .await,
        "energy's replica of A's tree"
    );
    app
}

/// [`stack_with_sessions`] and A's administrator's session.
async fn a_with_sessions() -> (TestApp, String) {
    let app = stack_with_sessions().await;
    let token = app.token("demo").await;
    (app, token)
}

/// demo2 (enterprise B) with charging opened through the operator stand-in.
async fn b_opened(app: &TestApp) -> String {
    let token = app.token("demo2").await;
    let (code, applied) = app
        .post(
            "/api/v1/charging/open-applications",
            Some(&token),
            json!({ "remark": "" }),
        )
        .await;
    assert_eq!(code, 200, "{applied}");
    let id = applied["data"]["id"].as_str().unwrap();
    let (code, approved) = app
        .post(
            &format!("/api/v1/dev/charging-open-applications/{id}/approve"),
            None,
            json!({ "creditLimitFen": 0, "remark": "合同已签" }),
        )
        .await;
    assert_eq!(code, 200, "{approved}");
    assert_eq!(approved["data"]["approveRemark"], "合同已签", "{approved}");
    token
}

fn code_of(answer: &(u16, Value)) -> (u16, Option<u64>) {
    (answer.0, answer.1["code"].as_u64())
}

#[tokio::test]
async fn a_generated_draft_has_its_card_lines_by_organisation_and_a_workbook_to_download() {
    let (app, token) = a_with_sessions().await;
    let month = shanghai_now().format("%Y-%m").to_string();

    // Nothing yet for this month (the month-end job may have issued the last one).
    let this_month = format!("/api/v1/charging/statements?startMonth={month}&endMonth={month}");
    let (_, list) = app.get(&this_month, Some(&token)).await;
    assert_eq!(list["data"]["total"], 0, "{list}");

    let (code, generated) = app
        .post(
            "/api/v1/charging/statements/generate",
            Some(&token),
            json!({ "month": month }),
        )
        .await;
    assert_eq!(code, 200, "{generated}");
    let s = &generated["data"];
    assert_eq!(s["status"], "DRAFT", "{generated}");
    assert_eq!(s["month"], month.as_str());
    assert_eq!(s["sessionCount"], 4);
    assert_eq!(s["energyWh"], 70_000);
    assert_eq!(s["totalFen"], 8_000);
    assert_eq!(s["cardCount"], 3);
    assert_eq!(s["hasFile"], true, "a draft has its workbook: {generated}");
    let id = s["id"].as_str().unwrap().to_owned();

    // Generating again rebuilds the same draft (one statement per month).
    let (code, again) = app
        .post(
            "/api/v1/charging/statements/generate",
            Some(&token),
            json!({ "month": month }),
        )
        .await;
    assert_eq!(code, 200, "{again}");
    assert_eq!(again["data"]["id"], id.as_str());
    let (_, list) = app.get(&this_month, Some(&token)).await;
    assert_eq!(list["data"]["total"], 1, "{list}");
    assert_eq!(list["data"]["list"][0]["status"], "DRAFT", "{list}");

    // The workbook downloads through its signed link.
    let (code, file) = app
        .get(
            &format!("/api/v1/charging/statements/{id}/file"),
            Some(&token),
        )
        .await;
    assert_eq!(code, 200, "{file}");
    assert!(
        file["data"]["name"].as_str().unwrap().ends_with(".xlsx"),
        "{file}"
    );
    let url = file["data"]["url"].as_str().unwrap();
    let url = if url.starts_with("http") {
        url.to_owned()
    } else {
        format!("{}{url}", app.base)
    };
    let bytes = app
        .http
        .get(url)
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    assert!(bytes.starts_with(b"PK"), "an xlsx (zip) workbook");

    // Card lines: by organisation, then card number, page by page.
    let (code, first) = app
        .get(
            &format!("/api/v1/charging/statements/{id}/card-lines?page=1&size=5"),
            Some(&token),
        )
        .await;
    assert_eq!(code, 200, "{first}");
    assert_eq!(first["data"]["total"], 3, "{first}");
    let (_, second) = app
        .get(
            &format!("/api/v1/charging/statements/{id}/card-lines?page=2&size=5"),
            Some(&token),
        )
        .await;
    // Three lines fit the first page; the second is empty but keeps the total.
    assert_eq!(second["data"]["total"], 3, "{second}");
    assert_eq!(
        second["data"]["list"].as_array().unwrap().len(),
        0,
        "{second}"
    );
    let lines: Vec<Value> = first["data"]["list"].as_array().unwrap().clone();
    assert_eq!(lines.len(), 3, "{first}");
    let orgs: Vec<&str> = lines.iter().map(|l| l["orgId"].as_str().unwrap()).collect();
    let shanghai = app.org_a("A0101").await;
    // The two cards of one organisation sit together, in card order.
    let at = orgs.iter().position(|o| *o == shanghai).unwrap();
    assert_eq!(
        orgs.get(at + 1).copied(),
        Some(shanghai.as_str()),
        "{lines:?}"
    );
    assert_eq!(
        (
            lines[at]["cardNo"].as_str(),
            lines[at + 1]["cardNo"].as_str()
        ),
        (Some("CARD-A-001"), Some("CARD-A-009"))
    );
    let b_line = lines.iter().find(|l| l["cardNo"] == "CARD-B-002").unwrap();
    assert_eq!(
        (
            &b_line["sessionCount"],
            &b_line["energyWh"],
            &b_line["totalFen"]
        ),
        (&json!(2), &json!(20_000), &json!(2_500))
    );
    assert_eq!(b_line["plateNumber"], "沪A10002");
    assert_eq!(
        lines
            .iter()
            .map(|l| l["totalFen"].as_i64().unwrap())
            .sum::<i64>(),
        8_000
    );
    // Filters: a card number, an organisation (with its subtree).
    let (_, one) = app
        .get(
            &format!("/api/v1/charging/statements/{id}/card-lines?cardNo=CARD-A-009"),
            Some(&token),
        )
        .await;
    assert_eq!(one["data"]["total"], 1, "{one}");
    let east = app.org_a("A01").await;
    let (_, subtree) = app
        .get(
            &format!("/api/v1/charging/statements/{id}/card-lines?orgId={east}"),
            Some(&token),
        )
        .await;
    assert_eq!(subtree["data"]["total"], 3, "{subtree}");
}

#[tokio::test]
async fn generating_refuses_a_bad_or_future_month_and_changes_nothing() {
    let (app, token) = a_with_sessions().await;
    let next = (shanghai_now() + Duration::days(40))
        .format("%Y-%m")
        .to_string();
    for (body, field) in [
        (json!({ "month": next }), "month"),
        (json!({ "month": "2026/11" }), "month"),
        (json!({ "month": "" }), "month"),
    ] {
        let answer = app
            .post(
                "/api/v1/charging/statements/generate",
                Some(&token),
                body.clone(),
            )
            .await;
        assert_eq!(code_of(&answer), (400, Some(4000)), "{body}: {}", answer.1);
        assert_eq!(
            answer.1["data"]["fields"][0]["field"], field,
            "{}",
            answer.1
        );
    }
    // None of this month or later was written (the month-end job writes only past months).
    let code = shanghai_now().format("%Y%m");
    assert_eq!(
        app.count(&format!(
            "select count(*) from energy.reconciliation_statement where month >= {code}"
        ))
        .await,
        0
    );
}

#[tokio::test]
async fn statements_are_refused_without_the_permission_and_another_enterprise_finds_none_of_as() {
    let (app, token) = a_with_sessions().await;
    let month = shanghai_now().format("%Y-%m").to_string();
    let (_, generated) = app
        .post(
            "/api/v1/charging/statements/generate",
            Some(&token),
            json!({ "month": month }),
        )
        .await;
    let id = generated["data"]["id"].as_str().unwrap().to_owned();

    // demo_ops holds vehicles only.
    let ops = app.token("demo_ops").await;
    let refused = [
        app.post(
            "/api/v1/charging/statements/generate",
            Some(&ops),
            json!({ "month": month }),
        )
        .await,
        app.get(
            &format!("/api/v1/charging/statements/{id}/card-lines"),
            Some(&ops),
        )
        .await,
    ];
    for answer in &refused {
        assert_eq!(code_of(answer), (403, Some(9999)), "{}", answer.1);
    }

    // B, charging opened, meets A's statement id nowhere.
    let b = b_opened(&app).await;
    for path in [
        format!("/api/v1/charging/statements/{id}"),
        format!("/api/v1/charging/statements/{id}/card-lines"),
        format!("/api/v1/charging/statements/{id}/file"),
    ] {
        let answer = app.get(&path, Some(&b)).await;
        assert_eq!(code_of(&answer), (404, Some(4004)), "{path}: {}", answer.1);
    }
    // B's own draft of the month holds none of A's sessions.
    let (code, own) = app
        .post(
            "/api/v1/charging/statements/generate",
            Some(&b),
            json!({ "month": month }),
        )
        .await;
    assert_eq!(code, 200, "{own}");
    assert_ne!(own["data"]["id"], id.as_str());
    assert_eq!(
        (&own["data"]["sessionCount"], &own["data"]["totalFen"]),
        (&json!(0), &json!(0))
    );
    let (_, lines) = app
        .get(
            &format!(
                "/api/v1/charging/statements/{}/card-lines",
                own["data"]["id"].as_str().unwrap()
            ),
            Some(&b),
        )
        .await;
    assert_eq!(lines["data"]["total"], 0, "{lines}");
}

/// The analysis' query of the last week (yesterday's sessions inside).
fn week() -> String {
    let today = shanghai_now().date_naive();
    format!(
        "startTimeStart={}&startTimeEnd={}",
        today - Duration::days(7),
        today
    )
}

#[tokio::test]
async fn the_behaviour_analysis_reads_hours_soc_and_organisations_and_lists_vehicles() {
    let app = stack_with_sessions().await;
    // The analysis is for enterprises on its white list only (the demo seed
    // puts A on it).
    app.sql(
        "insert into org.enterprise_list_entry (list_type, enterprise_id) \
         select 4, id from org.enterprise where code = 'DEMO-LOGISTICS' on conflict do nothing",
    )
    .await;
    let token = app.token("demo").await;

    let (code, analysis) = app
        .get(
            &format!("/api/v1/charging/behavior?{}", week()),
            Some(&token),
        )
        .await;
    assert_eq!(code, 200, "{analysis}");
    let a = &analysis["data"];
    assert_eq!(a["overall"]["sessionCount"], 4, "{analysis}");
    assert_eq!(a["overall"]["energyWh"], 70_000);
    assert_eq!(a["overall"]["totalFen"], 8_000);
    assert_eq!(a["overall"]["vehicleCount"], 3);
    // No odometer in this stack: no cost per 100 km.
    assert_eq!(a["overall"]["fenPer100km"], Value::Null);
    let hours = a["byHour"].as_array().unwrap();
    assert_eq!(hours.len(), 24);
    let at = |h: usize| hours[h]["sessionCount"].as_i64().unwrap();
    assert_eq!((at(2), at(14), at(23), at(8)), (2, 1, 1, 0));
    let soc = a["startSoc"].as_array().unwrap();
    assert_eq!(soc.len(), 10);
    let bucket = |from: i64| {
        soc.iter().find(|b| b["fromPercent"] == from).unwrap()["sessionCount"]
            .as_i64()
            .unwrap()
    };
    assert_eq!(
        (bucket(10), bucket(40), bucket(90), bucket(0)),
        (1, 1, 1, 0)
    );
    assert_eq!(a["startSocUnknownCount"], 1);
    let orgs = a["orgs"].as_array().unwrap();
    assert_eq!(orgs.len(), 2, "{analysis}");
    assert_eq!(orgs[0]["orgId"], app.org_a("A0101").await.as_str());
    assert_eq!(orgs[0]["figures"]["energyWh"], 50_000);

    // Filters: a plate, an organisation.
    let (_, plate) = app
        .get(
            &format!("/api/v1/charging/behavior?{}&plate=沪A10002", week()),
            Some(&token),
        )
        .await;
    assert_eq!(plate["data"]["overall"]["sessionCount"], 2, "{plate}");
    let hangzhou = app.org_a("A0102").await;
    let (_, org) = app
        .get(
            &format!("/api/v1/charging/behavior?{}&orgId={hangzhou}", week()),
            Some(&token),
        )
        .await;
    assert_eq!(org["data"]["overall"]["energyWh"], 20_000, "{org}");

    // Per vehicle, most energy first.
    let (code, vehicles) = app
        .get(
            &format!(
                "/api/v1/charging/behavior/vehicles?{}&page=1&size=5",
                week()
            ),
            Some(&token),
        )
        .await;
    assert_eq!(code, 200, "{vehicles}");
    assert_eq!(vehicles["data"]["total"], 3, "{vehicles}");
    let list = vehicles["data"]["list"].as_array().unwrap();
    let mut plates: Vec<&str> = list
        .iter()
        .map(|v| v["plateNumber"].as_str().unwrap())
        .collect();
    // 30 kWh first; the other two charged 20 kWh each.
    assert_eq!(plates.first(), Some(&"沪A10001"), "{vehicles}");
    plates[1..].sort_unstable();
    assert_eq!(plates, ["沪A10001", "沪A10002", "沪A10009"], "{vehicles}");
    assert_eq!(list[0]["figures"]["energyWh"], 30_000);
    assert_eq!(list[0]["usualStartHour"], 2);

    // The range is required and at most 92 days; nothing is read without it.
    for query in [
        String::new(),
        format!(
            "startTimeStart={}&startTimeEnd={}",
            shanghai_now().date_naive() - Duration::days(120),
            shanghai_now().date_naive()
        ),
    ] {
        let answer = app
            .get(&format!("/api/v1/charging/behavior?{query}"), Some(&token))
            .await;
        assert_eq!(code_of(&answer), (400, Some(4000)), "{query}: {}", answer.1);
    }

    // The export takes the filter and starts a job.
    let (code, export) = app
        .post(
            &format!("/api/v1/charging/behavior/vehicles/export?{}", week()),
            Some(&token),
            json!({}),
        )
        .await;
    assert_eq!(code, 200, "{export}");
    assert_eq!(export["data"]["module"], "behaviorAnalyze", "{export}");
}

#[tokio::test]
async fn the_behaviour_analysis_is_refused_off_its_white_list_and_another_enterprise_sees_nothing()
{
    let app = stack_with_sessions().await;
    // A taken off the white list (the demo seed puts it on): every analysis
    // route is refused.
    app.sql(
        "delete from org.enterprise_list_entry where list_type = 4 and enterprise_id = \
         (select id from org.enterprise where code = 'DEMO-LOGISTICS')",
    )
    .await;
    let token = app.token("demo").await;
    for (method, path) in [
        ("GET", format!("/api/v1/charging/behavior?{}", week())),
        (
            "GET",
            format!("/api/v1/charging/behavior/vehicles?{}", week()),
        ),
        (
            "POST",
            format!("/api/v1/charging/behavior/vehicles/export?{}", week()),
        ),
    ] {
        let answer = app.send(method, &path, Some(&token), json!({})).await;
        assert_eq!(code_of(&answer), (403, Some(9999)), "{path}: {}", answer.1);
    }

    // B, listed and opened, sees none of A's sessions.
    app.sql(
        "insert into org.enterprise_list_entry (list_type, enterprise_id) \
         select 4, id from org.enterprise where code <> 'DEMO-LOGISTICS'",
    )
    .await;
    let b = b_opened(&app).await;
    let (code, analysis) = app
        .get(&format!("/api/v1/charging/behavior?{}", week()), Some(&b))
        .await;
    assert_eq!(code, 200, "{analysis}");
    assert_eq!(analysis["data"]["overall"]["sessionCount"], 0);
    assert!(analysis["data"]["orgs"].as_array().unwrap().is_empty());
    let shanghai = app.org_a("A0101").await;
    let (code, vehicles) = app
        .get(
            &format!(
                "/api/v1/charging/behavior/vehicles?{}&orgId={shanghai}",
                week()
            ),
            Some(&b),
        )
        .await;
    // A's organisation is no filter B may use: refused or empty, never A's rows.
    assert!(
        code == 404 || (code == 200 && vehicles["data"]["total"] == 0),
        "{vehicles}"
    );
    assert!(!vehicles.to_string().contains("沪A1000"), "{vehicles}");
}

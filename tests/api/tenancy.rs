//! Tenant isolation as PostgreSQL enforces it and as the edge shows it:
//! every table carrying an enterprise id, in every schema, has row-level
//! security enabled and forced with a policy; and a tenant-B token on any
//! tenant-A id of any route answers 4004 and changes nothing.

use serde_json::json;

use crate::helpers::{
    TestApp, charging_body_refused, charging_not_opened, enterprise_rule_refused, spawn_app,
};

/// (schema.table, has an `id` column) of every table with enterprise_id(s).
const TENANT_TABLES: &str = "
select n.nspname || '.' || c.relname as name,
       c.relrowsecurity, c.relforcerowsecurity,
       exists(select 1 from pg_policy p where p.polrelid = c.oid) as has_policy,
       exists(select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'id'
              and a.atttypid = 'uuid'::regtype and not a.attisdropped) as has_id,
       exists(select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'enterprise_id'
              and not a.attisdropped) as has_enterprise_id
from pg_class c join pg_namespace n on n.oid = c.relnamespace
where c.relkind in ('r', 'p')
  and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\\_%'
  and exists(select 1 from pg_attribute a where a.attrelid = c.oid
             and a.attname in ('enterprise_id', 'enterprise_ids') and not a.attisdropped)
order by 1";

type TableRow = (String, bool, bool, bool, bool, bool);

async fn tenant_tables(app: &TestApp) -> Vec<TableRow> {
    let pool = sqlx_postgres::PgPool::connect(&app.db.url).await.unwrap();
    let rows = sqlx::query_as(TENANT_TABLES)
        .fetch_all(&pool)
        .await
        .unwrap();
    pool.close().await;
    rows
}

#[tokio::test]
async fn every_tenant_owned_table_in_every_schema_has_forced_row_level_security() {
    let app = spawn_app().await;
    let tables = tenant_tables(&app).await;
    let names: Vec<&str> = tables.iter().map(|t| t.0.as_str()).collect();
    for expected in [
        "auth.login_log",
        "auth.session",
        "org.member",
        "org.org_unit",
        "org.role",
        "org.enterprise_list_entry",
        "vehicle.vehicle",
        "vehicle.vehicle_binding",
        "vehicle.private_car",
        "vehicle.idempotency_key",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} not found among {names:?}"
        );
    }
    let unprotected: Vec<&str> = tables
        .iter()
        .filter(|(_, rls, force, policy, _, _)| !(*rls && *force && *policy))
        .map(|t| t.0.as_str())
        .collect();
    assert!(
        unprotected.is_empty(),
        "tables without RLS + FORCE + policy: {unprotected:?}"
    );

    // The role the services act as may not step around the policies.
    let pool = sqlx_postgres::PgPool::connect(&app.db.url).await.unwrap();
    let (bypass, superuser): (bool, bool) = sqlx::query_as(
        "select rolbypassrls, rolsuper from pg_roles where rolname = 'fleetdesk_app'",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert!(!bypass && !superuser);
    let owned: i64 = sqlx::query_scalar(
        "select count(*) from pg_tables where tableowner = 'fleetdesk_app' and schemaname in ('auth', 'org')",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(owned, 0);
}

/// A fingerprint of every tenant-owned table.
async fn snapshot(app: &TestApp, tables: &[TableRow]) -> Vec<(String, String)> {
    let pool = sqlx_postgres::PgPool::connect(&app.db.url).await.unwrap();
    let mut out = Vec::new();
    for (name, ..) in tables {
        let digest: String = sqlx::query_scalar(&format!(
            "select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) from {name} t"
        ))
        .fetch_one(&pool)
        .await
        .unwrap();
        out.push((name.clone(), digest));
    }
    pool.close().await;
    out
}

/// Up to a few ids of enterprise A from every tenant-owned table with an id.
async fn ids_of_a(app: &TestApp, tables: &[TableRow]) -> Vec<(String, String)> {
    let pool = sqlx_postgres::PgPool::connect(&app.db.url).await.unwrap();
    let mut out = Vec::new();
    for (name, _, _, _, has_id, has_enterprise_id) in tables {
        if !has_id || !has_enterprise_id {
            continue;
        }
        let ids: Vec<String> = sqlx::query_scalar(&format!(
            "select t.id::text from {name} t where t.enterprise_id = \
             (select id from org.enterprise where code = 'DEMO-LOGISTICS') order by t.id limit 3"
        ))
        .fetch_all(&pool)
        .await
        .unwrap();
        out.extend(ids.into_iter().map(|id| (name.clone(), id)));
    }
    pool.close().await;
    out
}

/// A body that passes the edge checks of every write route, so the answer
/// comes from the lookup of the id.
fn any_body() -> serde_json::Value {
    json!({
        "status": 2, "name": "改名", "orgCode": "Z99", "sort": 0, "parentId": "",
        "description": "", "permissionValues": [], "dataScope": 5, "dataScopeOrgIds": [],
        "roleIds": [], "orgId": "", "approve": true, "comment": "同意", "ids": [],
        "all": false, "sensitiveType": 1, "pageUrl": "/x", "sourceModule": "x",
        "content": "x", "contact": "", "attachmentKeys": []
    })
}

/// The same for vehicle routes, whose forms take enum names: a valid vehicle.
fn body_for(route: &str) -> serde_json::Value {
    if route.ends_with("/serve-areas") {
        return json!({ "cityCodes": ["440300"] });
    }
    if route.starts_with("/api/v1/finance/invoice-titles") {
        return json!({
            "titleType": "COMPANY", "name": "演示物流有限公司", "taxNumber": "91440300715267266L",
            "registeredAddress": "", "registeredPhone": "", "bankName": "", "bankAccount": "",
            "isDefault": false, "taxNumberConfirmed": true
        });
    }
    if route.starts_with("/api/v1/finance/invoice-addresses") {
        return json!({
            "recipientName": "张三", "recipientPhone": "13912345678",
            "area": { "provinceCode": "440000", "provinceName": "广东省", "cityCode": "440300",
                      "cityName": "深圳市", "districtCode": "440305", "districtName": "南山区" },
            "detailAddress": "科技园 1 号", "postalCode": "518000", "email": "", "isDefault": false
        });
    }
    if route.contains("/refunds/") && route.ends_with("/confirm") {
        return json!({ "expectedAmountFen": 100, "method": "PREPAID_BALANCE" });
    }
    if route.starts_with("/api/v1/dev/charging-open-applications") {
        return json!({ "reason": "资料不全" });
    }
    if route.starts_with("/api/v1/drivers") {
        return json!({
            "orgId": "", "name": "改名", "phone": "13912345678", "idNumber": "11010519491231002X",
            "licenceClass": "C1", "licenceExpireTime": "2030-01-01", "status": "ACTIVE",
            "sensitiveType": 1
        });
    }
    if route.starts_with("/api/v1/usage-records") {
        return json!({
            "vehicleId": "", "contractNo": "ZL-1", "startTime": "2026-01-01",
            "endTime": "2027-01-01", "rent": { "monthlyRentFen": 100000, "termMonths": 12 }
        });
    }
    if route.starts_with("/api/v1/video/vehicles") {
        return json!({ "channel": 1, "action": "pause" });
    }
    if route.starts_with("/api/v1/risk/alarms") {
        return json!({ "remark": "司机已回电", "attachments": [] });
    }
    if route.starts_with("/api/v1/risk/service-records") {
        return json!({
            "vehicleId": "", "driverId": "", "alarmId": "", "callerName": "王师傅",
            "callerPhone": "", "channel": "PHONE", "category": "CONSULTATION", "summary": "咨询",
            "resolution": "", "startTime": "2026-11-01 10:00:00", "durationSeconds": 60,
            "followUpTime": "", "satisfaction": 0, "status": "OPEN"
        });
    }
    if route.starts_with("/api/v1/risk/accidents") {
        return json!({
            "vehicleId": "", "driverId": "", "accidentTime": "2026-11-01 10:00:00",
            "address": "", "area": null, "point": null, "description": "剐蹭",
            "severity": "PROPERTY_ONLY", "liability": "UNDETERMINED", "injuredCount": 0,
            "fatalityCount": 0, "estimatedLossFen": 0, "assessedLossFen": 0,
            "fixedLossCode": "", "insurancePolicyId": "", "claimNo": "", "claimPaidFen": 0,
            "repairOrderId": "", "images": [], "documents": [], "remark": ""
        });
    }
    if !(route.starts_with("/api/v1/vehicle") || route.starts_with("/api/v1/private-car")) {
        return any_body();
    }
    json!({
        "orgId": "", "plateNumber": "粤BD12345", "vin": "1M8GDM9AXKP042788", "brand": "比亚迪",
        "model": "T5", "category": "LIGHT_TRUCK", "energyType": "BATTERY_ELECTRIC",
        "ownershipType": "RENTED", "status": "IDLE", "batteryCapacityWh": 81000,
        "terminalId": "T-1", "terminalSim": "14412345678", "approve": true, "remark": ""
    })
}

/// Gives enterprise A a vehicle with a terminal binding and a private car,
/// so their ids are among those tenant B tries.
async fn vehicle_rows_of_a(app: &TestApp) {
    let admin = app.token("demo").await;
    let (_, orgs) = app.get("/api/v1/system/orgs", Some(&admin)).await;
    let org = orgs["data"][0]["id"].clone();
    let mut vehicle = body_for("/api/v1/vehicles");
    vehicle["orgId"] = org.clone();
    let (status, body) = app.post("/api/v1/vehicles", Some(&admin), vehicle).await;
    assert_eq!(status, 200, "{body}");
    // A driver and a usage record of A, with their operation-log rows.
    let mut driver = body_for("/api/v1/drivers");
    driver["orgId"] = org.clone();
    let (status, created) = app.post("/api/v1/drivers", Some(&admin), driver).await;
    assert_eq!(status, 200, "{created}");
    let mut usage = body_for("/api/v1/usage-records");
    usage["vehicleId"] = body["data"]["id"].clone();
    let (status, created) = app.post("/api/v1/usage-records", Some(&admin), usage).await;
    assert_eq!(status, 200, "{created}");
    let (status, body) = app
        .post(
            "/api/v1/private-cars",
            Some(&admin),
            json!({ "orgId": org, "plateNumber": "浙A88888", "vin": "1M8GDM9AXKP042788",
                    "brand": "大众", "model": "朗逸", "energyType": "FUEL",
                    "ownerName": "张三", "ownerPhone": "13912345678" }),
        )
        .await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn a_tenant_b_token_on_every_tenant_a_id_of_every_route_finds_nothing_and_changes_nothing() {
    let app = spawn_app().await;
    vehicle_rows_of_a(&app).await;
    let token_b = app.token("demo2").await;
    let tables = tenant_tables(&app).await;
    let ids = ids_of_a(&app, &tables).await;
    assert!(ids.len() >= 12, "enterprise A has ids to try: {ids:?}");
    let table =
        fleetdesk_gateway::access::AccessTable::from_openapi(&fleetdesk_gateway::api().1).unwrap();
    let routes: Vec<(String, String)> = table
        .entries()
        .filter(|(_, path, _)| path.contains('{'))
        .map(|(m, p, _)| (m.to_owned(), p.to_owned()))
        .collect();
    assert!(routes.len() >= 8, "{routes:?}");

    let before = snapshot(&app, &tables).await;
    let mut wrong = Vec::new();
    let mut tries = 0;
    for (method, route) in &routes {
        for (source, id) in &ids {
            let mut path = route.clone();
            while let Some(open) = path.find('{') {
                let close = open + path[open..].find('}').unwrap();
                path.replace_range(open..=close, id);
            }
            let key = uuid::Uuid::new_v4().to_string();
            let (status, body) = app
                .send_keyed(method, &path, Some(&token_b), body_for(route), Some(&key))
                .await;
            tries += 1;
            if (status, body["code"].as_u64()) != (404, Some(4004))
                && !charging_not_opened(route, status, &body)
                && !charging_body_refused(route, status, &body)
                && !enterprise_rule_refused(method, route, status, &body)
            {
                wrong.push(format!(
                    "{method} {route} with {source} id: {status} {body}"
                ));
            }
        }
    }
    let after = snapshot(&app, &tables).await;
    assert!(
        wrong.is_empty(),
        "{} of {tries} answers were not 4004:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    let changed: Vec<&String> = before
        .iter()
        .zip(&after)
        .filter(|(b, a)| b.1 != a.1)
        .map(|(b, _)| &b.0)
        .collect();
    assert!(
        changed.is_empty(),
        "tables changed by tenant B: {changed:?}"
    );
}

//! Demo data of the shared lookups (console spec §7): the cities each demo
//! organisation serves, the units that are companies of their own, and
//! virtual organisations. Idempotent: fixed ids, rows that exist are left
//! alone.

use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::id;

/// (organisation key, GB/T 2260 city codes it serves).
const SERVE_AREAS: &[(&str, &[&str])] = &[
    ("a-east", &["310000", "330100", "320500"]),
    ("a-south", &["440100", "440300", "441900"]),
    ("a-shanghai", &["310000"]),
    ("a-hangzhou", &["330100"]),
    ("a-guangzhou", &["440100"]),
    ("a-shenzhen", &["440300", "441900"]),
    ("b-cold", &["110000", "120000"]),
    ("b-beijing", &["110000"]),
];

/// Units that are companies of their own (subsidiaries); the roots are the enterprises.
const COMPANIES: &[&str] = &["a-shanghai", "a-shenzhen"];

/// (key, enterprise key, code, name, grouped organisation keys).
const VIRTUAL_ORGS: &[(&str, &str, &str, &str, &[&str])] = &[
    (
        "a-tier1",
        "a",
        "V01",
        "一线城市专组",
        &["a-shanghai", "a-guangzhou", "a-shenzhen"],
    ),
    ("a-yangtze", "a", "V02", "长三角客户经理", &["a-east"]),
    ("b-north", "b", "V01", "华北冷链专组", &["b-beijing"]),
];

fn enterprise_of(org_key: &str) -> Uuid {
    let tenant = org_key.split('-').next().unwrap_or_default();
    id("enterprise", tenant)
}

pub async fn run(conn: &mut PgConnection) -> sqlx::Result<()> {
    for (org, cities) in SERVE_AREAS {
        for (sort, city) in cities.iter().enumerate() {
            sqlx::query(
                "insert into org_unit_area (enterprise_id, org_id, city_code, sort) \
                 values ($1, $2, $3, $4) on conflict (org_id, city_code) do nothing",
            )
            .bind(enterprise_of(org))
            .bind(id("org", org))
            .bind(*city)
            .bind(i32::try_from(sort).unwrap_or(0))
            .execute(&mut *conn)
            .await?;
        }
    }
    let companies: Vec<Uuid> = COMPANIES.iter().map(|k| id("org", k)).collect();
    sqlx::query("update org_unit set is_company = true where id = any($1) and not is_company")
        .bind(&companies)
        .execute(&mut *conn)
        .await?;
    for (sort, (key, tenant, code, name, orgs)) in VIRTUAL_ORGS.iter().enumerate() {
        let eid = id("enterprise", tenant);
        let vid = id("virtual-org", key);
        sqlx::query(
            "insert into virtual_org (id, enterprise_id, code, name, sort) \
             values ($1, $2, $3, $4, $5) on conflict (id) do nothing",
        )
        .bind(vid)
        .bind(eid)
        .bind(*code)
        .bind(*name)
        .bind(i32::try_from(sort).unwrap_or(0))
        .execute(&mut *conn)
        .await?;
        for (place, org) in orgs.iter().enumerate() {
            sqlx::query(
                "insert into virtual_org_unit (enterprise_id, virtual_org_id, org_id, sort) \
                 values ($1, $2, $3, $4) on conflict (virtual_org_id, org_id) do nothing",
            )
            .bind(eid)
            .bind(vid)
            .bind(id("org", org))
            .bind(i32::try_from(place).unwrap_or(0))
            .execute(&mut *conn)
            .await?;
        }
    }
    Ok(())
}

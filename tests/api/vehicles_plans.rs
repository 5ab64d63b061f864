//! The vehicle list stays index-served in a large tenant: with 100,000
//! vehicles in enterprise A, each shape of query the list, count and export
//! send (kit::list over `vehicle`, generic plans as the service runs them,
//! as the app role under row-level security) is planned on an index of the
//! vehicle table, never a sequential scan of it.

use crate::helpers::spawn_app;

/// The enterprise-A rows: 100,000 vehicles over the demo organisations.
const SEED: &str = "
insert into vehicle.vehicle (id, enterprise_id, org_id, plate_number, plate_color, vin, brand,
  model, category, energy_type, ownership_type, status, register_time, created_at, lease_end_time)
select gen_random_uuid(), a.id, a.orgs[1 + i % array_length(a.orgs, 1)],
  '粤B' || lpad(i::text, 6, '0'), 3, 'LGXCE4CB0P' || lpad(i::text, 7, '0'), '比亚迪', 'M' || (i % 40),
  2, 1, 1, 1 + i % 5, now() - (i || ' hours')::interval, now() - (i || ' minutes')::interval,
  now() + ((i % 700) || ' days')::interval
from generate_series(1, 100000) i,
  (select e.id, array_agg(o.id) as orgs from org.enterprise e
   join org.org_unit o on o.enterprise_id = e.id
   where e.code = 'DEMO-LOGISTICS' group by e.id) a";

/// (what, query with $1 = enterprise) of every list shape.
const SHAPES: [(&str, &str); 10] = [
    (
        "page, newest first",
        "select v.id from vehicle v where v.enterprise_id = $1 and (true) \
         order by v.created_at desc, v.id desc limit 20 offset 0",
    ),
    (
        "batch of plates",
        "select v.id from vehicle v where v.enterprise_id = $1 and (true) \
         and v.plate_number = any(array['粤B000001','粤B000002']) \
         order by v.created_at desc, v.id desc limit 20 offset 0",
    ),
    (
        "page carrying its total from the counters",
        "select v.id, (select coalesce(sum(c.vehicles), 0)::bigint from vehicle_org_count c \
         where c.enterprise_id = $1) as total from vehicle v where v.enterprise_id = $1 and (true) \
         order by v.created_at desc, v.id desc limit 20 offset 0",
    ),
    (
        "batch of plates, page counted by a window",
        "select v.id, coalesce((select o.name from org_unit o where o.id = v.org_id), '') \
         as org_name, v.total from (select v.id, v.org_id, v.created_at, count(*) over () as total from vehicle v \
         where v.enterprise_id = $1 and (true) \
         and v.plate_number = any(array['粤B000001','粤B000002']) \
         order by v.created_at desc, v.id desc limit 20 offset 0) v \
         order by v.created_at desc, v.id desc",
    ),
    (
        "batch of VINs, count",
        "select count(*) from vehicle v where v.enterprise_id = $1 and (true) \
         and v.vin = any(array['LGXCE4CB0P0000001'])",
    ),
    (
        "organisations, count",
        "select count(*) from vehicle v where v.enterprise_id = $1 and (true) \
         and v.org_id = any(array['00000000-0000-0000-0000-000000000001'::uuid])",
    ),
    (
        "keyword (pg_trgm), count",
        "select count(*) from vehicle v where v.enterprise_id = $1 and (true) \
         and (v.plate_number ilike '%B01234%' or v.vin ilike '%B01234%')",
    ),
    (
        "sorted by lease end",
        "select v.id from vehicle v where v.enterprise_id = $1 and (true) \
         order by v.lease_end_time asc nulls last, v.id asc limit 20 offset 0",
    ),
    (
        "status, count",
        "select count(*) from vehicle v where v.enterprise_id = $1 and (true) \
         and v.status = any(array[5::smallint])",
    ),
    (
        "export keyset page",
        "select v.id from vehicle v where v.enterprise_id = $1 and (true) \
         and (v.created_at, v.id) < (now() - interval '1 day', '00000000-0000-0000-0000-000000000001'::uuid) \
         order by v.created_at desc, v.id desc limit 1000",
    ),
];

#[tokio::test]
async fn every_vehicle_list_shape_is_planned_on_an_index_in_a_large_tenant() {
    let app = spawn_app().await;
    app.sql(SEED).await;
    app.sql("analyze vehicle.vehicle").await;
    let enterprise = app
        .sql_text("select id::text from org.enterprise where code = 'DEMO-LOGISTICS'")
        .await;
    // kit's migration lets ILIKE use pg_trgm under row-level security.
    let leakproof = app
        .sql_text(
            "select string_agg(version::text, ',') || ' ' || \
             (select proleakproof::text from pg_proc where proname = 'texticlike') \
             from vehicle._sqlx_migrations where version < 1000",
        )
        .await;
    assert!(
        leakproof.ends_with("true"),
        "kit migrations and texticlike: {leakproof}"
    );
    let pool = sqlx_postgres::PgPool::connect(&app.db.url).await.unwrap();
    let mut tx = pool.begin().await.unwrap();
    for statement in [
        "set local search_path = vehicle",
        "set local plan_cache_mode = force_generic_plan",
        "set local role fleetdesk_app",
    ] {
        sqlx::query(statement).execute(&mut *tx).await.unwrap();
    }
    sqlx::query("select set_config('app.enterprise_id', $1, true)")
        .bind(&enterprise)
        .execute(&mut *tx)
        .await
        .unwrap();
    let mut problems = Vec::new();
    for (what, query) in SHAPES {
        let plan: Vec<String> = sqlx::query_scalar(&format!("explain {query}"))
            .bind(uuid::Uuid::parse_str(&enterprise).unwrap())
            .fetch_all(&mut *tx)
            .await
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let plan = plan.join("\n");
        let on_index = plan.contains("Index Scan on vehicle")
            || plan.contains("Index Only Scan using vehicle_")
            || plan.contains("Index Scan using vehicle_")
            || plan.contains("Bitmap Index Scan on vehicle_");
        if plan.contains("Seq Scan on vehicle ") || !on_index {
            problems.push(format!("{what}:\n{plan}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

//! Lists stay fast at scale (issue 9 §4): with one tenant of 100,000 members
//! beside a tenant of two, every users-list query the service builds is
//! planned on an index (never a sequential scan of `member`), as the app
//! role inside a tenant transaction, under the generic plans the pool forces.

use fleetdesk_kit::db;
use fleetdesk_kit::reach::ResolvedReach;
use fleetdesk_testkit::TestDb;
use sqlx_postgres::PgPool;
use uuid::Uuid;

use super::store::{ListFilter, SELECT};

const BIG: u32 = 100_000;

struct Tenants {
    app: PgPool,
    big: Uuid,
    small: Uuid,
    big_orgs: Vec<Uuid>,
}

async fn seed(db: &TestDb) -> Tenants {
    let owner = db::connect_owner(&db.url, crate::SCHEMA.name, 2)
        .await
        .unwrap();
    crate::SCHEMA.migrate(&owner).await.unwrap();
    let (big, small) = (Uuid::new_v4(), Uuid::new_v4());
    let big_orgs: Vec<Uuid> = (0..20).map(|_| Uuid::new_v4()).collect();
    for (id, code) in [(big, "BIG"), (small, "SMALL")] {
        sqlx::query("insert into enterprise (id, name, code) values ($1, $2, $2)")
            .bind(id)
            .bind(code)
            .execute(&owner)
            .await
            .unwrap();
    }
    for (i, org) in big_orgs.iter().enumerate() {
        sqlx::query(
            "insert into org_unit (id, enterprise_id, parent_id, org_code, name, level) \
             values ($1, $2, $3, $4, $4, 1)",
        )
        .bind(org)
        .bind(big)
        .bind((i > 0).then(|| big_orgs[0]))
        .bind(format!("O{i}"))
        .execute(&owner)
        .await
        .unwrap();
    }
    sqlx::query(
        "insert into member (id, enterprise_id, account_id, name, user_name, org_id, created_at) \
         select gen_random_uuid(), $1, gen_random_uuid(), '司机' || i, 'user' || i, \
                ($2::uuid[])[1 + i % 20], now() - i * interval '1 second' \
         from generate_series(1, $3) as i",
    )
    .bind(big)
    .bind(&big_orgs)
    .bind(i32::try_from(BIG).unwrap())
    .execute(&owner)
    .await
    .unwrap();
    sqlx::query(
        "insert into member (id, enterprise_id, account_id, name, user_name) \
         select gen_random_uuid(), $1, gen_random_uuid(), '小' || i, 'small' || i \
         from generate_series(1, 2) as i",
    )
    .bind(small)
    .execute(&owner)
    .await
    .unwrap();
    sqlx::query("analyze").execute(&owner).await.unwrap();
    owner.close().await;
    Tenants {
        app: db::connect(&db.url, crate::SCHEMA.name, 2).await.unwrap(),
        big,
        small,
        big_orgs,
    }
}

fn filter(
    tenant: Uuid,
    name: Option<&str>,
    orgs: Option<Vec<Uuid>>,
    reach: ResolvedReach,
) -> ListFilter {
    ListFilter {
        tenant,
        pattern: name.map(crate::sql::like_pattern),
        orgs,
        role: None,
        status: None,
        reach,
    }
}

fn everything() -> ResolvedReach {
    crate::scope::domain::Reach::everything().into()
}

fn member_reach(orgs: &[Uuid]) -> ResolvedReach {
    let mut org_ids = orgs.to_vec();
    org_ids.sort_unstable();
    org_ids.dedup();
    ResolvedReach {
        all: false,
        org_ids,
        own: Some(Uuid::new_v4()),
    }
}

/// The plan of the page and of the count, as the app role in the tenant.
async fn plans(app: &PgPool, filter: &ListFilter, analyze: bool) -> (String, String) {
    let head = if analyze {
        "explain (analyze, buffers off) "
    } else {
        "explain "
    };
    let mut tx = db::begin_tenant(app, filter.tenant).await.unwrap();
    let page: Vec<String> = filter
        .page_query(head, 1, 20)
        .build_query_scalar()
        .fetch_all(&mut *tx)
        .await
        .unwrap();
    let count: Vec<String> = filter
        .count_query(head)
        .build_query_scalar()
        .fetch_all(&mut *tx)
        .await
        .unwrap();
    tx.rollback().await.unwrap();
    (page.join("\n"), count.join("\n"))
}

/// The users list before issue 9 ($1 tenant, $2 pattern, $3 orgs, $4 role,
/// $5 status, $6 all, $7 orgs reached, $8 own, $9 size, $10 offset).
const OLD_FILTER: &str = "where m.enterprise_id = $1 and (m.name like $2 or m.user_name like $2) \
     and ($3::uuid[] is null or m.org_id = any($3)) \
     and ($4::uuid is null or exists(select 1 from member_role x where x.member_id = m.id and x.role_id = $4)) \
     and ($5::smallint is null or m.status = $5) \
     and ($6::boolean or m.org_id = any($7::uuid[]) or m.id = $8::uuid)";
const OLD_PAGE: &str = "OLD_PAGE";
const OLD_COUNT: &str = "OLD_COUNT";

/// Execution time of `sql` under a generic plan in a tenant transaction.
/// Today's queries bind the tenant ($1) and, for a page, size and offset;
/// the old ones bind everything as the old list did.
async fn generic_ms(
    conn: &mut sqlx_postgres::PgConnection,
    tenant: Uuid,
    sql: &str,
    old: bool,
) -> f64 {
    let sql = match sql {
        OLD_PAGE => format!(
            "{} {OLD_FILTER} order by m.created_at, m.id limit $9 offset $10",
            SELECT
        ),
        OLD_COUNT => format!("select count(*) from member m {OLD_FILTER}"),
        other => other.to_owned(),
    };
    let mut tx = sqlx::Connection::begin(&mut *conn).await.unwrap();
    sqlx::query("select set_config('app.enterprise_id', $1, true)")
        .bind(tenant.to_string())
        .execute(&mut *tx)
        .await
        .unwrap();
    sqlx::raw_sql(&format!("prepare timed as {sql}"))
        .execute(&mut *tx)
        .await
        .unwrap();
    let args = if old && sql.contains("limit") {
        format!("'{tenant}', '%%', null, null, null, true, '{{}}', null, 20, 0")
    } else if old {
        format!("'{tenant}', '%%', null, null, null, true, '{{}}', null")
    } else if sql.contains("limit") {
        format!("'{tenant}', 20, 0")
    } else {
        format!("'{tenant}'")
    };
    let mut best = f64::MAX;
    for _ in 0..3 {
        let plan: Vec<String> = sqlx::query_scalar(&format!(
            "explain (analyze, timing off) execute timed({args})"
        ))
        .fetch_all(&mut *tx)
        .await
        .unwrap();
        best = best.min(execution_ms(&plan.join("\n")));
    }
    tx.rollback().await.unwrap();
    sqlx::raw_sql("deallocate timed")
        .execute(&mut *conn)
        .await
        .ok();
    best
}

fn execution_ms(plan: &str) -> f64 {
    plan.lines()
        .find_map(|l| l.trim().strip_prefix("Execution Time: "))
        .and_then(|t| t.trim_end_matches(" ms").parse().ok())
        .unwrap_or(f64::NAN)
}

/// The old tenant policy (`enterprise_id::text` = setting), for the figures.
const TEXT_POLICY: &str = "drop policy tenant_isolation on member; \
     create policy tenant_isolation on member using (\
     enterprise_id::text = current_setting('app.enterprise_id', true) \
     or current_setting('app.scope', true) = 'service')";

#[tokio::test]
async fn every_users_list_query_is_served_by_an_index_beside_a_large_tenant() {
    let db = TestDb::new().await;
    let t = seed(&db).await;
    // Each must plan on an index, page and count alike.
    let indexed = [
        (
            "small tenant, whole enterprise",
            filter(t.small, None, None, everything()),
        ),
        (
            "big tenant, organisation filter",
            filter(t.big, None, Some(t.big_orgs[3..5].to_vec()), everything()),
        ),
        (
            "big tenant, one-org reach",
            filter(t.big, None, None, member_reach(&t.big_orgs[7..8])),
        ),
        (
            "big tenant, no reach but own rows",
            filter(t.big, None, None, member_reach(&[])),
        ),
    ];
    let mut bad = Vec::new();
    for (name, f) in &indexed {
        let (page, count) = plans(&t.app, f, false).await;
        for (which, plan) in [("page", &page), ("count", &count)] {
            // The kept count (a row of a small table) is as good as an index.
            let served = plan.contains("Index") || plan.contains("on member_count");
            if plan.contains("Seq Scan on member ") || !served {
                bad.push(format!("{name} ({which}):\n{plan}"));
            }
        }
    }
    // The big tenant's first page walks the order index and stops at 20
    // rows; its unfiltered total is the kept count, not a count of 100,000.
    let whole = filter(t.big, None, None, everything());
    let (page, count) = plans(&t.app, &whole, false).await;
    if !page.contains("member_list_idx") || !count.contains("on member_count") {
        bad.push(format!("big tenant, whole enterprise:\n{page}\n{count}"));
    }
    // The kept count is exact.
    let mut tx = db::begin_tenant(&t.app, t.big).await.unwrap();
    let kept: i64 = whole
        .count_query("")
        .build_query_scalar()
        .fetch_one(&mut *tx)
        .await
        .unwrap();
    let counted: i64 = sqlx::query_scalar("select count(*) from member where enterprise_id = $1")
        .bind(t.big)
        .fetch_one(&mut *tx)
        .await
        .unwrap();
    tx.rollback().await.unwrap();
    assert_eq!((kept, counted), (i64::from(BIG), i64::from(BIG)));
    assert!(
        bad.is_empty(),
        "plans without an index:\n{}",
        bad.join("\n\n")
    );

    // The figures for the record (EXPLAIN ANALYZE, timing off, warm cache,
    // generic plans as the pool forces): today's query and policy, then the
    // query and text policy before issue 9 (like '%%', reach flags, no order
    // index) on the same data.
    let mut figures = Vec::new();
    let mut conn = t.app.acquire().await.unwrap();
    for (era, page_sql, count_sql) in [
        ("now", None, None),
        ("before", Some(OLD_PAGE), Some(OLD_COUNT)),
    ] {
        if era == "before" {
            let owner = db::connect_owner(&db.url, crate::SCHEMA.name, 1)
                .await
                .unwrap();
            sqlx::raw_sql(TEXT_POLICY).execute(&owner).await.unwrap();
            sqlx::raw_sql("drop index member_list_idx; drop index member_org_idx; analyze member")
                .execute(&owner)
                .await
                .unwrap();
            owner.close().await;
        }
        for (name, tenant) in [("small tenant", t.small), ("100k tenant", t.big)] {
            let mut ms = Vec::new();
            for sql in [page_sql, count_sql] {
                let text = match (sql, ms.len()) {
                    (Some(old), _) => old.to_owned(),
                    (None, 0) => filter(tenant, None, None, everything())
                        .page_query("", 1, 20)
                        .into_sql(),
                    (None, _) => filter(tenant, None, None, everything())
                        .count_query("")
                        .into_sql(),
                };
                ms.push(generic_ms(&mut conn, tenant, &text, sql.is_some()).await);
            }
            figures.push(format!(
                "{era}: {name}: page of 20 {:.2} ms, count {:.2} ms",
                ms[0], ms[1]
            ));
        }
    }
    eprintln!("{}", figures.join("\n"));
}

//! Data scope through the org_unit replica, as the app role sees it, against
//! real PostgreSQL: subtrees expand by path, moves take their subtree along,
//! older versions never overwrite newer ones, and tenants stay apart.

use fleetdesk_kit::db;
use fleetdesk_kit::internal_token::Claims;
use fleetdesk_kit::org_replica::{self, ReplicaUnit};
use fleetdesk_kit::reach::{Reach, ReachClaim};
use fleetdesk_testkit::TestDb;
use sqlx::migrate::Migrator;
use sqlx_postgres::PgPool;
use uuid::Uuid;

fn u(n: u128) -> Uuid {
    Uuid::from_u128(n)
}

const A: u128 = 0xa000;
const B: u128 = 0xb000;

/// A unit of `enterprise` under `ancestors` (root first), at `version`.
fn unit(enterprise: u128, ancestors: &[u128], id: u128, version: i64) -> ReplicaUnit {
    let path: String = ancestors
        .iter()
        .chain(std::iter::once(&id))
        .map(|a| format!("/{}", u(*a)))
        .collect::<String>()
        + "/";
    ReplicaUnit {
        id: u(id),
        enterprise_id: u(enterprise),
        parent_id: ancestors.last().map(|p| u(*p)),
        name: format!("unit {id}"),
        path,
        disabled: false,
        version,
        code: format!("C{id}"),
    }
}

async fn replica(db: &TestDb) -> (PgPool, PgPool) {
    let owner = db::connect_owner(&db.url, "reach_test", 2).await.unwrap();
    db::migrate_with(&owner, &Migrator::DEFAULT, true)
        .await
        .unwrap();
    sqlx::raw_sql(
        "create table thing (id serial primary key, enterprise_id uuid not null, \
           org_id uuid, created_by uuid, name text not null); \
         select enable_tenant_rls('thing'); \
         grant select on thing to fleetdesk_app;",
    )
    .execute(&owner)
    .await
    .unwrap();
    let app = db::connect(&db.url, "reach_test", 2).await.unwrap();
    // A: 1 ─┬─ 2 ── 4      B: 7 ── 8
    //       └─ 3 ── 5 ── 6
    let units = [
        unit(A, &[], 1, 1),
        unit(A, &[1], 2, 1),
        unit(A, &[1], 3, 1),
        unit(A, &[1, 2], 4, 1),
        unit(A, &[1, 3], 5, 1),
        unit(A, &[1, 3, 5], 6, 1),
        unit(B, &[], 7, 1),
        unit(B, &[7], 8, 1),
    ];
    let mut tx = db::begin_service(&app).await.unwrap();
    assert_eq!(org_replica::upsert(&mut tx, &units).await.unwrap(), 8);
    tx.commit().await.unwrap();
    (owner, app)
}

fn person(all: bool, subtrees: &[u128], orgs: &[u128]) -> Claims {
    let mut claims = Claims::service("gateway");
    claims.sub = format!("user:{}", u(99));
    claims.ent = Some(u(A).to_string());
    claims.reach = Some(ReachClaim {
        all,
        subtrees: subtrees.iter().map(|o| u(*o)).collect(),
        orgs: orgs.iter().map(|o| u(*o)).collect(),
    });
    claims
}

async fn reached(app: &PgPool, enterprise: u128, claims: &Claims) -> Vec<u128> {
    let mut tx = db::begin_tenant(app, u(enterprise)).await.unwrap();
    let resolved = Reach::of(claims).resolve(&mut tx).await.unwrap();
    tx.rollback().await.unwrap();
    resolved.org_ids.iter().map(|o| o.as_u128()).collect()
}

#[tokio::test]
async fn subtrees_expand_through_the_replica_and_single_orgs_stay_single() {
    let db = TestDb::new().await;
    let (_owner, app) = replica(&db).await;
    assert_eq!(reached(&app, A, &person(false, &[3], &[])).await, [3, 5, 6]);
    assert_eq!(
        reached(&app, A, &person(false, &[3], &[2])).await,
        [2, 3, 5, 6]
    );
    assert_eq!(
        reached(&app, A, &person(false, &[1], &[])).await,
        [1, 2, 3, 4, 5, 6]
    );
    assert_eq!(
        reached(&app, A, &person(false, &[], &[4, 6, 77])).await,
        [4, 6]
    );
    // Another tenant's units are invisible in this tenant's transaction.
    assert!(
        reached(&app, A, &person(false, &[7], &[8]))
            .await
            .is_empty()
    );
    assert!(reached(&app, A, &person(false, &[], &[])).await.is_empty());
    let mut tx = db::begin_tenant(&app, u(A)).await.unwrap();
    let all = Reach::of(&person(true, &[], &[]))
        .resolve(&mut tx)
        .await
        .unwrap();
    assert!(all.all);
}

#[tokio::test]
async fn a_moved_unit_takes_its_subtree_along_and_old_versions_lose() {
    let db = TestDb::new().await;
    let (_owner, app) = replica(&db).await;
    // Move 3 (with 5 and 6) under 2.
    let moved = [
        unit(A, &[1, 2], 3, 5),
        unit(A, &[1, 2, 3], 5, 6),
        unit(A, &[1, 2, 3, 5], 6, 7),
    ];
    let mut tx = db::begin_service(&app).await.unwrap();
    assert_eq!(org_replica::upsert(&mut tx, &moved).await.unwrap(), 3);
    // A late event of the old state changes nothing.
    let stale = [unit(A, &[1], 3, 2)];
    assert_eq!(org_replica::upsert(&mut tx, &stale).await.unwrap(), 0);
    tx.commit().await.unwrap();
    assert_eq!(
        reached(&app, A, &person(false, &[2], &[])).await,
        [2, 3, 4, 5, 6]
    );
    assert_eq!(reached(&app, A, &person(false, &[3], &[])).await, [3, 5, 6]);
}

#[tokio::test]
async fn the_condition_filters_rows_by_org_and_creator() {
    let db = TestDb::new().await;
    let (owner, app) = replica(&db).await;
    for (org, creator, name) in [
        (Some(3), None, "in 3"),
        (Some(6), None, "in 6"),
        (Some(4), None, "in 4"),
        (Some(4), Some(99), "mine in 4"),
        (None, None, "nowhere"),
    ] {
        sqlx::query(
            "insert into thing (enterprise_id, org_id, created_by, name) values ($1, $2, $3, $4)",
        )
        .bind(u(A))
        .bind(org.map(u))
        .bind(creator.map(u))
        .bind(name)
        .execute(&owner)
        .await
        .unwrap();
    }
    let names = |claims: Claims| {
        let app = app.clone();
        async move {
            let mut tx = db::begin_tenant(&app, u(A)).await.unwrap();
            let resolved = Reach::of(&claims).resolve(&mut tx).await.unwrap();
            let mut qb = sqlx::QueryBuilder::new("select name from thing where ");
            resolved.push_condition(&mut qb, "org_id", "created_by");
            qb.push(" order by name");
            let rows: Vec<String> = qb.build_query_scalar().fetch_all(&mut *tx).await.unwrap();
            rows
        }
    };
    assert_eq!(
        names(person(false, &[3], &[])).await,
        ["in 3", "in 6", "mine in 4"]
    );
    assert_eq!(names(person(true, &[], &[])).await.len(), 5);
    assert_eq!(names(Claims::service("vehicle")).await.len(), 5);
    let mut no_claim = person(false, &[], &[]);
    no_claim.reach = None;
    assert_eq!(names(no_claim).await, ["mine in 4"]);
}

#[tokio::test]
async fn the_subtree_lookup_can_use_the_path_index() {
    let db = TestDb::new().await;
    let (_owner, app) = replica(&db).await;
    let mut tx = db::begin_tenant(&app, u(A)).await.unwrap();
    sqlx::query("set local enable_seqscan = off")
        .execute(&mut *tx)
        .await
        .unwrap();
    let plan: Vec<String> = sqlx::query_scalar(
        "explain select d.id from org_unit r join org_unit d \
           on d.enterprise_id = r.enterprise_id \
          and d.path ~>=~ r.path and d.path ~<~ (r.path || '~') \
         where r.id = any($1)",
    )
    .bind(vec![u(3)])
    .fetch_all(&mut *tx)
    .await
    .unwrap();
    let plan = plan.join("\n");
    assert!(plan.contains("org_unit_path_idx"), "{plan}");
}

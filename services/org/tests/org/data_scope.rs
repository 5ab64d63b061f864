//! Data scopes against real PostgreSQL: over random organisation trees and
//! random scopes, the members a scope reaches (the filter every list uses)
//! equal what a recursive SQL reference says.

use std::collections::BTreeSet;

use fleetdesk_kit::db;
use fleetdesk_org::scope::domain::{Reach, ScopeKind};
use fleetdesk_org::scope::store;
use fleetdesk_testkit::TestDb;
use rand::rngs::StdRng;
use rand::{Rng as _, SeedableRng as _};
use sqlx_postgres::PgPool;
use uuid::Uuid;

/// The reference: straight from the definition of each kind, in SQL.
const REFERENCE: &str = "
with recursive targets as (
    select t.id from unnest($3::uuid[]) as t(id) join org_unit o on o.id = t.id
), below as (
    select id from targets
    union all
    select c.id from org_unit c join below b on c.parent_id = b.id
)
select m.id from member m
where m.enterprise_id = $1 and (
    $2 = 5
    or m.id = $4
    or ($2 in (2, 4) and m.org_id in (select id from targets))
    or ($2 = 3 and m.org_id in (select id from below))
)";

struct Fixture {
    owner: PgPool,
    app: PgPool,
    enterprise: Uuid,
    orgs: Vec<Uuid>,
    members: Vec<(Uuid, Option<Uuid>)>,
}

async fn random_enterprise(db: &TestDb, rng: &mut StdRng) -> Fixture {
    let owner = db::connect_owner(&db.url, fleetdesk_org::SCHEMA.name, 2)
        .await
        .unwrap();
    db::migrate(&owner, &fleetdesk_org::MIGRATOR).await.unwrap();
    let enterprise = Uuid::new_v4();
    sqlx::query("insert into enterprise (id, name, code) values ($1, 'e', $2)")
        .bind(enterprise)
        .bind(enterprise.to_string())
        .execute(&owner)
        .await
        .unwrap();
    let mut orgs: Vec<Uuid> = Vec::new();
    let count = rng.gen_range(1..40);
    for i in 0..count {
        let id = Uuid::new_v4();
        // Each node hangs under a random earlier one, or starts a new root.
        let parent = if orgs.is_empty() || rng.gen_bool(0.1) {
            None
        } else {
            Some(orgs[rng.gen_range(0..orgs.len())])
        };
        sqlx::query(
            "insert into org_unit (id, enterprise_id, parent_id, org_code, name, level) values ($1, $2, $3, $4, $4, 1)",
        )
        .bind(id)
        .bind(enterprise)
        .bind(parent)
        .bind(format!("C{i}"))
        .execute(&owner)
        .await
        .unwrap();
        orgs.push(id);
    }
    let mut members = Vec::new();
    for i in 0..rng.gen_range(1..60) {
        let id = Uuid::new_v4();
        let org = (!rng.gen_bool(0.1)).then(|| orgs[rng.gen_range(0..orgs.len())]);
        sqlx::query(
            "insert into member (id, enterprise_id, account_id, name, user_name, org_id) values ($1, $2, $3, 'm', $4, $5)",
        )
        .bind(id)
        .bind(enterprise)
        .bind(Uuid::new_v4())
        .bind(format!("m{i}"))
        .bind(org)
        .execute(&owner)
        .await
        .unwrap();
        members.push((id, org));
    }
    let app = db::connect(&db.url, fleetdesk_org::SCHEMA.name, 2)
        .await
        .unwrap();
    Fixture {
        owner,
        app,
        enterprise,
        orgs,
        members,
    }
}

#[tokio::test]
async fn scope_filters_match_a_recursive_sql_reference_over_random_trees() {
    let mut rng = StdRng::seed_from_u64(20261122);
    let mut cases = 0;
    let mut differences = Vec::new();
    for _ in 0..6 {
        let db = TestDb::new().await;
        let f = random_enterprise(&db, &mut rng).await;
        for _ in 0..40 {
            let (member, member_org) = f.members[rng.gen_range(0..f.members.len())];
            let kind: i16 = rng.gen_range(1..=5);
            let picked: Vec<Uuid> = match ScopeKind::try_from(kind).unwrap() {
                ScopeKind::Custom => (0..rng.gen_range(1..5))
                    .map(|_| f.orgs[rng.gen_range(0..f.orgs.len())])
                    .collect(),
                ScopeKind::Org | ScopeKind::OrgSubtree if rng.gen_bool(0.5) => {
                    vec![f.orgs[rng.gen_range(0..f.orgs.len())]]
                }
                _ => Vec::new(),
            };
            let mut picked: Vec<Uuid> = picked
                .into_iter()
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect();
            picked.sort_unstable();
            sqlx::query(
                "update member set data_scope_kind = $2, data_scope_org_ids = $3 where id = $1",
            )
            .bind(member)
            .bind(kind)
            .bind(&picked)
            .execute(&f.owner)
            .await
            .unwrap();

            // The implementation, as the app role sees it in a tenant transaction.
            let mut tx = db::begin_tenant(&f.app, f.enterprise).await.unwrap();
            let reach = store::of_member(&mut tx, member).await.unwrap();
            let got: BTreeSet<Uuid> = sqlx::query_scalar(&format!(
                "select m.id from member m where {}",
                Reach::condition("m.org_id", "m.id", 1)
            ))
            .bind(reach.all)
            .bind(reach.org_list())
            .bind(reach.own)
            .fetch_all(&mut *tx)
            .await
            .unwrap()
            .into_iter()
            .collect();
            tx.rollback().await.unwrap();

            let targets: Vec<Uuid> = if picked.is_empty()
                && matches!(
                    ScopeKind::try_from(kind),
                    Ok(ScopeKind::Org | ScopeKind::OrgSubtree)
                ) {
                member_org.into_iter().collect()
            } else {
                picked.clone()
            };
            let want: BTreeSet<Uuid> = sqlx::query_scalar(REFERENCE)
                .bind(f.enterprise)
                .bind(i32::from(kind))
                .bind(&targets)
                .bind(member)
                .fetch_all(&f.owner)
                .await
                .unwrap()
                .into_iter()
                .collect();
            if got != want {
                differences.push(format!(
                    "kind {kind} orgs {picked:?}: got {got:?}, want {want:?}"
                ));
            }
            cases += 1;
        }
        f.app.close().await;
        f.owner.close().await;
    }
    assert_eq!(cases, 240);
    assert!(
        differences.is_empty(),
        "{} differences: {differences:#?}",
        differences.len()
    );
}

#[tokio::test]
async fn a_tenant_transaction_sees_no_other_tenants_orgs() {
    let mut rng = StdRng::seed_from_u64(7);
    let db = TestDb::new().await;
    let a = random_enterprise(&db, &mut rng).await;
    // A second enterprise in the same database.
    let other = Uuid::new_v4();
    sqlx::query("insert into enterprise (id, name, code) values ($1, 'b', 'B')")
        .bind(other)
        .execute(&a.owner)
        .await
        .unwrap();
    sqlx::query("insert into org_unit (id, enterprise_id, org_code, name, level) values ($1, $2, 'X', 'X', 1)")
        .bind(Uuid::new_v4())
        .bind(other)
        .execute(&a.owner)
        .await
        .unwrap();
    let mut tx = db::begin_tenant(&a.app, a.enterprise).await.unwrap();
    let tree = store::tree(&mut tx).await.unwrap();
    assert_eq!(tree.len(), a.orgs.len());
}

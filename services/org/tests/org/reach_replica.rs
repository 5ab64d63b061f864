//! Data scope as a domain service computes it (issue 9): over random trees
//! (with random moves and disables) and random scopes, the reach a service
//! resolves from org's claim through its org_unit replica — filled from org's
//! snapshot, then updated by org's change events — equals org's own reach.

use std::collections::{BTreeSet, HashMap};

use fleetdesk_kit::db;
use fleetdesk_kit::grpc::Caller;
use fleetdesk_kit::internal_token::Claims;
use fleetdesk_kit::org_replica::{self, ReplicaUnit};
use fleetdesk_kit::reach::{Reach, ReachClaim};
use fleetdesk_org::replication;
use fleetdesk_org::scope::convert::reach_claim;
use fleetdesk_org::scope::domain::{self as scope, DataScope, ScopeKind};
use fleetdesk_proto::org::v1 as pb;
use fleetdesk_testkit::TestDb;
use prost::Message as _;
use rand::rngs::StdRng;
use rand::{Rng as _, SeedableRng as _};
use sqlx_postgres::PgPool;
use uuid::Uuid;

const REPLICA_SCHEMA: &str = "replica_test";

type Tree = Vec<(Uuid, Option<Uuid>)>;

async fn add_enterprise(owner: &PgPool, rng: &mut StdRng) -> (Uuid, Vec<Uuid>) {
    let enterprise = Uuid::new_v4();
    sqlx::query("insert into enterprise (id, name, code) values ($1, 'e', $2)")
        .bind(enterprise)
        .bind(enterprise.to_string())
        .execute(owner)
        .await
        .unwrap();
    let mut orgs: Vec<Uuid> = Vec::new();
    for i in 0..rng.gen_range(1..40) {
        let id = Uuid::new_v4();
        let parent = if orgs.is_empty() || rng.gen_bool(0.1) {
            None
        } else {
            Some(orgs[rng.gen_range(0..orgs.len())])
        };
        sqlx::query(
            "insert into org_unit (id, enterprise_id, parent_id, org_code, name, level) \
             values ($1, $2, $3, $4, $4, 1)",
        )
        .bind(id)
        .bind(enterprise)
        .bind(parent)
        .bind(format!("C{i}"))
        .execute(owner)
        .await
        .unwrap();
        orgs.push(id);
    }
    (enterprise, orgs)
}

async fn tree_of(owner: &PgPool, enterprise: Uuid) -> Tree {
    sqlx::query_as("select id, parent_id from org_unit where enterprise_id = $1")
        .bind(enterprise)
        .fetch_all(owner)
        .await
        .unwrap()
}

/// Moves a random unit under a random unit outside its subtree (or to the
/// top), as org does, announcing every unit whose path changed; sometimes
/// disables a subtree. Returns nothing: the outbox holds the events.
async fn random_change(org_app: &PgPool, enterprise: Uuid, tree: &Tree, rng: &mut StdRng) {
    let (unit, _) = tree[rng.gen_range(0..tree.len())];
    let below = scope::subtree(tree, &[unit]);
    let outside: Vec<Uuid> = tree
        .iter()
        .map(|(id, _)| *id)
        .filter(|id| !below.contains(id))
        .collect();
    let new_parent = if outside.is_empty() || rng.gen_bool(0.2) {
        None
    } else {
        Some(outside[rng.gen_range(0..outside.len())])
    };
    let mut tx = db::begin_tenant(org_app, enterprise).await.unwrap();
    sqlx::query("update org_unit set parent_id = $2 where id = $1")
        .bind(unit)
        .bind(new_parent)
        .execute(&mut *tx)
        .await
        .unwrap();
    let below: Vec<Uuid> = below.into_iter().collect();
    if rng.gen_bool(0.2) {
        sqlx::query("update org_unit set status = 2 where id = any($1)")
            .bind(&below)
            .execute(&mut *tx)
            .await
            .unwrap();
    }
    replication::store::announce(&mut tx, &below).await.unwrap();
    tx.commit().await.unwrap();
}

/// Fills the replica from org's paged snapshot, as a service catching up does.
async fn catch_up(org_app: &PgPool, replica: &PgPool) -> usize {
    let mut after_id = String::new();
    let mut read = 0;
    loop {
        let mut request = tonic::Request::new(pb::ListOrgUnitSnapshotRequest {
            after_id: after_id.clone(),
            page_size: 37,
        });
        request
            .extensions_mut()
            .insert(Caller(std::sync::Arc::new(Claims::service("replica-test"))));
        let page = replication::handlers::snapshot_page(org_app, request)
            .await
            .unwrap();
        let units: Vec<ReplicaUnit> = page
            .units
            .iter()
            .map(|u| ReplicaUnit::from_event(u).unwrap())
            .collect();
        read += units.len();
        let mut tx = db::begin_service(replica).await.unwrap();
        org_replica::upsert(&mut tx, &units).await.unwrap();
        tx.commit().await.unwrap();
        if page.next_after_id.is_empty() {
            return read;
        }
        after_id = page.next_after_id;
    }
}

/// Applies org's outbox events (newest last) to the replica; returns how many.
async fn apply_events(org_owner: &PgPool, replica: &PgPool) -> usize {
    let payloads: Vec<Vec<u8>> = sqlx::query_scalar(
        "select payload from outbox where subject = 'fleetdesk.org.unit.changed' \
           and sent_at is null order by created_at, id",
    )
    .fetch_all(org_owner)
    .await
    .unwrap();
    sqlx::query("update outbox set sent_at = now() where sent_at is null")
        .execute(org_owner)
        .await
        .unwrap();
    let mut tx = db::begin_service(replica).await.unwrap();
    for payload in &payloads {
        let event = pb::OrgUnitChanged::decode(payload.as_slice()).unwrap();
        org_replica::upsert(&mut tx, &[ReplicaUnit::from_event(&event).unwrap()])
            .await
            .unwrap();
    }
    tx.commit().await.unwrap();
    payloads.len()
}

fn random_scopes(orgs: &[Uuid], rng: &mut StdRng) -> Vec<DataScope> {
    (0..rng.gen_range(0..4))
        .map(|_| {
            let kind = ScopeKind::try_from(rng.gen_range(1..=5_i16)).unwrap();
            let org_ids: Vec<Uuid> = match kind {
                ScopeKind::Custom => (0..rng.gen_range(1..5))
                    .map(|_| orgs[rng.gen_range(0..orgs.len())])
                    .collect(),
                ScopeKind::Org | ScopeKind::OrgSubtree if rng.gen_bool(0.5) => {
                    vec![orgs[rng.gen_range(0..orgs.len())]]
                }
                _ => Vec::new(),
            };
            DataScope { kind, org_ids }
        })
        .collect()
}

/// Compares the replica's reach with org's for `cases` random scope sets per
/// enterprise; returns the differences.
async fn compare(
    org_owner: &PgPool,
    replica: &PgPool,
    enterprises: &[(Uuid, Vec<Uuid>)],
    cases: usize,
    rng: &mut StdRng,
) -> (usize, Vec<String>) {
    let mut checked = 0;
    let mut differences = Vec::new();
    for (enterprise, orgs) in enterprises {
        let tree = tree_of(org_owner, *enterprise).await;
        for _ in 0..cases {
            let member = Uuid::new_v4();
            let member_org = (!rng.gen_bool(0.1)).then(|| orgs[rng.gen_range(0..orgs.len())]);
            let scopes = random_scopes(orgs, rng);
            let want = scope::reach(&scopes, member, member_org, &tree);

            let claim = reach_claim(&scopes, member_org);
            let ids = |v: &[String]| v.iter().map(|s| Uuid::parse_str(s).unwrap()).collect();
            let mut claims = Claims::service("gateway");
            claims.sub = format!("user:{member}");
            claims.ent = Some(enterprise.to_string());
            claims.reach = Some(ReachClaim {
                all: claim.all,
                subtrees: ids(&claim.subtree_org_ids),
                orgs: ids(&claim.org_ids),
            });
            let mut tx = db::begin_tenant(replica, *enterprise).await.unwrap();
            let got = Reach::of(&claims).resolve(&mut tx).await.unwrap();
            tx.rollback().await.unwrap();

            let got_orgs: BTreeSet<Uuid> = got.org_ids.iter().copied().collect();
            if got.all != want.all || got_orgs != want.orgs || got.own != want.own {
                differences.push(format!(
                    "scopes {scopes:?} (member org {member_org:?}): replica all={} {got_orgs:?}, org all={} {:?}",
                    got.all, want.all, want.orgs
                ));
            }
            checked += 1;
        }
    }
    (checked, differences)
}

#[tokio::test]
async fn the_replica_reach_equals_orgs_reach_over_random_trees_moves_and_scopes() {
    let mut rng = StdRng::seed_from_u64(20261123);
    let db = TestDb::new().await;
    let org_owner = db::connect_owner(&db.url, fleetdesk_org::SCHEMA.name, 2)
        .await
        .unwrap();
    fleetdesk_org::SCHEMA.migrate(&org_owner).await.unwrap();
    let replica_owner = db::connect_owner(&db.url, REPLICA_SCHEMA, 1).await.unwrap();
    db::migrate_with(&replica_owner, &sqlx::migrate::Migrator::DEFAULT, true)
        .await
        .unwrap();
    let org_app = db::connect(&db.url, fleetdesk_org::SCHEMA.name, 2)
        .await
        .unwrap();
    let replica = db::connect(&db.url, REPLICA_SCHEMA, 2).await.unwrap();

    let mut enterprises = Vec::new();
    for _ in 0..10 {
        enterprises.push(add_enterprise(&org_owner, &mut rng).await);
    }
    let total: usize = enterprises.iter().map(|(_, o)| o.len()).sum();
    assert_eq!(catch_up(&org_app, &replica).await, total);
    let (first, mut differences) = compare(&org_owner, &replica, &enterprises, 15, &mut rng).await;

    // Org moves and disables units; the replica follows the events alone.
    let mut announced = 0;
    for (enterprise, _) in &enterprises {
        for _ in 0..3 {
            let tree = tree_of(&org_owner, *enterprise).await;
            random_change(&org_app, *enterprise, &tree, &mut rng).await;
        }
        announced += apply_events(&org_owner, &replica).await;
    }
    assert!(announced >= 30, "every change announces at least its unit");
    let (second, more) = compare(&org_owner, &replica, &enterprises, 15, &mut rng).await;
    differences.extend(more);

    // The replica's paths are exactly org's tree, unit by unit.
    let mut parents: HashMap<Uuid, Option<Uuid>> = HashMap::new();
    for (enterprise, _) in &enterprises {
        parents.extend(tree_of(&org_owner, *enterprise).await);
    }
    let rows: Vec<(Uuid, Option<Uuid>, String)> =
        sqlx::query_as("select id, parent_id, path from org_unit")
            .fetch_all(&replica_owner)
            .await
            .unwrap();
    assert_eq!(rows.len(), total);
    for (id, parent, path) in rows {
        assert_eq!(parents[&id], parent, "parent of {id}");
        let mut expected = format!("/{id}/");
        let mut at = parent;
        while let Some(p) = at {
            expected = format!("/{p}{expected}");
            at = parents[&p];
        }
        assert_eq!(path, expected, "path of {id}");
    }

    assert_eq!(first + second, 300);
    assert!(
        differences.is_empty(),
        "{} differences: {differences:#?}",
        differences.len()
    );
}

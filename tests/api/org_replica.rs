//! Data scope across services (issue 9): org announces every organisation
//! change through its outbox and JetStream; the vehicle service's replica
//! follows within a second, so a moved unit takes its subtree into (or out
//! of) every reach at once; and org hands the gateway each principal's reach.

use std::time::{Duration, Instant};

use fleetdesk_kit::db;
use fleetdesk_kit::internal_token::{Claims, TokenSigner};
use fleetdesk_kit::reach::{Reach, ReachClaim};
use fleetdesk_proto::org::v1::GetPrincipalRequest;
use fleetdesk_proto::org::v1::org_service_client::OrgServiceClient;
use serde_json::json;
use uuid::Uuid;

use crate::helpers::{TestApp, eventually, spawn_app};
use crate::org_fixtures::ENTERPRISE_A;

/// The replica's path of `id` ('' when it has no such unit).
async fn replica_path(app: &TestApp, id: &str) -> String {
    app.sql_text(&format!(
        "select coalesce((select path from vehicle.org_unit where id = '{id}'), '')"
    ))
    .await
}

/// Polls the replica every few milliseconds until `id` has `path`; the time it took.
async fn until_path(app: &TestApp, id: &str, path: &str) -> Duration {
    let pool = sqlx_postgres::PgPool::connect(&app.db.url).await.unwrap();
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(10) {
        let now: Option<String> =
            sqlx::query_scalar("select path from vehicle.org_unit where id = $1::uuid")
                .bind(id)
                .fetch_optional(&pool)
                .await
                .unwrap();
        if now.as_deref() == Some(path) {
            return started.elapsed();
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("{id} never reached path {path}");
}

/// The organisations a subtree claim on `root` reaches through the vehicle replica.
async fn reached_below(app: &TestApp, enterprise: Uuid, root: &str) -> Vec<Uuid> {
    let pool = db::connect(&app.db.url, "vehicle", 1).await.unwrap();
    let mut claims = Claims::service("gateway");
    claims.sub = format!("user:{}", Uuid::new_v4());
    claims.reach = Some(ReachClaim {
        all: false,
        subtrees: vec![Uuid::parse_str(root).unwrap()],
        orgs: Vec::new(),
    });
    let mut tx = db::begin_tenant(&pool, enterprise).await.unwrap();
    let resolved = Reach::of(&claims).resolve(&mut tx).await.unwrap();
    tx.rollback().await.unwrap();
    pool.close().await;
    resolved.org_ids
}

#[tokio::test]
async fn an_organisation_moved_in_org_reaches_the_vehicle_replica_within_a_second() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;
    // The replica caught up with the demo tree from org's snapshot at start.
    let total = app.count("select count(*) from org.org_unit").await;
    assert!(
        eventually(Duration::from_secs(10), async || {
            app.count("select count(*) from vehicle.org_unit").await == total
        })
        .await,
        "the replica never caught up with org's {total} units"
    );
    let enterprise =
        Uuid::parse_str(&app.sql_text(&format!("select {ENTERPRISE_A}::text")).await).unwrap();
    let root = app.org_a("A00").await;
    let east = app.org_a("A01").await;
    let root_path = replica_path(&app, &root).await;
    let east_path = replica_path(&app, &east).await;
    assert_eq!(root_path, format!("/{root}/"));

    // Created units arrive with their paths.
    let (status, north) = app
        .post(
            "/api/v1/system/orgs",
            Some(&admin),
            json!({ "parentId": root, "orgCode": "R01", "name": "华北大区" }),
        )
        .await;
    assert_eq!(status, 200, "{north}");
    let north = north["data"]["id"].as_str().unwrap().to_owned();
    let (_, beijing) = app
        .post(
            "/api/v1/system/orgs",
            Some(&admin),
            json!({ "parentId": north, "orgCode": "R0101", "name": "北京运营中心" }),
        )
        .await;
    let beijing = beijing["data"]["id"].as_str().unwrap().to_owned();
    until_path(&app, &beijing, &format!("{root_path}{north}/{beijing}/")).await;
    assert!(
        !reached_below(&app, enterprise, &east)
            .await
            .contains(&Uuid::parse_str(&beijing).unwrap())
    );

    // Moving north under east: both it and the unit below it follow within 1 s.
    let (status, moved) = app
        .post(
            &format!("/api/v1/system/orgs/{north}/move"),
            Some(&admin),
            json!({ "parentId": east }),
        )
        .await;
    assert_eq!(status, 200, "{moved}");
    let took = until_path(&app, &beijing, &format!("{east_path}{north}/{beijing}/")).await;
    eprintln!("a move reached the vehicle replica in {took:?}");
    assert!(
        took < Duration::from_secs(1),
        "the move took {took:?} to arrive"
    );
    // Its own event may land a moment after the one below it (same commit).
    let took = took + until_path(&app, &north, &format!("{east_path}{north}/")).await;
    assert!(
        took < Duration::from_secs(1),
        "the move took {took:?} to arrive"
    );
    let below_east = reached_below(&app, enterprise, &east).await;
    for unit in [&east, &north, &beijing] {
        assert!(
            below_east.contains(&Uuid::parse_str(unit).unwrap()),
            "{unit} not reached"
        );
    }

    // Renames and disabling arrive too (disabling covers the subtree).
    let (status, _) = app
        .send(
            "PUT",
            &format!("/api/v1/system/orgs/{north}"),
            Some(&admin),
            json!({ "orgCode": "R01", "name": "华北区" }),
        )
        .await;
    assert_eq!(status, 200);
    let (status, body) = app
        .post(
            &format!("/api/v1/system/orgs/{north}/status"),
            Some(&admin),
            json!({ "status": 2 }),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert!(
        eventually(Duration::from_secs(1), async || {
            app.count(&format!(
                "select count(*) from vehicle.org_unit where disabled and id in ('{north}', '{beijing}') \
                 and (id <> '{north}' or name = '华北区')"
            ))
            .await
                == 2
        })
        .await,
        "rename and disable did not arrive within 1 s"
    );
    // Every replica row carries org's latest version of the unit.
    assert_eq!(
        app.count(
            "select count(*) from org.org_unit o join vehicle.org_unit r on r.id = o.id \
             where r.version <> o.version"
        )
        .await,
        0
    );
}

#[tokio::test]
async fn org_hands_each_principal_its_reach_unexpanded() {
    let app = spawn_app().await;
    let port = app.grpc_ports.iter().find(|(n, _)| *n == "org").unwrap().1;
    let mut org = OrgServiceClient::connect(format!("http://127.0.0.1:{port}"))
        .await
        .unwrap();
    let signer =
        TokenSigner::from_base64_seed(app.common.internal_signing_key.as_deref().unwrap()).unwrap();
    let principal = |account: String, enterprise: String| {
        fleetdesk_kit::grpc::outgoing(
            GetPrincipalRequest {
                account_id: account,
                enterprise_id: enterprise,
            },
            &signer,
            &Claims::service("gateway"),
        )
    };
    let enterprise = app.sql_text(&format!("select {ENTERPRISE_A}::text")).await;
    let east = app.org_a("A01").await;
    // The demo admin reaches the whole enterprise.
    let admin_account = app
        .sql_text(&format!(
            "select account_id::text from org.member where enterprise_id = {ENTERPRISE_A} and user_name = 'demo'"
        ))
        .await;
    let admin = org
        .get_principal(principal(admin_account.clone(), enterprise.clone()))
        .await
        .unwrap()
        .into_inner()
        .principal
        .unwrap();
    assert!(admin.reach.unwrap().all);

    // A member's own subtree scope names the root only, plus single orgs.
    app.sql(&format!(
        "update org.member set data_scope_kind = 3, data_scope_org_ids = '{{{east}}}' \
         where enterprise_id = {ENTERPRISE_A} and user_name = 'demo'"
    ))
    .await;
    let scoped = org
        .get_principal(principal(admin_account, enterprise))
        .await
        .unwrap()
        .into_inner()
        .principal
        .unwrap()
        .reach
        .unwrap();
    assert!(!scoped.all);
    assert_eq!(scoped.subtree_org_ids, [east]);
    assert!(scoped.org_ids.is_empty());
}

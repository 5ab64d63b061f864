//! The enterprise flags isChargeAccount and isChargeApplying follow
//! energy's `ChargingOpenChanged` events on real PostgreSQL: the newest
//! version wins whatever the arrival order, and each change tells the
//! gateways to drop the enterprise's cached principals.

use fleetdesk_kit::db;
use fleetdesk_kit::events::Handler as _;
use fleetdesk_org::charging::consumer::ChargingStates;
use fleetdesk_org::lists;
use fleetdesk_proto::energy::v1::{ChargingOpenChanged, ChargingOpenState};
use fleetdesk_testkit::TestDb;
use sqlx_postgres::PgPool;
use uuid::Uuid;

async fn deliver(pool: &PgPool, enterprise: Uuid, state: ChargingOpenState, version: i64) {
    let mut tx = db::begin_service(pool).await.unwrap();
    ChargingStates
        .handle(
            &mut tx,
            ChargingOpenChanged {
                enterprise_id: enterprise.to_string(),
                state: state as i32,
                version,
            },
        )
        .await
        .unwrap();
    tx.commit().await.unwrap();
}

async fn flags(pool: &PgPool, enterprise: Uuid) -> (bool, bool) {
    let mut tx = db::begin_service(pool).await.unwrap();
    let lists = lists::store::of_enterprise(&mut tx, enterprise)
        .await
        .unwrap();
    let flags = lists::convert::flags(&lists);
    (flags.charge_account, flags.charge_applying)
}

async fn announcements(pool: &PgPool) -> i64 {
    sqlx::query_scalar(
        "select count(*) from outbox where subject = 'fleetdesk.org.principal.changed'",
    )
    .fetch_one(pool)
    .await
    .unwrap()
}

#[tokio::test]
async fn the_charging_flags_follow_the_newest_state_energy_announced() {
    let test_db = TestDb::migrated(&[&fleetdesk_org::SCHEMA]).await;
    let owner = db::connect_owner(&test_db.url, fleetdesk_org::SCHEMA.name, 2)
        .await
        .unwrap();
    let app = db::connect(&test_db.url, fleetdesk_org::SCHEMA.name, 2)
        .await
        .unwrap();
    let enterprise = Uuid::new_v4();
    sqlx::query("insert into enterprise (id, name, code) values ($1, 'e', $2)")
        .bind(enterprise)
        .bind(enterprise.to_string())
        .execute(&owner)
        .await
        .unwrap();
    assert_eq!(flags(&app, enterprise).await, (false, false));

    deliver(&app, enterprise, ChargingOpenState::Applying, 1).await;
    assert_eq!(flags(&app, enterprise).await, (false, true));
    assert_eq!(announcements(&owner).await, 1);
    deliver(&app, enterprise, ChargingOpenState::Opened, 2).await;
    assert_eq!(flags(&app, enterprise).await, (true, false));
    // A late, older event changes nothing and announces nothing.
    deliver(&app, enterprise, ChargingOpenState::Applying, 1).await;
    assert_eq!(flags(&app, enterprise).await, (true, false));
    assert_eq!(announcements(&owner).await, 2);
    // An enterprise org does not know is ignored.
    deliver(&app, Uuid::new_v4(), ChargingOpenState::Opened, 1).await;
    assert_eq!(announcements(&owner).await, 2);
}

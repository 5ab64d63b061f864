//! The demo drivers' ID cards on a fresh database: most ending years
//! ahead, a few within the warnings' 30 days, one expired, some long-term
//! (长期) — and a second run changing nothing.

use fleetdesk_kit::config::{CommonConfig, Environment};
use fleetdesk_kit::db;
use fleetdesk_testkit::TestDb;

/// Long-term, expired, ending within 30 days, ending after a year.
const COUNTS: &str = "select count(*) filter (where id_card_long_term), \
     count(*) filter (where id_card_expire_time < now()), \
     count(*) filter (where id_card_expire_time between now() and now() + interval '30 days'), \
     count(*) filter (where id_card_expire_time > now() + interval '1 year') \
     from driver";

#[tokio::test]
async fn demo_drivers_carry_id_card_ends_for_the_warnings_page() {
    fleetdesk_testkit::init_test_logs();
    let test_db = TestDb::migrated(&[
        &fleetdesk_auth::SCHEMA,
        &fleetdesk_org::SCHEMA,
        &fleetdesk_vehicle::SCHEMA,
    ])
    .await;
    let common = CommonConfig {
        database_url: test_db.url.clone(),
        nats_url: String::new(),
        internal_signing_key: None,
        environment: Environment::Development,
        db_max_connections: 2,
    };
    fleetdesk_seed::identity(&common).await.unwrap();
    fleetdesk_seed::vehicles(&common).await.unwrap();
    let vehicle = db::connect_owner(&test_db.url, fleetdesk_vehicle::SCHEMA.name, 2)
        .await
        .unwrap();
    let counts = |pool: sqlx_postgres::PgPool| async move {
        let mut tx = db::begin_service(&pool).await.unwrap();
        let row: (i64, i64, i64, i64) = sqlx::query_as(COUNTS).fetch_one(&mut *tx).await.unwrap();
        row
    };
    let (long_term, expired, soon, later) = counts(vehicle.clone()).await;
    let drivers = i64::try_from(fleetdesk_seed::vehicle::DEMO_DRIVERS).unwrap();
    assert_eq!(expired, 1);
    assert!((10..=40).contains(&soon), "{soon} ending within 30 days");
    assert!(long_term > 0 && later > drivers / 2, "{long_term} {later}");
    fleetdesk_seed::vehicles(&common).await.unwrap();
    assert_eq!(
        counts(vehicle).await,
        (long_term, expired, soon, later),
        "a second run changes nothing"
    );
}

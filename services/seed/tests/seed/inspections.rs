//! The demo annual inspections on a fresh database with the demo fleet: a
//! year of records, some failed and retested, some vehicles overdue and
//! some due soon — and a second run changing nothing.

use chrono::Utc;
use fleetdesk_kit::config::{CommonConfig, Environment};
use fleetdesk_kit::db;
use fleetdesk_testkit::TestDb;

const COUNTS: [&str; 5] = [
    "select count(*) from annual_inspection_record",
    "select count(*) from annual_inspection_record where result = 2",
    "select count(*) from annual_inspection where due_date < current_date",
    "select count(*) from annual_inspection where due_date between current_date \
     and current_date + 30",
    "select count(*) from operation_log where business_type = 9",
];

#[tokio::test]
async fn a_year_of_inspections_leaves_some_overdue_and_some_due_soon_once() {
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
    let report = fleetdesk_seed::inspections::run(&vehicle, Utc::now())
        .await
        .unwrap();
    let counts = |pool: sqlx_postgres::PgPool| async move {
        let mut tx = db::begin_service(&pool).await.unwrap();
        let mut out = Vec::new();
        for q in COUNTS {
            let n: i64 = sqlx::query_scalar(q).fetch_one(&mut *tx).await.unwrap();
            out.push(n);
        }
        out
    };
    let first = counts(vehicle.clone()).await;
    assert!(
        first.iter().all(|n| *n > 0),
        "every kind of demo inspection is there: {first:?}"
    );
    assert_eq!(first[0], i64::try_from(report.records).unwrap());
    assert_eq!(first[0], first[4], "one log row per record");
    let again = fleetdesk_seed::inspections::run(&vehicle, Utc::now())
        .await
        .unwrap();
    assert_eq!(again.records, 0);
    assert_eq!(counts(vehicle).await, first);
}

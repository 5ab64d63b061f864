//! The demo's rent bills come from the demo rentals: each links its usage
//! record, is billed once per record and period, and the year holds paid,
//! partly paid, owed and overdue instalments; the schedules carry on (the
//! tick of next month bills the running leases).

use chrono::Utc;
use fleetdesk_finance::calendar::Month;
use fleetdesk_kit::config::{CommonConfig, Environment};
use fleetdesk_kit::db;
use fleetdesk_testkit::TestDb;

#[tokio::test]
async fn demo_rent_bills_come_from_the_demo_rentals_in_every_state() {
    fleetdesk_testkit::init_test_logs();
    let test_db = TestDb::migrated(&[
        &fleetdesk_auth::SCHEMA,
        &fleetdesk_org::SCHEMA,
        &fleetdesk_vehicle::SCHEMA,
        &fleetdesk_finance::SCHEMA,
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
    fleetdesk_seed::finance(&common).await.unwrap();
    let finance = db::connect_owner(&test_db.url, fleetdesk_finance::SCHEMA.name, 2)
        .await
        .unwrap();
    let vehicle = db::connect_owner(&test_db.url, fleetdesk_vehicle::SCHEMA.name, 2)
        .await
        .unwrap();
    let mut tx = db::begin_service(&finance).await.unwrap();
    // Rent bills by status, and how many are overdue.
    let (paid, partly, owed, overdue): (i64, i64, i64, i64) = sqlx::query_as(
        "select count(*) filter (where status = 4), count(*) filter (where status = 3), \
         count(*) filter (where status = 2), \
         count(*) filter (where status in (2, 3) and due_time < now()) \
         from bill where kind = 1",
    )
    .fetch_one(&mut *tx)
    .await
    .unwrap();
    assert!(
        paid > 0 && partly > 0 && owed > 0 && overdue > 0,
        "{paid} paid, {partly} partly paid, {owed} owed, {overdue} overdue"
    );
    // Every rent bill is an instalment of a schedule, its line linking the record.
    let (bills, instalments, linked): (i64, i64, i64) = sqlx::query_as(
        "select (select count(*) from bill where kind = 1), \
         (select count(*) from rent_instalment i join bill b on b.id = i.bill_id \
          where b.source_id = i.usage_record_id::text || ':' || i.period_start::text), \
         (select count(*) from bill_line l join bill b on b.id = l.bill_id \
          join rent_instalment i on i.bill_id = b.id \
          where l.source_kind = 1 and l.source_id = i.usage_record_id::text)",
    )
    .fetch_one(&mut *tx)
    .await
    .unwrap();
    assert!(bills > 0);
    assert_eq!((instalments, linked), (bills, bills));
    let records: Vec<uuid::Uuid> =
        sqlx::query_scalar("select distinct usage_record_id from rent_schedule")
            .fetch_all(&mut *tx)
            .await
            .unwrap();
    drop(tx);
    // The schedules are the vehicle schema's rentals.
    let mut vtx = db::begin_service(&vehicle).await.unwrap();
    let rentals: i64 =
        sqlx::query_scalar("select count(*) from usage_record where kind = 1 and id = any($1)")
            .bind(&records)
            .fetch_one(&mut *vtx)
            .await
            .unwrap();
    drop(vtx);
    assert_eq!(rentals, i64::try_from(records.len()).unwrap());
    // A running lease is billed again once this month is over.
    let next = Month::of(Utc::now()).plus(1).start() + chrono::Duration::hours(1);
    let raised = fleetdesk_finance::bills::rent::tick(&finance, next)
        .await
        .unwrap();
    assert!(raised > 0);
    assert_eq!(
        fleetdesk_finance::bills::rent::tick(&finance, next)
            .await
            .unwrap(),
        0
    );
}

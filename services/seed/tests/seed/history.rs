//! The demo history on a fresh database, as `all --demo` loads it: fences
//! with crossings and sign-ins found in the rounds, bands on refrigerated
//! vans with readings and alarms, position history, a month of settled
//! charging sessions with the books balanced, driver document images, the
//! behaviour-analysis list — and a second run changing nothing.

use std::time::Instant;

use fleetdesk_kit::config::{CommonConfig, Environment};
use fleetdesk_kit::{db, demo_id};
use fleetdesk_testkit::TestDb;
use sqlx_postgres::PgPool;

const VEHICLE_COUNTS: [&str; 42] = [
    "select count(*) from geofence",
    "select count(*) from geofence_crossing",
    "select count(*) from sign_in",
    "select count(*) from geofence_alarm",
    "select count(*) from geofence_state",
    "select count(*) from temperature_threshold",
    "select count(*) from temperature_alarm",
    "select count(*) from position",
    "select count(*) from temperature_reading",
    "select count(*) from latest_position",
    "select count(*) from driver where licence_front is not null",
    "select count(*) from driver where id_card_back is not null",
    "select count(*) from vehicle",
    // Alarms from the demo rules, in every state of the workflow.
    "select count(*) from risk_alarm where kind = 1",
    "select count(*) from risk_alarm where status = 1",
    "select count(*) from risk_alarm where status = 2",
    "select count(*) from risk_alarm where status = 3",
    "select count(*) from risk_alarm where status = 4",
    "select count(*) from risk_alarm_activity",
    "select count(*) from operation_day where mileage_m > 0",
    "select count(*) from operation_month",
    // The safety report's drivers: each day of the rounds kept its bound driver.
    "select count(*) from operation_day where driver_id is not null and mileage_m > 0",
    // Charged energy from energy's settled sessions, and energy used from the SOC.
    "select coalesce(sum(charge_count), 0)::int8 from operation_day where energy_charged_wh > 0",
    "select count(*) from operation_day where soc_drop_pct > 0",
    // The records pages: private cars, share links, lock commands,
    // customer-service records, accidents and warnings, in their states.
    // Maintenance: plans, a year of services, reminders overdue and due soon.
    "select count(*) from maintenance_plan",
    "select count(*) from maintenance_record",
    "select count(*) from maintenance_reminder where completed_at is null and due_date < current_date",
    "select count(*) from maintenance_reminder where completed_at is null \
     and due_date between current_date and current_date + 15",
    "select count(*) from private_car",
    "select count(*) from private_car where status = 3",
    "select count(*) from temperature_share",
    "select count(*) from temperature_share where revoked_at is not null",
    "select count(*) from temperature_share where expires_at < now()",
    "select count(*) from lock_command where state = 3",
    "select count(*) from lock_command where state = 4",
    "select count(*) from lock_command where state = 6",
    "select count(*) from customer_service_record where alarm_id is not null",
    "select count(*) from customer_service_record where alarm_id is null",
    "select count(*) from accident where status = 5 and close_time is not null",
    // Who drove: the driver bound at the accident's time.
    "select count(*) from accident where driver_id is not null and driver_name <> ''",
    "select count(*) from customer_service_record where status in (3, 4) \
     and close_time is not null",
    "select count(*) from risk_warning",
];

const ENERGY_COUNTS: [&str; 7] = [
    "select count(*) from charging_session",
    "select count(*) from charging_session where status = 2",
    "select count(*) from charging_cdr",
    "select count(*) from station",
    "select count(*) from ledger_entry",
    "select count(*) from card_amount_change",
    "select coalesce(sum(total_fen), 0)::int8 from charging_session",
];

async fn counts(pool: &PgPool, queries: &[&str]) -> Vec<i64> {
    let mut tx = db::begin_service(pool).await.unwrap();
    let mut out = Vec::new();
    for q in queries {
        out.push(sqlx::query_scalar(q).fetch_one(&mut *tx).await.unwrap());
    }
    tx.commit().await.unwrap();
    out
}

fn files_under(dir: &std::path::Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| {
            let path = e.path();
            if path.is_dir() { files_under(&path) } else { 1 }
        })
        .sum()
}

async fn seed(common: &CommonConfig, objects: &std::path::Path) {
    fleetdesk_seed::identity(common).await.unwrap();
    fleetdesk_seed::vehicles(common).await.unwrap();
    fleetdesk_seed::energy(common).await.unwrap();
    fleetdesk_seed::telemetry(common).await.unwrap();
    fleetdesk_seed::records(common).await.unwrap();
    fleetdesk_seed::upkeep(common).await.unwrap();
    fleetdesk_seed::charging_history(common).await.unwrap();
    fleetdesk_seed::driver_images(common, objects)
        .await
        .unwrap();
}

#[tokio::test]
async fn the_demo_history_is_loaded_once_and_consistent() {
    fleetdesk_testkit::init_test_logs();
    let test_db = TestDb::migrated(&[
        &fleetdesk_auth::SCHEMA,
        &fleetdesk_org::SCHEMA,
        &fleetdesk_vehicle::SCHEMA,
        &fleetdesk_energy::SCHEMA,
    ])
    .await;
    let common = CommonConfig {
        database_url: test_db.url.clone(),
        nats_url: String::new(),
        internal_signing_key: None,
        environment: Environment::Development,
        db_max_connections: 2,
    };
    let objects = std::env::temp_dir().join(format!("fd-seed-history-{}", test_db.name));

    fleetdesk_seed::identity(&common).await.unwrap();
    fleetdesk_seed::vehicles(&common).await.unwrap();
    fleetdesk_seed::energy(&common).await.unwrap();
    let started = Instant::now();
    fleetdesk_seed::telemetry(&common).await.unwrap();
    let telemetry_s = started.elapsed().as_secs_f64();
    let started = Instant::now();
    fleetdesk_seed::records(&common).await.unwrap();
    fleetdesk_seed::upkeep(&common).await.unwrap();
    let records_s = started.elapsed().as_secs_f64();
    let started = Instant::now();
    fleetdesk_seed::charging_history(&common).await.unwrap();
    let charging_s = started.elapsed().as_secs_f64();
    let started = Instant::now();
    fleetdesk_seed::driver_images(&common, &objects)
        .await
        .unwrap();
    let images_s = started.elapsed().as_secs_f64();
    println!(
        "demo history: telemetry {telemetry_s:.1} s, records {records_s:.2} s, charging {charging_s:.1} s, images {images_s:.1} s"
    );

    let vehicle = db::connect_owner(&test_db.url, fleetdesk_vehicle::SCHEMA.name, 2)
        .await
        .unwrap();
    let energy = db::connect_owner(&test_db.url, fleetdesk_energy::SCHEMA.name, 2)
        .await
        .unwrap();
    let org = db::connect_owner(&test_db.url, fleetdesk_org::SCHEMA.name, 2)
        .await
        .unwrap();
    let first_vehicle = counts(&vehicle, &VEHICLE_COUNTS).await;
    let first_energy = counts(&energy, &ENERGY_COUNTS).await;
    let first_files = files_under(&objects);
    println!("vehicle schema: {first_vehicle:?}\nenergy schema: {first_energy:?}");

    // Everything the pages read is there.
    for (q, n) in VEHICLE_COUNTS.iter().zip(&first_vehicle) {
        assert!(*n > 0, "{q}: none");
    }
    for (q, n) in ENERGY_COUNTS.iter().zip(&first_energy) {
        assert!(*n > 0, "{q}: none");
    }
    assert_eq!(
        first_vehicle[0], 16,
        "four cities of a depot and three sites"
    );
    assert_eq!(
        first_files,
        4 * fleetdesk_seed::driver_images::DRIVERS_WITH_IMAGES
    );
    // Every charging session of the month settled, its holds covering it.
    assert_eq!(first_energy[0], first_energy[1]);
    let mut tx = db::begin_service(&energy).await.unwrap();
    let uncollected: i64 =
        sqlx::query_scalar("select coalesce(sum(uncollected_fen), 0)::int8 from charging_session")
            .fetch_one(&mut *tx)
            .await
            .unwrap();
    assert_eq!(uncollected, 0);
    // Their card changes are dated within the sessions, not at the seed's run.
    let misdated: i64 = sqlx::query_scalar(
        "select count(*) from card_amount_change c join charging_session s \
         on s.id = c.session_id where c.created_at < s.start_time or c.created_at > s.end_time",
    )
    .fetch_one(&mut *tx)
    .await
    .unwrap();
    assert_eq!(misdated, 0);
    tx.commit().await.unwrap();

    // Every vehicle's services lie behind the odometer its terminal reports
    // from (what it reported, else where the simulator starts it): a
    // reminder completed at today's reading is never refused as going back.
    let mut tx = db::begin_service(&vehicle).await.unwrap();
    let serviced: Vec<(uuid::Uuid, Option<i64>, i64)> = sqlx::query_as(
        "select r.vehicle_id, lp.mileage_m, max(r.service_odometer_m)::int8 \
         from maintenance_record r left join latest_position lp on lp.vehicle_id = r.vehicle_id \
         group by r.vehicle_id, lp.mileage_m",
    )
    .fetch_all(&mut *tx)
    .await
    .unwrap();
    tx.commit().await.unwrap();
    assert!(!serviced.is_empty());
    for (vehicle_id, reported, last_service) in &serviced {
        let start = reported.filter(|m| *m > 0).unwrap_or_else(|| {
            i64::try_from(fleetdesk_simulator::demo_odometer_m(*vehicle_id)).unwrap()
        });
        assert!(
            *last_service <= start,
            "{vehicle_id}: serviced at {last_service} m, its terminal reports from {start} m"
        );
    }

    let mut tx = db::begin_service(&vehicle).await.unwrap();
    // A sign-in is the enter crossing of a sign-in point.
    let orphan_sign_ins: i64 = sqlx::query_scalar(
        "select count(*) from sign_in s left join geofence_crossing c on c.id = s.crossing_id \
         where c.id is null or c.direction <> 1 or c.geofence_id <> s.geofence_id",
    )
    .fetch_one(&mut *tx)
    .await
    .unwrap();
    assert_eq!(orphan_sign_ins, 0);
    // Each temperature alarm began with a reading outside its band.
    let unexplained: i64 = sqlx::query_scalar(
        "select count(*) from temperature_alarm a where not exists (select 1 from \
         temperature_reading r where r.vehicle_id = a.vehicle_id and r.probe = a.probe \
         and r.fix_time = a.started_at \
         and (r.deci_celsius < a.threshold_min_deci or r.deci_celsius > a.threshold_max_deci))",
    )
    .fetch_one(&mut *tx)
    .await
    .unwrap();
    assert_eq!(unexplained, 0);
    // No history after now.
    let future: i64 = sqlx::query_scalar("select count(*) from position where fix_time > now()")
        .fetch_one(&mut *tx)
        .await
        .unwrap();
    assert_eq!(future, 0);
    tx.commit().await.unwrap();

    // The books: each account's balance is its entries' sum, and all sum to
    // nothing (every transfer's legs balance).
    let mut tx = db::begin_service(&energy).await.unwrap();
    let books: Vec<(i16, i64, i64)> = sqlx::query_as(
        "select a.kind, a.balance_fen, coalesce((select sum(e.amount_fen) from ledger_entry e \
         where e.account_id = a.id), 0)::bigint from ledger_account a",
    )
    .fetch_all(&mut *tx)
    .await
    .unwrap();
    for (kind, balance, entries) in &books {
        assert_eq!(balance, entries, "account kind {kind}");
    }
    assert_eq!(books.iter().map(|b| b.1).sum::<i64>(), 0, "double entry");
    tx.commit().await.unwrap();

    let mut tx = db::begin_service(&org).await.unwrap();
    let listed: bool = sqlx::query_scalar(
        "select exists(select 1 from enterprise_list_entry where list_type = 4 \
         and enterprise_id = $1)",
    )
    .bind(demo_id("enterprise:a"))
    .fetch_one(&mut *tx)
    .await
    .unwrap();
    assert!(listed, "demo enterprise A on the behaviour-analysis list");
    tx.commit().await.unwrap();

    // A second run changes nothing.
    let started = Instant::now();
    seed(&common, &objects).await;
    println!("second run: {:.1} s", started.elapsed().as_secs_f64());
    assert_eq!(counts(&vehicle, &VEHICLE_COUNTS).await, first_vehicle);
    assert_eq!(counts(&energy, &ENERGY_COUNTS).await, first_energy);
    assert_eq!(files_under(&objects), first_files);
    let _ = std::fs::remove_dir_all(&objects);
}

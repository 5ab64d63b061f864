//! The demo bills and orders on a fresh database with the demo fleet: a
//! year of bills in every state, each one's lines adding up to its amount,
//! three orders with their bills — and a second run changing nothing.

use fleetdesk_kit::config::{CommonConfig, Environment};
use fleetdesk_kit::db;
use fleetdesk_testkit::TestDb;

const COUNTS: [&str; 11] = [
    "select count(*) from bill",
    "select count(*) from bill where status = 1",
    "select count(*) from bill where status = 2",
    "select count(*) from bill where status = 3",
    "select count(*) from bill where status = 4",
    "select count(*) from bill where status = 5",
    "select count(*) from bill where status in (2, 3) and due_time < now()",
    "select count(distinct period) from bill where order_id is null",
    "select count(*) from enterprise_order",
    "select count(*) from bill_payment",
    "select count(*) from refund where status = 4",
];

#[tokio::test]
async fn a_year_of_bills_in_every_state_is_loaded_once() {
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
    let counts = |pool: sqlx_postgres::PgPool| async move {
        let mut tx = db::begin_service(&pool).await.unwrap();
        let mut out = Vec::new();
        for q in COUNTS {
            let n: i64 = sqlx::query_scalar(q).fetch_one(&mut *tx).await.unwrap();
            out.push(n);
        }
        let unbalanced: i64 = sqlx::query_scalar(
            "select count(*) from bill b where b.amount_fen <> \
             (select coalesce(sum(l.amount_fen), 0) from bill_line l where l.bill_id = b.id)",
        )
        .fetch_one(&mut *tx)
        .await
        .unwrap();
        assert_eq!(unbalanced, 0, "every bill's lines add up");
        let unexplained: i64 = sqlx::query_scalar(
            "select count(*) from bill b where b.paid_fen <> \
             (select coalesce(sum(a.amount_fen), 0) from bill_payment_allocation a \
              where a.bill_id = b.id)",
        )
        .fetch_one(&mut *tx)
        .await
        .unwrap();
        assert_eq!(unexplained, 0, "every paid fen has its payment");
        let uninvoiced: i64 = sqlx::query_scalar(
            "select count(*) from bill b where b.invoiced_fen <> \
             (select coalesce(sum(x.amount_fen), 0) from invoice_application_bill x \
              join invoice_application a on a.id = x.application_id \
              where x.bill_id = b.id and a.status not in (5, 6))",
        )
        .fetch_one(&mut *tx)
        .await
        .unwrap();
        assert_eq!(
            uninvoiced, 0,
            "every invoiced fen has its invoice application"
        );
        let applications: i64 = sqlx::query_scalar("select count(*) from invoice_application")
            .fetch_one(&mut *tx)
            .await
            .unwrap();
        assert!(
            applications > 0,
            "the invoiced months have their applications"
        );
        out.push(applications);
        let differences = fleetdesk_ledger::verify(&mut tx).await.unwrap();
        assert!(differences.is_empty(), "the books hold: {differences:?}");
        out
    };
    let first = counts(finance.clone()).await;
    assert!(
        first.iter().all(|n| *n > 0),
        "every state of demo bill is there: {first:?}"
    );
    assert_eq!(first[7], 12, "a year of months");
    assert_eq!(first[8], 3);
    fleetdesk_seed::finance(&common).await.unwrap();
    assert_eq!(counts(finance).await, first);
}

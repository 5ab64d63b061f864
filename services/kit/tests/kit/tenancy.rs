//! Row-level security as the app role sees it, against real PostgreSQL.

use fleetdesk_kit::db;
use fleetdesk_testkit::TestDb;
use sqlx::migrate::Migrator;
use uuid::Uuid;

async fn tenant_table(db: &TestDb) -> (sqlx_postgres::PgPool, Uuid, Uuid) {
    let owner = db::connect_owner(&db.url, "rls_test", 2).await.unwrap();
    sqlx::query("create table thing (id serial primary key, enterprise_id uuid not null, name text not null)")
        .execute(&owner)
        .await
        .unwrap();
    sqlx::query("select enable_tenant_rls('thing')")
        .execute(&owner)
        .await
        .ok();
    db::migrate(&owner, &Migrator::DEFAULT).await.unwrap();
    sqlx::query("select enable_tenant_rls('thing')")
        .execute(&owner)
        .await
        .unwrap();
    let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
    for (e, name) in [(a, "a1"), (a, "a2"), (b, "b1")] {
        sqlx::query("insert into thing (enterprise_id, name) values ($1, $2)")
            .bind(e)
            .bind(name)
            .execute(&owner)
            .await
            .unwrap();
    }
    let app = db::connect(&db.url, "rls_test", 2).await.unwrap();
    (app, a, b)
}

async fn names(tx: &mut sqlx_postgres::PgConnection) -> Vec<String> {
    sqlx::query_scalar("select name from thing order by name")
        .fetch_all(tx)
        .await
        .unwrap()
}

#[tokio::test]
async fn the_app_role_sees_only_the_tenant_of_its_transaction() {
    let db = TestDb::new().await;
    let (app, a, b) = tenant_table(&db).await;

    let mut tx = db::begin_tenant(&app, a).await.unwrap();
    assert_eq!(names(&mut tx).await, ["a1", "a2"]);
    // Writing a row of another tenant is refused by the policy.
    let foreign = sqlx::query("insert into thing (enterprise_id, name) values ($1, 'x')")
        .bind(b)
        .execute(&mut *tx)
        .await;
    assert!(foreign.is_err());
    tx.rollback().await.unwrap();

    let mut tx = db::begin_tenant(&app, b).await.unwrap();
    assert_eq!(names(&mut tx).await, ["b1"]);
    tx.rollback().await.unwrap();

    let mut plain = app.begin().await.unwrap();
    assert!(
        names(&mut plain).await.is_empty(),
        "no tenant named, no rows"
    );
    plain.rollback().await.unwrap();

    let mut service = db::begin_service(&app).await.unwrap();
    assert_eq!(names(&mut service).await, ["a1", "a2", "b1"]);
}

#[tokio::test]
async fn the_app_role_is_neither_owner_nor_bypassrls() {
    let db = TestDb::new().await;
    let (app, _, _) = tenant_table(&db).await;
    let (user, bypass, superuser): (String, bool, bool) = sqlx::query_as(
        "select current_user::text, rolbypassrls, rolsuper from pg_roles where rolname = current_user",
    )
    .fetch_one(&app)
    .await
    .unwrap();
    assert_eq!(user, db::APP_ROLE);
    assert!(!bypass && !superuser);
    let owner: String =
        sqlx::query_scalar("select tableowner::text from pg_tables where tablename = 'thing'")
            .fetch_one(&app)
            .await
            .unwrap();
    assert_ne!(owner, db::APP_ROLE);
}

#[tokio::test]
async fn the_tenant_policy_reads_its_settings_once_per_query_not_per_row() {
    let db = TestDb::new().await;
    let (app, a, _) = tenant_table(&db).await;
    let mut tx = db::begin_tenant(&app, a).await.unwrap();
    let plan: Vec<String> = sqlx::query_scalar("explain (costs off) select name from thing")
        .fetch_all(&mut *tx)
        .await
        .unwrap();
    let plan = plan.join("\n");
    // Each setting is a parameter computed once; the row's filter compares with it.
    assert_eq!(plan.matches("InitPlan").count(), 2, "{plan}");
    assert!(
        !plan.contains("Filter: ((enterprise_id = (NULLIF(current_setting"),
        "{plan}"
    );
}

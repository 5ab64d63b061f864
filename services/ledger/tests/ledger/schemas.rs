//! Energy's ledger migration and finance's copy of it build the same
//! tables: the same columns, constraints, indexes, triggers (and their
//! functions) and tenant policies, so the crate's queries mean the same on
//! both. A change to one that is not made to the other fails here.

use std::borrow::Cow;

use fleetdesk_kit::db;
use fleetdesk_testkit::TestDb;
use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx_postgres::PgPool;

const ENERGY: &str = include_str!("../../../energy/migrations/20261201000001_ledger.sql");
const FINANCE: &str = include_str!("../../../finance/migrations/20261208000001_ledger.sql");

/// Kit's migrations and one ledger migration, applied to `schema`.
async fn migrated(url: &str, schema: &str, sql: &'static str) -> PgPool {
    let ledger = Migration::new(
        20261201000001,
        Cow::Borrowed("ledger"),
        MigrationType::Simple,
        Cow::Borrowed(sql),
        false,
    );
    let migrator = Migrator {
        migrations: Cow::Owned(vec![ledger]),
        ..Migrator::DEFAULT
    };
    let owner = db::connect_owner(url, schema, 1).await.unwrap();
    db::migrate(&owner, &migrator).await.unwrap();
    owner
}

/// The ledger tables' shape in the pool's schema, one line per column,
/// constraint, index, trigger and row-level policy.
async fn shape(pool: &PgPool) -> Vec<String> {
    sqlx::query_scalar(
        "select format('column %s.%s %s null=%s default=%s', table_name, column_name, \
                data_type, is_nullable, column_default) \
         from information_schema.columns \
         where table_schema = current_schema() and table_name like 'ledger\\_%' \
         union all \
         select format('constraint %s.%s %s', t.relname, c.conname, pg_get_constraintdef(c.oid)) \
         from pg_constraint c join pg_class t on t.oid = c.conrelid \
         where t.relnamespace = current_schema()::regnamespace and t.relname like 'ledger\\_%' \
         union all \
         select format('index %s %s', indexname, \
                       replace(indexdef, current_schema() || '.', '')) \
         from pg_indexes where schemaname = current_schema() and tablename like 'ledger\\_%' \
         union all \
         select format('trigger %s.%s %s', t.relname, g.tgname, \
                       replace(pg_get_triggerdef(g.oid), current_schema() || '.', '')) \
         from pg_trigger g join pg_class t on t.oid = g.tgrelid \
         where t.relnamespace = current_schema()::regnamespace and not g.tgisinternal \
           and t.relname like 'ledger\\_%' \
         union all \
         select format('function %s %s', proname, prosrc) from pg_proc \
         where pronamespace = current_schema()::regnamespace and proname like 'ledger\\_%' \
         union all \
         select format('policy %s.%s %s %s', tablename, policyname, cmd, qual) \
         from pg_policies where schemaname = current_schema() and tablename like 'ledger\\_%' \
         order by 1",
    )
    .fetch_all(pool)
    .await
    .unwrap()
}

#[tokio::test]
async fn energy_and_finance_build_the_same_ledger_tables() {
    let db = TestDb::new().await;
    let energy = shape(&migrated(&db.url, "energy_ledger", ENERGY).await).await;
    let finance = shape(&migrated(&db.url, "finance_ledger", FINANCE).await).await;
    assert!(
        energy.iter().any(|l| l.contains("ledger_transfer_key"))
            && energy.iter().any(|l| l.contains("ledger_entry_balanced"))
            && energy.iter().any(|l| l.starts_with("policy ledger_entry"))
            && energy
                .iter()
                .any(|l| l.starts_with("function ledger_immutable")),
        "{energy:#?}"
    );
    assert_eq!(energy, finance);
}

//! Lookups of demo rows for the shared-data, notice, approval, export, help
//! and sensitive-data tests.

use crate::helpers::TestApp;

/// One text value straight from the database (as the owner, past RLS).
pub async fn text(app: &TestApp, query: &str) -> String {
    let pool = sqlx_postgres::PgPool::connect(&app.db.url)
        .await
        .expect("connect");
    let value: String = sqlx::query_scalar(query)
        .fetch_one(&pool)
        .await
        .unwrap_or_else(|e| panic!("{query}: {e}"));
    pool.close().await;
    value
}

/// Every text value of a query.
pub async fn texts(app: &TestApp, query: &str) -> Vec<String> {
    let pool = sqlx_postgres::PgPool::connect(&app.db.url)
        .await
        .expect("connect");
    let values: Vec<String> = sqlx::query_scalar(query)
        .fetch_all(&pool)
        .await
        .unwrap_or_else(|e| panic!("{query}: {e}"));
    pool.close().await;
    values
}

pub const ENTERPRISE_A: &str = "(select id from org.enterprise where code = 'DEMO-LOGISTICS')";

/// The member id of `user_name` in enterprise A.
pub async fn member_a(app: &TestApp, user_name: &str) -> String {
    text(
        app,
        &format!(
            "select id::text from org.member where user_name = '{user_name}' and enterprise_id = {ENTERPRISE_A}"
        ),
    )
    .await
}

/// Ids of the rows of `table` owned by enterprise A.
pub async fn ids_of_a(app: &TestApp, table: &str) -> Vec<String> {
    texts(
        app,
        &format!(
            "select id::text from org.{table} where enterprise_id = {ENTERPRISE_A} order by id"
        ),
    )
    .await
}

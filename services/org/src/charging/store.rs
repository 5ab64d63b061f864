//! Queries of `enterprise_charging`: the state an enterprise's flags read,
//! and energy's newest announcement kept.

use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::{Charging, ChargingState};
use crate::codes::optional;

/// The enterprise's charging state (never applied: neither flag).
pub async fn of_enterprise(conn: &mut PgConnection, enterprise_id: Uuid) -> sqlx::Result<Charging> {
    let state: Option<i16> =
        sqlx::query_scalar("select state from enterprise_charging where enterprise_id = $1")
            .bind(enterprise_id)
            .fetch_optional(conn)
            .await?;
    Ok(optional::<ChargingState>(state)
        .map(Charging::of)
        .unwrap_or_default())
}

pub async fn enterprise_exists(conn: &mut PgConnection, enterprise_id: Uuid) -> sqlx::Result<bool> {
    sqlx::query_scalar("select exists(select 1 from enterprise where id = $1)")
        .bind(enterprise_id)
        .fetch_one(conn)
        .await
}

/// Keeps `state` unless a newer version is kept already; `true` when written.
pub async fn keep(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    state: ChargingState,
    version: i64,
) -> sqlx::Result<bool> {
    let written = sqlx::query(
        "insert into enterprise_charging (enterprise_id, state, version) values ($1, $2, $3) \
         on conflict (enterprise_id) do update set state = excluded.state, \
         version = excluded.version, updated_at = now() \
         where enterprise_charging.version < excluded.version",
    )
    .bind(enterprise_id)
    .bind(i16::from(state))
    .bind(version)
    .execute(conn)
    .await?
    .rows_affected();
    Ok(written == 1)
}

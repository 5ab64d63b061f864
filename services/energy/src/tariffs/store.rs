//! The tariff and tariff_period tables.

use fleetdesk_kit::ServiceError;
use fleetdesk_ocpi::Tariff;
use sqlx::{FromRow, PgConnection};
use uuid::Uuid;

use super::domain::Period;

/// The id a platform tariff has here (the same on every sync).
pub fn tariff_id(party_id: &str, tariff_id: &str) -> Uuid {
    Uuid::new_v5(
        &Uuid::NAMESPACE_URL,
        format!("fleetdesk:ocpi:tariff:{party_id}:{tariff_id}").as_bytes(),
    )
}

/// Writes a tariff and replaces its periods.
pub async fn upsert(
    conn: &mut PgConnection,
    tariff: &Tariff,
    periods: &[Period],
) -> Result<Uuid, ServiceError> {
    let id = tariff_id(&tariff.party_id, &tariff.id);
    sqlx::query(
        "insert into tariff (id, party_id, tariff_id, currency, last_updated) \
         values ($1, $2, $3, $4, $5) \
         on conflict (id) do update set currency = excluded.currency, \
         last_updated = excluded.last_updated, synced_at = now()",
    )
    .bind(id)
    .bind(&tariff.party_id)
    .bind(&tariff.id)
    .bind(&tariff.currency)
    .bind(tariff.last_updated)
    .execute(&mut *conn)
    .await?;
    sqlx::query("delete from tariff_period where tariff_id = $1")
        .bind(id)
        .execute(&mut *conn)
        .await?;
    sqlx::query(
        "insert into tariff_period (tariff_id, start_minute, end_minute, period, \
         electricity_fen_per_mwh, service_fee_fen_per_mwh) \
         select $1, * from unnest($2::smallint[], $3::smallint[], $4::smallint[], $5::bigint[], $6::bigint[])",
    )
    .bind(id)
    .bind(periods.iter().map(|p| p.start_minute).collect::<Vec<_>>())
    .bind(periods.iter().map(|p| p.end_minute).collect::<Vec<_>>())
    .bind(periods.iter().map(|p| i16::from(p.band)).collect::<Vec<_>>())
    .bind(periods.iter().map(|p| p.electricity_fen_per_mwh).collect::<Vec<_>>())
    .bind(periods.iter().map(|p| p.service_fee_fen_per_mwh).collect::<Vec<_>>())
    .execute(conn)
    .await?;
    Ok(id)
}

#[derive(Debug, Clone, FromRow)]
pub struct PeriodRow {
    pub tariff_id: Uuid,
    pub start_minute: i16,
    pub end_minute: i16,
    pub period: i16,
    pub electricity_fen_per_mwh: i64,
    pub service_fee_fen_per_mwh: i64,
}

/// The periods of `tariff_ids`, in each tariff's order.
pub async fn periods_of(
    conn: &mut PgConnection,
    tariff_ids: &[Uuid],
) -> Result<Vec<PeriodRow>, ServiceError> {
    if tariff_ids.is_empty() {
        return Ok(Vec::new());
    }
    Ok(sqlx::query_as(
        "select tariff_id, start_minute, end_minute, period, electricity_fen_per_mwh, \
         service_fee_fen_per_mwh from tariff_period where tariff_id = any($1) \
         order by tariff_id, start_minute",
    )
    .bind(tariff_ids)
    .fetch_all(conn)
    .await?)
}

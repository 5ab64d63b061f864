//! The tariff table (with the object as stored) and its elements, price
//! components and periods.

use fleetdesk_kit::ServiceError;
use fleetdesk_ocpi::{PriceComponent, Tariff};
use sqlx::FromRow;
use sqlx::types::Json;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::{Dimension, Period, TouBand};

/// The id a platform tariff has here (the same on every sync).
pub fn tariff_id(party_id: &str, tariff_id: &str) -> Uuid {
    Uuid::new_v5(
        &Uuid::NAMESPACE_URL,
        format!("fleetdesk:ocpi:tariff:{party_id}:{tariff_id}").as_bytes(),
    )
}

/// Writes a tariff (the object as given) with its elements, price
/// components and periods, and links the stations and connectors that
/// name it; whether it is new here.
pub async fn upsert(
    conn: &mut PgConnection,
    tariff: &Tariff,
    periods: &[Period],
) -> Result<bool, ServiceError> {
    let id = tariff_id(&tariff.party_id, &tariff.id);
    let created: bool = sqlx::query_scalar(
        "insert into tariff (id, party_id, tariff_id, currency, last_updated, object) \
         values ($1, $2, $3, $4, $5, $6) \
         on conflict (id) do update set currency = excluded.currency, \
         last_updated = excluded.last_updated, object = excluded.object, synced_at = now() \
         returning (xmax = 0)",
    )
    .bind(id)
    .bind(&tariff.party_id)
    .bind(&tariff.id)
    .bind(&tariff.currency)
    .bind(tariff.last_updated)
    .bind(Json(tariff))
    .fetch_one(&mut *conn)
    .await?;
    write_elements(conn, id, tariff).await?;
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
    .bind(periods.iter().map(|p| p.band.map(i16::from)).collect::<Vec<_>>())
    .bind(periods.iter().map(|p| p.electricity_fen_per_mwh).collect::<Vec<_>>())
    .bind(periods.iter().map(|p| p.service_fee_fen_per_mwh).collect::<Vec<_>>())
    .execute(&mut *conn)
    .await?;
    // Stations and connectors written before their tariff came name it now.
    sqlx::query(
        "update station set tariff_id = $1 \
         where party_id = $2 and tariff_ref = $3 and tariff_id is distinct from $1",
    )
    .bind(id)
    .bind(&tariff.party_id)
    .bind(&tariff.id)
    .execute(&mut *conn)
    .await?;
    sqlx::query(
        "update station_connector c set tariff_id = $1 from station s \
         where s.id = c.station_id and s.party_id = $2 and c.tariff_ref = $3 \
         and c.tariff_id is distinct from $1",
    )
    .bind(id)
    .bind(&tariff.party_id)
    .bind(&tariff.id)
    .execute(conn)
    .await?;
    Ok(created)
}

/// Replaces a tariff's elements and their price components.
async fn write_elements(
    conn: &mut PgConnection,
    id: Uuid,
    tariff: &Tariff,
) -> Result<(), ServiceError> {
    sqlx::query("delete from tariff_element where tariff_id = $1")
        .bind(id)
        .execute(&mut *conn)
        .await?;
    let number = |n: usize| i16::try_from(n).unwrap_or(i16::MAX);
    let elements = &tariff.elements;
    sqlx::query(
        "insert into tariff_element (tariff_id, element_no, restrictions, service_fee, period) \
         select $1, * from unnest($2::smallint[], $3::jsonb[], $4::text[]::numeric[], $5::smallint[])",
    )
    .bind(id)
    .bind((0..elements.len()).map(number).collect::<Vec<_>>())
    .bind(
        elements
            .iter()
            .map(|e| e.restrictions.as_ref().map(|r| Json(r.clone())))
            .collect::<Vec<_>>(),
    )
    .bind(
        elements
            .iter()
            .map(|e| e.x_service_fee.as_ref().map(|f| f.as_str().to_owned()))
            .collect::<Vec<_>>(),
    )
    .bind(
        elements
            .iter()
            .map(|e| e.x_period.map(|p| i16::from(TouBand::from(p))))
            .collect::<Vec<_>>(),
    )
    .execute(&mut *conn)
    .await?;
    let components: Vec<(i16, i16, &PriceComponent)> = elements
        .iter()
        .enumerate()
        .flat_map(|(e, element)| {
            element
                .price_components
                .iter()
                .enumerate()
                .map(move |(c, component)| (number(e), number(c), component))
        })
        .collect();
    sqlx::query(
        "insert into tariff_component (tariff_id, element_no, component_no, dimension, price, \
         vat, step_size) \
         select $1, * from unnest($2::smallint[], $3::smallint[], $4::smallint[], \
         $5::text[]::numeric[], $6::text[]::numeric[], $7::int[])",
    )
    .bind(id)
    .bind(components.iter().map(|c| c.0).collect::<Vec<_>>())
    .bind(components.iter().map(|c| c.1).collect::<Vec<_>>())
    .bind(
        components
            .iter()
            .map(|c| i16::from(Dimension::from(c.2.kind)))
            .collect::<Vec<_>>(),
    )
    .bind(
        components
            .iter()
            .map(|c| c.2.price.as_str().to_owned())
            .collect::<Vec<_>>(),
    )
    .bind(
        components
            .iter()
            .map(|c| c.2.vat.as_ref().map(|v| v.as_str().to_owned()))
            .collect::<Vec<_>>(),
    )
    .bind(
        components
            .iter()
            .map(|c| i32::try_from(c.2.step_size).unwrap_or(i32::MAX))
            .collect::<Vec<_>>(),
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// Removes a tariff (stations and connectors naming it keep its OCPI id,
/// to be linked again should it come back); whether it was here.
pub async fn delete(
    conn: &mut PgConnection,
    party_id: &str,
    tariff: &str,
) -> Result<bool, ServiceError> {
    let id = tariff_id(party_id, tariff);
    sqlx::query("update station set tariff_id = null where tariff_id = $1")
        .bind(id)
        .execute(&mut *conn)
        .await?;
    sqlx::query("update station_connector set tariff_id = null where tariff_id = $1")
        .bind(id)
        .execute(&mut *conn)
        .await?;
    let deleted = sqlx::query("delete from tariff where id = $1")
        .bind(id)
        .execute(conn)
        .await?
        .rows_affected();
    Ok(deleted > 0)
}

/// The tariff as stored, if it is known here (and stored since objects are).
pub async fn object(
    conn: &mut PgConnection,
    party_id: &str,
    tariff: &str,
) -> Result<Option<Tariff>, ServiceError> {
    let stored: Option<Option<Json<Tariff>>> =
        sqlx::query_scalar("select object from tariff where id = $1")
            .bind(tariff_id(party_id, tariff))
            .fetch_optional(conn)
            .await?;
    Ok(stored.flatten().map(|Json(t)| t))
}

#[derive(Debug, Clone, FromRow)]
pub struct PeriodRow {
    pub tariff_id: Uuid,
    pub start_minute: i16,
    pub end_minute: i16,
    /// The band's code; none for a standard tariff.
    pub period: Option<i16>,
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

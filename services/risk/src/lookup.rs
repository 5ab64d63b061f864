//! What the risk records look up of the vehicle assets: a vehicle or a
//! driver the caller may see, the driver bound to a vehicle at a moment
//! (the binding log), and the next document number of a day.

use chrono::{DateTime, FixedOffset, Utc};
use fleetdesk_assets::{drivers, vehicles};
use fleetdesk_kit::{ErrorCode, ServiceError};
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use crate::context::Actor;

/// A vehicle a record is about.
#[derive(Debug, Clone)]
pub struct VehicleRef {
    pub id: Uuid,
    pub org_id: Uuid,
    pub plate_number: String,
}

/// A driver a record names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriverRef {
    pub id: Uuid,
    pub name: String,
}

/// The vehicle `id` if the caller may see it; otherwise the field error
/// `field` (the input names a vehicle that is not there for this caller).
pub async fn vehicle(
    conn: &mut PgConnection,
    actor: &Actor,
    field: &str,
    id: Uuid,
) -> Result<VehicleRef, ServiceError> {
    match vehicles::store::get(conn, actor, id, false).await {
        Ok(v) => Ok(VehicleRef {
            id: v.id,
            org_id: v.org_id,
            plate_number: v.plate_number,
        }),
        Err(e) if e.code == ErrorCode::NotFound => Err(ServiceError::invalid(field, "车辆不存在")),
        Err(e) => Err(e),
    }
}

/// The driver `id` if the caller may see it, else the field error `field`.
pub async fn driver(
    conn: &mut PgConnection,
    actor: &Actor,
    field: &str,
    id: Uuid,
) -> Result<DriverRef, ServiceError> {
    match drivers::store::get(conn, actor, id).await {
        Ok(d) => Ok(DriverRef {
            id: d.id,
            name: d.name,
        }),
        Err(e) if e.code == ErrorCode::NotFound => Err(ServiceError::invalid(field, "司机不存在")),
        Err(e) => Err(e),
    }
}

/// The driver bound to `vehicle` at `at` (the binding log's driver binding
/// whose period holds `at`), with the name the driver has now. Usage
/// records name no driver, so the binding log is the only source.
pub async fn driver_at(
    conn: &mut PgConnection,
    enterprise: Uuid,
    vehicle: Uuid,
    at: DateTime<Utc>,
) -> Result<Option<DriverRef>, ServiceError> {
    let row: Option<(String, String)> = sqlx::query_as(
        "select b.target_id, coalesce(d.name, b.target_name) \
         from vehicle_binding b \
         left join driver d on d.enterprise_id = b.enterprise_id and d.id::text = b.target_id \
         where b.enterprise_id = $1 and b.vehicle_id = $2 and b.kind = 1 \
           and b.bound_at <= $3 and (b.unbound_at is null or b.unbound_at > $3) \
         order by b.bound_at desc, b.id desc limit 1",
    )
    .bind(enterprise)
    .bind(vehicle)
    .bind(at)
    .fetch_optional(conn)
    .await?;
    Ok(row.and_then(|(id, name)| Uuid::parse_str(&id).ok().map(|id| DriverRef { id, name })))
}

/// Shanghai time: document numbers carry the local day.
fn shanghai() -> FixedOffset {
    FixedOffset::east_opt(8 * 3600).expect("UTC+8 is a valid offset")
}

/// `prefix` + yyyymmdd (Shanghai) + the day's sequence of the enterprise,
/// four digits at least (SG202611290001). Concurrent writers take turns on
/// the counter row, so numbers never repeat.
pub async fn next_number(
    conn: &mut PgConnection,
    enterprise: Uuid,
    prefix: &str,
    now: DateTime<Utc>,
) -> Result<String, ServiceError> {
    let day = now.with_timezone(&shanghai()).date_naive();
    let n: i32 = sqlx::query_scalar(
        "insert into risk_number (enterprise_id, prefix, day, last) values ($1, $2, $3, 1) \
         on conflict (enterprise_id, prefix, day) do update set last = risk_number.last + 1 \
         returning last",
    )
    .bind(enterprise)
    .bind(prefix)
    .bind(day)
    .fetch_one(conn)
    .await?;
    Ok(number(prefix, day, n))
}

fn number(prefix: &str, day: chrono::NaiveDate, n: i32) -> String {
    format!("{prefix}{}{n:04}", day.format("%Y%m%d"))
}

#[cfg(test)]
mod tests {
    use chrono::NaiveDate;

    use super::*;

    #[test]
    fn numbers_carry_the_prefix_the_day_and_four_digits_at_least() {
        let day = NaiveDate::from_ymd_opt(2026, 11, 29).unwrap();
        assert_eq!(number("SG", day, 1), "SG202611290001");
        assert_eq!(number("KF", day, 12345), "KF2026112912345");
    }
}

//! Plates as forms and imports type them, to the enterprise's vehicles:
//! a plate names its newest vehicle (a plate can pass to a new vehicle),
//! and an import may only name vehicles within the caller's data scope.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use crate::context::Actor;

/// The vehicle a plate names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, sqlx::FromRow)]
pub struct PlateVehicle {
    pub id: Uuid,
    pub org_id: Uuid,
    pub register_time: Option<DateTime<Utc>>,
}

/// The vehicle of each of `plates` the enterprise has, by plate.
pub async fn vehicles_by_plate(
    conn: &mut PgConnection,
    enterprise: Uuid,
    plates: &[&str],
) -> Result<HashMap<String, PlateVehicle>, ServiceError> {
    let rows: Vec<(String, Uuid, Uuid, Option<DateTime<Utc>>)> = sqlx::query_as(
        "select distinct on (plate_number) plate_number, id, org_id, register_time from vehicle \
         where enterprise_id = $1 and plate_number = any($2) \
         order by plate_number, created_at desc",
    )
    .bind(enterprise)
    .bind(plates)
    .fetch_all(conn)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(plate, id, org_id, register_time)| {
            (
                plate,
                PlateVehicle {
                    id,
                    org_id,
                    register_time,
                },
            )
        })
        .collect())
}

/// The vehicle `plate` names: (id, organisation).
pub async fn vehicle_by_plate(
    conn: &mut PgConnection,
    enterprise: Uuid,
    plate: &str,
) -> Result<Option<(Uuid, Uuid)>, ServiceError> {
    Ok(sqlx::query_as(
        "select id, org_id from vehicle where enterprise_id = $1 and plate_number = $2 \
         order by created_at desc limit 1",
    )
    .bind(enterprise)
    .bind(plate)
    .fetch_optional(conn)
    .await?)
}

/// Why an import row's plate is refused: not a vehicle of the enterprise,
/// or one outside the caller's data scope.
pub fn refusal(actor: &Actor, found: Option<&PlateVehicle>) -> Option<&'static str> {
    match found {
        None => Some("车牌号不是本企业的车辆"),
        Some(v) if !actor.reach.sees(Some(v.org_id), None) => Some("该车辆不在您的数据权限范围内"),
        Some(_) => None,
    }
}

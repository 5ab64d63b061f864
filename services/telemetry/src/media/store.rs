//! Queries of vehicle media.

use fleetdesk_kit::ServiceError;
use sqlx_postgres::PgConnection;

use super::domain::MediaRow;

/// Stores a file once (by its object key) for its vehicle, if the vehicle
/// is the enterprise's; answers whether a row was written.
pub async fn insert(conn: &mut PgConnection, m: &MediaRow) -> Result<bool, ServiceError> {
    let written = sqlx::query(
        "insert into vehicle_media (enterprise_id, org_id, vehicle_id, media_type, event_code, \
           channel, object_key, content_type, size_bytes, alarm_key, file_name, taken_at) \
         select v.enterprise_id, v.org_id, v.id, $3, $4, $5, $6, $7, $8, $9, $10, $11 \
         from vehicle v where v.id = $1 and v.enterprise_id = $2 \
         on conflict (object_key) do nothing",
    )
    .bind(m.vehicle_id)
    .bind(m.enterprise_id)
    .bind(m.media_type)
    .bind(m.event_code)
    .bind(m.channel)
    .bind(&m.object_key)
    .bind(&m.content_type)
    .bind(m.size_bytes)
    .bind(&m.alarm_key)
    .bind(&m.file_name)
    .bind(m.taken_at)
    .execute(conn)
    .await?
    .rows_affected();
    Ok(written > 0)
}

//! The directory's queries. Terminals are not tenants: every query runs in
//! a service-scoped transaction and finds the tenant from the binding log.

use fleetdesk_assets::vehicles::binding_log::BindingKind;
use fleetdesk_kit::ServiceError;
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::{Bound, Lookup};

/// The active terminal binding of `phone` and whether `terminal_id` is
/// actively bound anywhere. SIMs compare without BCD zero padding.
pub async fn lookup(
    conn: &mut PgConnection,
    phone: &str,
    terminal_id: &str,
) -> Result<Lookup, ServiceError> {
    let kind = i16::from(BindingKind::Terminal);
    let by_phone: Option<(String, Uuid, Uuid)> = sqlx::query_as(
        "select target_id, vehicle_id, enterprise_id from vehicle_binding \
         where ltrim(terminal_sim, '0') = $1 and unbound_at is null and kind = $2 \
         order by bound_at desc limit 1",
    )
    .bind(phone)
    .bind(kind)
    .fetch_optional(&mut *conn)
    .await?;
    let serial_bound: bool = sqlx::query_scalar(
        "select exists(select 1 from vehicle_binding \
         where target_id = $1 and unbound_at is null and kind = $2)",
    )
    .bind(terminal_id)
    .bind(kind)
    .fetch_one(&mut *conn)
    .await?;
    Ok(Lookup {
        by_phone: by_phone.map(|(terminal_id, vehicle_id, enterprise_id)| Bound {
            terminal_id,
            vehicle_id,
            enterprise_id,
        }),
        serial_bound,
    })
}

/// Stores the code issued to `phone` and the maker it registered with
/// (replacing an earlier registration's).
pub async fn save_code(
    conn: &mut PgConnection,
    phone: &str,
    bound: &Bound,
    maker_id: Option<&str>,
    code_hash: &[u8],
) -> Result<(), ServiceError> {
    sqlx::query(
        "insert into terminal_auth (phone, terminal_id, enterprise_id, vehicle_id, maker_id, \
         code_hash) values ($1, $2, $3, $4, $5, $6) \
         on conflict (phone) do update set terminal_id = excluded.terminal_id, \
         enterprise_id = excluded.enterprise_id, vehicle_id = excluded.vehicle_id, \
         maker_id = excluded.maker_id, code_hash = excluded.code_hash, issued_at = now()",
    )
    .bind(phone)
    .bind(&bound.terminal_id)
    .bind(bound.enterprise_id)
    .bind(bound.vehicle_id)
    .bind(maker_id)
    .bind(code_hash)
    .execute(conn)
    .await?;
    Ok(())
}

/// A terminal a valid code authenticates.
#[derive(Debug, Clone, PartialEq, Eq, FromRow)]
pub struct Authenticated {
    pub enterprise_id: Uuid,
    pub vehicle_id: Uuid,
    /// The maker it registered with, where kept.
    pub maker_id: Option<String>,
}

/// The terminal of a valid code: issued to `phone` for the binding that is
/// still active.
pub async fn authenticate(
    conn: &mut PgConnection,
    phone: &str,
    code_hash: &[u8],
) -> Result<Option<Authenticated>, ServiceError> {
    Ok(sqlx::query_as(
        "select a.enterprise_id, a.vehicle_id, a.maker_id from terminal_auth a \
         join vehicle_binding b on b.vehicle_id = a.vehicle_id and b.target_id = a.terminal_id \
          and ltrim(b.terminal_sim, '0') = a.phone and b.kind = $3 and b.unbound_at is null \
         where a.phone = $1 and a.code_hash = $2 limit 1",
    )
    .bind(phone)
    .bind(code_hash)
    .bind(i16::from(BindingKind::Terminal))
    .fetch_optional(conn)
    .await?)
}

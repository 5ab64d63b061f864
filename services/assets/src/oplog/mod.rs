//! The operation log (docs/console-spec.md §3 operation-log table): this service's own record
//! of every change to a vehicle, driver or usage record — what changed field
//! by field in Chinese, who, when — written in the same transaction as the
//! change, and listed newest first on each detail page.
//!
//! Writers call one function:
//!
//! ```ignore
//! let remark = oplog::Changes::new()
//!     .text("车牌号", &before.plate_number, &after.plate_number)
//!     .finish();
//! oplog::record(&mut tx, &actor, oplog::Business::Vehicle, vehicle_id, &remark).await?;
//! ```

pub mod convert;
pub mod domain;
pub mod store;

pub use domain::{Business, Changes};

use fleetdesk_kit::ServiceError;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use crate::context::Actor;

/// Writes one log row for a change of `business_id` inside the change's
/// transaction `tx`; an empty remark writes nothing (nothing changed).
pub async fn record(
    tx: &mut PgConnection,
    actor: &Actor,
    business: Business,
    business_id: Uuid,
    remark: &str,
) -> Result<(), ServiceError> {
    if remark.trim().is_empty() {
        return Ok(());
    }
    store::insert(tx, actor, business, business_id, remark).await
}

/// Writes one log row per object (`business_ids[i]` with `remarks[i]`) in
/// one statement, for bulk changes (imports).
pub async fn record_many(
    tx: &mut PgConnection,
    actor: &Actor,
    business: Business,
    business_ids: &[Uuid],
    remarks: &[String],
) -> Result<(), ServiceError> {
    store::insert_many(tx, actor, business, business_ids, remarks).await
}

//! Announcements that what a principal may do has changed (user disabled,
//! roles or lists edited), so every gateway drops its cached principals at
//! once instead of after its cache time.

use serde::Serialize;
use sqlx::PgConnection;
use uuid::Uuid;

/// Subject gateways follow to evict cached principals.
pub const PRINCIPAL_CHANGED_SUBJECT: &str = "fleetdesk.org.principal.changed";

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct PrincipalChanged<'a> {
    /// The enterprise; absent means every enterprise.
    #[serde(skip_serializing_if = "Option::is_none")]
    enterprise_id: Option<Uuid>,
    /// Members whose principal changed; empty means all of the enterprise.
    user_ids: &'a [Uuid],
}

/// Writes the announcement in the caller's transaction (outbox).
pub async fn principals_changed(
    tx: &mut PgConnection,
    enterprise_id: Option<Uuid>,
    user_ids: &[Uuid],
) -> sqlx::Result<()> {
    fleetdesk_kit::events::enqueue(
        tx,
        PRINCIPAL_CHANGED_SUBJECT,
        &PrincipalChanged {
            enterprise_id,
            user_ids,
        },
    )
    .await?;
    Ok(())
}

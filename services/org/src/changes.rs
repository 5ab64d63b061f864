//! Announcements that what a principal may do has changed (user disabled,
//! roles or lists edited), so every gateway drops its cached principals at
//! once instead of after its cache time.

use fleetdesk_kit::subjects;
use fleetdesk_proto::org::v1::PrincipalChanged;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

/// Writes the announcement in the caller's transaction (outbox): the
/// enterprise (`None`: every one) and its members whose principal changed
/// (empty: all of them).
pub async fn principals_changed(
    tx: &mut PgConnection,
    enterprise_id: Option<Uuid>,
    user_ids: &[Uuid],
) -> sqlx::Result<()> {
    fleetdesk_kit::events::enqueue(
        tx,
        subjects::ORG_PRINCIPAL_CHANGED,
        &PrincipalChanged {
            enterprise_id: enterprise_id.map(|e| e.to_string()).unwrap_or_default(),
            user_ids: user_ids.iter().map(Uuid::to_string).collect(),
        },
    )
    .await?;
    Ok(())
}

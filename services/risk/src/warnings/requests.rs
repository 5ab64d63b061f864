//! Warnings other domains ask for (`vehicle.v1.WarningRequested`, subject
//! `fleetdesk.<domain>.warning.requested`): vehicle management's due items
//! (maintenance reminders, annual inspections, insurance policies). Each
//! is raised once per subject, kind and period (`store::raise`), so a
//! domain may ask again every day until the item is dealt with.

use chrono::Utc;
use fleetdesk_kit::{events, subjects};
use fleetdesk_proto::vehicle::v1::WarningRequested;
use sqlx_postgres::{PgConnection, PgPool};
use uuid::Uuid;

use super::domain::{Level, Raise, WarningKind};
use super::store::{self, Subject};

/// The consumer's name (with the schema and deployment, its durable name).
pub const CONSUMER: &str = "warning-requests";

/// Raises the warnings the requests ask for.
#[derive(Debug, Clone, Copy)]
pub struct Requests;

impl events::Handler for Requests {
    type Event = WarningRequested;

    async fn handle(&self, tx: &mut PgConnection, event: WarningRequested) -> anyhow::Result<()> {
        let WarningRequested {
            enterprise_id,
            org_id,
            vehicle_id,
            driver_id,
            subject_id,
            kind,
            level,
            period,
            title,
            content,
        } = event;
        let optional = |id: &str| Uuid::parse_str(id).ok();
        let (Some(enterprise_id), Some(org_id), Some(id), Some(kind)) = (
            optional(&enterprise_id),
            optional(&org_id),
            optional(&subject_id),
            WarningKind::from_pb(kind),
        ) else {
            tracing::warn!(subject = %subject_id, "Warning request without its ids or kind ignored.");
            return Ok(());
        };
        let subject = Subject {
            enterprise_id,
            org_id,
            id,
            vehicle_id: optional(&vehicle_id),
            driver_id: optional(&driver_id),
        };
        let raise = Raise {
            kind,
            level: Level::from_pb(level).unwrap_or(Level::Medium),
            period,
            title,
            content,
        };
        store::raise(tx, &subject, &raise, Utc::now()).await?;
        Ok(())
    }
}

/// The target's durable consumer of warning requests; `ensure` it before
/// serving (a new consumer starts with the requests published from then on).
pub async fn consumer(
    pool: PgPool,
    nats: async_nats::Client,
) -> anyhow::Result<events::Consumer<Requests>> {
    events::Consumer::new(
        pool,
        nats,
        CONSUMER,
        subjects::WARNING_REQUESTED_ALL,
        Requests,
    )
    .await
}

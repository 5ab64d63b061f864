//! The media consumer (kit's [`DurablePull`]): each announcement decoded,
//! checked and stored in its enterprise's scope, then acked. A failure is
//! not acked and comes again; the unique object key makes that harmless.

use async_nats::jetstream;
use chrono::Utc;
use fleetdesk_kit::events::{self, BatchHandler, DurablePull};
use fleetdesk_kit::{ServiceError, Shutdown, db};
use fleetdesk_proto::telematics::v1 as tpb;
use prost::Message as _;
use sqlx_postgres::PgPool;

use super::MEDIA_SUBJECTS;
use super::domain::{MediaRow, Rejected};
use super::store;
use crate::ingest::telemetry_stream;

/// The durable consumer of the deployment whose database is `source`.
pub fn durable_name(source: &str) -> String {
    events::durable_name("vehicle-media", source)
}

/// The consumer of media announcements.
#[derive(Debug)]
pub struct Media {
    pool: PgPool,
    pull: DurablePull,
}

impl Media {
    /// A new consumer starts with files announced from now on.
    pub async fn new(pool: PgPool, nats: async_nats::Client) -> anyhow::Result<Media> {
        let source = events::source_of(&pool).await?;
        let consumer = events::consumer_config(&durable_name(&source), MEDIA_SUBJECTS);
        Ok(Media {
            pool,
            pull: DurablePull::new(events::jetstream(nats), telemetry_stream(), consumer)
                .batches(100, std::time::Duration::ZERO),
        })
    }

    /// Stores one announcement; false when it was dropped or known already.
    pub async fn apply(&self, payload: &[u8]) -> Result<bool, ServiceError> {
        let parsed = tpb::MediaStored::decode(payload)
            .map_err(|_| Rejected::Unreadable)
            .and_then(|m| MediaRow::parse(m, Utc::now()));
        let row = match parsed {
            Ok(row) => row,
            Err(reason) => {
                tracing::warn!(%reason, "Media announcement dropped.");
                return Ok(false);
            }
        };
        let mut tx = db::begin_tenant(&self.pool, row.enterprise_id).await?;
        let stored = store::insert(&mut tx, &row).await?;
        tx.commit().await?;
        if stored {
            tracing::info!(
                key = %row.object_key,
                alarm_key = row.alarm_key.as_deref().unwrap_or_default(),
                "Vehicle media stored."
            );
        }
        Ok(stored)
    }

    /// Consumes until shutdown; failures are retried.
    pub async fn run(self, shutdown: Shutdown) {
        self.pull.clone().run(shutdown, &self).await;
    }
}

impl BatchHandler for &Media {
    async fn handle(&mut self, messages: &[jetstream::Message]) -> anyhow::Result<()> {
        for message in messages {
            self.apply(&message.payload).await?;
        }
        Ok(())
    }
}

//! A domain service's replica of org's organisation tree (`org_unit`, see
//! `migrations-org-replica`), which [`crate::reach`] expands subtrees with.
//!
//! Org announces every unit whose state changed (`fleetdesk.org.unit.changed`,
//! the unit's full state and version); the replica follows those events
//! through a [`Consumer`] and catches up from org's `ListOrgUnitSnapshot` at
//! start, when an event shows it lags (a unit whose parent it does not know),
//! and now and then as a safety net. Every write keeps the highest version,
//! so events and snapshots may arrive in any order.

use std::sync::Arc;
use std::time::Duration;

use fleetdesk_proto::org::v1::org_service_client::OrgServiceClient;
use fleetdesk_proto::org::v1::{ListOrgUnitSnapshotRequest, OrgUnitChanged};
use sqlx_postgres::{PgConnection, PgPool};
use tokio::sync::Notify;
use tonic::transport::Channel;
use uuid::Uuid;

use crate::events::{Consumer, Handler};
use crate::internal_token::{Claims, TokenSigner};
use crate::{Shutdown, db, grpc, subjects};

/// Units per snapshot page.
const SNAPSHOT_PAGE: i32 = 2000;
/// How often the replica re-reads the whole snapshot even without a sign of lag.
const SAFETY_CATCH_UP: Duration = Duration::from_secs(15 * 60);

/// One unit as the replica stores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicaUnit {
    pub id: Uuid,
    pub enterprise_id: Uuid,
    pub parent_id: Option<Uuid>,
    pub name: String,
    pub path: String,
    pub disabled: bool,
    pub version: i64,
    /// The unit's code in its enterprise (org's org_code), e.g. A0101.
    pub code: String,
}

impl ReplicaUnit {
    /// Reads an event payload; `None` when its ids are not uuids.
    pub fn from_event(event: &OrgUnitChanged) -> Option<ReplicaUnit> {
        let parent_id = match event.parent_id.as_str() {
            "" => None,
            p => Some(Uuid::parse_str(p).ok()?),
        };
        Some(ReplicaUnit {
            id: Uuid::parse_str(&event.id).ok()?,
            enterprise_id: Uuid::parse_str(&event.enterprise_id).ok()?,
            parent_id,
            name: event.name.clone(),
            path: event.path.clone(),
            disabled: event.disabled,
            version: event.version,
            code: event.code.clone(),
        })
    }
}

/// Writes units, each only over an older version. Needs a service-scoped
/// transaction (units of every tenant). Returns how many rows changed.
pub async fn upsert(conn: &mut PgConnection, units: &[ReplicaUnit]) -> sqlx::Result<u64> {
    if units.is_empty() {
        return Ok(0);
    }
    let done = sqlx::query(
        "insert into org_unit (id, enterprise_id, parent_id, name, path, disabled, version, code) \
         select * from unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], \
                              $6::boolean[], $7::bigint[], $8::text[]) \
         on conflict (id) do update set enterprise_id = excluded.enterprise_id, \
           parent_id = excluded.parent_id, name = excluded.name, path = excluded.path, \
           disabled = excluded.disabled, version = excluded.version, code = excluded.code, \
           updated_at = now() \
         where org_unit.version < excluded.version",
    )
    .bind(units.iter().map(|u| u.id).collect::<Vec<_>>())
    .bind(units.iter().map(|u| u.enterprise_id).collect::<Vec<_>>())
    .bind(units.iter().map(|u| u.parent_id).collect::<Vec<_>>())
    .bind(units.iter().map(|u| u.name.clone()).collect::<Vec<_>>())
    .bind(units.iter().map(|u| u.path.clone()).collect::<Vec<_>>())
    .bind(units.iter().map(|u| u.disabled).collect::<Vec<_>>())
    .bind(units.iter().map(|u| u.version).collect::<Vec<_>>())
    .bind(units.iter().map(|u| u.code.clone()).collect::<Vec<_>>())
    .execute(conn)
    .await?;
    Ok(done.rows_affected())
}

/// Applies org's change events to the replica.
#[derive(Debug, Clone)]
pub struct UnitChangedHandler {
    lagging: Arc<Notify>,
}

impl Handler for UnitChangedHandler {
    type Event = OrgUnitChanged;

    async fn handle(&self, tx: &mut PgConnection, event: OrgUnitChanged) -> anyhow::Result<()> {
        let Some(unit) = ReplicaUnit::from_event(&event) else {
            tracing::warn!(id = %event.id, "Organisation event with a bad id ignored.");
            return Ok(());
        };
        upsert(tx, std::slice::from_ref(&unit)).await?;
        if let Some(parent) = unit.parent_id {
            let known: bool =
                sqlx::query_scalar("select exists(select 1 from org_unit where id = $1)")
                    .bind(parent)
                    .fetch_one(&mut *tx)
                    .await?;
            if !known {
                // An earlier change never arrived: read the whole tree again.
                self.lagging.notify_one();
            }
        }
        Ok(())
    }
}

/// Reads org's whole snapshot into the replica. Returns the units read.
pub async fn catch_up(
    pool: &PgPool,
    org: &mut OrgServiceClient<Channel>,
    signer: &TokenSigner,
    issuer: &str,
) -> anyhow::Result<usize> {
    let claims = Claims::service(issuer);
    let mut after_id = String::new();
    let mut read = 0;
    loop {
        let page = org
            .list_org_unit_snapshot(grpc::outgoing(
                ListOrgUnitSnapshotRequest {
                    after_id: after_id.clone(),
                    page_size: SNAPSHOT_PAGE,
                },
                signer,
                &claims,
            ))
            .await?
            .into_inner();
        let units: Vec<ReplicaUnit> = page
            .units
            .iter()
            .filter_map(ReplicaUnit::from_event)
            .collect();
        read += units.len();
        let mut tx = db::begin_service(pool).await?;
        upsert(&mut tx, &units).await?;
        tx.commit().await?;
        if page.next_after_id.is_empty() {
            return Ok(read);
        }
        after_id = page.next_after_id;
    }
}

/// Keeps a service's org_unit replica: follows the events and catches up.
#[derive(Debug)]
pub struct OrgReplica;

impl OrgReplica {
    /// Starts following org until shutdown. `issuer` is the service's name
    /// (its internal tokens' issuer and its consumer's name).
    pub fn spawn(
        pool: PgPool,
        nats: async_nats::Client,
        org: OrgServiceClient<Channel>,
        signer: TokenSigner,
        issuer: &'static str,
        shutdown: Shutdown,
    ) -> tokio::task::JoinHandle<()> {
        tokio::spawn(Self::run(pool, nats, org, signer, issuer, shutdown))
    }

    async fn run(
        pool: PgPool,
        nats: async_nats::Client,
        mut org: OrgServiceClient<Channel>,
        signer: TokenSigner,
        issuer: &'static str,
        shutdown: Shutdown,
    ) {
        let lagging = Arc::new(Notify::new());
        let handler = UnitChangedHandler {
            lagging: lagging.clone(),
        };
        let consumer = loop {
            let made = Consumer::new(
                pool.clone(),
                nats.clone(),
                "org-unit-replica",
                subjects::ORG_UNIT_CHANGED,
                handler.clone(),
            )
            .await;
            // The consumer must exist before the first catch-up, so no change
            // falls between the snapshot and the first event it delivers.
            let ensured = match made {
                Ok(consumer) => consumer.ensure().await.map(|_| consumer),
                Err(err) => Err(err),
            };
            match ensured {
                Ok(consumer) => break consumer,
                Err(err) => {
                    tracing::warn!(error = %format!("{err:#}"), "Org replica cannot subscribe yet; retrying.");
                    tokio::select! {
                        () = tokio::time::sleep(Duration::from_secs(1)) => {}
                        () = shutdown.wait() => return,
                    }
                }
            }
        };
        let following = tokio::spawn(consumer.run(shutdown.clone()));
        let mut backoff = Duration::from_millis(200);
        loop {
            match catch_up(&pool, &mut org, &signer, issuer).await {
                Ok(read) => {
                    tracing::info!(units = read, "Org replica caught up.");
                    backoff = Duration::from_millis(200);
                    tokio::select! {
                        () = lagging.notified() => {}
                        () = tokio::time::sleep(SAFETY_CATCH_UP) => {}
                        () = shutdown.wait() => break,
                    }
                }
                Err(err) => {
                    tracing::warn!(error = %format!("{err:#}"), "Org replica catch-up failed; retrying.");
                    tokio::select! {
                        () = tokio::time::sleep(backoff) => {}
                        () = shutdown.wait() => break,
                    }
                    backoff = (backoff * 2).min(Duration::from_secs(5));
                }
            }
        }
        following.await.ok();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_with_bad_ids_are_refused_and_good_ones_read() {
        let id = Uuid::from_u128(2);
        let ent = Uuid::from_u128(1);
        let mut event = OrgUnitChanged {
            id: id.to_string(),
            enterprise_id: ent.to_string(),
            parent_id: String::new(),
            name: "总部".into(),
            path: format!("/{id}/"),
            disabled: false,
            version: 3,
            code: "A00".into(),
        };
        let unit = ReplicaUnit::from_event(&event).unwrap();
        assert_eq!(unit.parent_id, None);
        assert_eq!(unit.version, 3);
        assert_eq!(unit.code, "A00");
        event.parent_id = "nope".into();
        assert!(ReplicaUnit::from_event(&event).is_none());
    }
}

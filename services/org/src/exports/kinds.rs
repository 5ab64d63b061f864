//! What org's own export kinds share (`users/export.rs`,
//! `approvals/export.rs`): the job started with the list's filter and the
//! requester's resolved reach, both read back by the worker; the keyset
//! cursor of a list ordered by time and id; times as Beijing shows them.

use chrono::{DateTime, FixedOffset, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::{self, JobScope, NewExport};
use fleetdesk_kit::reach::ResolvedReach;
use fleetdesk_proto::common::v1 as common;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::DOMAIN;
use crate::context::Actor;

/// The requester's reach as a job keeps it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct StoredReach {
    pub all: bool,
    pub orgs: Vec<Uuid>,
    pub own: Option<Uuid>,
}

/// What a kind names its job by: its kind, the file's name and the
/// console module the record links to.
pub struct Named {
    pub kind: &'static str,
    pub name: &'static str,
    pub module: &'static str,
}

/// Queues the export of `filter` under the actor's (resolved) reach.
pub async fn start<F: Serialize>(
    tx: &mut PgConnection,
    actor: &Actor,
    named: Named,
    filter: &F,
    filters_json: serde_json::Value,
) -> Result<common::ExportJob, ServiceError> {
    let ResolvedReach { all, org_ids, own } = &actor.reach;
    let stored = StoredReach {
        all: *all,
        orgs: org_ids.clone(),
        own: *own,
    };
    export::start(
        tx,
        DOMAIN,
        actor.enterprise_id,
        actor.user_id,
        NewExport {
            kind: named.kind,
            name: named.name.to_owned(),
            module: named.module.to_owned(),
            filter: serde_json::to_vec(filter).map_err(|e| ServiceError::internal(&e))?,
            filters_json: filters_json.to_string(),
            reach: serde_json::to_value(&stored).map_err(|e| ServiceError::internal(&e))?,
        },
    )
    .await
}

/// The job's filter and reach (its organisations sorted and unique, as a
/// reach's are).
pub fn decode<F: DeserializeOwned>(job: &JobScope) -> Result<(F, StoredReach), ServiceError> {
    let filter: F = serde_json::from_slice(&job.filter).map_err(|e| ServiceError::internal(&e))?;
    let mut stored: StoredReach =
        serde_json::from_value(job.reach.clone()).map_err(|e| ServiceError::internal(&e))?;
    stored.orgs.sort_unstable();
    stored.orgs.dedup();
    Ok((filter, stored))
}

/// `<microseconds since the epoch>,<id>`: a row's sort key.
pub fn cursor(at: DateTime<Utc>, id: Uuid) -> String {
    format!("{},{id}", at.timestamp_micros())
}

/// The time and id of a [`cursor`]; `(None, None)` before the first page.
pub fn parse_cursor(
    after: Option<&str>,
) -> Result<(Option<DateTime<Utc>>, Option<Uuid>), ServiceError> {
    let Some(after) = after else {
        return Ok((None, None));
    };
    let bad = || ServiceError::invalid("after", "分页位置无效");
    let (micros, id) = after.split_once(',').ok_or_else(bad)?;
    let at = micros
        .parse::<i64>()
        .ok()
        .and_then(DateTime::from_timestamp_micros)
        .ok_or_else(bad)?;
    Ok((Some(at), Some(Uuid::parse_str(id).map_err(|_| bad())?)))
}

/// A time as Beijing reads it: `yyyy-MM-dd HH:mm:ss`.
pub fn shanghai(at: DateTime<Utc>) -> String {
    let offset = FixedOffset::east_opt(8 * 3600).expect("a valid offset");
    at.with_timezone(&offset)
        .format("%Y-%m-%d %H:%M:%S")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_reads_back_and_a_bad_one_is_refused() {
        let at = DateTime::from_timestamp_micros(1_764_000_000_123_456).unwrap();
        let id = Uuid::new_v4();
        let text = cursor(at, id);
        assert_eq!(parse_cursor(Some(&text)).unwrap(), (Some(at), Some(id)));
        assert_eq!(parse_cursor(None).unwrap(), (None, None));
        assert!(parse_cursor(Some("12,not-an-id")).is_err());
        assert_eq!(shanghai(at), "2025-11-25 00:00:00");
    }
}

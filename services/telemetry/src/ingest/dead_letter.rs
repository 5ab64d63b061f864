//! Telemetry messages ingest cannot store, parked so history goes on.
//!
//! When a batch's transaction fails for a reason that is not transient
//! ([`is_transient`]), the consumer splits the batch in halves, each in its
//! own transaction, level by level, until the failing messages are alone;
//! everything else is stored. A message is parked only when
//! - it failed alone, and again alone after its neighbours were stored, and
//! - ingest demonstrably works around it: some other message of the same
//!   batch was stored, or this process stored a message later in the stream.
//!
//! Otherwise the batch is not acked and comes back whole, as a transient
//! failure's does: a failure of every message (a missing table, a bad
//! release) parks nothing, and the split gives up after
//! [`GIVE_UP_AFTER`] failed halves while nothing stored, so an outage is not
//! multiplied into thousands of transactions per redelivery.
//!
//! A parked message keeps its subject, its raw payload, its stream
//! sequence, the error of its last attempt, when it was parked and how
//! often it failed (`telemetry_dead_letter`, service-scoped); it is then
//! acked. Each parking is logged (WARN, subject and error) and counted
//! (`telemetry_fixes_parked_total`); `telemetry_dead_letters` is how many
//! are parked now. After a fix, [`replay`] (`fleetdesk dead-letters replay`)
//! runs them through the pipeline again and removes those that store.

use std::collections::VecDeque;
use std::ops::Range;

use async_nats::jetstream;
use chrono::{DateTime, Utc};
use fleetdesk_kit::db;
use sqlx_postgres::PgPool;

use super::consumer::{Failure, Pipeline, decode, stream_sequence};
use super::domain::FixRow;
use crate::alarms::active_safety::SafetyItem;

/// Failed halves, with nothing stored around them, after which a split
/// stops and the batch is retried whole later (one bad message takes about
/// two per halving; a dead pipeline fails them all).
pub const GIVE_UP_AFTER: usize = 8;

/// Whether a database error is about the moment, not the data: the
/// connection or the pool (lost, timed out, closed), or a SQLSTATE of
/// class 08 (connection), 40 (serialization failure, deadlock; not 40002,
/// a deferred constraint the data broke), 53 (out of resources), 57
/// (shutdown, cancelled, statement timeout), 58 (the server's I/O), a lock
/// not available (55P03), an object in use (55006) or a read-only server
/// after a failover (25006). Everything else — constraint and data
/// exceptions, raised errors — may be a message's fault.
pub fn is_transient(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::Database(db) => db.code().is_some_and(|code| transient_sqlstate(&code)),
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::Protocol(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => true,
        _ => false,
    }
}

fn transient_sqlstate(code: &str) -> bool {
    let class = code.get(..2).unwrap_or_default();
    let by_class = matches!(class, "08" | "40" | "53" | "57" | "58") && code != "40002";
    by_class || matches!(code, "55P03" | "55006" | "25006")
}

/// One decodable message of a failed batch.
struct Entry {
    /// Its index in the batch.
    message: usize,
    sequence: u64,
    fix: FixRow,
    safety: Vec<SafetyItem>,
}

/// Stores and evaluates `entries` in one transaction.
async fn apply(pipeline: &mut Pipeline, entries: &[Entry]) -> Result<(), Failure> {
    let fixes = entries.iter().map(|e| e.fix.clone()).collect();
    let safety = entries.iter().flat_map(|e| e.safety.clone()).collect();
    pipeline.apply_checked(fixes, safety).await?;
    pipeline.note_stored(entries.iter().map(|e| e.sequence).max());
    Ok(())
}

fn halves(range: Range<usize>) -> [Range<usize>; 2] {
    let middle = range.start + range.len() / 2;
    [range.start..middle, middle..range.end]
}

/// The consumer's answer to a batch whose transaction failed with
/// `failure` (not transient): stores what stores, parks the messages at
/// fault, and answers `Ok` so all are acked — or the failure to retry the
/// batch whole (transient, or not shown to be the messages').
pub(super) async fn isolate_and_park(
    pipeline: &mut Pipeline,
    messages: &[jetstream::Message],
    now: DateTime<Utc>,
    failure: Failure,
) -> Result<(), Failure> {
    tracing::warn!(messages = messages.len(), error = %failure, "Telemetry batch failed; splitting it to find the failing messages.");
    // Decoding is pure: the same rows as the failed attempt.
    let entries: Vec<Entry> = messages
        .iter()
        .enumerate()
        .filter_map(|(index, message)| {
            let (fix, safety) = decode(&message.payload, now).ok()?;
            let sequence = stream_sequence(message).unwrap_or(0);
            Some(Entry {
                message: index,
                sequence,
                fix,
                safety,
            })
        })
        .collect();
    let earliest = entries.iter().map(|e| e.sequence).min().unwrap_or(0);
    let mut alone = Vec::new();
    let mut neighbours_stored = false;
    if entries.len() == 1 {
        alone.push(0);
    } else {
        // Level by level: a half that stores comes early, before the split
        // can give up on a batch it would have untangled.
        let mut queue: VecDeque<Range<usize>> = halves(0..entries.len()).into();
        let mut failed_halves = 0;
        while let Some(range) = queue.pop_front() {
            match apply(pipeline, &entries[range.clone()]).await {
                Ok(()) => neighbours_stored = true,
                Err(failed) if failed.is_transient() => return Err(failed),
                Err(_) if range.len() == 1 => alone.push(range.start),
                Err(failed) => {
                    failed_halves += 1;
                    if failed_halves >= GIVE_UP_AFTER
                        && !neighbours_stored
                        && !pipeline.stored_past(earliest)
                    {
                        return Err(failed);
                    }
                    queue.extend(halves(range));
                }
            }
        }
    }
    let at_fault = |i: &usize| neighbours_stored || pipeline.stored_past(entries[*i].sequence);
    if !alone.iter().all(at_fault) {
        tracing::warn!(
            failing = alone.len(),
            "Messages fail alone but nothing around them stored yet; the batch is retried."
        );
        return Err(failure);
    }
    // Once more alone, now that the neighbours are stored: what fails again
    // is parked.
    let mut parked = Vec::new();
    for i in alone {
        match apply(pipeline, &entries[i..=i]).await {
            Ok(()) => {}
            Err(failed) if failed.is_transient() => return Err(failed),
            Err(failed) => parked.push(Parked {
                message: &messages[entries[i].message],
                sequence: entries[i].sequence,
                error: failed.to_string(),
            }),
        }
    }
    if !parked.is_empty() {
        park(pipeline.pool(), &parked)
            .await
            .map_err(Failure::database("dead-letter table"))?;
    }
    Ok(())
}

struct Parked<'a> {
    message: &'a jetstream::Message,
    sequence: u64,
    error: String,
}

/// Parks `parked` in one transaction. A message parked before (its ack was
/// lost) is the same row, one attempt more.
async fn park(pool: &PgPool, parked: &[Parked<'_>]) -> sqlx::Result<()> {
    let mut tx = db::begin_service(pool).await?;
    for p in parked {
        sqlx::query(
            "insert into telemetry_dead_letter (subject, payload, stream_sequence, error) \
             values ($1, $2, $3, $4) \
             on conflict (stream_sequence, sha256(payload)) do update \
             set error = excluded.error, attempts = telemetry_dead_letter.attempts + 1, \
               failed_at = now()",
        )
        .bind(p.message.subject.as_str())
        .bind(p.message.payload.as_ref())
        .bind(i64::try_from(p.sequence).unwrap_or(i64::MAX))
        .bind(&p.error)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    for p in parked {
        metrics::counter!("telemetry_fixes_parked_total").increment(1);
        tracing::warn!(subject = %p.message.subject, sequence = p.sequence, error = %p.error, "Telemetry message parked in the dead-letter table.");
    }
    // Parked is parked: a count not read now is read at the next change.
    if let Err(err) = report_parked(pool).await {
        tracing::warn!(error = %err, "Dead-letter count not read.");
    }
    Ok(())
}

/// Reads how many messages are parked into the `telemetry_dead_letters`
/// gauge, and answers it.
pub async fn report_parked(pool: &PgPool) -> sqlx::Result<i64> {
    let parked: i64 = sqlx::query_scalar("select count(*) from telemetry_dead_letter")
        .fetch_one(pool)
        .await?;
    metrics::gauge!("telemetry_dead_letters").set(parked as f64);
    Ok(parked)
}

/// A parked message, as operators list it.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct DeadLetter {
    pub id: i64,
    pub subject: String,
    pub payload: Vec<u8>,
    pub stream_sequence: i64,
    /// The error of its last attempt.
    pub error: String,
    /// Parkings and failed replays.
    pub attempts: i32,
    pub parked_at: DateTime<Utc>,
    /// Its last failed attempt.
    pub failed_at: DateTime<Utc>,
}

/// The newest `limit` parked messages, newest first.
pub async fn list(pool: &PgPool, limit: i64) -> sqlx::Result<Vec<DeadLetter>> {
    sqlx::query_as(
        "select id, subject, payload, stream_sequence, error, attempts, parked_at, failed_at \
         from telemetry_dead_letter order by parked_at desc, id desc limit $1",
    )
    .bind(limit)
    .fetch_all(pool)
    .await
}

/// What a [`replay`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Replayed {
    /// Went through the pipeline and were removed.
    pub stored: usize,
    /// No longer a fix ingest reads (dropped, as the consumer drops them).
    pub dropped: usize,
    /// Failed again: kept, one attempt more, with the new error.
    pub failing: usize,
    /// Parked after the replay.
    pub remaining: i64,
}

/// Runs the parked messages `only` (every one when empty) through the
/// pipeline again, in stream order, each alone, and removes those that
/// store. A fix stored once already is not stored twice (the history's
/// unique key), so a replay cut short is simply run again. Stops at a
/// transient failure (what was replayed stays replayed).
pub async fn replay(pool: &PgPool, only: &[i64]) -> Result<Replayed, Failure> {
    let table = || Failure::database("dead-letter table");
    let parked: Vec<(i64, Vec<u8>)> = sqlx::query_as(
        "select id, payload from telemetry_dead_letter \
         where cardinality($1::int8[]) = 0 or id = any($1) order by stream_sequence, id",
    )
    .bind(only)
    .fetch_all(pool)
    .await
    .map_err(table())?;
    let mut pipeline = Pipeline::new(pool.clone());
    let mut replayed = Replayed::default();
    for (id, payload) in parked {
        let outcome = match decode(&payload, Utc::now()) {
            Ok((fix, safety)) => pipeline
                .apply_checked(vec![fix], safety)
                .await
                .map(|_| true),
            Err(reason) => {
                tracing::warn!(id, %reason, "Parked message is no fix; dropped.");
                Ok(false)
            }
        };
        match outcome {
            Ok(stored) => {
                sqlx::query("delete from telemetry_dead_letter where id = $1")
                    .bind(id)
                    .execute(pool)
                    .await
                    .map_err(table())?;
                if stored {
                    replayed.stored += 1;
                } else {
                    replayed.dropped += 1;
                }
            }
            Err(failed) if failed.is_transient() => {
                report_parked(pool).await.map_err(table())?;
                return Err(failed);
            }
            Err(failed) => {
                let error = failed.to_string();
                tracing::warn!(id, %error, "Parked telemetry message failed again.");
                sqlx::query(
                    "update telemetry_dead_letter set error = $2, attempts = attempts + 1, \
                     failed_at = now() where id = $1",
                )
                .bind(id)
                .bind(&error)
                .execute(pool)
                .await
                .map_err(table())?;
                replayed.failing += 1;
            }
        }
    }
    replayed.remaining = report_parked(pool).await.map_err(table())?;
    Ok(replayed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moments_are_transient_and_data_errors_are_not() {
        for code in [
            "08006", "08003", "40001", "40P01", "53300", "57P01", "57014", "58030", "55P03",
            "25006",
        ] {
            assert!(transient_sqlstate(code), "{code} is about the moment");
        }
        for code in [
            "P0001", "23505", "23514", "22003", "22P02", "40002", "42P01", "XX000",
        ] {
            assert!(!transient_sqlstate(code), "{code} may be the data's");
        }
        assert!(is_transient(&sqlx::Error::PoolTimedOut));
        assert!(!is_transient(&sqlx::Error::RowNotFound));
    }

    #[test]
    fn halves_cover_the_range_once() {
        assert_eq!(halves(0..5), [0..2, 2..5]);
        assert_eq!(halves(4..6), [4..5, 5..6]);
    }
}

//! The failure counters (`sign_in_guard`): counting, clearing and reading a
//! key's lock, each in one statement per key.

use std::time::Duration;

use chrono::{DateTime, Utc};
use sqlx_postgres::PgPool;

use super::domain::{Admission, Key, delay_for};

/// Counts one attempt against every key; admitted only if no key is over its limit.
pub async fn admit(pool: &PgPool, keys: &[Key]) -> sqlx::Result<Admission> {
    let mut locked_until: Option<DateTime<Utc>> = None;
    let mut delay = Duration::ZERO;
    for key in keys {
        let rule = key.rule();
        // A window that ran out unlocked, or a lock that ended, starts afresh.
        // The attempt that reaches the limit is still checked and sets the lock;
        // every later one within the lock is refused unchecked.
        let (attempts, lock): (i32, Option<DateTime<Utc>>) = sqlx::query_as(
            "insert into sign_in_guard as g (key, attempts, window_started_at) values ($1, 1, now()) \
             on conflict (key) do update set \
               attempts = case when (g.locked_until is null and g.window_started_at <= now() - make_interval(secs => $2)) \
                                    or g.locked_until <= now() then 1 else g.attempts + 1 end, \
               window_started_at = case when (g.locked_until is null and g.window_started_at <= now() - make_interval(secs => $2)) \
                                    or g.locked_until <= now() then now() else g.window_started_at end, \
               locked_until = case when (g.locked_until is null and g.window_started_at <= now() - make_interval(secs => $2)) \
                                    or g.locked_until <= now() then null \
                                   when g.attempts + 1 >= $3 then coalesce(g.locked_until, now() + make_interval(secs => $4)) \
                                   else g.locked_until end \
             returning attempts, locked_until",
        )
        .bind(key.text())
        .bind(f64::from(rule.window_secs))
        .bind(rule.limit)
        .bind(f64::from(rule.lock_secs))
        .fetch_one(pool)
        .await?;
        if let Key::Address(_) = key {
            delay = delay.max(delay_for(attempts));
        }
        if attempts > rule.limit {
            let until = lock.unwrap_or_else(Utc::now);
            locked_until = Some(locked_until.map_or(until, |l| l.max(until)));
        }
    }
    Ok(Admission {
        keys: keys.to_vec(),
        locked_until,
        delay,
    })
}

/// After a success: the account (from everywhere and from this address)
/// starts afresh; the address gets its count back.
pub async fn succeeded(pool: &PgPool, admission: &Admission) -> sqlx::Result<()> {
    for key in &admission.keys {
        match key {
            Key::Account(_) | Key::Unknown(_) | Key::Pair { .. } => {
                sqlx::query("delete from sign_in_guard where key = $1")
                    .bind(key.text())
                    .execute(pool)
                    .await?;
            }
            Key::Address(_) => {
                sqlx::query(
                    "update sign_in_guard set attempts = greatest(attempts - 1, 0) \
                     where key = $1 and locked_until is null",
                )
                .bind(key.text())
                .execute(pool)
                .await?;
            }
        }
    }
    Ok(())
}

/// Uncounts an attempt whose secret was never checked (e.g. the hasher was busy).
pub async fn give_back(pool: &PgPool, admission: &Admission) -> sqlx::Result<()> {
    for key in &admission.keys {
        sqlx::query(
            "update sign_in_guard set attempts = greatest(attempts - 1, 0) \
             where key = $1 and locked_until is null",
        )
        .bind(key.text())
        .execute(pool)
        .await?;
    }
    Ok(())
}

/// When the key's lock ends, if it is locked now. Counts nothing.
pub async fn locked_until(pool: &PgPool, key: &Key) -> sqlx::Result<Option<DateTime<Utc>>> {
    let until: Option<Option<DateTime<Utc>>> = sqlx::query_scalar(
        "select locked_until from sign_in_guard where key = $1 and locked_until > now() \
         and attempts >= $2",
    )
    .bind(key.text())
    .bind(key.rule().limit)
    .fetch_optional(pool)
    .await?;
    Ok(until.flatten())
}

/// Clears a key (e.g. the account after its password was reset by phone).
pub async fn clear(pool: &PgPool, key: &Key) -> sqlx::Result<()> {
    sqlx::query("delete from sign_in_guard where key = $1")
        .bind(key.text())
        .execute(pool)
        .await?;
    Ok(())
}

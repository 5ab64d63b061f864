//! Limits on guessing: failure counters per account and per client address.
//!
//! An attempt is counted *before* its secret is checked, in one atomic upsert
//! per key, so parallel guesses cannot slip past the limit: of 200 parallel
//! wrong passwords exactly 10 reach the hash check. A successful attempt
//! clears the account's counter and gives its count back to the address.
//!
//! - account: 10 failures within 15 minutes lock it for 15 minutes;
//! - address: 50 failures within 10 minutes lock it for 15 minutes.
//!
//! Unknown accounts are counted under what was typed, so they lock exactly
//! like real ones and the answers stay the same.

use chrono::{DateTime, Utc};
use sqlx::PgPool;
use uuid::Uuid;

/// How many failures a key may collect in its window, and how long it is then locked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    pub limit: i32,
    pub window_secs: i32,
    pub lock_secs: i32,
}

pub const ACCOUNT_RULE: Rule = Rule {
    limit: 10,
    window_secs: 15 * 60,
    lock_secs: 15 * 60,
};

pub const ADDRESS_RULE: Rule = Rule {
    limit: 50,
    window_secs: 10 * 60,
    lock_secs: 15 * 60,
};

/// What an attempt is counted against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Key {
    /// A known account, whichever way it signs in.
    Account(Uuid),
    /// An unknown account name or phone, as typed.
    Unknown(String),
    /// The client address.
    Address(String),
}

impl Key {
    fn text(&self) -> String {
        match self {
            Key::Account(id) => format!("account:{id}"),
            Key::Unknown(name) => format!("name:{}", name.to_lowercase()),
            Key::Address(ip) => format!("ip:{ip}"),
        }
    }

    fn rule(&self) -> Rule {
        match self {
            Key::Account(_) | Key::Unknown(_) => ACCOUNT_RULE,
            Key::Address(_) => ADDRESS_RULE,
        }
    }
}

/// The result of counting an attempt.
#[derive(Debug, Clone)]
pub struct Admission {
    keys: Vec<Key>,
    /// When the latest lock among the keys ends; `None` when admitted.
    pub locked_until: Option<DateTime<Utc>>,
}

impl Admission {
    pub fn admitted(&self) -> bool {
        self.locked_until.is_none()
    }
}

/// Counts one attempt against every key; admitted only if no key is over its limit.
pub async fn admit(pool: &PgPool, keys: &[Key]) -> sqlx::Result<Admission> {
    let mut locked_until: Option<DateTime<Utc>> = None;
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
        if attempts > rule.limit {
            let until = lock.unwrap_or_else(Utc::now);
            locked_until = Some(locked_until.map_or(until, |l| l.max(until)));
        }
    }
    Ok(Admission {
        keys: keys.to_vec(),
        locked_until,
    })
}

/// After a success: the account starts afresh; the address gets its count back.
pub async fn succeeded(pool: &PgPool, admission: &Admission) -> sqlx::Result<()> {
    for key in &admission.keys {
        match key {
            Key::Account(_) | Key::Unknown(_) => {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_names_are_counted_case_insensitively_and_apart_from_accounts() {
        assert_eq!(Key::Unknown("Demo".into()).text(), "name:demo");
        assert_eq!(Key::Address("10.0.0.1".into()).text(), "ip:10.0.0.1");
        assert_eq!(Key::Account(Uuid::nil()).rule(), ACCOUNT_RULE);
        assert_eq!(Key::Address(String::new()).rule().limit, 50);
    }
}

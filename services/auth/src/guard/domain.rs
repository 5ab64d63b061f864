//! The rules of the limits: what an attempt counts against, each key's
//! limit and lock, and how long an address's attempts wait.

use std::time::Duration;

use chrono::{DateTime, Utc};
use fleetdesk_kit::{ErrorCode, ServiceError};
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

pub const PAIR_RULE: Rule = Rule {
    limit: 5,
    window_secs: 15 * 60,
    lock_secs: 15 * 60,
};

/// The address only counts (its limit is never reached): see [`delay_for`].
pub const ADDRESS_RULE: Rule = Rule {
    limit: i32::MAX,
    window_secs: 10 * 60,
    lock_secs: 0,
};

/// Failures an address may have in its window before its attempts slow down.
pub const ADDRESS_FREE_FAILURES: i32 = 10;
/// How much longer each further failure makes the address's attempts wait.
pub const DELAY_STEP: Duration = Duration::from_millis(200);
/// The longest wait of an attempt.
pub const MAX_DELAY: Duration = Duration::from_secs(2);

/// How long an attempt from an address waits, given its attempts in the window.
pub fn delay_for(address_attempts: i32) -> Duration {
    let over = u32::try_from(address_attempts - ADDRESS_FREE_FAILURES).unwrap_or(0);
    DELAY_STEP.saturating_mul(over).min(MAX_DELAY)
}

/// What an attempt is counted against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Key {
    /// A known account, whichever way it signs in.
    Account(Uuid),
    /// An unknown account name or phone, as typed.
    Unknown(String),
    /// An account (known or as typed) from one client address.
    Pair { ip: String, account: Box<Key> },
    /// The client address.
    Address(String),
}

impl Key {
    /// The account key from an address.
    pub fn from_address(ip: &str, account: &Key) -> Key {
        Key::Pair {
            ip: ip.to_owned(),
            account: Box::new(account.clone()),
        }
    }

    pub(super) fn text(&self) -> String {
        match self {
            Key::Account(id) => format!("account:{id}"),
            Key::Unknown(name) => format!("name:{}", name.to_lowercase()),
            Key::Pair { ip, account } => format!("pair:{ip}|{}", account.text()),
            Key::Address(ip) => format!("ip:{ip}"),
        }
    }

    pub(super) fn rule(&self) -> Rule {
        match self {
            Key::Account(_) | Key::Unknown(_) => ACCOUNT_RULE,
            Key::Pair { .. } => PAIR_RULE,
            Key::Address(_) => ADDRESS_RULE,
        }
    }
}

/// The sign-in keys of an account (known or as typed) from an address: the
/// account, the pair and the address.
pub fn sign_in_keys(account: Key, ip: &str) -> Vec<Key> {
    let pair = Key::from_address(ip, &account);
    vec![account, pair, Key::Address(ip.to_owned())]
}

/// The answer to a locked account, the same for every name (a lock does not
/// tell whether the account exists): when it may try again, as 4029 with
/// Retry-After.
pub fn locked_error(until: DateTime<Utc>) -> ServiceError {
    let secs = (until - Utc::now()).num_seconds().max(1);
    // Whole minutes, rounded up: "in 0 minutes" helps nobody.
    let minutes = (secs + 59) / 60;
    let mut err = ServiceError::new(
        ErrorCode::TooManyRequests,
        format!("登录失败次数过多，账号已锁定，请 {minutes} 分钟后再试"),
    );
    err.retry_after_secs = Some(u64::try_from(secs).unwrap_or(1));
    err
}

/// The result of counting an attempt.
#[derive(Debug, Clone)]
pub struct Admission {
    pub(super) keys: Vec<Key>,
    /// When the latest lock among the keys ends; `None` when admitted.
    pub locked_until: Option<DateTime<Utc>>,
    /// How long the attempt waits first (an address with many failures).
    pub delay: Duration,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_names_are_counted_case_insensitively_and_apart_from_accounts() {
        assert_eq!(Key::Unknown("Demo".into()).text(), "name:demo");
        assert_eq!(Key::Address("10.0.0.1".into()).text(), "ip:10.0.0.1");
        assert_eq!(
            Key::from_address("10.0.0.1", &Key::Unknown("Demo".into())).text(),
            "pair:10.0.0.1|name:demo"
        );
        assert_eq!(Key::Account(Uuid::nil()).rule(), ACCOUNT_RULE);
        assert_eq!(Key::Address(String::new()).rule().limit, i32::MAX);
    }

    #[test]
    fn an_address_slows_down_after_its_free_failures_up_to_the_cap() {
        assert_eq!(delay_for(0), Duration::ZERO);
        assert_eq!(delay_for(ADDRESS_FREE_FAILURES), Duration::ZERO);
        assert_eq!(delay_for(ADDRESS_FREE_FAILURES + 1), DELAY_STEP);
        assert_eq!(delay_for(ADDRESS_FREE_FAILURES + 3), DELAY_STEP * 3);
        assert_eq!(delay_for(10_000), MAX_DELAY);
    }

    #[test]
    fn a_lock_says_when_to_try_again_in_whole_minutes() {
        let err = locked_error(Utc::now() + chrono::Duration::seconds(14 * 60 + 30));
        assert_eq!(err.code, ErrorCode::TooManyRequests);
        assert_eq!(
            err.message,
            "登录失败次数过多，账号已锁定，请 15 分钟后再试"
        );
        let secs = err.retry_after_secs.unwrap();
        assert!((868..=870).contains(&secs), "{secs}");
    }
}

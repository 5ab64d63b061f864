//! A per-address limit on the public routes a share link opens. Those answer
//! without a session (the link's token decides), so nothing else stops one
//! address from hammering them or walking through tokens: each client
//! address gets a fixed number of calls per minute and then 4029 with the
//! seconds to wait.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use fleetdesk_kit::error::{ErrorCode, ServiceError};

use crate::envelope::ApiError;

/// Calls per address per window: a consignee's page polls once a minute and
/// reloads now and then; this leaves room for a whole warehouse behind one
/// address while keeping a scripted walk through tokens pointless.
pub const PUBLIC_CALLS_PER_WINDOW: u32 = 60;
pub const PUBLIC_WINDOW: Duration = Duration::from_secs(60);
/// Addresses remembered at most; past it, windows that have ended are
/// forgotten first (a flood of addresses cannot grow memory without bound).
const MAX_ADDRESSES: usize = 100_000;

#[derive(Debug)]
pub struct PublicLimiter {
    per_window: u32,
    window: Duration,
    windows: Mutex<HashMap<String, Window>>,
}

#[derive(Debug, Clone, Copy)]
struct Window {
    started: Instant,
    calls: u32,
}

impl Default for PublicLimiter {
    fn default() -> Self {
        PublicLimiter::new(PUBLIC_CALLS_PER_WINDOW, PUBLIC_WINDOW)
    }
}

impl PublicLimiter {
    pub fn new(per_window: u32, window: Duration) -> Self {
        PublicLimiter {
            per_window,
            window,
            windows: Mutex::new(HashMap::new()),
        }
    }

    /// Counts one call of `address`; 4029 with Retry-After once its window is spent.
    pub fn check(&self, address: &str) -> Result<(), ApiError> {
        self.check_at(address, Instant::now())
    }

    fn check_at(&self, address: &str, now: Instant) -> Result<(), ApiError> {
        let mut windows = self.windows.lock().unwrap_or_else(|e| e.into_inner());
        if windows.len() >= MAX_ADDRESSES && !windows.contains_key(address) {
            windows.retain(|_, w| now.duration_since(w.started) < self.window);
            if windows.len() >= MAX_ADDRESSES {
                return Err(refusal(self.window));
            }
        }
        let entry = windows.entry(address.to_owned()).or_insert(Window {
            started: now,
            calls: 0,
        });
        if now.duration_since(entry.started) >= self.window {
            *entry = Window {
                started: now,
                calls: 0,
            };
        }
        if entry.calls >= self.per_window {
            let left = self
                .window
                .saturating_sub(now.duration_since(entry.started));
            return Err(refusal(left));
        }
        entry.calls += 1;
        Ok(())
    }
}

fn refusal(wait: Duration) -> ApiError {
    let mut err = ServiceError::of(ErrorCode::TooManyRequests);
    // Whole seconds, rounded up: a client that waits that long gets through.
    err.retry_after_secs = Some(wait.as_secs() + u64::from(wait.subsec_nanos() > 0));
    ApiError(err)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn retry_after(result: Result<(), ApiError>) -> Option<u64> {
        result.err().and_then(|e| {
            assert_eq!(e.0.code, ErrorCode::TooManyRequests);
            e.0.retry_after_secs
        })
    }

    #[test]
    fn an_address_gets_its_calls_per_window_then_waits_for_the_next() {
        let limiter = PublicLimiter::new(3, Duration::from_secs(60));
        let t0 = Instant::now();
        for _ in 0..3 {
            assert!(limiter.check_at("10.0.0.1", t0).is_ok());
        }
        let later = t0 + Duration::from_millis(20_500);
        assert_eq!(retry_after(limiter.check_at("10.0.0.1", later)), Some(40));
        // Another address is not affected.
        assert!(limiter.check_at("10.0.0.2", later).is_ok());
        // The next window starts afresh.
        let next = t0 + Duration::from_secs(60);
        assert!(limiter.check_at("10.0.0.1", next).is_ok());
    }

    #[test]
    fn a_full_table_forgets_ended_windows_before_refusing_new_addresses() {
        let limiter = PublicLimiter::new(1, Duration::from_secs(60));
        let t0 = Instant::now();
        for i in 0..MAX_ADDRESSES {
            assert!(limiter.check_at(&format!("a{i}"), t0).is_ok());
        }
        assert!(
            limiter
                .check_at("new", t0 + Duration::from_secs(1))
                .is_err()
        );
        assert!(
            limiter
                .check_at("new", t0 + Duration::from_secs(61))
                .is_ok()
        );
        let kept = limiter.windows.lock().unwrap().len();
        assert_eq!(kept, 1, "only the new address's window is left");
    }
}

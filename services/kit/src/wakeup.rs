//! Wake-ups from PostgreSQL's NOTIFY, shared: one LISTEN connection per
//! process and database, whatever number of loops wait on it. Each loop
//! (the outbox relay, every export loop of every service in the process)
//! used to hold a connection of its own for this, taken from its service's
//! pool: thirteen of an all-in-one stack's connections did nothing but wait.
//!
//! A wake-up is a hint, never the only trigger: every waiter also polls on
//! a timer. A notification sent while the connection is down (PostgreSQL
//! restarting) is lost to the listener, so every waiter is woken once the
//! connection is back, to look for what it missed.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, Weak};
use std::time::Duration;

use sqlx_postgres::PgPool;
use sqlx_postgres::{PgConnectOptions, PgListener, PgPoolOptions};
use tokio::sync::watch;

/// The outbox relay's channel: an event was written.
pub const OUTBOX: &str = "fleetdesk_outbox";
/// The export workers' channel: a job was queued.
pub const EXPORT_JOB: &str = "fleetdesk_export_job";
/// Connections a process opens for its wake-ups (one per database; a
/// process serves one).
pub const CONNECTIONS: u32 = 1;
/// Every channel the shared connection listens on.
const CHANNELS: [&str; 2] = [OUTBOX, EXPORT_JOB];

/// How long a waiter's subscription waits for the first LISTEN before it
/// goes on with its timer alone.
const FIRST_LISTEN: Duration = Duration::from_secs(5);
/// Pause between two attempts to reconnect a lost listener.
const RECONNECT_PAUSE: Duration = Duration::from_secs(1);

/// The server and database a listener serves.
type DatabaseKey = (String, u16, Option<String>);

static HUBS: LazyLock<Mutex<HashMap<DatabaseKey, Weak<Hub>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// One database's listener: a counter per channel that the listening task
/// bumps at each notification. Gone (and its task with it) when its last
/// waiter is dropped.
struct Hub {
    counters: Arc<Counters>,
    task: tokio::task::AbortHandle,
}

impl Drop for Hub {
    fn drop(&mut self) {
        self.task.abort();
    }
}

struct Counters {
    channels: HashMap<&'static str, watch::Sender<u64>>,
    /// Whether the listener has listened at least once or failed to.
    first_attempt: watch::Sender<bool>,
}

impl Counters {
    fn new() -> Counters {
        Counters {
            channels: CHANNELS
                .iter()
                .map(|&c| (c, watch::Sender::new(0)))
                .collect(),
            first_attempt: watch::Sender::new(false),
        }
    }

    fn bump(&self, channel: &str) {
        if let Some(counter) = self.channels.get(channel) {
            counter.send_modify(|n| *n += 1);
        }
    }

    fn bump_all(&self) {
        self.channels
            .values()
            .for_each(|c| c.send_modify(|n| *n += 1));
    }
}

/// One loop's subscription to a channel.
pub struct Wakeups {
    notified: watch::Receiver<u64>,
    _hub: Arc<Hub>,
}

impl std::fmt::Debug for Wakeups {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Wakeups").finish_non_exhaustive()
    }
}

impl Wakeups {
    /// Resolves at the first notification this waiter has not seen yet: at
    /// once if one came while it was busy.
    pub async fn notified(&mut self) {
        if self.notified.changed().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// Subscribes to `channel` (one of this module's constants) on the database
/// `pool` reaches, once that database's shared listener has listened (or
/// failed to: the waiter then relies on its timer until it reconnects).
pub async fn subscribe(pool: &PgPool, channel: &'static str) -> Wakeups {
    let options = pool.connect_options();
    let key = (
        options.get_host().to_owned(),
        options.get_port(),
        options.get_database().map(str::to_owned),
    );
    let hub = {
        let mut hubs = HUBS.lock().unwrap_or_else(|p| p.into_inner());
        hubs.retain(|_, hub| hub.strong_count() > 0);
        match hubs.get(&key).and_then(Weak::upgrade) {
            Some(hub) => hub,
            None => {
                let hub = start_hub((*options).clone());
                hubs.insert(key, Arc::downgrade(&hub));
                hub
            }
        }
    };
    let counter = hub
        .counters
        .channels
        .get(channel)
        .unwrap_or_else(|| panic!("wake-up channel {channel} is not one of kit's"));
    let notified = counter.subscribe();
    let mut first = hub.counters.first_attempt.subscribe();
    let _ = tokio::time::timeout(FIRST_LISTEN, first.wait_for(|tried| *tried)).await;
    Wakeups {
        notified,
        _hub: hub,
    }
}

fn start_hub(options: PgConnectOptions) -> Arc<Hub> {
    let counters = Arc::new(Counters::new());
    let task = tokio::spawn(listen(options, counters.clone())).abort_handle();
    Arc::new(Hub { counters, task })
}

/// The listening task: a pool of one connection of its own (so the
/// listener never takes a service's connection, and lives as long as any
/// service in the process waits), reconnected when lost.
async fn listen(options: PgConnectOptions, counters: Arc<Counters>) {
    let pool = PgPoolOptions::new()
        .max_connections(1)
        .acquire_timeout(Duration::from_secs(5))
        .max_lifetime(None)
        .idle_timeout(None)
        .connect_lazy_with(options);
    loop {
        let listener = async {
            let mut listener = PgListener::connect_with(&pool).await?;
            listener.listen_all(CHANNELS).await?;
            Ok::<_, sqlx::Error>(listener)
        };
        let mut listener = match listener.await {
            Ok(listener) => listener,
            Err(err) => {
                tracing::debug!(error = %err, "Wake-up listener not connected; retrying.");
                counters.first_attempt.send_replace(true);
                tokio::time::sleep(RECONNECT_PAUSE).await;
                continue;
            }
        };
        counters.first_attempt.send_replace(true);
        // What was sent while no one listened is looked for now.
        counters.bump_all();
        loop {
            match listener.try_recv().await {
                Ok(Some(notification)) => counters.bump(notification.channel()),
                // Lost and reconnected: a notification may have been missed.
                Ok(None) => counters.bump_all(),
                Err(err) => {
                    tracing::debug!(error = %err, "Wake-up listener lost; reconnecting.");
                    break;
                }
            }
        }
        tokio::time::sleep(RECONNECT_PAUSE).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_wake_only_the_channel_notified_and_all_after_a_reconnect() {
        let counters = Counters::new();
        let outbox = counters.channels[OUTBOX].subscribe();
        let export = counters.channels[EXPORT_JOB].subscribe();
        counters.bump(OUTBOX);
        counters.bump("someone_else's_channel");
        assert!(outbox.has_changed().unwrap());
        assert!(!export.has_changed().unwrap());
        counters.bump_all();
        assert!(export.has_changed().unwrap());
    }
}

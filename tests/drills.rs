//! Crash and outage drills against real processes: the `fleetdesk` binary's
//! targets, simulated JT/T 808 terminals, and a PostgreSQL cluster and a
//! NATS server of each drill's own, which the drills kill, stop and restart.
//!
//! - `vehicle_sigkill`: ingest SIGKILLed with batches in flight;
//! - `postgres_restart`: `pg_ctl restart -m fast` under load;
//! - `nats_outage`: NATS stopped for 30 s while terminals report;
//! - `two_replicas`: two `fleetdesk all` processes side by side (each
//!   thing done once, live streams from either gateway), and one of them
//!   SIGKILLed and restarted under a console's live stream.
//!
//! Drills take turns (a file lock), each under about 90 s.

#[path = "drills/harness.rs"]
mod harness;
#[path = "drills/nats_outage.rs"]
mod nats_outage;
#[path = "drills/postgres_restart.rs"]
mod postgres_restart;
#[path = "drills/stack.rs"]
mod stack;
#[path = "drills/terminal.rs"]
mod terminal;
#[path = "drills/two_replicas.rs"]
mod two_replicas;
#[path = "drills/vehicle_sigkill.rs"]
mod vehicle_sigkill;

use std::collections::BTreeMap;

use harness::{StreamFix, discrepancies};

/// The count check itself reports loss, strays and doubles (so a drill
/// passing means the history matched, not that nothing was compared).
#[test]
fn the_count_check_reports_loss_strays_and_doubles() {
    let vehicle = uuid::Uuid::new_v4();
    let fix = |copies| StreamFix {
        lat: 22.5,
        lng: 114.0,
        copies,
    };
    let published = BTreeMap::from([((vehicle, 1), fix(1)), ((vehicle, 2), fix(2))]);
    let stored = BTreeMap::from([((vehicle, 1), 2), ((vehicle, 3), 1)]);
    let found = discrepancies(&published, &stored);
    assert_eq!(found.missing, vec![(vehicle, 2)]);
    assert_eq!(found.extra, vec![(vehicle, 3)]);
    assert_eq!(found.doubled, vec![(vehicle, 1)]);
    assert_eq!(found.published_twice, vec![(vehicle, 2)]);
    let all_stored = BTreeMap::from([((vehicle, 1), 1), ((vehicle, 2), 1)]);
    let published_once = BTreeMap::from([((vehicle, 1), fix(1)), ((vehicle, 2), fix(1))]);
    assert!(discrepancies(&published_once, &all_stored).is_empty());
}

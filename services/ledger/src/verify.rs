//! The proof that the books hold, run over every tenant of one schema:
//! each account's balance is the sum of its entries, each transfer's
//! entries sum to zero (two or more of them), no account is below its
//! floor, and each account's entries chain from 0 to that sum (every entry
//! starts at the balance another one ended at). The database refuses most
//! of these on write; this catches what got past it (a hand-made fix, a
//! trigger dropped for a repair, a bug in a query written later).
//!
//! The chain is checked without ordering entries: their `created_at` is
//! their transaction's start, not the order their accounts were locked in.
//! Instead, per account, every balance an entry starts from must be one
//! another entry ended at (0 for the first, the sum is where the last
//! ends): the same multiset on both sides.

use std::time::Duration;

use fleetdesk_kit::{Shutdown, db};
use sqlx_postgres::{PgConnection, PgPool};
use uuid::Uuid;

const EVERY: Duration = Duration::from_secs(24 * 3600);

/// One broken invariant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Difference {
    /// The stored balance is not the sum of the account's entries.
    Balance {
        enterprise_id: Uuid,
        account_id: Uuid,
        balance_fen: i64,
        entries_fen: i64,
    },
    /// The transfer's entries do not sum to zero, or it has fewer than two.
    Unbalanced {
        enterprise_id: Uuid,
        transfer_id: Uuid,
        sum_fen: i64,
        entries: i64,
    },
    /// The balance is below the account's floor (minus its overdraft).
    BelowFloor {
        enterprise_id: Uuid,
        account_id: Uuid,
        balance_fen: i64,
        overdraft_fen: i64,
    },
    /// An entry's balance after does not follow from the entries before it.
    BrokenChain {
        enterprise_id: Uuid,
        account_id: Uuid,
    },
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Difference::Balance {
                enterprise_id,
                account_id,
                balance_fen,
                entries_fen,
            } => write!(
                f,
                "account {account_id} of {enterprise_id}: balance {balance_fen} fen, \
                 its entries sum to {entries_fen}"
            ),
            Difference::Unbalanced {
                enterprise_id,
                transfer_id,
                sum_fen,
                entries,
            } => write!(
                f,
                "transfer {transfer_id} of {enterprise_id}: {entries} entries summing to \
                 {sum_fen} fen"
            ),
            Difference::BelowFloor {
                enterprise_id,
                account_id,
                balance_fen,
                overdraft_fen,
            } => write!(
                f,
                "account {account_id} of {enterprise_id}: balance {balance_fen} fen below \
                 its floor of -{overdraft_fen}"
            ),
            Difference::BrokenChain {
                enterprise_id,
                account_id,
            } => write!(
                f,
                "account {account_id} of {enterprise_id}: its entries' balances after do \
                 not chain"
            ),
        }
    }
}

/// Every difference in the ledger tables `conn` sees: run it in a
/// service-scoped transaction (`db::begin_service`) to see every tenant.
pub async fn verify(conn: &mut PgConnection) -> Result<Vec<Difference>, sqlx::Error> {
    let mut found = Vec::new();
    let balances: Vec<(Uuid, Uuid, i64, i64)> = sqlx::query_as(
        "select a.enterprise_id, a.id, a.balance_fen, coalesce(e.total, 0)::bigint \
         from ledger_account a \
         left join (select account_id, sum(amount_fen) as total from ledger_entry \
                    group by account_id) e on e.account_id = a.id \
         where a.balance_fen <> coalesce(e.total, 0) \
         order by a.enterprise_id, a.id",
    )
    .fetch_all(&mut *conn)
    .await?;
    found.extend(balances.into_iter().map(
        |(enterprise_id, account_id, balance_fen, entries_fen)| Difference::Balance {
            enterprise_id,
            account_id,
            balance_fen,
            entries_fen,
        },
    ));
    let transfers: Vec<(Uuid, Uuid, i64, i64)> = sqlx::query_as(
        "select t.enterprise_id, t.id, coalesce(sum(e.amount_fen), 0)::bigint, count(e.id) \
         from ledger_transfer t left join ledger_entry e on e.transfer_id = t.id \
         group by t.id \
         having coalesce(sum(e.amount_fen), 0) <> 0 or count(e.id) < 2 \
         order by t.enterprise_id, t.id",
    )
    .fetch_all(&mut *conn)
    .await?;
    found.extend(
        transfers
            .into_iter()
            .map(
                |(enterprise_id, transfer_id, sum_fen, entries)| Difference::Unbalanced {
                    enterprise_id,
                    transfer_id,
                    sum_fen,
                    entries,
                },
            ),
    );
    let below: Vec<(Uuid, Uuid, i64, i64)> = sqlx::query_as(
        "select enterprise_id, id, balance_fen, overdraft_fen from ledger_account \
         where not may_go_negative and balance_fen < -overdraft_fen \
         order by enterprise_id, id",
    )
    .fetch_all(&mut *conn)
    .await?;
    found.extend(below.into_iter().map(
        |(enterprise_id, account_id, balance_fen, overdraft_fen)| Difference::BelowFloor {
            enterprise_id,
            account_id,
            balance_fen,
            overdraft_fen,
        },
    ));
    // Per account and balance: +1 for each entry starting there and for
    // where the last one ends (the sum), -1 for each entry ending there and
    // for 0 (where the first one starts). A chain leaves nothing over.
    let broken: Vec<(Uuid, Uuid)> = sqlx::query_as(
        "with step (account_id, balance, step) as ( \
             select account_id, (balance_after_fen - amount_fen)::numeric, 1 from ledger_entry \
             union all select account_id, balance_after_fen::numeric, -1 from ledger_entry \
             union all select account_id, 0::numeric, -1 from ledger_entry group by account_id \
             union all select account_id, sum(amount_fen), 1 from ledger_entry group by account_id \
         ) \
         select a.enterprise_id, a.id from ledger_account a \
         where a.id in (select account_id from step group by account_id, balance \
                        having sum(step) <> 0) \
         order by a.enterprise_id, a.id",
    )
    .fetch_all(&mut *conn)
    .await?;
    found.extend(
        broken
            .into_iter()
            .map(|(enterprise_id, account_id)| Difference::BrokenChain {
                enterprise_id,
                account_id,
            }),
    );
    Ok(found)
}

/// Verifies the ledger of `schema` (the pool's) once: logs each difference
/// as an error, sets the `ledger_differences{schema}` gauge to their count
/// and answers them.
pub async fn run_once(pool: &PgPool, schema: &'static str) -> Result<Vec<Difference>, sqlx::Error> {
    let mut tx = db::begin_service(pool).await?;
    let found = verify(&mut tx).await?;
    db::end_read(tx);
    for difference in &found {
        tracing::error!(schema, %difference, "Ledger invariant broken.");
    }
    metrics::gauge!("ledger_differences", "schema" => schema).set(found.len() as f64);
    if found.is_empty() {
        tracing::info!(
            schema,
            "Ledger verified: balances are the sums of their entries."
        );
    }
    Ok(found)
}

/// Runs [`run_once`] now and every day until shutdown.
pub async fn run_daily(pool: PgPool, schema: &'static str, shutdown: Shutdown) {
    loop {
        if let Err(err) = run_once(&pool, schema).await {
            tracing::warn!(schema, error = %err, "Ledger verification failed to run.");
        }
        tokio::select! {
            () = tokio::time::sleep(EVERY) => {}
            () = shutdown.wait() => return,
        }
    }
}

//! Group commit of settlements onto hot accounts (as TigerBeetle batches
//! transfers). Every capture of an enterprise credits the same few revenue
//! accounts; posted one transaction each, the revenue row stays locked
//! from its update to its commit and the captures queue behind it one by
//! one. Here the settlements of one enterprise that arrive while its
//! writer is busy wait in one queue; the writer takes up to `max_group` of
//! them and posts them in ONE transaction: every transfer, entry and key
//! of the group, and ONE update of each touched account's balance row.
//!
//! Rules kept (the same as [`crate::settle`] one at a time):
//!
//! - Postings are decided in arrival order on the locked balances, each
//!   with its floors checked after the ones before it: one that would take
//!   an account below its floor (or that is invalid, or names an unknown
//!   account) is refused alone and the rest commit.
//! - A key already settled, in the table or earlier in the same group,
//!   answers the first settlement (`replayed = true`), as a replay does.
//! - Locks are taken in the phases a single settlement takes them: the
//!   holds, then the sources (cards), then the destinations (revenue) last,
//!   each phase in id order.
//! - A light load never waits for a timer: an empty queue's first
//!   settlement is written at once, alone, through [`crate::settle`]
//!   itself; only what arrives while a group is being written forms the
//!   next group.
//! - When the group's transaction fails as a whole (a deadlock with another
//!   writer, a lost connection, a key claimed outside the group), nothing of
//!   it was applied, and every member is retried alone through
//!   [`crate::settle`]: the offender fails with its own error and the others
//!   commit. The keys make that retry safe even if the failed commit did
//!   land (each member then answers as a replay).
//!
//! The writer posts on the pool it was given, never on a caller's
//! connection: a caller may wait for its answer while holding a connection
//! of its own pool, so give the group a pool of its own (two connections
//! are enough: one writer per enterprise at a time, plus the retries).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};
use fleetdesk_kit::db;
use sqlx_postgres::{PgConnection, PgPool};
use tokio::sync::oneshot;
use uuid::Uuid;

use crate::codes::TransferCode;
use crate::domain::{
    Leg, Locked, Posted, PostedEntry, Transfer, TransferError, apply, ordered_legs,
};
use crate::pending::{Pending, Settlement, settle};

type Answer<T> = Result<Settlement, TransferError<<T as TransferCode>::Account>>;

/// One settlement waiting for its group.
struct Waiting<T: TransferCode> {
    pending: Pending<T>,
    credits: Vec<Leg>,
    key: String,
    answer: oneshot::Sender<Answer<T>>,
}

/// The queues of one schema's settlements, one per enterprise (the
/// enterprise's revenue accounts are what every one of them credits).
pub struct GroupCommit<T: TransferCode> {
    inner: Arc<Inner<T>>,
}

impl<T: TransferCode> Clone for GroupCommit<T> {
    fn clone(&self) -> Self {
        GroupCommit {
            inner: self.inner.clone(),
        }
    }
}

struct Inner<T: TransferCode> {
    pool: PgPool,
    max_group: usize,
    /// An enterprise is present while its writer runs; what waits for it.
    queues: Mutex<HashMap<Uuid, Vec<Waiting<T>>>>,
    counts: Counts,
}

#[derive(Default)]
struct Counts {
    transactions: AtomicU64,
    settlements: AtomicU64,
    retried_alone: AtomicU64,
}

/// What a [`GroupCommit`] has done since it was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupStats {
    /// Transactions written (a group, or a settlement alone).
    pub transactions: u64,
    /// Settlements answered.
    pub settlements: u64,
    /// Settlements retried alone because their group failed as a whole.
    pub retried_alone: u64,
}

impl<T: TransferCode> GroupCommit<T> {
    /// Groups of at most `max_group` settlements, written on `pool` (the
    /// app role's, in the service's schema; see the module's notes).
    pub fn new(pool: PgPool, max_group: usize) -> GroupCommit<T> {
        GroupCommit {
            inner: Arc::new(Inner {
                pool,
                max_group: max_group.max(1),
                queues: Mutex::new(HashMap::new()),
                counts: Counts::default(),
            }),
        }
    }

    /// Counts of what was written, for tests and logs.
    pub fn stats(&self) -> GroupStats {
        let c = &self.inner.counts;
        GroupStats {
            transactions: c.transactions.load(Ordering::Relaxed),
            settlements: c.settlements.load(Ordering::Relaxed),
            retried_alone: c.retried_alone.load(Ordering::Relaxed),
        }
    }

    /// The pool the groups are written on.
    pub fn pool(&self) -> &PgPool {
        &self.inner.pool
    }

    /// [`crate::settle`] committed in its own transaction, grouped with the
    /// enterprise's other settlements that wait at the same moment. Answers
    /// as `settle` does; once it answers Ok the settlement is committed.
    pub async fn settle(&self, pending: Pending<T>, credits: Vec<Leg>, key: &str) -> Answer<T> {
        let (answer, answered) = oneshot::channel();
        let waiting = Waiting {
            pending,
            credits,
            key: key.to_owned(),
            answer,
        };
        let start_writer = {
            let mut queues = self.inner.queues.lock().unwrap_or_else(|p| p.into_inner());
            match queues.get_mut(&pending.enterprise_id) {
                Some(queue) => {
                    queue.push(waiting);
                    false
                }
                None => {
                    queues.insert(pending.enterprise_id, vec![waiting]);
                    true
                }
            }
        };
        if start_writer {
            tokio::spawn(write_groups(self.inner.clone(), pending.enterprise_id));
        }
        // The writer answers every member it takes; a writer gone without
        // answering (a panic) must not leave the caller guessing silently.
        answered
            .await
            .unwrap_or(Err(TransferError::Db(sqlx::Error::WorkerCrashed)))
    }
}

/// The enterprise's writer: groups until its queue is empty, then gone.
async fn write_groups<T: TransferCode>(inner: Arc<Inner<T>>, enterprise_id: Uuid) {
    loop {
        let group: Vec<Waiting<T>> = {
            let mut queues = inner.queues.lock().unwrap_or_else(|p| p.into_inner());
            let Some(queue) = queues.get_mut(&enterprise_id) else {
                return;
            };
            if queue.is_empty() {
                queues.remove(&enterprise_id);
                return;
            }
            let n = queue.len().min(inner.max_group);
            queue.drain(..n).collect()
        };
        metrics::histogram!("ledger_settlement_group_size").record(group.len() as f64);
        let answers = commit(&inner, enterprise_id, &group).await;
        inner
            .counts
            .settlements
            .fetch_add(group.len() as u64, Ordering::Relaxed);
        for (waiting, answer) in group.into_iter().zip(answers) {
            // A caller that stopped waiting still had its settlement posted.
            let _ = waiting.answer.send(answer);
        }
    }
}

/// The group's answers, member by member.
async fn commit<T: TransferCode>(
    inner: &Inner<T>,
    enterprise_id: Uuid,
    group: &[Waiting<T>],
) -> Vec<Answer<T>> {
    let counts = &inner.counts;
    if group.len() > 1 {
        match grouped(&inner.pool, enterprise_id, group).await {
            Ok(answers) => {
                counts.transactions.fetch_add(1, Ordering::Relaxed);
                return answers;
            }
            Err(err) => {
                tracing::warn!(size = group.len(), error = %err, "A settlement group failed; its members are retried one by one.");
                counts
                    .retried_alone
                    .fetch_add(group.len() as u64, Ordering::Relaxed);
            }
        }
    }
    let mut answers = Vec::with_capacity(group.len());
    for w in group {
        answers.push(alone(&inner.pool, w).await);
        counts.transactions.fetch_add(1, Ordering::Relaxed);
    }
    answers
}

/// One settlement in its own transaction, exactly as a caller would post it.
async fn alone<T: TransferCode>(pool: &PgPool, w: &Waiting<T>) -> Answer<T> {
    let mut tx = db::begin_tenant(pool, w.pending.enterprise_id).await?;
    let settled = settle(&mut tx, &w.pending, &w.credits, &w.key).await?;
    tx.commit().await?;
    Ok(settled)
}

/// Why a group was not written as one (its members are then retried alone).
#[derive(Debug, thiserror::Error)]
enum Abort {
    #[error(transparent)]
    Db(#[from] sqlx::Error),
    #[error("a key of the group was claimed by another transaction")]
    KeyTaken,
}

/// A transfer the group will write.
struct Planned {
    transfer_id: Uuid,
    kind: i16,
    key: String,
    legs: Vec<Leg>,
    after: Vec<i64>,
}

/// What a member ends in before the group commits: its refusal, its
/// replay, or the planned transfers (indexes into the plan) it posts.
enum Outcome<A> {
    Refused(TransferError<A>),
    Replayed(Settlement),
    Posts(MemberPlan),
}

/// A member's transfers in the plan: its post and its void, if any.
#[derive(Debug, Clone, Copy)]
struct MemberPlan {
    posted: Option<usize>,
    voided: Option<usize>,
}

async fn grouped<T: TransferCode>(
    pool: &PgPool,
    enterprise_id: Uuid,
    group: &[Waiting<T>],
) -> Result<Vec<Answer<T>>, Abort> {
    let mut tx = db::begin_tenant(pool, enterprise_id).await?;
    let holds = sorted_ids(group.iter().map(|w| w.pending.hold_id));
    let mut accounts: HashMap<Uuid, Locked<T::Account>> =
        lock_found(&mut tx, enterprise_id, &holds)
            .await?
            .into_iter()
            .map(|a| (a.id, a))
            .collect();
    let mut earlier = settled_keys(&mut tx, enterprise_id, group).await?;
    let still_open = |w: &Waiting<T>| {
        !earlier.contains_key(&(w.pending.post.into(), w.key.trim().to_owned()))
            && !earlier.contains_key(&(w.pending.void.into(), w.key.trim().to_owned()))
    };
    let sources = sorted_ids(
        group
            .iter()
            .filter(|w| still_open(w))
            .map(|w| w.pending.source_id)
            .filter(|id| !accounts.contains_key(id)),
    );
    for a in lock_found(&mut tx, enterprise_id, &sources).await? {
        accounts.insert(a.id, a);
    }
    // The hot accounts last: locked as late as the group can.
    let destinations = sorted_ids(
        group
            .iter()
            .filter(|w| still_open(w))
            .flat_map(|w| w.credits.iter().map(|c| c.account_id))
            .filter(|id| !accounts.contains_key(id)),
    );
    for a in lock_found(&mut tx, enterprise_id, &destinations).await? {
        accounts.insert(a.id, a);
    }

    let mut plan: Vec<Planned> = Vec::new();
    let mut outcomes: Vec<Outcome<T::Account>> = Vec::with_capacity(group.len());
    // Keys this group settles: (post kind, void kind, key) → the outcome's index.
    let mut settled_here: HashMap<String, usize> = HashMap::new();
    for w in group {
        let key = w.key.trim().to_owned();
        let posted = earlier.remove(&(w.pending.post.into(), key.clone()));
        let voided = earlier.remove(&(w.pending.void.into(), key.clone()));
        if posted.is_some() || voided.is_some() {
            // Kept for a duplicate later in the group.
            if let Some(p) = &posted {
                earlier.insert((w.pending.post.into(), key.clone()), p.clone());
            }
            if let Some(v) = &voided {
                earlier.insert((w.pending.void.into(), key.clone()), v.clone());
            }
            outcomes.push(Outcome::Replayed(Settlement { posted, voided }));
            continue;
        }
        if let Some(&first) = settled_here.get(&duplicate_key(&w.pending, &key)) {
            outcomes.push(match &outcomes[first] {
                Outcome::Posts(planned) => Outcome::Posts(*planned),
                // Only posting outcomes are recorded as settled here.
                Outcome::Refused(_) | Outcome::Replayed(_) => unreachable!(),
            });
            continue;
        }
        match plan_settlement(w, &mut accounts, &mut plan) {
            Ok(planned) => {
                settled_here.insert(duplicate_key(&w.pending, &key), outcomes.len());
                outcomes.push(Outcome::Posts(planned));
            }
            Err(refused) => outcomes.push(Outcome::Refused(refused)),
        }
    }

    let created = write(&mut tx, enterprise_id, &plan, &accounts).await?;
    if !plan.is_empty() {
        tx.commit().await?;
    }
    let mut first_use: HashSet<usize> = HashSet::new();
    let mut posted_of = |i: Option<usize>| {
        i.map(|i| {
            let p = &plan[i];
            Posted {
                transfer_id: p.transfer_id,
                created_at: created[i],
                // The second member of a key is a replay of the first.
                replayed: !first_use.insert(i),
                entries: p
                    .legs
                    .iter()
                    .zip(&p.after)
                    .map(|(l, &balance_after_fen)| PostedEntry {
                        account_id: l.account_id,
                        amount_fen: l.amount_fen,
                        balance_after_fen,
                    })
                    .collect(),
            }
        })
    };
    Ok(outcomes
        .into_iter()
        .map(|outcome| match outcome {
            Outcome::Refused(err) => Err(err),
            Outcome::Replayed(settlement) => Ok(settlement),
            Outcome::Posts(planned) => {
                let voided = posted_of(planned.voided);
                let posted = posted_of(planned.posted);
                Ok(Settlement { posted, voided })
            }
        })
        .collect())
}

/// What identifies one settlement's key among the group's members.
fn duplicate_key<T: TransferCode>(pending: &Pending<T>, key: &str) -> String {
    format!("{}:{}:{key}", pending.post.into(), pending.void.into())
}

/// Decides one settlement on the balances the group reached so far: its
/// release and its post added to the plan (their indexes), or its refusal
/// with nothing changed.
fn plan_settlement<T: TransferCode>(
    w: &Waiting<T>,
    accounts: &mut HashMap<Uuid, Locked<T::Account>>,
    plan: &mut Vec<Planned>,
) -> Result<MemberPlan, TransferError<T::Account>> {
    let p = &w.pending;
    if w.credits.iter().any(|c| c.amount_fen <= 0) {
        return Err(TransferError::Invalid("扣款金额必须大于 0"));
    }
    let total = w
        .credits
        .iter()
        .try_fold(0i64, |sum, c| sum.checked_add(c.amount_fen))
        .ok_or(TransferError::Invalid("转账金额超出范围"))?;
    let hold = *accounts
        .get(&p.hold_id)
        .ok_or(TransferError::UnknownAccount(p.hold_id))?;
    if total > hold.balance_fen {
        return Err(TransferError::Insufficient {
            account_id: p.hold_id,
            kind: hold.kind,
            available_fen: hold.balance_fen,
            needed_fen: total,
        });
    }
    let rest = hold.balance_fen - total;
    let mut transfers = Vec::new();
    if rest > 0 {
        transfers.push(Transfer::between(
            p.enterprise_id,
            p.void,
            w.key.clone(),
            p.hold_id,
            p.source_id,
            rest,
        ));
    }
    if total > 0 {
        let mut legs = vec![Leg::debit(p.hold_id, total)];
        legs.extend_from_slice(&w.credits);
        transfers.push(Transfer {
            legs,
            ..Transfer::between(
                p.enterprise_id,
                p.post,
                w.key.clone(),
                p.hold_id,
                p.source_id,
                total,
            )
        });
    }
    // Both transfers of the settlement or neither: decided on a copy.
    let mut scratch: HashMap<Uuid, Locked<T::Account>> = HashMap::new();
    let mut planned = Vec::new();
    for t in &transfers {
        let legs = ordered_legs(t)?;
        let locked = legs
            .iter()
            .map(|l| {
                scratch
                    .get(&l.account_id)
                    .or_else(|| accounts.get(&l.account_id))
                    .copied()
                    .ok_or(TransferError::UnknownAccount(l.account_id))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let after = apply(&locked, &legs)?;
        for (account, &balance_fen) in locked.iter().zip(&after) {
            scratch.insert(
                account.id,
                Locked {
                    balance_fen,
                    ..*account
                },
            );
        }
        planned.push(Planned {
            transfer_id: Uuid::new_v4(),
            kind: t.kind.into(),
            key: t.key.trim().to_owned(),
            legs,
            after,
        });
    }
    accounts.extend(scratch);
    let mut voided = None;
    let mut posted = None;
    for t in planned {
        let slot = if t.kind == p.void.into() {
            &mut voided
        } else {
            &mut posted
        };
        *slot = Some(plan.len());
        plan.push(t);
    }
    Ok(MemberPlan { posted, voided })
}

fn sorted_ids(ids: impl Iterator<Item = Uuid>) -> Vec<Uuid> {
    let mut ids: Vec<Uuid> = ids.collect();
    ids.sort();
    ids.dedup();
    ids
}

/// Locks the accounts that exist of `ordered_ids` (in id order) and reads
/// them; a missing one is refused later, for its own member only.
async fn lock_found<A: crate::AccountCode>(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    ordered_ids: &[Uuid],
) -> Result<Vec<Locked<A>>, sqlx::Error> {
    if ordered_ids.is_empty() {
        return Ok(Vec::new());
    }
    let rows: Vec<(Uuid, i16, i64, bool, i64)> = sqlx::query_as(
        "select id, kind, balance_fen, may_go_negative, overdraft_fen from ledger_account \
         where enterprise_id = $1 and id = any($2) order by id for update",
    )
    .bind(enterprise_id)
    .bind(ordered_ids)
    .fetch_all(conn)
    .await?;
    Ok(rows
        .into_iter()
        // A kind this service does not know is left out: its member is
        // then refused as naming an unknown account.
        .filter_map(|(id, kind, balance_fen, may_go_negative, overdraft_fen)| {
            Some(Locked {
                id,
                kind: A::try_from(kind).ok()?,
                balance_fen,
                may_go_negative,
                overdraft_fen,
            })
        })
        .collect())
}

/// The transfers already posted under the group's keys (post or void
/// kind), with their entries: (kind, key) → the transfer as a replay.
async fn settled_keys<T: TransferCode>(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    group: &[Waiting<T>],
) -> Result<HashMap<(i16, String), Posted>, sqlx::Error> {
    let mut kinds = Vec::new();
    let mut keys = Vec::new();
    for w in group {
        for kind in [w.pending.post, w.pending.void] {
            kinds.push(Into::<i16>::into(kind));
            keys.push(w.key.trim().to_owned());
        }
    }
    let found: Vec<(Uuid, i16, String, DateTime<Utc>)> = sqlx::query_as(
        "select t.id, t.kind, t.idempotency_key, t.created_at from ledger_transfer t \
         join unnest($2::smallint[], $3::text[]) as k(kind, key) \
           on t.kind = k.kind and t.idempotency_key = k.key \
         where t.enterprise_id = $1",
    )
    .bind(enterprise_id)
    .bind(&kinds)
    .bind(&keys)
    .fetch_all(&mut *conn)
    .await?;
    if found.is_empty() {
        return Ok(HashMap::new());
    }
    let ids: Vec<Uuid> = found.iter().map(|f| f.0).collect();
    let entries: Vec<(Uuid, Uuid, i64, i64)> = sqlx::query_as(
        "select transfer_id, account_id, amount_fen, balance_after_fen from ledger_entry \
         where transfer_id = any($1) order by account_id",
    )
    .bind(&ids)
    .fetch_all(conn)
    .await?;
    Ok(found
        .into_iter()
        .map(|(transfer_id, kind, key, created_at)| {
            let posted = Posted {
                transfer_id,
                created_at,
                replayed: true,
                entries: entries
                    .iter()
                    .filter(|e| e.0 == transfer_id)
                    .map(
                        |&(_, account_id, amount_fen, balance_after_fen)| PostedEntry {
                            account_id,
                            amount_fen,
                            balance_after_fen,
                        },
                    )
                    .collect(),
            };
            ((kind, key), posted)
        })
        .collect())
}

/// Writes the plan: every transfer (claiming its key), every entry, and
/// one update of each touched account. Answers each transfer's time.
async fn write<A: crate::AccountCode>(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    plan: &[Planned],
    accounts: &HashMap<Uuid, Locked<A>>,
) -> Result<Vec<DateTime<Utc>>, Abort> {
    if plan.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<Uuid> = plan.iter().map(|p| p.transfer_id).collect();
    let claimed: Vec<(Uuid, DateTime<Utc>)> = sqlx::query_as(
        "insert into ledger_transfer (id, enterprise_id, kind, idempotency_key) \
         select t.id, $1, t.kind, t.key from unnest($2::uuid[], $3::smallint[], $4::text[]) \
           as t(id, kind, key) \
         on conflict on constraint ledger_transfer_key do nothing returning id, created_at",
    )
    .bind(enterprise_id)
    .bind(&ids)
    .bind(plan.iter().map(|p| p.kind).collect::<Vec<_>>())
    .bind(plan.iter().map(|p| p.key.clone()).collect::<Vec<_>>())
    .fetch_all(&mut *conn)
    .await?;
    if claimed.len() != plan.len() {
        // The holds are locked, so only a writer that skips them could
        // have taken a key; the retry one by one answers it properly.
        return Err(Abort::KeyTaken);
    }
    let created: HashMap<Uuid, DateTime<Utc>> = claimed.into_iter().collect();

    let (mut transfer_ids, mut account_ids, mut amounts, mut afters) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    // Per account: its last balance and how many entries the group gave it.
    let mut touched: HashMap<Uuid, (i64, i32)> = HashMap::new();
    for p in plan {
        for (leg, &after) in p.legs.iter().zip(&p.after) {
            transfer_ids.push(p.transfer_id);
            account_ids.push(leg.account_id);
            amounts.push(leg.amount_fen);
            afters.push(after);
            let t = touched.entry(leg.account_id).or_insert((after, 0));
            *t = (after, t.1 + 1);
        }
    }
    sqlx::query(
        "insert into ledger_entry (id, enterprise_id, transfer_id, account_id, amount_fen, \
         balance_after_fen) \
         select e.id, $1, e.transfer_id, e.account_id, e.amount, e.balance \
         from unnest($2::uuid[], $3::uuid[], $4::uuid[], $5::bigint[], $6::bigint[]) \
           as e(id, transfer_id, account_id, amount, balance)",
    )
    .bind(enterprise_id)
    .bind(
        transfer_ids
            .iter()
            .map(|_| Uuid::new_v4())
            .collect::<Vec<_>>(),
    )
    .bind(&transfer_ids)
    .bind(&account_ids)
    .bind(&amounts)
    .bind(&afters)
    .execute(&mut *conn)
    .await?;
    let mut rows: Vec<(Uuid, i64, i32)> = touched
        .into_iter()
        .map(|(id, (balance, entries))| (id, balance, entries))
        .collect();
    rows.sort_by_key(|r| r.0);
    debug_assert!(
        rows.iter()
            .all(|r| accounts.get(&r.0).map(|a| a.balance_fen) == Some(r.1))
    );
    sqlx::query(
        "update ledger_account a set balance_fen = d.balance, version = a.version + d.entries \
         from unnest($2::uuid[], $3::bigint[], $4::int[]) as d(id, balance, entries) \
         where a.enterprise_id = $1 and a.id = d.id",
    )
    .bind(enterprise_id)
    .bind(rows.iter().map(|r| r.0).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.1).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.2).collect::<Vec<_>>())
    .execute(conn)
    .await?;
    Ok(ids.iter().map(|id| created[id]).collect())
}

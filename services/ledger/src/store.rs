//! The ledger tables (`ledger_account`, `ledger_transfer`, `ledger_entry`,
//! in the schema of the caller's connection): opening accounts, locking
//! them, and writing a transfer with its entries and the new balances.
//! Kinds arrive as their stored codes.

use chrono::{DateTime, Utc};
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use crate::codes::{AccountCode, TransferCode};
use crate::domain::{Leg, Locked, Posted, PostedEntry, Transfer, TransferError};

/// The account of (`kind`, `owner`) in the enterprise, opened when missing.
pub async fn open(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    kind: i16,
    may_go_negative: bool,
    owner_id: Option<Uuid>,
) -> Result<Uuid, sqlx::Error> {
    let opened: Option<Uuid> = sqlx::query_scalar(
        "insert into ledger_account (id, enterprise_id, kind, owner_id, may_go_negative) \
         values ($1, $2, $3, $4, $5) on conflict on constraint ledger_account_owner_key do nothing \
         returning id",
    )
    .bind(Uuid::new_v4())
    .bind(enterprise_id)
    .bind(kind)
    .bind(owner_id)
    .bind(may_go_negative)
    .fetch_optional(&mut *conn)
    .await?;
    match opened {
        Some(id) => Ok(id),
        None => find(conn, enterprise_id, kind, owner_id)
            .await?
            .ok_or(sqlx::Error::RowNotFound),
    }
}

/// The account of (`kind`, `owner`), if it was opened.
pub async fn find(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    kind: i16,
    owner_id: Option<Uuid>,
) -> Result<Option<Uuid>, sqlx::Error> {
    let found = find_many(conn, enterprise_id, &[kind], &[owner_id]).await?;
    Ok(found.first().map(|(id, _, _)| *id))
}

/// The accounts of (kind, owner) pairs: each pair one probe of the owner
/// key. (`owner_id is not distinct from` in a join cannot probe the key: it
/// walked every account of the enterprise, one hold per charging session,
/// for each capture.)
pub const FIND_ACCOUNTS: &str = "select a.id, a.kind, a.owner_id \
     from unnest($2::smallint[], $3::uuid[]) as w(kind, owner_id) \
     cross join lateral ( \
       select id, kind, owner_id from ledger_account \
        where enterprise_id = $1 and kind = w.kind and owner_id = w.owner_id \
       union all \
       select id, kind, owner_id from ledger_account \
        where enterprise_id = $1 and kind = w.kind and owner_id is null \
          and w.owner_id is null) a";

/// The accounts of several (`kind`, `owner`) pairs: (id, kind, owner).
pub async fn find_many(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    kinds: &[i16],
    owners: &[Option<Uuid>],
) -> Result<Vec<(Uuid, i16, Option<Uuid>)>, sqlx::Error> {
    sqlx::query_as(FIND_ACCOUNTS)
        .bind(enterprise_id)
        .bind(kinds)
        .bind(owners)
        .fetch_all(conn)
        .await
}

/// Sets the overdraft the operator granted an account.
pub async fn set_overdraft(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    account_id: Uuid,
    overdraft_fen: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "update ledger_account set overdraft_fen = $3 where enterprise_id = $1 and id = $2",
    )
    .bind(enterprise_id)
    .bind(account_id)
    .bind(overdraft_fen)
    .execute(conn)
    .await?;
    Ok(())
}

/// Balances of accounts (absent ones left out).
pub async fn balances(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    account_ids: &[Uuid],
) -> Result<Vec<(Uuid, i64)>, sqlx::Error> {
    sqlx::query_as(
        "select id, balance_fen from ledger_account where enterprise_id = $1 and id = any($2)",
    )
    .bind(enterprise_id)
    .bind(account_ids)
    .fetch_all(conn)
    .await
}

/// Locks the accounts in id order (the one order every transfer takes, so
/// two transfers over the same accounts never deadlock) and reads them.
pub async fn lock<A: AccountCode>(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    ordered_ids: &[Uuid],
) -> Result<Vec<Locked<A>>, TransferError<A>> {
    let rows: Vec<(Uuid, i16, i64, bool, i64)> = sqlx::query_as(
        "select id, kind, balance_fen, may_go_negative, overdraft_fen from ledger_account \
         where enterprise_id = $1 and id = any($2) order by id for update",
    )
    .bind(enterprise_id)
    .bind(ordered_ids)
    .fetch_all(conn)
    .await?;
    if let Some(missing) = ordered_ids
        .iter()
        .find(|id| !rows.iter().any(|r| r.0 == **id))
    {
        return Err(TransferError::UnknownAccount(*missing));
    }
    rows.into_iter()
        .map(|(id, kind, balance_fen, may_go_negative, overdraft_fen)| {
            let kind = A::try_from(kind).map_err(|_| TransferError::Invalid("账户类型无效"))?;
            Ok(Locked {
                id,
                kind,
                balance_fen,
                may_go_negative,
                overdraft_fen,
            })
        })
        .collect()
}

/// Claims the transfer's key: its new id and time, or `None` when the key
/// was used before (a racing claim waits for the first one's commit).
pub async fn claim<T: TransferCode>(
    conn: &mut PgConnection,
    transfer: &Transfer<T>,
) -> Result<Option<(Uuid, DateTime<Utc>)>, sqlx::Error> {
    sqlx::query_as(
        "insert into ledger_transfer (id, enterprise_id, kind, idempotency_key, actor_id, \
         actor_name, memo) values ($1, $2, $3, $4, $5, $6, $7) \
         on conflict on constraint ledger_transfer_key do nothing returning id, created_at",
    )
    .bind(Uuid::new_v4())
    .bind(transfer.enterprise_id)
    .bind(Into::<i16>::into(transfer.kind))
    .bind(transfer.key.trim())
    .bind(transfer.actor_id)
    .bind(&transfer.actor_name)
    .bind(&transfer.memo)
    .fetch_optional(conn)
    .await
}

/// The transfer posted under (`kind`, `key`), with its entries.
pub async fn posted(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    kind: i16,
    key: &str,
) -> Result<Option<Posted>, sqlx::Error> {
    let Some((transfer_id, created_at)): Option<(Uuid, DateTime<Utc>)> = sqlx::query_as(
        "select id, created_at from ledger_transfer \
         where enterprise_id = $1 and kind = $2 and idempotency_key = $3",
    )
    .bind(enterprise_id)
    .bind(kind)
    .bind(key.trim())
    .fetch_optional(&mut *conn)
    .await?
    else {
        return Ok(None);
    };
    let entries: Vec<PostedEntry> = sqlx::query_as(
        "select account_id, amount_fen, balance_after_fen from ledger_entry \
         where transfer_id = $1 order by account_id",
    )
    .bind(transfer_id)
    .fetch_all(conn)
    .await?;
    Ok(Some(Posted {
        transfer_id,
        created_at,
        replayed: true,
        entries,
    }))
}

/// Writes the entries and the new balances of a claimed transfer.
pub async fn post(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    transfer_id: Uuid,
    legs: &[Leg],
    balances_after: &[i64],
) -> Result<(), sqlx::Error> {
    let accounts: Vec<Uuid> = legs.iter().map(|l| l.account_id).collect();
    sqlx::query(
        "update ledger_account a set balance_fen = d.balance, version = a.version + 1 \
         from unnest($2::uuid[], $3::bigint[]) as d(id, balance) \
         where a.enterprise_id = $1 and a.id = d.id",
    )
    .bind(enterprise_id)
    .bind(&accounts)
    .bind(balances_after)
    .execute(&mut *conn)
    .await?;
    sqlx::query(
        "insert into ledger_entry (id, enterprise_id, transfer_id, account_id, amount_fen, \
         balance_after_fen) \
         select e.id, $1, $2, e.account_id, e.amount, e.balance \
         from unnest($3::uuid[], $4::uuid[], $5::bigint[], $6::bigint[]) \
           as e(id, account_id, amount, balance)",
    )
    .bind(enterprise_id)
    .bind(transfer_id)
    .bind(legs.iter().map(|_| Uuid::new_v4()).collect::<Vec<_>>())
    .bind(&accounts)
    .bind(legs.iter().map(|l| l.amount_fen).collect::<Vec<_>>())
    .bind(balances_after)
    .execute(conn)
    .await?;
    Ok(())
}

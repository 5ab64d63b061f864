//! The charging_account table over the ledger: opening MAIN, keeping the
//! tree in step with the org_unit replica, reading accounts with their
//! balances, and the changes an update or an allocation makes.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::Filters;
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::{AccountKind, AccountStatus, not_opened};
use crate::context::Actor;
use crate::ledger;

/// Opens the enterprise's MAIN account (idempotent) with the overdraft the
/// operator granted, and the sub-accounts of its organisations.
pub async fn open_main(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    overdraft_fen: i64,
) -> Result<Uuid, ServiceError> {
    let id = ledger::open_account(conn, enterprise_id, ledger::AccountKind::Main, None).await?;
    ledger::set_overdraft(conn, enterprise_id, id, overdraft_fen).await?;
    sqlx::query(
        "insert into charging_account (id, enterprise_id, kind) values ($1, $2, $3) \
         on conflict (id) do nothing",
    )
    .bind(id)
    .bind(enterprise_id)
    .bind(i16::from(AccountKind::Main))
    .execute(&mut *conn)
    .await?;
    sync_tree(conn, enterprise_id).await?;
    Ok(id)
}

/// Holds the enterprise's account tree until the transaction ends. Another
/// transaction cannot see an uncommitted MAIN, so without it a sync running
/// beside the opening would give the root organisation an account of its own
/// and the opening's MAIN would then collide with it.
pub async fn lock_tree(conn: &mut PgConnection, enterprise_id: Uuid) -> Result<(), ServiceError> {
    sqlx::query("select pg_advisory_xact_lock(hashtextextended($1::text, 11))")
        .bind(format!("charging-account-tree:{enterprise_id}"))
        .execute(conn)
        .await?;
    Ok(())
}

/// Brings the account tree in step with the organisation tree: MAIN takes
/// the root organisation, every other organisation gets a sub-account
/// (ledger account included), and each sub-account hangs under its
/// organisation's parent's account (MAIN at the top). Cheap when nothing
/// changed: the statements find nothing to write.
///
/// Each statement sees the replica as it is then: a root organisation
/// replicated between the first two is left for MAIN (the next sync binds
/// it), never given a sub-account that would keep MAIN from it for good.
pub async fn sync_tree(conn: &mut PgConnection, enterprise_id: Uuid) -> Result<(), ServiceError> {
    lock_tree(conn, enterprise_id).await?;
    sqlx::query(
        "update charging_account set org_id = r.id \
         from (select id from org_unit where enterprise_id = $1 and parent_id is null \
               order by path limit 1) r \
         where charging_account.enterprise_id = $1 and charging_account.kind = $2 \
           and charging_account.org_id is null \
           and not exists (select 1 from charging_account x \
                           where x.enterprise_id = $1 and x.org_id = r.id)",
    )
    .bind(enterprise_id)
    .bind(i16::from(AccountKind::Main))
    .execute(&mut *conn)
    .await?;
    sqlx::query(
        "with missing as ( \
           select u.id from org_unit u where u.enterprise_id = $1 \
             and not exists (select 1 from charging_account a \
                             where a.enterprise_id = $1 and a.org_id = u.id) \
             and not (u.parent_id is null and exists ( \
                 select 1 from charging_account m \
                 where m.enterprise_id = $1 and m.kind = $4 and m.org_id is null))), \
         opened as ( \
           insert into ledger_account (id, enterprise_id, kind, owner_id) \
           select gen_random_uuid(), $1, $2, m.id from missing m \
           on conflict on constraint ledger_account_owner_key do nothing \
           returning id, owner_id) \
         insert into charging_account (id, enterprise_id, kind, org_id) \
         select o.id, $1, $3, o.owner_id from opened o",
    )
    .bind(enterprise_id)
    .bind(i16::from(ledger::AccountKind::Organization))
    .bind(i16::from(AccountKind::Organization))
    .bind(i16::from(AccountKind::Main))
    .execute(&mut *conn)
    .await?;
    sqlx::query(
        "update charging_account c set parent_id = coalesce(pa.id, m.id) \
         from org_unit u \
         join charging_account m on m.enterprise_id = $1 and m.kind = $2 \
         left join charging_account pa on pa.enterprise_id = $1 and pa.org_id = u.parent_id \
         where c.enterprise_id = $1 and c.kind = $3 and u.id = c.org_id \
           and c.parent_id is distinct from coalesce(pa.id, m.id)",
    )
    .bind(enterprise_id)
    .bind(i16::from(AccountKind::Main))
    .bind(i16::from(AccountKind::Organization))
    .execute(conn)
    .await?;
    Ok(())
}

/// The enterprise's MAIN account, if charging was opened.
pub async fn main(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
) -> Result<Option<Uuid>, ServiceError> {
    Ok(
        sqlx::query_scalar(
            "select id from charging_account where enterprise_id = $1 and kind = $2",
        )
        .bind(enterprise_id)
        .bind(i16::from(AccountKind::Main))
        .fetch_optional(conn)
        .await?,
    )
}

/// The MAIN account, or the refusal of an enterprise without charging.
pub async fn require_opened(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
) -> Result<Uuid, ServiceError> {
    main(conn, enterprise_id).await?.ok_or_else(not_opened)
}

const SELECT: &str = "select a.id, a.kind, a.org_id, coalesce(u.name, '') as org_name, \
     a.parent_id, a.status, coalesce(u.path, '') as path, l.balance_fen, l.overdraft_fen, \
     a.low_balance_threshold_fen, a.total_received_fen, a.total_consumed_fen, \
     coalesce(cards.balance, 0)::bigint as card_balance_fen, \
     coalesce(cards.n, 0)::bigint as card_count, \
     (select count(*) from charging_account ch \
      where ch.enterprise_id = a.enterprise_id and ch.parent_id = a.id) as child_count, \
     a.created_by, a.updated_by, a.created_at, a.updated_at \
     from charging_account a \
     join ledger_account l on l.id = a.id \
     left join org_unit u on u.id = a.org_id \
     left join lateral (select sum(cl.balance_fen) as balance, count(*) as n \
       from charging_card c join ledger_account cl on cl.id = c.ledger_account_id \
       where c.enterprise_id = a.enterprise_id and c.account_id = a.id and c.status <> 4) cards \
       on true";

/// An account with its balance and the figures of its cards and children.
#[derive(Debug, Clone, FromRow)]
pub struct AccountRow {
    pub id: Uuid,
    pub kind: i16,
    pub org_id: Option<Uuid>,
    pub org_name: String,
    pub parent_id: Option<Uuid>,
    pub status: i16,
    /// The organisation's replica path ('' before the replica knows it).
    pub path: String,
    pub balance_fen: i64,
    pub overdraft_fen: i64,
    pub low_balance_threshold_fen: i64,
    pub total_received_fen: i64,
    pub total_consumed_fen: i64,
    pub card_balance_fen: i64,
    pub card_count: i64,
    pub child_count: i64,
    pub created_by: Option<Uuid>,
    pub updated_by: Option<Uuid>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl AccountRow {
    /// Depth in the tree: the organisation's depth (MAIN's root is 0).
    pub fn level(&self) -> i32 {
        let slashes = self.path.matches('/').count() as i32;
        (slashes - 2).max(0)
    }
}

/// An account the caller reaches; NOT_FOUND otherwise.
pub async fn get(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
) -> Result<AccountRow, ServiceError> {
    let mut f = Filters::new(SELECT, "a.enterprise_id", actor.enterprise_id);
    actor
        .reach
        .push_condition(f.scope(), "a.org_id", "a.created_by");
    f.equals("a.id", Some(id));
    Ok(f.finish().build_query_as().fetch_one(conn).await?)
}

/// An account of the enterprise whatever the caller's reach (the operator's approval).
pub async fn get_any(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    id: Uuid,
) -> Result<AccountRow, ServiceError> {
    let mut f = Filters::new(SELECT, "a.enterprise_id", enterprise_id);
    f.equals("a.id", Some(id));
    Ok(f.finish().build_query_as().fetch_one(conn).await?)
}

/// A checked account-list filter (organisations already expanded to subtrees).
#[derive(Debug, Clone, Default)]
pub struct AccountQuery {
    /// The root's organisation subtree (the root included).
    pub subtree_org_ids: Option<Vec<Uuid>>,
    /// Only children of this account.
    pub parent_id: Option<Uuid>,
    pub org_ids: Vec<Uuid>,
    pub statuses: Vec<i16>,
    pub low_balance_only: bool,
}

/// Accounts in tree order (parents before children), under the caller's reach.
pub async fn list(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &AccountQuery,
) -> Result<Vec<AccountRow>, ServiceError> {
    let mut f = Filters::new(SELECT, "a.enterprise_id", actor.enterprise_id);
    actor
        .reach
        .push_condition(f.scope(), "a.org_id", "a.created_by");
    if let Some(subtree) = &query.subtree_org_ids {
        f.and()
            .push("a.org_id = any(")
            .push_bind(subtree.clone())
            .push(")");
    }
    f.equals("a.parent_id", query.parent_id)
        .any_of("a.org_id", query.org_ids.clone())
        .any_of("a.status", query.statuses.clone());
    if query.low_balance_only {
        f.and().push(
            "(a.low_balance_threshold_fen > 0 and l.balance_fen < a.low_balance_threshold_fen)",
        );
    }
    let mut qb = f.finish();
    // The tree is bounded by the organisation tree: no paging.
    qb.push(" order by coalesce(u.path, ''), a.id");
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

/// What an allocation checks of an account.
#[derive(Debug, Clone, Copy, FromRow)]
pub struct Brief {
    pub id: Uuid,
    pub kind: i16,
    pub org_id: Option<Uuid>,
    pub parent_id: Option<Uuid>,
    pub status: i16,
}

/// Accounts of the enterprise by id (unknown ids left out).
pub async fn briefs(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    ids: &[Uuid],
) -> Result<Vec<Brief>, ServiceError> {
    Ok(sqlx::query_as(
        "select id, kind, org_id, parent_id, status from charging_account \
         where enterprise_id = $1 and id = any($2)",
    )
    .bind(enterprise_id)
    .bind(ids)
    .fetch_all(conn)
    .await?)
}

/// The account of an organisation, if it has one.
pub async fn of_org(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    org_id: Uuid,
) -> Result<Option<Brief>, ServiceError> {
    Ok(sqlx::query_as(
        "select id, kind, org_id, parent_id, status from charging_account \
         where enterprise_id = $1 and org_id = $2",
    )
    .bind(enterprise_id)
    .bind(org_id)
    .fetch_optional(conn)
    .await?)
}

/// Sets an account's threshold and (when given) status.
pub async fn update(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    low_balance_threshold_fen: i64,
    status: Option<AccountStatus>,
) -> Result<(), ServiceError> {
    sqlx::query(
        "update charging_account set low_balance_threshold_fen = $3, \
         status = coalesce($4, status), updated_by = $5 \
         where enterprise_id = $1 and id = $2",
    )
    .bind(actor.enterprise_id)
    .bind(id)
    .bind(low_balance_threshold_fen)
    .bind(status.map(i16::from))
    .bind(actor.user_id)
    .execute(conn)
    .await?;
    Ok(())
}

/// Adds to the lifetime money received of accounts. Call it after the
/// ledger transfer that moved the money: that transfer holds the accounts'
/// ledger rows locked, so two callers never update the same rows in
/// opposite orders.
pub async fn add_received(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    received: &[(Uuid, i64)],
) -> Result<(), ServiceError> {
    sqlx::query(
        "update charging_account a set total_received_fen = a.total_received_fen + r.amount \
         from unnest($2::uuid[], $3::bigint[]) as r(id, amount) \
         where a.enterprise_id = $1 and a.id = r.id",
    )
    .bind(enterprise_id)
    .bind(received.iter().map(|r| r.0).collect::<Vec<_>>())
    .bind(received.iter().map(|r| r.1).collect::<Vec<_>>())
    .execute(conn)
    .await?;
    Ok(())
}

/// Names of organisations in the replica (unknown ones left out).
pub async fn org_names(
    conn: &mut PgConnection,
    org_ids: &[Uuid],
) -> Result<std::collections::HashMap<Uuid, String>, ServiceError> {
    let rows: Vec<(Uuid, String)> =
        sqlx::query_as("select id, name from org_unit where id = any($1)")
            .bind(org_ids)
            .fetch_all(conn)
            .await?;
    Ok(rows.into_iter().collect())
}

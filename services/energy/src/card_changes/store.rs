//! The card_amount_change table: recording a change and the change list.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::{Cursor, Filters, Paging, Sort, TimeRange};
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::ChangeKind;
use crate::context::Actor;

const SELECT: &str = "select x.id, x.card_id, x.card_no, x.org_name, x.plate_number, \
     x.driver_name, x.kind, x.amount_fen, x.balance_before_fen, x.balance_after_fen, \
     x.session_id, x.operator_name, x.created_at, x.remark from card_amount_change x";

#[derive(Debug, Clone, FromRow)]
pub struct ChangeRow {
    pub id: Uuid,
    pub card_id: Uuid,
    pub card_no: String,
    pub org_name: String,
    pub plate_number: String,
    pub driver_name: String,
    pub kind: i16,
    pub amount_fen: i64,
    pub balance_before_fen: i64,
    pub balance_after_fen: i64,
    pub session_id: Option<Uuid>,
    pub operator_name: String,
    pub created_at: DateTime<Utc>,
    pub remark: String,
}

/// What a change copies of its card: names and plate as they are when the
/// change is made. The cards' row is one (`cards::store::CardRow`); a
/// trait, so that the cards depend on their changes and not both ways.
pub trait ChangedCard: std::fmt::Debug + Sync {
    fn id(&self) -> Uuid;
    fn org_id(&self) -> Uuid;
    fn org_name(&self) -> &str;
    fn card_no(&self) -> &str;
    fn plate_number(&self) -> &str;
    fn driver_name(&self) -> &str;
}

/// A change to record.
#[derive(Debug, Clone)]
pub struct NewChange<'a> {
    pub card: &'a dyn ChangedCard,
    pub kind: ChangeKind,
    /// Positive; the kind gives the direction.
    pub amount_fen: i64,
    /// The card's balance right after (the ledger entry's).
    pub balance_after_fen: i64,
    pub transfer_id: Uuid,
    pub session_id: Option<Uuid>,
    pub remark: &'a str,
}

/// Records a change of `card` (the caller posted its ledger transfer).
/// The charging sessions record CONSUME and REFUND through it with the
/// system as the actor.
pub async fn record(
    conn: &mut PgConnection,
    actor: &Actor,
    change: &NewChange<'_>,
) -> Result<Uuid, ServiceError> {
    let id = Uuid::new_v4();
    insert(conn, actor, change, id, "").await?;
    Ok(id)
}

/// [`record`] keyed by its transfer: the change of a transfer posted in
/// another transaction (a grouped capture's release), which a retry after
/// a failed commit records again. True when this call wrote it.
pub async fn record_once(
    conn: &mut PgConnection,
    actor: &Actor,
    change: &NewChange<'_>,
) -> Result<bool, ServiceError> {
    let conflict = " on conflict on constraint card_amount_change_transfer_key do nothing";
    Ok(insert(conn, actor, change, Uuid::new_v4(), conflict).await? == 1)
}

/// Rows written (`conflict`: the statement's `on conflict` clause, if any).
async fn insert(
    conn: &mut PgConnection,
    actor: &Actor,
    change: &NewChange<'_>,
    id: Uuid,
    conflict: &str,
) -> Result<u64, ServiceError> {
    let card = change.card;
    let written = sqlx::query(&format!(
        "insert into card_amount_change (id, enterprise_id, card_id, transfer_id, kind, \
         amount_fen, balance_before_fen, balance_after_fen, org_id, org_name, card_no, \
         plate_number, driver_name, session_id, operator_id, operator_name, remark) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)\
         {conflict}"
    ))
    .bind(id)
    .bind(actor.enterprise_id)
    .bind(card.id())
    .bind(change.transfer_id)
    .bind(i16::from(change.kind))
    .bind(change.amount_fen)
    .bind(
        change
            .kind
            .balance_before(change.balance_after_fen, change.amount_fen),
    )
    .bind(change.balance_after_fen)
    .bind(card.org_id())
    .bind(card.org_name())
    .bind(card.card_no())
    .bind(card.plate_number())
    .bind(card.driver_name())
    .bind(change.session_id)
    .bind(actor.user_id)
    .bind(&actor.name)
    .bind(change.remark)
    .execute(conn)
    .await?;
    Ok(written.rows_affected())
}

pub async fn get(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
) -> Result<ChangeRow, ServiceError> {
    let mut qb = sqlx::QueryBuilder::new(SELECT);
    qb.push(" where x.enterprise_id = ")
        .push_bind(actor.enterprise_id)
        .push(" and x.id = ")
        .push_bind(id);
    Ok(qb.build_query_as().fetch_one(conn).await?)
}

/// A checked change-list filter (organisations already expanded).
#[derive(Debug, Clone, Default)]
pub struct ChangeQuery {
    pub card_id: Option<Uuid>,
    pub card_nos: Vec<String>,
    pub plates: Vec<String>,
    pub org_ids: Vec<Uuid>,
    pub kinds: Vec<i16>,
    pub change_time: TimeRange,
}

/// Newest change first.
#[derive(Debug, Clone, Copy)]
pub struct NewestFirst;

impl Sort for NewestFirst {
    fn order_by(&self) -> &'static str {
        "x.created_at desc, x.id desc"
    }
}

/// The list's `where`: a change is seen by who reaches the card's organisation.
pub fn filtered<'a>(select: &str, actor: &Actor, query: &ChangeQuery) -> Filters<'a> {
    let mut f = Filters::new(select, "x.enterprise_id", actor.enterprise_id);
    actor
        .reach
        .push_condition(f.scope(), "x.org_id", "x.operator_id");
    f.equals("x.card_id", query.card_id)
        .any_of("x.card_no", query.card_nos.clone())
        .any_of("x.plate_number", query.plates.clone())
        .any_of("x.org_id", query.org_ids.clone())
        .any_of("x.kind", query.kinds.clone())
        .within("x.created_at", query.change_time);
    f
}

pub async fn list(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &ChangeQuery,
    paging: Paging,
) -> Result<(Vec<ChangeRow>, i64), ServiceError> {
    let mut rows = filtered(SELECT, actor, query).page(&NewestFirst, paging);
    let rows = rows.build_query_as().fetch_all(&mut *conn).await?;
    let total = count(conn, actor, query).await?;
    Ok((rows, total))
}

pub async fn count(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &ChangeQuery,
) -> Result<i64, ServiceError> {
    let mut qb = filtered("select count(*) from card_amount_change x", actor, query).finish();
    Ok(qb.build_query_scalar().fetch_one(conn).await?)
}

/// One export page: newest first after `cursor`, by keyset on
/// `card_amount_change_newest_idx`.
pub async fn export_page(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &ChangeQuery,
    cursor: Option<Cursor>,
    limit: i64,
) -> Result<Vec<ChangeRow>, ServiceError> {
    let mut qb = filtered(SELECT, actor, query).keyset("x.created_at", "x.id", cursor, limit);
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

//! The charging_card table (balance from its ledger account, organisation
//! name from the replica), its station restrictions, and the card list.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::{Cursor, Filters, Paging, Sort, TimeRange};
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::{CardSpec, CardStatus};
use crate::card_changes::store::ChangedCard;
use crate::context::Actor;

const SELECT: &str = "select c.id, c.card_no, c.org_id, coalesce(u.name, '') as org_name, \
     c.account_id, c.ledger_account_id, c.kind, c.holder_kind, c.vehicle_id, c.plate_number, \
     c.driver_id, c.driver_name, c.status, l.balance_fen, c.budget_period, c.budget_limit_fen, \
     c.per_session_limit_fen, c.total_consumed_fen, c.issued_at, c.last_used_at, c.remark, \
     c.created_by, c.updated_by, c.created_at, c.updated_at, \
     array(select s.station_id from charging_card_station s where s.card_id = c.id \
           order by s.station_id) as station_ids \
     from charging_card c \
     join ledger_account l on l.id = c.ledger_account_id \
     left join org_unit u on u.id = c.org_id";

#[derive(Debug, Clone, FromRow)]
pub struct CardRow {
    pub id: Uuid,
    pub card_no: String,
    pub org_id: Uuid,
    pub org_name: String,
    pub account_id: Uuid,
    pub ledger_account_id: Uuid,
    pub kind: i16,
    pub holder_kind: i16,
    pub vehicle_id: Option<Uuid>,
    pub plate_number: String,
    pub driver_id: Option<Uuid>,
    pub driver_name: String,
    pub status: i16,
    pub balance_fen: i64,
    pub budget_period: i16,
    pub budget_limit_fen: i64,
    pub per_session_limit_fen: i64,
    pub total_consumed_fen: i64,
    pub issued_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
    pub remark: String,
    pub created_by: Option<Uuid>,
    pub updated_by: Option<Uuid>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub station_ids: Vec<Uuid>,
}

impl ChangedCard for CardRow {
    fn id(&self) -> Uuid {
        self.id
    }
    fn org_id(&self) -> Uuid {
        self.org_id
    }
    fn org_name(&self) -> &str {
        &self.org_name
    }
    fn card_no(&self) -> &str {
        &self.card_no
    }
    fn plate_number(&self) -> &str {
        &self.plate_number
    }
    fn driver_name(&self) -> &str {
        &self.driver_name
    }
}

/// What a card copies from its holder.
#[derive(Debug, Clone, Default)]
pub struct Holder {
    pub plate_number: String,
    pub driver_name: String,
}

fn conflict(err: sqlx::Error) -> ServiceError {
    fleetdesk_kit::on_constraint(err, |name| match name {
        "charging_card_no_key" => Some(ServiceError::taken("cardNo", "该卡号已存在")),
        "charging_card_plate_key" => Some(ServiceError::taken(
            "vehicleId",
            "该车辆已绑定一张可用的充电卡",
        )),
        _ => None,
    })
}

/// Writes a new card (its ledger account opened by the caller).
pub async fn insert(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    ledger_account_id: Uuid,
    spec: &CardSpec,
    holder: &Holder,
) -> Result<(), ServiceError> {
    sqlx::query(
        "insert into charging_card (id, enterprise_id, card_no, org_id, account_id, \
         ledger_account_id, kind, holder_kind, vehicle_id, plate_number, driver_id, driver_name, \
         budget_period, budget_limit_fen, per_session_limit_fen, remark, created_by, updated_by) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $17)",
    )
    .bind(id)
    .bind(actor.enterprise_id)
    .bind(&spec.card_no)
    .bind(spec.org_id)
    .bind(spec.account_id)
    .bind(ledger_account_id)
    .bind(i16::from(spec.kind))
    .bind(i16::from(spec.holder_kind))
    .bind(spec.vehicle_id)
    .bind(&holder.plate_number)
    .bind(spec.driver_id)
    .bind(&holder.driver_name)
    .bind(i16::from(spec.budget_period))
    .bind(spec.budget_limit_fen)
    .bind(spec.per_session_limit_fen)
    .bind(&spec.remark)
    .bind(actor.user_id)
    .execute(&mut *conn)
    .await
    .map_err(conflict)?;
    set_stations(conn, actor.enterprise_id, id, &spec.station_ids).await
}

/// Replaces a card's editable fields.
pub async fn update(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    spec: &CardSpec,
    holder: &Holder,
) -> Result<(), ServiceError> {
    sqlx::query(
        "update charging_card set card_no = $3, org_id = $4, account_id = $5, kind = $6, \
         holder_kind = $7, vehicle_id = $8, plate_number = $9, driver_id = $10, \
         driver_name = $11, budget_period = $12, budget_limit_fen = $13, \
         per_session_limit_fen = $14, remark = $15, updated_by = $16 \
         where enterprise_id = $1 and id = $2",
    )
    .bind(actor.enterprise_id)
    .bind(id)
    .bind(&spec.card_no)
    .bind(spec.org_id)
    .bind(spec.account_id)
    .bind(i16::from(spec.kind))
    .bind(i16::from(spec.holder_kind))
    .bind(spec.vehicle_id)
    .bind(&holder.plate_number)
    .bind(spec.driver_id)
    .bind(&holder.driver_name)
    .bind(i16::from(spec.budget_period))
    .bind(spec.budget_limit_fen)
    .bind(spec.per_session_limit_fen)
    .bind(&spec.remark)
    .bind(actor.user_id)
    .execute(&mut *conn)
    .await
    .map_err(conflict)?;
    set_stations(conn, actor.enterprise_id, id, &spec.station_ids).await
}

async fn set_stations(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    card_id: Uuid,
    station_ids: &[Uuid],
) -> Result<(), ServiceError> {
    sqlx::query("delete from charging_card_station where card_id = $1")
        .bind(card_id)
        .execute(&mut *conn)
        .await?;
    sqlx::query(
        "insert into charging_card_station (enterprise_id, card_id, station_id) \
         select $1, $2, unnest($3::uuid[])",
    )
    .bind(enterprise_id)
    .bind(card_id)
    .bind(station_ids)
    .execute(conn)
    .await?;
    Ok(())
}

pub async fn set_status(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    status: CardStatus,
    reason: &str,
) -> Result<(), ServiceError> {
    sqlx::query(
        "update charging_card set status = $3, status_reason = $4, updated_by = $5 \
         where enterprise_id = $1 and id = $2",
    )
    .bind(actor.enterprise_id)
    .bind(id)
    .bind(i16::from(status))
    .bind(reason)
    .bind(actor.user_id)
    .execute(conn)
    .await
    .map_err(conflict)?;
    Ok(())
}

/// A card the caller reaches (NOT_FOUND otherwise); `lock` holds its row
/// until the transaction ends (status changes and amount changes take turns).
pub async fn get(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    lock: bool,
) -> Result<CardRow, ServiceError> {
    let mut f = Filters::new(SELECT, "c.enterprise_id", actor.enterprise_id);
    actor
        .reach
        .push_condition(f.scope(), "c.org_id", "c.created_by");
    f.equals("c.id", Some(id));
    let mut qb = f.finish();
    if lock {
        qb.push(" for update of c");
    }
    Ok(qb.build_query_as().fetch_one(conn).await?)
}

/// A checked card-list filter (organisations already expanded).
#[derive(Debug, Clone, Default)]
pub struct CardQuery {
    pub card_nos: Vec<String>,
    pub plates: Vec<String>,
    pub org_ids: Vec<Uuid>,
    pub account_id: Option<Uuid>,
    pub driver_name: String,
    pub kinds: Vec<i16>,
    pub holder_kinds: Vec<i16>,
    pub statuses: Vec<i16>,
    pub issued_time: TimeRange,
    /// Junior cards: organisations strictly below the chosen one (expanded).
    pub junior_org_ids: Option<Vec<Uuid>>,
}

/// Newest issued first.
#[derive(Debug, Clone, Copy)]
pub struct NewestFirst;

impl Sort for NewestFirst {
    fn order_by(&self) -> &'static str {
        "c.issued_at desc, c.id desc"
    }
}

/// The list's `where` (list, totals and export alike).
pub fn filtered<'a>(select: &str, actor: &Actor, query: &CardQuery) -> Filters<'a> {
    let mut f = Filters::new(select, "c.enterprise_id", actor.enterprise_id);
    actor
        .reach
        .push_condition(f.scope(), "c.org_id", "c.created_by");
    f.any_of("c.card_no", query.card_nos.clone())
        .any_of("c.plate_number", query.plates.clone())
        .any_of("c.org_id", query.org_ids.clone())
        .equals("c.account_id", query.account_id)
        .contains("c.driver_name", &query.driver_name)
        .any_of("c.kind", query.kinds.clone())
        .any_of("c.holder_kind", query.holder_kinds.clone())
        .any_of("c.status", query.statuses.clone())
        .within("c.issued_at", query.issued_time);
    if let Some(juniors) = &query.junior_org_ids {
        f.and()
            .push("c.org_id = any(")
            .push_bind(juniors.clone())
            .push(")");
    }
    f
}

/// Rows of one page, the total and the matching cards' balance.
pub async fn list(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &CardQuery,
    paging: Paging,
) -> Result<(Vec<CardRow>, i64, i64), ServiceError> {
    let mut rows = filtered(SELECT, actor, query).page(&NewestFirst, paging);
    let rows = rows.build_query_as().fetch_all(&mut *conn).await?;
    let (total, balance) = totals(conn, actor, query).await?;
    Ok((rows, total, balance))
}

/// How many cards match and their balance.
pub async fn totals(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &CardQuery,
) -> Result<(i64, i64), ServiceError> {
    let mut qb = filtered(
        "select count(*), coalesce(sum(l.balance_fen), 0)::bigint from charging_card c \
         join ledger_account l on l.id = c.ledger_account_id",
        actor,
        query,
    )
    .finish();
    Ok(qb.build_query_as().fetch_one(conn).await?)
}

/// One export page: newest issued first after `cursor`, by keyset on
/// `charging_card_newest_idx`.
pub async fn export_page(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &CardQuery,
    cursor: Option<Cursor>,
    limit: i64,
) -> Result<Vec<CardRow>, ServiceError> {
    let mut qb = filtered(SELECT, actor, query).keyset("c.issued_at", "c.id", cursor, limit);
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

/// Marks a card used by a session: its last use and lifetime spend (the
/// sessions' captures call it).
pub async fn mark_used(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    card_id: Uuid,
    consumed_fen: i64,
    at: DateTime<Utc>,
) -> Result<(), ServiceError> {
    sqlx::query(
        "update charging_card set last_used_at = greatest(last_used_at, $3), \
         total_consumed_fen = total_consumed_fen + $4 where enterprise_id = $1 and id = $2",
    )
    .bind(enterprise_id)
    .bind(card_id)
    .bind(at)
    .bind(consumed_fen)
    .execute(conn)
    .await?;
    Ok(())
}

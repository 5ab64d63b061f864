//! The reconciliation_* tables: statements, their organisation and card
//! lines and the sessions an issued statement holds; the aggregation that
//! builds them from charging_session and the ledger's captures; and the
//! list, details and card lines under the caller's reach.
//!
//! A caller who reaches only some organisations sees the lines of those and
//! a statement's figures summed from them (the lines are exact per
//! organisation, so nothing is estimated).

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::{Filters, Paging, Sort};
use fleetdesk_kit::reach::ResolvedReach;
use sqlx::{FromRow, QueryBuilder};
use sqlx_postgres::{PgConnection, Postgres};
use uuid::Uuid;

use super::domain::{Figures, LedgerCaptured, StatementStatus};
use crate::calendar::Month;
use crate::ledger::{AccountKind, TransferKind};

/// The figure columns of a statement or line, in [`Figures`]' order.
const FIGURES: &str = "session_count, energy_wh, electricity_fen, service_fee_fen, \
     parking_fee_fen, time_fee_fen, fixed_fee_fen, reservation_fee_fen, discount_fen, \
     uncollected_fen, refunded_fen, total_fen";

#[derive(Debug, Clone, FromRow)]
pub struct StatementRow {
    pub id: Uuid,
    pub enterprise_id: Uuid,
    pub statement_no: String,
    pub month: i32,
    pub status: i16,
    #[sqlx(flatten)]
    pub figures: Figures,
    pub card_count: i32,
    pub ledger_captured_fen: i64,
    pub file_key: String,
    pub file_name: String,
    pub file_size: i64,
    pub version: i32,
    pub generated_at: Option<DateTime<Utc>>,
    pub confirmed_by_name: String,
    pub confirm_time: Option<DateTime<Utc>>,
    pub dispute_reason: String,
    pub finance_bill_id: String,
}

const SELECT: &str = "select r.id, r.enterprise_id, r.statement_no, r.month, r.status, \
     r.session_count, r.energy_wh, r.electricity_fen, r.service_fee_fen, r.parking_fee_fen, \
     r.time_fee_fen, r.fixed_fee_fen, r.reservation_fee_fen, r.discount_fen, r.uncollected_fen, r.refunded_fen, r.total_fen, r.card_count, \
     r.ledger_captured_fen, r.file_key, r.file_name, r.file_size, r.version, r.generated_at, \
     r.confirmed_by_name, r.confirm_time, r.dispute_reason, r.finance_bill_id \
     from reconciliation_statement r";

#[derive(Debug, Clone, FromRow)]
pub struct OrgLineRow {
    pub statement_id: Uuid,
    pub org_id: Uuid,
    pub org_name: String,
    #[sqlx(flatten)]
    pub figures: Figures,
    pub card_count: i32,
}

#[derive(Debug, Clone, FromRow)]
pub struct CardLineRow {
    pub card_id: Uuid,
    pub card_no: String,
    pub org_id: Uuid,
    pub org_name: String,
    pub plate_number: String,
    pub driver_name: String,
    #[sqlx(flatten)]
    pub figures: Figures,
}

// --- the list and details ---------------------------------------------------

/// A checked statement filter.
#[derive(Debug, Clone, Default)]
pub struct StatementQuery {
    /// Inclusive yyyymm bounds.
    pub from_month: Option<i32>,
    pub to_month: Option<i32>,
    pub statuses: Vec<i16>,
}

#[derive(Debug, Clone, Copy)]
struct NewestMonthFirst;

impl Sort for NewestMonthFirst {
    fn order_by(&self) -> &'static str {
        "r.month desc, r.id desc"
    }
}

/// The list's filter (served by the `(enterprise_id, month)` key): what
/// the list, its count and its export run.
pub fn filtered<'a>(select: &str, enterprise_id: Uuid, query: &StatementQuery) -> Filters<'a> {
    let mut f = Filters::new(select, "r.enterprise_id", enterprise_id);
    if let Some(from) = query.from_month {
        f.and().push("r.month >= ").push_bind(from);
    }
    if let Some(to) = query.to_month {
        f.and().push("r.month <= ").push_bind(to);
    }
    f.any_of("r.status", query.statuses.clone());
    f
}

pub async fn list(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    query: &StatementQuery,
    paging: Paging,
) -> Result<Vec<StatementRow>, ServiceError> {
    Ok(filtered(SELECT, enterprise_id, query)
        .page(&NewestMonthFirst, paging)
        .build_query_as()
        .fetch_all(conn)
        .await?)
}

/// A page of the export: months before `before` (keyset on the month, one
/// statement per month), newest first.
pub async fn export_page(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    query: &StatementQuery,
    before: Option<i32>,
    limit: i64,
) -> Result<Vec<StatementRow>, ServiceError> {
    let mut f = filtered(SELECT, enterprise_id, query);
    if let Some(before) = before {
        f.and().push("r.month < ").push_bind(before);
    }
    let mut qb = f.finish();
    qb.push(" order by r.month desc limit ").push_bind(limit);
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

pub async fn count(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    query: &StatementQuery,
) -> Result<i64, ServiceError> {
    Ok(filtered(
        "select count(*) from reconciliation_statement r",
        enterprise_id,
        query,
    )
    .finish()
    .build_query_scalar()
    .fetch_one(conn)
    .await?)
}

/// The statement `id` of the tenant; 4004 when there is none.
pub async fn get(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    id: Uuid,
) -> Result<StatementRow, ServiceError> {
    let mut qb = QueryBuilder::new(SELECT);
    qb.push(" where r.enterprise_id = ")
        .push_bind(enterprise_id)
        .push(" and r.id = ")
        .push_bind(id);
    qb.build_query_as()
        .fetch_optional(conn)
        .await?
        .ok_or_else(ServiceError::not_found)
}

/// The tenant's statement of `month`, if any.
pub async fn of_month(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    month: Month,
) -> Result<Option<StatementRow>, ServiceError> {
    let mut qb = QueryBuilder::new(SELECT);
    qb.push(" where r.enterprise_id = ")
        .push_bind(enterprise_id)
        .push(" and r.month = ")
        .push_bind(month.code());
    Ok(qb.build_query_as().fetch_optional(conn).await?)
}

/// The statement `id` locked for a change; 4004 when there is none.
pub async fn lock(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    id: Uuid,
) -> Result<StatementRow, ServiceError> {
    let mut qb = QueryBuilder::new(SELECT);
    qb.push(" where r.enterprise_id = ")
        .push_bind(enterprise_id)
        .push(" and r.id = ")
        .push_bind(id)
        .push(" for update");
    qb.build_query_as()
        .fetch_optional(conn)
        .await?
        .ok_or_else(ServiceError::not_found)
}

/// The month's statement locked for a build, created (GENERATING, no
/// figures) when it has none; a racing build waits on the row.
pub async fn lock_month(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    month: Month,
) -> Result<(StatementRow, bool), ServiceError> {
    let id = Uuid::new_v4();
    let created = sqlx::query(
        "insert into reconciliation_statement (id, enterprise_id, statement_no, month, status) \
         values ($1, $2, $3, $4, $5) on conflict (enterprise_id, month) do nothing",
    )
    .bind(id)
    .bind(enterprise_id)
    .bind(super::domain::statement_no(month, id))
    .bind(month.code())
    .bind(i16::from(StatementStatus::Generating))
    .execute(&mut *conn)
    .await?
    .rows_affected()
        == 1;
    let mut qb = QueryBuilder::new(SELECT);
    qb.push(" where r.enterprise_id = ")
        .push_bind(enterprise_id)
        .push(" and r.month = ")
        .push_bind(month.code())
        .push(" for update");
    Ok((qb.build_query_as().fetch_one(conn).await?, created))
}

/// The organisation lines of `statements` the reach covers, by statement
/// then most money first.
pub async fn org_lines(
    conn: &mut PgConnection,
    statements: &[Uuid],
    reach: &ResolvedReach,
) -> Result<Vec<OrgLineRow>, ServiceError> {
    let mut qb = QueryBuilder::new(format!(
        "select statement_id, org_id, org_name, {FIGURES}, card_count from reconciliation_org_line \
         where statement_id = any("
    ));
    qb.push_bind(statements.to_vec()).push(")");
    push_reach(&mut qb, reach, "org_id");
    qb.push(" order by statement_id, total_fen desc, org_id");
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

/// ` and <column> = any(<reached organisations>)` unless the reach is the
/// whole enterprise (statements have no creator, so only organisations count).
fn push_reach(qb: &mut QueryBuilder<'_, Postgres>, reach: &ResolvedReach, column: &str) {
    if !reach.all {
        qb.push(" and ")
            .push(column)
            .push(" = any(")
            .push_bind(reach.org_ids.clone())
            .push(")");
    }
}

/// A checked card-line filter.
#[derive(Debug, Clone, Default)]
pub struct CardLineQuery {
    /// Expanded to subtrees.
    pub org_ids: Vec<Uuid>,
    pub card_nos: Vec<String>,
}

fn card_lines_filtered<'a>(
    select: &str,
    statement: &StatementRow,
    reach: &ResolvedReach,
    query: &CardLineQuery,
) -> Filters<'a> {
    let mut f = Filters::new(select, "l.enterprise_id", statement.enterprise_id);
    f.scope().push("l.statement_id = ").push_bind(statement.id);
    if !reach.all {
        f.scope()
            .push("l.org_id = any(")
            .push_bind(reach.org_ids.clone())
            .push(")");
    }
    f.any_of("l.org_id", query.org_ids.clone())
        .any_of("l.card_no", query.card_nos.clone());
    f
}

/// By organisation then card number, as the RPC promises and the workbook reads.
#[derive(Debug, Clone, Copy)]
struct ByOrgThenCard;

impl Sort for ByOrgThenCard {
    fn order_by(&self) -> &'static str {
        "l.org_name, l.org_id, l.card_no, l.card_id"
    }
}

/// One page of a statement's card lines (and the count of all).
pub async fn card_lines(
    conn: &mut PgConnection,
    statement: &StatementRow,
    reach: &ResolvedReach,
    query: &CardLineQuery,
    paging: Paging,
) -> Result<(Vec<CardLineRow>, i64), ServiceError> {
    let select = format!(
        "select l.card_id, l.card_no, l.org_id, l.org_name, l.plate_number, l.driver_name, \
         l.{} from reconciliation_card_line l",
        FIGURES.replace(", ", ", l.")
    );
    let rows = card_lines_filtered(&select, statement, reach, query)
        .page(&ByOrgThenCard, paging)
        .build_query_as()
        .fetch_all(&mut *conn)
        .await?;
    let total = card_lines_filtered(
        "select count(*) from reconciliation_card_line l",
        statement,
        reach,
        query,
    )
    .finish()
    .build_query_scalar()
    .fetch_one(conn)
    .await?;
    Ok((rows, total))
}

/// Every card line of a statement, by organisation then card (the workbook).
pub async fn all_card_lines(
    conn: &mut PgConnection,
    statement_id: Uuid,
) -> Result<Vec<CardLineRow>, ServiceError> {
    Ok(sqlx::query_as(&format!(
        "select card_id, card_no, org_id, org_name, plate_number, driver_name, {FIGURES} \
         from reconciliation_card_line where statement_id = $1 order by org_name, org_id, card_no"
    ))
    .bind(statement_id)
    .fetch_all(conn)
    .await?)
}

// --- building ---------------------------------------------------------------

/// Which sessions a build reads.
#[derive(Debug, Clone)]
pub enum Source {
    /// The sessions an issued statement holds.
    Held(Uuid),
    /// Settled sessions of `month`, plus those of `earlier` months whose
    /// statements were issued before they settled, that no statement holds.
    Unheld { month: i32, earlier: Vec<i32> },
}

impl Source {
    /// Appends `from charging_session s ... where <the source's sessions>`.
    fn push_sessions(&self, qb: &mut QueryBuilder<'_, Postgres>, enterprise_id: Uuid) {
        match self {
            Source::Held(statement_id) => {
                qb.push(
                    " from reconciliation_statement_session x \
                     join charging_session s on s.id = x.session_id where x.statement_id = ",
                )
                .push_bind(*statement_id)
                .push(" and s.enterprise_id = ")
                .push_bind(enterprise_id);
            }
            Source::Unheld { month, earlier } => {
                qb.push(" from charging_session s where s.enterprise_id = ")
                    .push_bind(enterprise_id)
                    .push(" and s.status = any(")
                    .push_bind(crate::reports::settled_codes())
                    .push(") and (s.statement_month = ")
                    .push_bind(*month)
                    .push(" or (s.statement_month = any(")
                    .push_bind(earlier.clone())
                    .push(
                        ") and exists (select 1 from reconciliation_statement r \
                         where r.enterprise_id = s.enterprise_id and r.month = s.statement_month \
                         and r.status <> ",
                    )
                    .push_bind(i16::from(StatementStatus::Draft))
                    .push(
                        "))) and not exists (select 1 from reconciliation_statement_session x \
                         where x.session_id = s.id)",
                    );
            }
        }
    }
}

/// Takes the sessions of `source` (an [`Source::Unheld`] one) onto statement
/// `statement_id`; answers how many it took.
pub async fn hold_sessions(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    statement_id: Uuid,
    source: &Source,
) -> Result<u64, ServiceError> {
    let mut qb = QueryBuilder::new(
        "insert into reconciliation_statement_session (session_id, statement_id, enterprise_id) \
         select s.id, ",
    );
    qb.push_bind(statement_id).push(", s.enterprise_id");
    source.push_sessions(&mut qb, enterprise_id);
    qb.push(" on conflict (session_id) do nothing");
    Ok(qb.build().execute(conn).await?.rows_affected())
}

/// The sums every line adds (`s` being a session).
const SESSION_SUMS: &str = "count(*)::bigint as session_count, \
     coalesce(sum(s.energy_wh), 0)::bigint as energy_wh, \
     coalesce(sum(s.electricity_fen), 0)::bigint as electricity_fen, \
     coalesce(sum(s.service_fee_fen), 0)::bigint as service_fee_fen, \
     coalesce(sum(s.parking_fee_fen), 0)::bigint as parking_fee_fen, \
     coalesce(sum(s.time_fee_fen), 0)::bigint as time_fee_fen, \
     coalesce(sum(s.fixed_fee_fen), 0)::bigint as fixed_fee_fen, \
     coalesce(sum(s.reservation_fee_fen), 0)::bigint as reservation_fee_fen, \
     coalesce(sum(s.discount_fen), 0)::bigint as discount_fen, \
     coalesce(sum(s.uncollected_fen), 0)::bigint as uncollected_fen, \
     coalesce(sum(s.refunded_fen), 0)::bigint as refunded_fen, \
     coalesce(sum(s.total_fen), 0)::bigint as total_fen";

/// Replaces the statement's organisation and card lines with those of
/// `source`'s sessions.
pub async fn write_lines(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    statement_id: Uuid,
    source: &Source,
) -> Result<(), ServiceError> {
    for table in ["reconciliation_card_line", "reconciliation_org_line"] {
        sqlx::query(&format!("delete from {table} where statement_id = $1"))
            .bind(statement_id)
            .execute(&mut *conn)
            .await?;
    }
    // Plate and driver as on the card's latest session of the statement.
    let mut qb = QueryBuilder::new(format!(
        "insert into reconciliation_card_line (statement_id, enterprise_id, card_id, card_no, \
         org_id, org_name, plate_number, driver_name, {FIGURES}) select "
    ));
    qb.push_bind(statement_id).push(format!(
        ", s.enterprise_id, s.card_id, max(s.card_no), s.org_id, \
         coalesce((select o.name from org_unit o where o.id = s.org_id), ''), \
         (array_agg(s.plate_number order by s.start_time desc))[1], \
         (array_agg(s.driver_name order by s.start_time desc))[1], {SESSION_SUMS}"
    ));
    source.push_sessions(&mut qb, enterprise_id);
    qb.push(" group by s.enterprise_id, s.card_id, s.org_id");
    qb.build().execute(&mut *conn).await?;

    sqlx::query(&format!(
        "insert into reconciliation_org_line (statement_id, enterprise_id, org_id, org_name, \
         {FIGURES}, card_count) select statement_id, enterprise_id, org_id, max(org_name), \
         sum(session_count), sum(energy_wh), sum(electricity_fen), sum(service_fee_fen), \
         sum(parking_fee_fen), sum(time_fee_fen), sum(fixed_fee_fen), sum(reservation_fee_fen), \
         sum(discount_fen), sum(uncollected_fen), sum(refunded_fen), \
         sum(total_fen), count(distinct card_id) from reconciliation_card_line \
         where statement_id = $1 group by statement_id, enterprise_id, org_id"
    ))
    .bind(statement_id)
    .execute(conn)
    .await?;
    Ok(())
}

/// The statement's figures: the sum of its organisation lines, and its cards.
pub async fn line_totals(
    conn: &mut PgConnection,
    statement_id: Uuid,
) -> Result<(Figures, i32), ServiceError> {
    let figures: Figures = sqlx::query_as(
        "select coalesce(sum(session_count), 0)::bigint as session_count, \
         coalesce(sum(energy_wh), 0)::bigint as energy_wh, \
         coalesce(sum(electricity_fen), 0)::bigint as electricity_fen, \
         coalesce(sum(service_fee_fen), 0)::bigint as service_fee_fen, \
         coalesce(sum(parking_fee_fen), 0)::bigint as parking_fee_fen, \
         coalesce(sum(time_fee_fen), 0)::bigint as time_fee_fen, \
         coalesce(sum(fixed_fee_fen), 0)::bigint as fixed_fee_fen, \
         coalesce(sum(reservation_fee_fen), 0)::bigint as reservation_fee_fen, \
         coalesce(sum(discount_fen), 0)::bigint as discount_fen, \
         coalesce(sum(uncollected_fen), 0)::bigint as uncollected_fen, \
         coalesce(sum(refunded_fen), 0)::bigint as refunded_fen, \
         coalesce(sum(total_fen), 0)::bigint as total_fen \
         from reconciliation_org_line where statement_id = $1",
    )
    .bind(statement_id)
    .fetch_one(&mut *conn)
    .await?;
    let cards: i64 = sqlx::query_scalar(
        "select count(distinct card_id) from reconciliation_card_line where statement_id = $1",
    )
    .bind(statement_id)
    .fetch_one(conn)
    .await?;
    Ok((figures, i32::try_from(cards).unwrap_or(i32::MAX)))
}

/// What the ledger's CAPTURE transfers of `source`'s sessions took from
/// their holds (a hold's debit is the amount captured) and credited to each
/// revenue account kind.
pub async fn ledger_captured(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    source: &Source,
) -> Result<LedgerCaptured, ServiceError> {
    let part = |kind: AccountKind, name: &str| {
        format!(
            "coalesce(sum(e.amount_fen) filter (where a.kind = {}), 0)::bigint as {name}",
            i16::from(kind)
        )
    };
    let mut qb = QueryBuilder::new(format!(
        "select coalesce(-sum(e.amount_fen) filter (where a.kind = {hold}), 0)::bigint as total_fen, \
         {}, {}, {}, {}, {}, {} \
         from ledger_account h \
         join ledger_entry he on he.account_id = h.id \
         join ledger_transfer t on t.id = he.transfer_id and t.kind = ",
        part(AccountKind::PlatformRevenue, "electricity_fen"),
        part(AccountKind::ServiceFeeRevenue, "service_fee_fen"),
        part(AccountKind::TimeFeeRevenue, "time_fee_fen"),
        part(AccountKind::ParkingFeeRevenue, "parking_fee_fen"),
        part(AccountKind::FixedFeeRevenue, "fixed_fee_fen"),
        part(AccountKind::ReservationFeeRevenue, "reservation_fee_fen"),
        hold = i16::from(AccountKind::Hold),
    ));
    qb.push_bind(i16::from(TransferKind::Capture))
        .push(
            " join ledger_entry e on e.transfer_id = t.id \
             join ledger_account a on a.id = e.account_id \
             where h.enterprise_id = ",
        )
        .push_bind(enterprise_id)
        .push(" and h.kind = ")
        .push_bind(i16::from(AccountKind::Hold))
        .push(" and h.owner_id in (select s.id");
    source.push_sessions(&mut qb, enterprise_id);
    qb.push(")");
    Ok(qb.build_query_as().fetch_one(conn).await?)
}

/// One session of the workbook's detail sheet.
#[derive(Debug, Clone, FromRow)]
pub struct DetailRow {
    pub id: Uuid,
    pub session_no: String,
    pub org_name: String,
    pub card_no: String,
    pub plate_number: String,
    pub driver_name: String,
    pub station_name: String,
    pub city_name: String,
    pub pile_no: String,
    pub start_time: DateTime<Utc>,
    pub end_time: Option<DateTime<Utc>>,
    pub settle_time: Option<DateTime<Utc>>,
    pub start_soc: Option<i16>,
    pub end_soc: Option<i16>,
    #[sqlx(flatten)]
    pub figures: Figures,
}

/// A page of `source`'s sessions, oldest first after `after` (start time, id).
pub async fn details(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    source: &Source,
    after: Option<(DateTime<Utc>, Uuid)>,
    limit: i64,
) -> Result<Vec<DetailRow>, ServiceError> {
    let mut qb = QueryBuilder::new(
        "select s.id, s.session_no, \
         coalesce((select o.name from org_unit o where o.id = s.org_id), '') as org_name, \
         s.card_no, s.plate_number, s.driver_name, s.station_name, s.city_name, s.pile_no, \
         s.start_time, s.end_time, s.settle_time, s.start_soc, s.end_soc, 1::bigint as session_count, \
         s.energy_wh, s.electricity_fen, s.service_fee_fen, s.parking_fee_fen, s.time_fee_fen, \
         s.fixed_fee_fen, s.reservation_fee_fen, s.discount_fen, \
         s.uncollected_fen, s.refunded_fen, s.total_fen",
    );
    source.push_sessions(&mut qb, enterprise_id);
    if let Some((at, id)) = after {
        qb.push(" and (s.start_time, s.id) > (")
            .push_bind(at)
            .push(", ")
            .push_bind(id)
            .push(")");
    }
    qb.push(" order by s.start_time, s.id limit ")
        .push_bind(limit);
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

/// What a build wrote.
#[derive(Debug, Clone)]
pub struct Built<'a> {
    pub status: StatementStatus,
    pub figures: Figures,
    pub card_count: i32,
    pub ledger_captured_fen: i64,
    pub file_key: &'a str,
    pub file_name: &'a str,
    pub file_size: i64,
}

/// Stores a build: the figures, the workbook, a new version; a reissue
/// clears the dispute and who raised it.
pub async fn save_build(
    conn: &mut PgConnection,
    statement_id: Uuid,
    built: &Built<'_>,
) -> Result<(), ServiceError> {
    let f = &built.figures;
    sqlx::query(
        "update reconciliation_statement set status = $2, session_count = $3, energy_wh = $4, \
         electricity_fen = $5, service_fee_fen = $6, parking_fee_fen = $7, discount_fen = $8, \
         uncollected_fen = $9, refunded_fen = $10, total_fen = $11, card_count = $12, \
         ledger_captured_fen = $13, file_key = $14, file_name = $15, file_size = $16, \
         time_fee_fen = $17, fixed_fee_fen = $18, reservation_fee_fen = $19, \
         version = version + 1, generated_at = now(), dispute_reason = '', confirmed_by = null, \
         confirmed_by_name = '', confirm_time = null where id = $1",
    )
    .bind(statement_id)
    .bind(i16::from(built.status))
    .bind(f.session_count)
    .bind(f.energy_wh)
    .bind(f.electricity_fen)
    .bind(f.service_fee_fen)
    .bind(f.parking_fee_fen)
    .bind(f.discount_fen)
    .bind(f.uncollected_fen)
    .bind(f.refunded_fen)
    .bind(f.total_fen)
    .bind(built.card_count)
    .bind(built.ledger_captured_fen)
    .bind(built.file_key)
    .bind(built.file_name)
    .bind(built.file_size)
    .bind(f.time_fee_fen)
    .bind(f.fixed_fee_fen)
    .bind(f.reservation_fee_fen)
    .execute(conn)
    .await?;
    Ok(())
}

/// Records a confirmation or a dispute.
pub async fn decide(
    conn: &mut PgConnection,
    statement_id: Uuid,
    status: StatementStatus,
    by: Option<Uuid>,
    by_name: &str,
    dispute_reason: &str,
) -> Result<(), ServiceError> {
    sqlx::query(
        "update reconciliation_statement set status = $2, confirmed_by = $3, \
         confirmed_by_name = $4, confirm_time = now(), dispute_reason = $5 where id = $1",
    )
    .bind(statement_id)
    .bind(i16::from(status))
    .bind(by)
    .bind(by_name)
    .bind(dispute_reason)
    .execute(conn)
    .await?;
    Ok(())
}

/// Enterprises (after `after`, in id order) with charging opened before
/// `month` ended, or with sessions of that month, and no issued statement
/// for it (service scope: the month-end job).
pub async fn due_enterprises(
    conn: &mut PgConnection,
    month: Month,
    after: Option<Uuid>,
    limit: i64,
) -> Result<Vec<Uuid>, ServiceError> {
    Ok(sqlx::query_scalar(
        "select a.enterprise_id from charging_account a where a.kind = 1 \
         and (a.created_at < $1 or exists (select 1 from charging_session s \
           where s.enterprise_id = a.enterprise_id and s.statement_month = $2)) \
         and ($5::uuid is null or a.enterprise_id > $5) \
         and not exists (select 1 from reconciliation_statement r \
           where r.month = $2 and r.enterprise_id = a.enterprise_id and r.status <> $3) \
         order by a.enterprise_id limit $4",
    )
    .bind(month.end())
    .bind(month.code())
    .bind(i16::from(StatementStatus::Draft))
    .bind(limit)
    .bind(after)
    .fetch_all(conn)
    .await?)
}

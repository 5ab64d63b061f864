//! The usage_record table: list, count, read, insert, update, end, and the
//! copy of the open record's kind, state and dates kept on its vehicle.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::{Cursor, Filters, Paging, Sort, TimeRange};
use sqlx::{FromRow, QueryBuilder};
use sqlx_postgres::{PgConnection, Postgres};
use uuid::Uuid;

use super::domain::{self, Terms, UsageDraft};
use crate::context::Actor;
use crate::vehicles::domain::{UsageKind, UsageStatus};

/// The organisation name comes from the org_unit replica, so renames show at once.
const SELECT: &str = "select u.id, u.org_id, coalesce((select o.name from org_unit o where o.id = u.org_id), '') as org_name, u.created_by, u.updated_by, \
     u.vehicle_id, u.plate_number, u.vin, u.kind, u.state, u.contract_no, u.counterparty, \
     u.start_time, u.end_time, u.monthly_rent_fen, u.deposit_fen, u.term_months, u.payment_day, \
     u.return_time, u.price_fen, u.purchase_tax_fen, u.invoice_no, u.delivery_time, \
     u.replaced_vehicle_id, u.replaced_plate_number, u.replacement_reason, u.temporary, \
     u.down_payment_fen, u.monthly_payment_fen, u.total_price_fen, u.final_payment_fen, \
     u.paid_periods, u.overdue_periods, u.ownership_transfer_time, u.attachments, u.remark, \
     u.ended_at, u.created_at, u.updated_at \
     from usage_record u";

#[derive(Debug, Clone, FromRow)]
pub struct UsageRow {
    pub id: Uuid,
    pub org_id: Uuid,
    pub org_name: String,
    pub created_by: Option<Uuid>,
    pub updated_by: Option<Uuid>,
    pub vehicle_id: Uuid,
    pub plate_number: String,
    pub vin: String,
    pub kind: i16,
    pub state: i16,
    pub contract_no: String,
    pub counterparty: String,
    pub start_time: DateTime<Utc>,
    pub end_time: Option<DateTime<Utc>>,
    pub monthly_rent_fen: Option<i64>,
    pub deposit_fen: Option<i64>,
    pub term_months: Option<i32>,
    pub payment_day: Option<i32>,
    pub return_time: Option<DateTime<Utc>>,
    pub price_fen: Option<i64>,
    pub purchase_tax_fen: Option<i64>,
    pub invoice_no: Option<String>,
    pub delivery_time: Option<DateTime<Utc>>,
    pub replaced_vehicle_id: Option<Uuid>,
    pub replaced_plate_number: Option<String>,
    pub replacement_reason: Option<i16>,
    pub temporary: Option<bool>,
    pub down_payment_fen: Option<i64>,
    pub monthly_payment_fen: Option<i64>,
    pub total_price_fen: Option<i64>,
    pub final_payment_fen: Option<i64>,
    pub paid_periods: Option<i32>,
    pub overdue_periods: Option<i32>,
    pub ownership_transfer_time: Option<DateTime<Utc>>,
    pub attachments: serde_json::Value,
    pub remark: String,
    pub ended_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A checked list filter (from `UsageRecordFilter`).
#[derive(Debug, Clone, Default)]
pub struct UsageQuery {
    pub kind: Option<i16>,
    pub plates: Vec<String>,
    pub vins: Vec<String>,
    pub org_ids: Vec<Uuid>,
    pub statuses: Vec<UsageStatus>,
    pub contract_no: String,
    pub counterparty: String,
    pub period: TimeRange,
    pub vehicle_id: Option<Uuid>,
}

/// The usage lists' one order, served by `usage_record_kind_newest_idx`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UsageOrder {
    #[default]
    Newest,
}

impl Sort for UsageOrder {
    fn order_by(&self) -> &'static str {
        match self {
            UsageOrder::Newest => "u.created_at desc, u.id desc",
        }
    }
}

/// The SQL of one effective state (a pending record whose start has come
/// reads as active; see `domain::state::effective`).
fn state_condition(status: UsageStatus) -> &'static str {
    match status {
        UsageStatus::Pending => "(u.state = 1 and u.start_time > now())",
        UsageStatus::Active => "(u.state = 2 or (u.state = 1 and u.start_time <= now()))",
        UsageStatus::Ended => "u.state = 3",
    }
}

fn filtered<'a>(select: &str, actor: &Actor, query: &UsageQuery) -> Filters<'a> {
    let mut f = Filters::new(select, "u.enterprise_id", actor.enterprise_id);
    actor
        .reach
        .push_condition(f.scope(), "u.org_id", "u.created_by");
    f.equals("u.kind", query.kind)
        .any_of("u.org_id", query.org_ids.clone())
        .any_of("u.plate_number", query.plates.clone())
        .any_of("u.vin", query.vins.clone())
        .contains("u.contract_no", &query.contract_no)
        .contains("u.counterparty", &query.counterparty)
        .equals("u.vehicle_id", query.vehicle_id);
    if !query.statuses.is_empty() {
        let qb = f.and();
        qb.push("(");
        for (i, status) in query.statuses.iter().enumerate() {
            if i > 0 {
                qb.push(" or ");
            }
            qb.push(state_condition(*status));
        }
        qb.push(")");
    }
    // Records whose [start, end) overlaps the range; an open end never ends.
    if let Some(end) = query.period.end {
        f.and().push("u.start_time < ").push_bind(end);
    }
    if let Some(start) = query.period.start {
        f.and()
            .push("coalesce(u.ended_at, u.end_time, 'infinity') > ")
            .push_bind(start);
    }
    f
}

/// One page of usage records and the exact number the list matches.
pub async fn list(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &UsageQuery,
    paging: Paging,
) -> Result<(Vec<UsageRow>, i64), ServiceError> {
    let mut qb = filtered(SELECT, actor, query).page(&UsageOrder::Newest, paging);
    let rows: Vec<UsageRow> = qb.build_query_as().fetch_all(&mut *conn).await?;
    let total = count(conn, actor, query).await?;
    Ok((rows, total))
}

/// The exact number of usage records the list matches.
pub async fn count(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &UsageQuery,
) -> Result<i64, ServiceError> {
    let mut count = filtered("select count(*) from usage_record u", actor, query).finish();
    Ok(count.build_query_scalar().fetch_one(conn).await?)
}

/// One export page under the list's filter and reach: newest first after
/// `cursor` (`created_at`, `id`), by keyset on `usage_record_newest_idx`.
pub async fn export_page(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &UsageQuery,
    cursor: Option<Cursor>,
    limit: i64,
) -> Result<Vec<UsageRow>, ServiceError> {
    let mut qb = filtered(SELECT, actor, query).keyset("u.created_at", "u.id", cursor, limit);
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

/// One usage record the caller may see (locked for change when `for_update`).
pub async fn get(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    for_update: bool,
) -> Result<UsageRow, ServiceError> {
    let mut qb = QueryBuilder::<Postgres>::new(SELECT);
    qb.push(" where u.id = ")
        .push_bind(id)
        .push(" and u.enterprise_id = ")
        .push_bind(actor.enterprise_id);
    if for_update {
        qb.push(" for update of u");
    }
    let row: Option<UsageRow> = qb.build_query_as().fetch_optional(conn).await?;
    row.filter(|r| actor.reach.sees(Some(r.org_id), r.created_by))
        .ok_or_else(ServiceError::not_found)
}

fn conflict(err: sqlx::Error) -> ServiceError {
    fleetdesk_kit::on_constraint(err, |name| {
        (name == "usage_record_open_vehicle_key").then(domain::vehicle_in_use)
    })
}

/// The vehicle facts a record copies.
pub struct VehicleFacts<'a> {
    pub org_id: Uuid,
    pub plate_number: &'a str,
    pub vin: &'a str,
}

/// Stores a new record in `state`.
pub async fn insert(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    vehicle: &VehicleFacts<'_>,
    draft: &UsageDraft,
    state: UsageStatus,
) -> Result<(), ServiceError> {
    let columns = TermColumns::of(&draft.terms);
    let query = sqlx::query(
        "insert into usage_record (id, enterprise_id, org_id, created_by, updated_by, vehicle_id, \
         plate_number, vin, kind, state, contract_no, counterparty, start_time, end_time, \
         attachments, remark, monthly_rent_fen, deposit_fen, term_months, payment_day, \
         return_time, price_fen, purchase_tax_fen, invoice_no, delivery_time, \
         replaced_vehicle_id, replaced_plate_number, replacement_reason, temporary, \
         down_payment_fen, monthly_payment_fen, total_price_fen, final_payment_fen, \
         paid_periods, overdue_periods, ownership_transfer_time) \
         values ($1, $2, $3, $4, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, \
         $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32, $33, $34, $35)",
    )
    .bind(id)
    .bind(actor.enterprise_id)
    .bind(vehicle.org_id)
    .bind(actor.user_id)
    .bind(draft.vehicle_id)
    .bind(vehicle.plate_number)
    .bind(vehicle.vin)
    .bind(i16::from(draft.terms.kind()))
    .bind(i16::from(state))
    .bind(&draft.contract_no)
    .bind(&draft.counterparty)
    .bind(draft.start_time)
    .bind(draft.end_time)
    .bind(&draft.attachments)
    .bind(&draft.remark);
    columns
        .bind_to(query)
        .execute(conn)
        .await
        .map_err(conflict)?;
    Ok(())
}

/// Replaces a record's editable fields (its vehicle and kind stay).
pub async fn update(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    draft: &UsageDraft,
    state: UsageStatus,
) -> Result<(), ServiceError> {
    let columns = TermColumns::of(&draft.terms);
    let query = sqlx::query(
        "update usage_record set updated_by = $3, state = $4, contract_no = $5, \
         counterparty = $6, start_time = $7, end_time = $8, attachments = $9, remark = $10, \
         monthly_rent_fen = $11, deposit_fen = $12, term_months = $13, payment_day = $14, \
         return_time = $15, price_fen = $16, purchase_tax_fen = $17, invoice_no = $18, \
         delivery_time = $19, replaced_vehicle_id = $20, replaced_plate_number = $21, \
         replacement_reason = $22, temporary = $23, down_payment_fen = $24, \
         monthly_payment_fen = $25, total_price_fen = $26, final_payment_fen = $27, \
         paid_periods = $28, overdue_periods = $29, ownership_transfer_time = $30 \
         where id = $1 and enterprise_id = $2",
    )
    .bind(id)
    .bind(actor.enterprise_id)
    .bind(actor.user_id)
    .bind(i16::from(state))
    .bind(&draft.contract_no)
    .bind(&draft.counterparty)
    .bind(draft.start_time)
    .bind(draft.end_time)
    .bind(&draft.attachments)
    .bind(&draft.remark);
    columns
        .bind_to(query)
        .execute(conn)
        .await
        .map_err(conflict)?;
    Ok(())
}

/// Ends a record at `at`; a rental's return time is that moment unless set.
pub async fn end(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    at: DateTime<Utc>,
    remark: &str,
) -> Result<(), ServiceError> {
    sqlx::query(
        "update usage_record set state = 3, ended_at = $3, updated_by = $4, \
         return_time = case when kind = 1 then coalesce(return_time, $3) else return_time end, \
         remark = case when $5 = '' then remark else $5 end \
         where id = $1 and enterprise_id = $2",
    )
    .bind(id)
    .bind(actor.enterprise_id)
    .bind(at)
    .bind(actor.user_id)
    .bind(remark)
    .execute(conn)
    .await?;
    Ok(())
}

/// The database clock now (not the transaction's start): taken under a
/// record's lock, it orders the record's changes.
pub async fn clock(conn: &mut PgConnection) -> Result<DateTime<Utc>, ServiceError> {
    Ok(sqlx::query_scalar("select clock_timestamp()")
        .fetch_one(conn)
        .await?)
}

/// Kind, state, start and end of a vehicle's open record.
pub type OpenRecord = (UsageKind, UsageStatus, DateTime<Utc>, Option<DateTime<Utc>>);

/// Copies the open record's kind, state and dates onto its vehicle, or
/// clears them when `open` is none (the record ended).
pub async fn copy_to_vehicle(
    conn: &mut PgConnection,
    actor: &Actor,
    vehicle_id: Uuid,
    open: Option<OpenRecord>,
) -> Result<(), ServiceError> {
    let (kind, state, start, end) = match open {
        Some((kind, state, start, end)) => (
            Some(i16::from(kind)),
            Some(i16::from(state)),
            Some(start),
            end,
        ),
        None => (None, None, None, None),
    };
    sqlx::query(
        "update vehicle set usage_kind = $3, usage_status = $4, lease_start_time = $5, \
         lease_end_time = $6 where id = $1 and enterprise_id = $2",
    )
    .bind(vehicle_id)
    .bind(actor.enterprise_id)
    .bind(kind)
    .bind(state)
    .bind(start)
    .bind(end)
    .execute(conn)
    .await?;
    Ok(())
}

/// The kind-specific columns of a record; those of other kinds are null.
#[derive(Debug, Default)]
pub struct TermColumns<'a> {
    pub monthly_rent_fen: Option<i64>,
    pub deposit_fen: Option<i64>,
    pub term_months: Option<i32>,
    pub payment_day: Option<i32>,
    pub return_time: Option<DateTime<Utc>>,
    pub price_fen: Option<i64>,
    pub purchase_tax_fen: Option<i64>,
    pub invoice_no: Option<&'a str>,
    pub delivery_time: Option<DateTime<Utc>>,
    pub replaced_vehicle_id: Option<Uuid>,
    pub replaced_plate_number: Option<&'a str>,
    pub replacement_reason: Option<i16>,
    pub temporary: Option<bool>,
    pub down_payment_fen: Option<i64>,
    pub monthly_payment_fen: Option<i64>,
    pub total_price_fen: Option<i64>,
    pub final_payment_fen: Option<i64>,
    pub paid_periods: Option<i32>,
    pub overdue_periods: Option<i32>,
    pub ownership_transfer_time: Option<DateTime<Utc>>,
}

impl<'a> TermColumns<'a> {
    /// Binds the term columns, in their table order, after a query's other
    /// parameters (insert and update name them in the same order).
    fn bind_to<'q>(
        self,
        query: sqlx::query::Query<'q, Postgres, sqlx_postgres::PgArguments>,
    ) -> sqlx::query::Query<'q, Postgres, sqlx_postgres::PgArguments>
    where
        'a: 'q,
    {
        query
            .bind(self.monthly_rent_fen)
            .bind(self.deposit_fen)
            .bind(self.term_months)
            .bind(self.payment_day)
            .bind(self.return_time)
            .bind(self.price_fen)
            .bind(self.purchase_tax_fen)
            .bind(self.invoice_no)
            .bind(self.delivery_time)
            .bind(self.replaced_vehicle_id)
            .bind(self.replaced_plate_number)
            .bind(self.replacement_reason)
            .bind(self.temporary)
            .bind(self.down_payment_fen)
            .bind(self.monthly_payment_fen)
            .bind(self.total_price_fen)
            .bind(self.final_payment_fen)
            .bind(self.paid_periods)
            .bind(self.overdue_periods)
            .bind(self.ownership_transfer_time)
    }

    pub fn of(terms: &'a Terms) -> TermColumns<'a> {
        match terms {
            Terms::Rent(r) => TermColumns {
                monthly_rent_fen: Some(r.monthly_rent_fen),
                deposit_fen: Some(r.deposit_fen),
                term_months: Some(r.term_months),
                payment_day: Some(r.payment_day),
                return_time: r.return_time,
                ..TermColumns::default()
            },
            Terms::Purchase(p) => TermColumns {
                price_fen: Some(p.price_fen),
                purchase_tax_fen: Some(p.purchase_tax_fen),
                invoice_no: Some(&p.invoice_no),
                delivery_time: p.delivery_time,
                ..TermColumns::default()
            },
            Terms::Replacement(r) => TermColumns {
                replaced_vehicle_id: Some(r.replaced_vehicle_id),
                replaced_plate_number: Some(&r.replaced_plate_number),
                replacement_reason: Some(i16::from(r.reason)),
                temporary: Some(r.temporary),
                ..TermColumns::default()
            },
            Terms::RentToOwn(r) => TermColumns {
                term_months: Some(r.term_months),
                down_payment_fen: Some(r.down_payment_fen),
                monthly_payment_fen: Some(r.monthly_payment_fen),
                total_price_fen: Some(r.total_price_fen),
                final_payment_fen: Some(r.final_payment_fen),
                paid_periods: Some(r.paid_periods),
                overdue_periods: Some(r.overdue_periods),
                ownership_transfer_time: r.ownership_transfer_time,
                ..TermColumns::default()
            },
        }
    }
}

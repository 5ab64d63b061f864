//! Rent instalments: the RENT bills of vehicle's rentals, one per usage
//! record and calendar month (Asia/Shanghai), raised from the record's
//! events (`vehicle.v1.UsageRecordChanged`) and a periodic tick.
//!
//! The design, chosen so a bill never has to be changed after it is raised:
//!
//! - Rent is billed **in arrears**: a month's instalment is raised once the
//!   month is over (or the lease ended within it — an ended lease cannot
//!   change any more), due at the end of the **billing day** (the record's
//!   payment day) of the following month; a bill raised after that day
//!   (catching up on a record entered late) is due at the end of the day it
//!   is raised, never before it exists.
//! - A lease bills its days `[start day, end day)`: the day it starts
//!   counts, the day it ends does not (as a hotel counts nights), so
//!   consecutive leases never bill a day twice. The end is the actual end
//!   once the record ended (early or late), else the contract's end.
//! - **Proration**: a month the lease covers only in part (its first and
//!   last) costs `monthly rent × days billed / days in that month`, rounded
//!   half up to the fen; a whole month costs the monthly rent exactly.
//! - The schedule (`rent_schedule`) keeps the record's latest state (an
//!   older event never overwrites a newer one: `revision` is the record's
//!   change time) and `billed_until`, the first day not billed yet. A change
//!   applies to what is not billed yet: a new rent to later instalments, an
//!   earlier end stops billing there; raised instalments never move.
//! - Exactly once: each event id is applied once (the consumer's
//!   `processed_event`), an instalment is one `rent_instalment` row per
//!   record and period (primary key: the period's first day, as a month
//!   may be billed in two parts when a lease passes its contract end and
//!   is then extended) with one bill whose source is `vehicle` /
//!   `<record>:<first day>` (the bill's unique source), and the
//!   schedule row is locked while it is billed, so the consumer and the tick
//!   never race on one record.
//! - The tick ([`run`], hourly) bills every schedule whose next period has
//!   closed (`next_close`), so a running lease keeps getting monthly bills
//!   without any event.
//!
//! Only rentals (`USAGE_KIND_RENT`) are billed here; other kinds' events
//! are ignored. The deposit is not billed as rent.

use std::time::Duration;

use chrono::{DateTime, Datelike, NaiveDate, Utc};
use fleetdesk_kit::convert::datetime;
use fleetdesk_kit::{ErrorCode, Shutdown, db, events, subjects};
use fleetdesk_proto::vehicle::v1 as vpb;
use sqlx::FromRow;
use sqlx_postgres::{PgConnection, PgPool};
use uuid::Uuid;

use super::domain::{BillKind, Channel, Line, LineSource, NewBill, Source};
use super::{handlers, raised};
use crate::calendar::{Month, day_of, shanghai};
use crate::context::Actor;

/// The consumer's name (with the schema and deployment, its durable name).
pub const CONSUMER: &str = "usage-records";
/// The bills' `source_service`: usage records live in the vehicle target.
pub const SOURCE_SERVICE: &str = "vehicle";
/// VAT of vehicle leasing (有形动产租赁服务, 13 %), in basis points.
pub const TAX_RATE_BP: i32 = 1300;
/// How often the tick looks for closed periods.
const EVERY: Duration = Duration::from_secs(3600);
/// Schedules one tick round takes at a time.
const BATCH: i64 = 200;

/// A rental as finance bills it: the record's state after its last change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    pub usage_record_id: Uuid,
    pub enterprise_id: Uuid,
    pub org_id: Uuid,
    pub vehicle_id: Uuid,
    pub plate_number: String,
    pub contract_no: String,
    pub start_time: DateTime<Utc>,
    /// The actual end once ended, else the contract's end.
    pub end_time: Option<DateTime<Utc>>,
    pub ended: bool,
    pub monthly_rent_fen: i64,
    pub payment_day: i32,
    pub revision: DateTime<Utc>,
}

impl Lease {
    /// The lease of a changed rental; None for other kinds or an event
    /// missing what billing needs.
    pub fn from_event(event: vpb::UsageRecordChanged) -> Option<Lease> {
        let vpb::UsageRecordChanged {
            record,
            ended_time,
            changed_time,
        } = event;
        let record = record?;
        let vpb::UsageRecord {
            id,
            enterprise_id,
            org_id,
            org_name: _,
            vehicle_id,
            plate_number,
            vin: _,
            kind,
            status: _,
            contract_no,
            counterparty: _,
            start_time,
            end_time,
            details,
            attachments: _,
            remark: _,
            audit: _,
        } = record;
        if kind != vpb::UsageKind::Rent as i32 {
            return None;
        }
        let Some(vpb::usage_record::Details::Rent(rent)) = details else {
            return None;
        };
        let ended_at = ended_time.as_ref().and_then(datetime);
        Some(Lease {
            usage_record_id: Uuid::parse_str(&id).ok()?,
            enterprise_id: Uuid::parse_str(&enterprise_id).ok()?,
            org_id: Uuid::parse_str(&org_id).ok()?,
            vehicle_id: Uuid::parse_str(&vehicle_id).ok()?,
            plate_number,
            contract_no,
            start_time: start_time.as_ref().and_then(datetime)?,
            end_time: ended_at.or_else(|| end_time.as_ref().and_then(datetime)),
            ended: ended_at.is_some(),
            monthly_rent_fen: rent.monthly_rent_fen.max(0),
            payment_day: rent.payment_day.clamp(1, 28),
            revision: changed_time.as_ref().and_then(datetime)?,
        })
    }
}

/// One month's share of a lease: the days `[start, end)` of `month`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Period {
    pub month: Month,
    pub start: NaiveDate,
    pub end: NaiveDate,
}

impl Period {
    pub fn days(self) -> i64 {
        (self.end - self.start).num_days()
    }

    pub fn month_days(self) -> i64 {
        (first_day(self.month.plus(1)) - first_day(self.month)).num_days()
    }

    /// The monthly rent for the days billed, rounded half up to the fen.
    pub fn amount(self, monthly_rent_fen: i64) -> i64 {
        let (days, month_days) = (i128::from(self.days()), i128::from(self.month_days()));
        let fen = (i128::from(monthly_rent_fen) * days * 2 + month_days) / (2 * month_days);
        i64::try_from(fen).unwrap_or(i64::MAX)
    }
}

fn first_day(month: Month) -> NaiveDate {
    NaiveDate::from_ymd_opt(month.year(), month.to_pb().month as u32, 1)
        .expect("a checked month has a first day")
}

fn month_of(day: NaiveDate) -> Month {
    Month::new(day.year(), day.month() as i32).expect("a calendar day has a month")
}

/// 00:00 Asia/Shanghai of `day`.
pub fn midnight(day: NaiveDate) -> DateTime<Utc> {
    day.and_hms_opt(0, 0, 0)
        .and_then(|t| t.and_local_timezone(shanghai()).single())
        .map(|t| t.with_timezone(&Utc))
        .expect("every day has a midnight in UTC+8")
}

/// The last second of `day`, Asia/Shanghai.
fn end_of(day: NaiveDate) -> DateTime<Utc> {
    midnight(day + chrono::Days::new(1)) - chrono::Duration::seconds(1)
}

/// When the instalment of `month` falls due by the contract: the end of
/// the billing day in the month after.
pub fn billing_due(month: Month, payment_day: i32) -> DateTime<Utc> {
    let day = first_day(month.plus(1)) + chrono::Days::new(payment_day.clamp(1, 28) as u64 - 1);
    end_of(day)
}

/// The periods of `lease` to bill on `today`, from `billed_until` (the
/// first day not billed yet): each month from there that is over (its end
/// not after today), or every remaining one once the lease has ended.
pub fn due_periods(
    lease: &Lease,
    billed_until: Option<NaiveDate>,
    today: NaiveDate,
) -> Vec<Period> {
    let start = day_of(lease.start_time);
    let mut from = billed_until.map_or(start, |b| b.max(start));
    let end = lease.end_time.map(day_of);
    let mut periods = Vec::new();
    loop {
        let next_month = first_day(month_of(from).plus(1));
        let to = end.map_or(next_month, |e| e.min(next_month));
        if to <= from || (to > today && !lease.ended) {
            return periods;
        }
        periods.push(Period {
            month: month_of(from),
            start: from,
            end: to,
        });
        from = to;
    }
}

/// The day the next period after `billed_until` closes; None when the
/// lease is billed to its end.
pub fn next_close(lease: &Lease, billed_until: Option<NaiveDate>) -> Option<NaiveDate> {
    let start = day_of(lease.start_time);
    let from = billed_until.map_or(start, |b| b.max(start));
    let next_month = first_day(month_of(from).plus(1));
    let end = lease.end_time.map(day_of);
    let to = end.map_or(next_month, |e| e.min(next_month));
    (to > from).then_some(to)
}

/// The bill of one period of `lease`, raised at `now`.
pub fn instalment(lease: &Lease, period: Period, now: DateTime<Utc>) -> NewBill {
    let amount = period.amount(lease.monthly_rent_fen);
    let (days, month_days) = (period.days(), period.month_days());
    let last = period.end - chrono::Days::new(1);
    let span = if days == month_days {
        "整月".to_owned()
    } else {
        format!(
            "{}–{}，{days}/{month_days} 天",
            period.start.format("%m-%d"),
            last.format("%m-%d")
        )
    };
    NewBill {
        org_id: lease.org_id,
        channel: Channel::Standard,
        kind: BillKind::Rent,
        title: format!("{} {} 车辆租金", lease.plate_number, period.month.label()),
        period: period.month,
        order_id: None,
        lines: vec![Line {
            description: format!(
                "{} {} 租金（{span}）",
                lease.plate_number,
                period.month.label()
            ),
            vehicle_id: Some(lease.vehicle_id),
            plate_number: lease.plate_number.clone(),
            period_start: Some(midnight(period.start)),
            period_end: Some(midnight(period.end)),
            quantity: 1,
            unit_price_fen: amount,
            amount_fen: amount,
            tax_rate_bp: TAX_RATE_BP,
            source: LineSource::UsageRecord,
            source_id: lease.usage_record_id.to_string(),
        }],
        discount_fen: 0,
        due_time: Some(billing_due(period.month, lease.payment_day).max(end_of(day_of(now)))),
        requires_confirmation: false,
        source: source(lease.usage_record_id, period.start),
        attachments: serde_json::json!([]),
        remark: format!("合同编号 {}", lease.contract_no),
    }
}

/// The bill source of one record's period: `vehicle` /
/// `<record>:<first day>`, e.g. `…:2026-11-01`.
pub fn source(usage_record_id: Uuid, period_start: NaiveDate) -> Source {
    Source {
        service: SOURCE_SERVICE.to_owned(),
        id: format!("{usage_record_id}:{period_start}"),
    }
}

/// An instalment raised by [`bill`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Raised {
    pub bill_id: Uuid,
    pub period: Period,
    pub amount_fen: i64,
}

#[derive(Debug, FromRow)]
struct ScheduleRow {
    usage_record_id: Uuid,
    enterprise_id: Uuid,
    org_id: Uuid,
    vehicle_id: Uuid,
    plate_number: String,
    contract_no: String,
    start_time: DateTime<Utc>,
    end_time: Option<DateTime<Utc>>,
    ended: bool,
    monthly_rent_fen: i64,
    payment_day: i32,
    revision: DateTime<Utc>,
    billed_until: Option<NaiveDate>,
}

/// Keeps `lease` as its record's schedule unless a newer state is kept
/// already, then bills what is due at `now`. Runs in the caller's
/// transaction, narrowed to the lease's tenant.
pub async fn apply(
    conn: &mut PgConnection,
    lease: &Lease,
    now: DateTime<Utc>,
) -> anyhow::Result<Vec<Raised>> {
    db::enter_tenant(conn, lease.enterprise_id).await?;
    sqlx::query(
        "insert into rent_schedule (usage_record_id, enterprise_id, org_id, vehicle_id, \
         plate_number, contract_no, start_time, end_time, ended, monthly_rent_fen, payment_day, \
         revision) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) \
         on conflict (usage_record_id) do update set org_id = excluded.org_id, \
         vehicle_id = excluded.vehicle_id, plate_number = excluded.plate_number, \
         contract_no = excluded.contract_no, start_time = excluded.start_time, \
         end_time = excluded.end_time, ended = excluded.ended, \
         monthly_rent_fen = excluded.monthly_rent_fen, payment_day = excluded.payment_day, \
         revision = excluded.revision \
         where rent_schedule.revision < excluded.revision \
         and rent_schedule.enterprise_id = excluded.enterprise_id",
    )
    .bind(lease.usage_record_id)
    .bind(lease.enterprise_id)
    .bind(lease.org_id)
    .bind(lease.vehicle_id)
    .bind(&lease.plate_number)
    .bind(&lease.contract_no)
    .bind(lease.start_time)
    .bind(lease.end_time)
    .bind(lease.ended)
    .bind(lease.monthly_rent_fen)
    .bind(lease.payment_day)
    .bind(lease.revision)
    .execute(&mut *conn)
    .await?;
    bill(conn, lease.enterprise_id, lease.usage_record_id, now).await
}

/// Bills the due periods of one schedule at `now` (locking it first) and
/// moves its `billed_until` and `next_close` on.
pub async fn bill(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    usage_record_id: Uuid,
    now: DateTime<Utc>,
) -> anyhow::Result<Vec<Raised>> {
    let actor = raised::system(conn, enterprise_id).await?;
    let row: Option<ScheduleRow> = sqlx::query_as(
        "select usage_record_id, enterprise_id, org_id, vehicle_id, plate_number, contract_no, \
         start_time, end_time, ended, monthly_rent_fen, payment_day, revision, billed_until \
         from rent_schedule where usage_record_id = $1 and enterprise_id = $2 for update",
    )
    .bind(usage_record_id)
    .bind(enterprise_id)
    .fetch_optional(&mut *conn)
    .await?;
    let Some(row) = row else {
        return Ok(Vec::new());
    };
    let billed_until = row.billed_until;
    let lease = Lease {
        usage_record_id: row.usage_record_id,
        enterprise_id: row.enterprise_id,
        org_id: row.org_id,
        vehicle_id: row.vehicle_id,
        plate_number: row.plate_number,
        contract_no: row.contract_no,
        start_time: row.start_time,
        end_time: row.end_time,
        ended: row.ended,
        monthly_rent_fen: row.monthly_rent_fen,
        payment_day: row.payment_day,
        revision: row.revision,
    };
    let mut raised = Vec::new();
    let mut until = billed_until;
    for period in due_periods(&lease, billed_until, day_of(now)) {
        if let Some(bill_id) = raise(conn, &actor, &lease, period, now).await? {
            raised.push(Raised {
                bill_id,
                period,
                amount_fen: period.amount(lease.monthly_rent_fen),
            });
        }
        until = Some(period.end);
    }
    sqlx::query(
        "update rent_schedule set billed_until = $3, next_close = $4 \
         where usage_record_id = $1 and enterprise_id = $2",
    )
    .bind(usage_record_id)
    .bind(enterprise_id)
    .bind(until)
    .bind(next_close(&lease, until))
    .execute(&mut *conn)
    .await?;
    Ok(raised)
}

/// Raises one period's bill and records the instalment; None when the
/// source was billed with another amount already (logged, not retried).
async fn raise(
    conn: &mut PgConnection,
    actor: &Actor,
    lease: &Lease,
    period: Period,
    now: DateTime<Utc>,
) -> anyhow::Result<Option<Uuid>> {
    let new = instalment(lease, period, now);
    let amount = new.lines.iter().map(|l| l.amount_fen).sum::<i64>();
    let bill_id = match handlers::raise(conn, actor, new).await {
        Ok(id) => id,
        Err(err) if matches!(err.code, ErrorCode::Conflict | ErrorCode::BadRequest) => {
            tracing::warn!(record = %lease.usage_record_id, period = period.month.code(), error = %err.message, "Rent instalment not raised.");
            return Ok(None);
        }
        Err(err) => anyhow::bail!("raise rent of {}: {}", lease.usage_record_id, err.message),
    };
    sqlx::query(
        "insert into rent_instalment (enterprise_id, usage_record_id, period, bill_id, \
         period_start, period_end, days, month_days, monthly_rent_fen, amount_fen) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) on conflict do nothing",
    )
    .bind(lease.enterprise_id)
    .bind(lease.usage_record_id)
    .bind(period.month.code())
    .bind(bill_id)
    .bind(period.start)
    .bind(period.end)
    .bind(i32::try_from(period.days()).unwrap_or(i32::MAX))
    .bind(i32::try_from(period.month_days()).unwrap_or(i32::MAX))
    .bind(lease.monthly_rent_fen)
    .bind(amount)
    .execute(&mut *conn)
    .await?;
    Ok(Some(bill_id))
}

/// Keeps rentals' schedules from their records' changes.
#[derive(Debug, Clone, Copy)]
pub struct ChangedRecords;

impl events::Handler for ChangedRecords {
    type Event = vpb::UsageRecordChanged;

    async fn handle(
        &self,
        tx: &mut PgConnection,
        event: vpb::UsageRecordChanged,
    ) -> anyhow::Result<()> {
        if let Some(lease) = Lease::from_event(event) {
            apply(tx, &lease, Utc::now()).await?;
        }
        Ok(())
    }
}

/// The target's consumer of changed usage records.
pub async fn consumer(
    pool: PgPool,
    nats: async_nats::Client,
) -> anyhow::Result<events::Consumer<ChangedRecords>> {
    events::Consumer::new(
        pool,
        nats,
        CONSUMER,
        subjects::VEHICLE_USAGE_RECORD_CHANGED,
        ChangedRecords,
    )
    .await
}

/// One round of the tick at `now`: bills every schedule whose next period
/// has closed, each in its own transaction. The number of bills raised.
pub async fn tick(pool: &PgPool, now: DateTime<Utc>) -> anyhow::Result<usize> {
    let today = day_of(now);
    let mut raised = 0;
    let mut after = Uuid::nil();
    loop {
        let mut tx = db::begin_service(pool).await?;
        let due: Vec<(Uuid, Uuid)> = sqlx::query_as(
            "select usage_record_id, enterprise_id from rent_schedule \
             where next_close <= $1 and usage_record_id > $2 \
             order by usage_record_id limit $3",
        )
        .bind(today)
        .bind(after)
        .bind(BATCH)
        .fetch_all(&mut *tx)
        .await?;
        drop(tx);
        for &(record, enterprise) in &due {
            // One failing schedule must not hold the others back: it is
            // tried again next round.
            match bill_one(pool, enterprise, record, now).await {
                Ok(n) => raised += n,
                Err(err) => {
                    tracing::warn!(%record, error = %format!("{err:#}"), "Rent schedule not billed.");
                }
            }
        }
        match due.last() {
            Some(&(last, _)) if due.len() as i64 == BATCH => after = last,
            _ => return Ok(raised),
        }
    }
}

async fn bill_one(
    pool: &PgPool,
    enterprise_id: Uuid,
    usage_record_id: Uuid,
    now: DateTime<Utc>,
) -> anyhow::Result<usize> {
    let mut tx = db::begin_service(pool).await?;
    let raised = bill(&mut tx, enterprise_id, usage_record_id, now).await?;
    tx.commit().await?;
    Ok(raised.len())
}

/// Ticks every hour until shutdown.
pub async fn run(pool: PgPool, shutdown: Shutdown) {
    loop {
        match tick(&pool, Utc::now()).await {
            Ok(0) => {}
            Ok(bills) => tracing::info!(bills, "Rent instalments raised."),
            Err(err) => tracing::warn!(error = %format!("{err:#}"), "Rent tick failed."),
        }
        tokio::select! {
            () = tokio::time::sleep(EVERY) => {}
            () = shutdown.wait() => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    fn lease(start: NaiveDate, end: NaiveDate, ended: bool) -> Lease {
        Lease {
            usage_record_id: Uuid::nil(),
            enterprise_id: Uuid::nil(),
            org_id: Uuid::nil(),
            vehicle_id: Uuid::nil(),
            plate_number: "粤B12345".into(),
            contract_no: "ZL-1".into(),
            // 10:00 local: the day counts whatever the hour.
            start_time: midnight(start) + chrono::Duration::hours(10),
            end_time: Some(midnight(end) + chrono::Duration::hours(10)),
            ended,
            monthly_rent_fen: 310_000,
            payment_day: 10,
            revision: Utc::now(),
        }
    }

    #[test]
    fn first_and_last_months_are_prorated_by_days_and_a_year_costs_twelve_rents() {
        let l = lease(day(2026, 1, 15), day(2027, 1, 15), false);
        let all = due_periods(&l, None, day(2027, 3, 1));
        assert_eq!(all.len(), 13);
        // Jan 15–31: 17 of 31 days.
        assert_eq!((all[0].days(), all[0].month_days()), (17, 31));
        assert_eq!(all[0].amount(310_000), 170_000);
        assert_eq!(all[1].amount(310_000), 310_000);
        assert_eq!(
            (all[12].start, all[12].end),
            (day(2027, 1, 1), day(2027, 1, 15))
        );
        assert_eq!(all[12].amount(310_000), 140_000);
        let total: i64 = all.iter().map(|p| p.amount(310_000)).sum();
        assert_eq!(total, 12 * 310_000);
        // One day of November: 45 / 30 = 1.5 fen rounds up, 44 / 30 down.
        let one = Period {
            month: Month::new(2026, 11).unwrap(),
            start: day(2026, 11, 1),
            end: day(2026, 11, 2),
        };
        assert_eq!((one.amount(45), one.amount(44)), (2, 1));
    }

    #[test]
    fn only_months_that_are_over_are_due_unless_the_lease_ended() {
        let l = lease(day(2026, 9, 20), day(2027, 9, 20), false);
        assert!(due_periods(&l, None, day(2026, 9, 30)).is_empty());
        let due = due_periods(&l, None, day(2026, 11, 29));
        assert_eq!(
            due.iter().map(|p| p.month.code()).collect::<Vec<_>>(),
            [202_609, 202_610]
        );
        assert_eq!(
            next_close(&l, Some(day(2026, 11, 1))),
            Some(day(2026, 12, 1))
        );
        // Ended on the 5th: the first days of November are due at once, and nothing after.
        let ended = lease(day(2026, 9, 20), day(2026, 11, 5), true);
        let due = due_periods(&ended, Some(day(2026, 11, 1)), day(2026, 11, 5));
        assert_eq!(due.len(), 1);
        assert_eq!(due[0].days(), 4);
        assert_eq!(next_close(&ended, Some(day(2026, 11, 5))), None);
        // Called off before it began: nothing at all.
        let off = lease(day(2026, 12, 1), day(2026, 11, 20), true);
        assert!(due_periods(&off, None, day(2026, 11, 29)).is_empty());
    }

    #[test]
    fn an_instalment_is_due_on_the_billing_day_of_the_next_month() {
        let due = billing_due(Month::new(2026, 12).unwrap(), 10);
        assert_eq!(day_of(due), day(2027, 1, 10));
        assert_eq!(due.to_rfc3339(), "2027-01-10T15:59:59+00:00");
    }
}

//! The daily and monthly operation logs as export kinds: each list's filter
//! (`handlers::daily_query`, `handlers::monthly_query`) and reach
//! (`store::filtered`), in the list's order (period newest first, then
//! vehicle) by keyset pages; a page key is the period's Beijing midnight
//! and the vehicle.

use std::marker::PhantomData;

use chrono::{Datelike, NaiveDate};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::{Cell, JobScope};
use fleetdesk_kit::list::Cursor;
use fleetdesk_proto::vehicle::v1 as pb;
use sqlx_postgres::PgConnection;
use sqlx_postgres::PgRow;
use uuid::Uuid;

use super::handlers;
use super::rollup::{slot_of, slot_start};
use super::store::{self, DayRow, LogQuery, MonthRow, Period};
use crate::context::Actor;
use crate::exports::{self, ListExport, NewJob, moment, text};

/// The kinds' names in `export_job.kind`.
pub const DAILY_KIND: &str = "operation_daily_logs";
pub const MONTHLY_KIND: &str = "operation_monthly_logs";

pub const DAILY_HEADER: [&str; 20] = [
    "日期",
    "车牌号",
    "车架号",
    "所属组织",
    "司机",
    "里程(km)",
    "起始里程(km)",
    "结束里程(km)",
    "行驶时长(时:分)",
    "怠速时长(时:分)",
    "在线时长(时:分)",
    "行程数",
    "最高速度(km/h)",
    "平均速度(km/h)",
    "耗电量(kWh)",
    "充电量(kWh)",
    "充电次数",
    "报警次数",
    "首次启动",
    "末次熄火",
];

pub const MONTHLY_HEADER: [&str; 14] = [
    "月份",
    "车牌号",
    "车架号",
    "所属组织",
    "里程(km)",
    "运营天数",
    "日均里程(km)",
    "行驶时长(时:分)",
    "怠速时长(时:分)",
    "耗电量(kWh)",
    "百公里电耗(kWh)",
    "充电量(kWh)",
    "充电次数",
    "报警次数",
];

/// The job an `ExportDailyOperationReports` request queues (its filter
/// checked by the handler).
pub fn daily_job(filter: &pb::ListDailyOperationReportsRequest) -> NewJob {
    let filters_json = serde_json::json!({
        "plateNumbers": filter.plate_numbers,
        "vins": filter.vins,
        "orgIds": filter.org_ids,
        "reportDate": exports::range_json(filter.report_date.as_ref()),
        "operatingOnly": filter.operating_only,
    });
    NewJob {
        kind: DAILY_KIND,
        name: "运营日报".to_owned(),
        module: "dailyLog",
        filter: prost::Message::encode_to_vec(filter),
        filters_json,
    }
}

/// The job an `ExportMonthlyOperationReports` request queues.
pub fn monthly_job(filter: &pb::ListMonthlyOperationReportsRequest) -> NewJob {
    let month = |m: Option<&fleetdesk_proto::common::v1::YearMonth>| {
        m.map(|m| format!("{:04}-{:02}", m.year, m.month))
    };
    let filters_json = serde_json::json!({
        "plateNumbers": filter.plate_numbers,
        "vins": filter.vins,
        "orgIds": filter.org_ids,
        "startMonth": month(filter.start_month.as_ref()),
        "endMonth": month(filter.end_month.as_ref()),
    });
    NewJob {
        kind: MONTHLY_KIND,
        name: "运营月报".to_owned(),
        module: "monthlyLog",
        filter: prost::Message::encode_to_vec(filter),
        filters_json,
    }
}

fn km(metres: i64) -> Cell {
    text(format!("{:.1}", metres as f64 / 1000.0))
}

fn kwh(wh: i64) -> Cell {
    text(format!("{:.1}", wh as f64 / 1000.0))
}

/// Energy used, "-" when unknown (no SOC in the fixes or no battery capacity).
fn used(wh: Option<i64>) -> Cell {
    wh.map_or(Cell::Label("-"), kwh)
}

fn hours_minutes(seconds: i64) -> Cell {
    let minutes = seconds.max(0) / 60;
    text(format!("{}:{:02}", minutes / 60, minutes % 60))
}

fn speed(kmh: f64) -> Cell {
    text(format!("{kmh:.1}"))
}

/// What the two logs' exports differ in: the period, the filter, the row
/// and its cells.
pub trait Log: Send + Sync + 'static {
    type Row: for<'r> sqlx::FromRow<'r, PgRow> + Send + Unpin;
    type Filter: prost::Message + Default;
    const PERIOD: Period;
    const HEADER: &'static [&'static str];

    /// The list's filter, checked (the handler's own reading).
    fn query(
        conn: &mut PgConnection,
        filter: &Self::Filter,
    ) -> impl Future<Output = Result<LogQuery, ServiceError>> + Send;

    /// The row's period (a day, or a month's first day) and vehicle.
    fn position(row: &Self::Row) -> (NaiveDate, Uuid);

    fn cells(row: Self::Row) -> Vec<Cell>;
}

/// A log as an export kind: `LogsExport::<Daily>`, `LogsExport::<Monthly>`.
#[derive(Debug)]
pub struct LogsExport<L>(PhantomData<L>);

impl<L> LogsExport<L> {
    pub const fn new() -> LogsExport<L> {
        LogsExport(PhantomData)
    }
}

impl<L> Default for LogsExport<L> {
    fn default() -> LogsExport<L> {
        LogsExport::new()
    }
}

impl<L: Log> ListExport for LogsExport<L> {
    type Scope = (Actor, LogQuery);
    type Row = L::Row;
    /// The period's Beijing midnight and the vehicle.
    type Key = Cursor;

    fn header(&self) -> Vec<String> {
        exports::header(L::HEADER)
    }

    async fn scope(
        &self,
        conn: &mut PgConnection,
        job: &JobScope,
    ) -> Result<Self::Scope, ServiceError> {
        let actor = exports::actor(job)?;
        let query = L::query(conn, &exports::filter::<L::Filter>(job)?).await?;
        Ok((actor, query))
    }

    async fn count(
        &self,
        conn: &mut PgConnection,
        (actor, query): &Self::Scope,
    ) -> Result<i64, ServiceError> {
        Ok(store::totals(conn, L::PERIOD, actor, query).await?.rows)
    }

    async fn page(
        &self,
        conn: &mut PgConnection,
        (actor, query): &Self::Scope,
        after: Option<Cursor>,
        limit: i64,
    ) -> Result<Vec<L::Row>, ServiceError> {
        let after = after.map(|c| (slot_of(c.at).0, c.id));
        store::page(conn, L::PERIOD, actor, query, after, limit).await
    }

    fn key(row: &L::Row) -> Cursor {
        let (period, vehicle) = L::position(row);
        Cursor {
            at: slot_start(period, 0),
            id: vehicle,
        }
    }

    fn cells(&self, row: L::Row) -> Vec<Cell> {
        L::cells(row)
    }
}

/// The daily log.
#[derive(Debug)]
pub struct Daily;

impl Log for Daily {
    type Row = DayRow;
    type Filter = pb::ListDailyOperationReportsRequest;
    const PERIOD: Period = Period::Day;
    const HEADER: &'static [&'static str] = &DAILY_HEADER;

    async fn query(
        conn: &mut PgConnection,
        filter: &Self::Filter,
    ) -> Result<LogQuery, ServiceError> {
        handlers::daily_query(conn, filter).await
    }

    fn position(row: &DayRow) -> (NaiveDate, Uuid) {
        (row.day, row.vehicle_id)
    }

    fn cells(row: DayRow) -> Vec<Cell> {
        let report = super::convert::day(Uuid::nil(), row.clone());
        vec![
            text(row.day.format("%Y-%m-%d").to_string()),
            Cell::from(row.plate_number),
            Cell::from(row.vin),
            Cell::from(row.org_name.unwrap_or_default()),
            Cell::from(row.driver_name.unwrap_or_default()),
            km(row.mileage_m),
            km(report.start_odometer_m),
            km(report.end_odometer_m),
            hours_minutes(row.driving_s),
            hours_minutes(row.idle_s),
            hours_minutes(row.online_s),
            text(row.trip_count.to_string()),
            speed(report.max_speed_kmh),
            speed(report.avg_speed_kmh),
            used(row.energy_consumed_wh),
            kwh(row.energy_charged_wh),
            text(row.charge_count.to_string()),
            text(row.alarm_count.to_string()),
            moment(row.first_start_at),
            moment(row.last_stop_at),
        ]
    }
}

/// The monthly log.
#[derive(Debug)]
pub struct Monthly;

impl Log for Monthly {
    type Row = MonthRow;
    type Filter = pb::ListMonthlyOperationReportsRequest;
    const PERIOD: Period = Period::Month;
    const HEADER: &'static [&'static str] = &MONTHLY_HEADER;

    async fn query(
        conn: &mut PgConnection,
        filter: &Self::Filter,
    ) -> Result<LogQuery, ServiceError> {
        handlers::monthly_query(conn, filter).await
    }

    fn position(row: &MonthRow) -> (NaiveDate, Uuid) {
        (row.month, row.vehicle_id)
    }

    fn cells(row: MonthRow) -> Vec<Cell> {
        let report = super::convert::month(Uuid::nil(), row.clone());
        vec![
            text(format!("{:04}-{:02}", row.month.year(), row.month.month())),
            Cell::from(row.plate_number),
            Cell::from(row.vin),
            Cell::from(row.org_name.unwrap_or_default()),
            km(row.mileage_m),
            text(row.operating_days.to_string()),
            km(report.avg_daily_mileage_m),
            hours_minutes(row.driving_s),
            hours_minutes(row.idle_s),
            used(row.energy_consumed_wh),
            if report.energy_consumed_known && row.mileage_m > 0 {
                kwh(report.energy_per_100km_wh)
            } else {
                Cell::Label("-")
            },
            kwh(row.energy_charged_wh),
            text(row.charge_count.to_string()),
            text(row.alarm_count.to_string()),
        ]
    }
}

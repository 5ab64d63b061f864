//! Operation logs (operationLog → dailyLog, monthlyLog; permission
//! `oss:asset:report`): per vehicle per Beijing day, over at most 92 days,
//! and per vehicle per month, over at most 12 months, each page with the
//! totals row over every matching row, and each log's export with the
//! list's filters. Distances in metres, durations in seconds, energy in Wh:
//! charged energy and charges from energy's settled sessions (on the day the
//! charging ended), energy used from the state of charge's drop times the
//! battery's capacity (null when either is unknown).

use axum::extract::State;
use chrono::{FixedOffset, NaiveDate};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use prost_types::Timestamp;
use serde::de;
use serde::{Deserialize, Deserializer, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::export::{ExportRecordBody, answer_started};
use crate::edge::paging::paging;
use crate::edge::query::{EdgeQuery, ExportQuery, batch, time_range};
use crate::edge::time::{instant, rfc3339};
use crate::envelope::{ApiError, ApiResult, Envelope, Ok, OkWith};
use crate::routes::energy::convert::{month, month_text};
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_daily_operation_logs))
        .routes(routes!(export_daily_operation_logs))
        .routes(routes!(list_monthly_operation_logs))
        .routes(routes!(export_monthly_operation_logs))
}

/// What a value that is no `yyyy-MM-dd` is refused with.
const BAD_DATE: &str = "日期格式应为 yyyy-MM-dd";

/// A report day (`yyyy-MM-dd` only: a report counts whole Beijing days);
/// `end` makes it exclusive at the next midnight so the day is included.
fn report_day<'de, D: Deserializer<'de>>(d: D, end: bool) -> Result<Option<Timestamp>, D::Error> {
    match Option::<String>::deserialize(d)?.as_deref() {
        None => Result::Ok(None),
        Some(text) => NaiveDate::parse_from_str(text, "%Y-%m-%d")
            .ok()
            .and_then(|_| instant(text, end))
            .map(|t| Some(fleetdesk_kit::convert::timestamp(t)))
            .ok_or_else(|| de::Error::custom(BAD_DATE)),
    }
}

fn first_day<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Timestamp>, D::Error> {
    report_day(d, false)
}

fn last_day<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Timestamp>, D::Error> {
    report_day(d, true)
}

/// A report day's Beijing midnight as its date, `yyyy-MM-dd`; empty when absent.
fn beijing_date(ts: Option<&Timestamp>) -> String {
    let beijing = FixedOffset::east_opt(8 * 3600).expect("UTC+8 is a valid offset");
    ts.and_then(fleetdesk_kit::convert::datetime)
        .map(|t| t.with_timezone(&beijing).format("%Y-%m-%d").to_string())
        .unwrap_or_default()
}

/// The totals row over every matching row (not only the page).
#[derive(Debug, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OperationLogTotalsBody {
    pub mileage_m: i64,
    pub driving_seconds: i64,
    pub energy_consumed_wh: i64,
    pub energy_charged_wh: i64,
    pub charge_count: i32,
    pub alarm_count: i32,
}

impl From<pb::OperationReportTotals> for OperationLogTotalsBody {
    fn from(t: pb::OperationReportTotals) -> Self {
        OperationLogTotalsBody {
            mileage_m: t.mileage_m,
            driving_seconds: t.driving_seconds,
            energy_consumed_wh: t.energy_consumed_wh,
            energy_charged_wh: t.energy_charged_wh,
            charge_count: t.charge_count,
            alarm_count: t.alarm_count,
        }
    }
}

/// One vehicle's operation on one Beijing day.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DailyOperationLogBody {
    pub vehicle_id: String,
    pub plate_number: String,
    pub vin: String,
    pub org_id: String,
    pub org_name: String,
    /// The day's driver: the vehicle's bound driver when the day's first
    /// fixes were counted; empty without one.
    pub driver_name: String,
    /// The Beijing day, yyyy-MM-dd.
    pub report_date: String,
    pub mileage_m: i64,
    pub start_odometer_m: i64,
    pub end_odometer_m: i64,
    /// Moving with ignition on.
    pub driving_seconds: i64,
    /// Stationary with ignition on.
    pub idle_seconds: i64,
    pub online_seconds: i64,
    pub trip_count: i32,
    pub max_speed_kmh: f64,
    /// Over driving time.
    pub avg_speed_kmh: f64,
    /// The state of charge's drop over the day times the battery's
    /// capacity; null without a SOC in the day's fixes or a capacity.
    pub energy_consumed_wh: Option<i64>,
    /// Energy of the sessions whose charging ended this day.
    pub energy_charged_wh: i64,
    pub charge_count: i32,
    pub alarm_count: i32,
    /// First ignition-on of the day (RFC 3339); empty without one.
    pub first_start_time: String,
    /// Last ignition-off of the day (RFC 3339); empty without one.
    pub last_stop_time: String,
}

impl From<pb::DailyOperationReport> for DailyOperationLogBody {
    fn from(r: pb::DailyOperationReport) -> Self {
        DailyOperationLogBody {
            vehicle_id: r.vehicle_id,
            plate_number: r.plate_number,
            vin: r.vin,
            org_id: r.org_id,
            org_name: r.org_name,
            driver_name: r.driver_name,
            report_date: beijing_date(r.report_date.as_ref()),
            mileage_m: r.mileage_m,
            start_odometer_m: r.start_odometer_m,
            end_odometer_m: r.end_odometer_m,
            driving_seconds: r.driving_seconds,
            idle_seconds: r.idle_seconds,
            online_seconds: r.online_seconds,
            trip_count: r.trip_count,
            max_speed_kmh: r.max_speed_kmh,
            avg_speed_kmh: r.avg_speed_kmh,
            energy_consumed_wh: r.energy_consumed_known.then_some(r.energy_consumed_wh),
            energy_charged_wh: r.energy_charged_wh,
            charge_count: r.charge_count,
            alarm_count: r.alarm_count,
            first_start_time: rfc3339(r.first_start_time.as_ref()),
            last_stop_time: rfc3339(r.last_stop_time.as_ref()),
        }
    }
}

/// One vehicle's operation in one month.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MonthlyOperationLogBody {
    pub vehicle_id: String,
    pub plate_number: String,
    pub vin: String,
    pub org_id: String,
    pub org_name: String,
    /// yyyy-MM.
    pub month: String,
    pub mileage_m: i64,
    /// Days with any mileage.
    pub operating_days: i32,
    pub driving_seconds: i64,
    pub idle_seconds: i64,
    /// The sum of the days' energy used; null while no day has one.
    pub energy_consumed_wh: Option<i64>,
    pub energy_charged_wh: i64,
    pub charge_count: i32,
    pub alarm_count: i32,
    pub violation_count: i32,
    /// mileageM / operatingDays.
    pub avg_daily_mileage_m: i64,
    /// Energy used per 100 km; 0 without mileage or energy used.
    pub energy_per_100km_wh: i64,
}

impl From<pb::MonthlyOperationReport> for MonthlyOperationLogBody {
    fn from(r: pb::MonthlyOperationReport) -> Self {
        MonthlyOperationLogBody {
            vehicle_id: r.vehicle_id,
            plate_number: r.plate_number,
            vin: r.vin,
            org_id: r.org_id,
            org_name: r.org_name,
            month: month_text(r.month.as_ref()),
            mileage_m: r.mileage_m,
            operating_days: r.operating_days,
            driving_seconds: r.driving_seconds,
            idle_seconds: r.idle_seconds,
            energy_consumed_wh: r.energy_consumed_known.then_some(r.energy_consumed_wh),
            energy_charged_wh: r.energy_charged_wh,
            charge_count: r.charge_count,
            alarm_count: r.alarm_count,
            violation_count: r.violation_count,
            avg_daily_mileage_m: r.avg_daily_mileage_m,
            energy_per_100km_wh: r.energy_per_100km_wh,
        }
    }
}

/// A page of daily logs with the totals over every matching day.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DailyOperationLogPage {
    pub list: Vec<DailyOperationLogBody>,
    pub total: i64,
    pub totals: OperationLogTotalsBody,
}

/// A page of monthly logs with the totals over every matching month.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MonthlyOperationLogPage {
    pub list: Vec<MonthlyOperationLogBody>,
    pub total: i64,
    pub totals: OperationLogTotalsBody,
}

/// Filters of the daily log (repeat a key for several values).
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct DailyOperationLogParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    /// Plates, at most 250.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub plate_numbers: Vec<String>,
    /// VINs, at most 250.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub vins: Vec<String>,
    /// Organisations with their subtrees.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub org_ids: Vec<String>,
    /// Required: the first Beijing day (yyyy-MM-dd); at most 92 days with the last.
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "first_day")]
    pub report_date_start: Option<Timestamp>,
    /// Required: the last Beijing day (yyyy-MM-dd), included.
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "last_day")]
    pub report_date_end: Option<Timestamp>,
    /// Only days with mileage.
    #[serde(default)]
    pub operating_only: bool,
}

impl DailyOperationLogParams {
    /// The daily log's filter (the list and its export).
    fn filter(self) -> Result<pb::ListDailyOperationReportsRequest, ApiError> {
        Result::Ok(pb::ListDailyOperationReportsRequest {
            page: Some(paging(self.page, self.size)?),
            plate_numbers: self.plate_numbers,
            vins: self.vins,
            org_ids: self.org_ids,
            report_date: time_range(self.report_date_start, self.report_date_end),
            operating_only: self.operating_only,
        })
    }
}

#[utoipa::path(
    get, path = "/reports/daily-logs", tag = "reports",
    params(DailyOperationLogParams),
    responses((status = 200, description = "Daily operation logs in the caller's data scope with the totals over every matching day; 4000 without a day range or with one over 92 days", body = Envelope<DailyOperationLogPage>)),
    security(("token" = ["oss:asset:report"]))
)]
async fn list_daily_operation_logs(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<DailyOperationLogParams>,
) -> ApiResult<DailyOperationLogPage> {
    let answer = state
        .telemetry()
        .list_daily_operation_reports(state.as_user(&principal, query.filter()?))
        .await?
        .into_inner();
    Result::Ok(Ok(DailyOperationLogPage {
        list: answer.reports.into_iter().map(Into::into).collect(),
        total: answer.page.map_or(0, |p| p.total),
        totals: answer.totals.unwrap_or_default().into(),
    }))
}

#[utoipa::path(
    post, path = "/reports/daily-logs/export", tag = "reports",
    params(DailyOperationLogParams),
    responses((status = 200, description = "The export record of the daily logs with the list's filters and data scope (paging ignored; newest day first, then vehicle); 4000 without a day range or with one over 92 days", body = Envelope<ExportRecordBody>)),
    security(("token" = ["oss:asset:report"]))
)]
async fn export_daily_operation_logs(
    State(state): State<AppState>,
    principal: Principal,
    ExportQuery(query): ExportQuery<DailyOperationLogParams>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportDailyOperationReportsRequest {
        filter: Some(query.filter()?),
    };
    let answer = state
        .telemetry()
        .export_daily_operation_reports(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}

/// Filters of the monthly log (repeat a key for several values).
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct MonthlyOperationLogParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    /// Plates, at most 250.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub plate_numbers: Vec<String>,
    /// VINs, at most 250.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub vins: Vec<String>,
    /// Organisations with their subtrees.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub org_ids: Vec<String>,
    /// Required: the first month (yyyy-MM), inclusive.
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "month")]
    pub start_month: Option<common::YearMonth>,
    /// Required: the last month (yyyy-MM), inclusive; under 12 months after the first.
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "month")]
    pub end_month: Option<common::YearMonth>,
}

impl MonthlyOperationLogParams {
    /// The monthly log's filter (the list and its export).
    fn filter(self) -> Result<pb::ListMonthlyOperationReportsRequest, ApiError> {
        Result::Ok(pb::ListMonthlyOperationReportsRequest {
            page: Some(paging(self.page, self.size)?),
            plate_numbers: self.plate_numbers,
            vins: self.vins,
            org_ids: self.org_ids,
            start_month: self.start_month,
            end_month: self.end_month,
        })
    }
}

#[utoipa::path(
    get, path = "/reports/monthly-logs", tag = "reports",
    params(MonthlyOperationLogParams),
    responses((status = 200, description = "Monthly operation logs in the caller's data scope with the totals over every matching month; 4000 without both months, with the end before the start or 12 months or more apart", body = Envelope<MonthlyOperationLogPage>)),
    security(("token" = ["oss:asset:report"]))
)]
async fn list_monthly_operation_logs(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<MonthlyOperationLogParams>,
) -> ApiResult<MonthlyOperationLogPage> {
    let answer = state
        .telemetry()
        .list_monthly_operation_reports(state.as_user(&principal, query.filter()?))
        .await?
        .into_inner();
    Result::Ok(Ok(MonthlyOperationLogPage {
        list: answer.reports.into_iter().map(Into::into).collect(),
        total: answer.page.map_or(0, |p| p.total),
        totals: answer.totals.unwrap_or_default().into(),
    }))
}

#[utoipa::path(
    post, path = "/reports/monthly-logs/export", tag = "reports",
    params(MonthlyOperationLogParams),
    responses((status = 200, description = "The export record of the monthly logs with the list's filters and data scope (paging ignored; newest month first, then vehicle); 4000 as the list", body = Envelope<ExportRecordBody>)),
    security(("token" = ["oss:asset:report"]))
)]
async fn export_monthly_operation_logs(
    State(state): State<AppState>,
    principal: Principal,
    ExportQuery(query): ExportQuery<MonthlyOperationLogParams>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportMonthlyOperationReportsRequest {
        filter: Some(query.filter()?),
    };
    let answer = state
        .telemetry()
        .export_monthly_operation_reports(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edge::query::{ListQuery, from_query};
    use crate::envelope::ApiError;

    fn daily(raw: &str) -> Result<DailyOperationLogParams, ApiError> {
        from_query(&ListQuery::parse(raw)?)
    }

    #[test]
    fn report_days_are_whole_beijing_days() {
        let q = daily("reportDateStart=2026-11-01&reportDateEnd=2026-11-07&plateNumbers=A&plateNumbers=B&operatingOnly=true").unwrap();
        // 2026-11-01 00:00 +08:00 and 2026-11-08 00:00 +08:00.
        assert_eq!(q.report_date_start.unwrap().seconds, 1_793_462_400);
        assert_eq!(
            q.report_date_end.unwrap().seconds,
            1_793_462_400 + 7 * 86_400
        );
        assert_eq!(q.plate_numbers, ["A", "B"]);
        assert!(q.operating_only);
        assert!(daily("reportDateStart=2026-11-01%2010:00:00").is_err());
        assert!(daily("reportDateEnd=2026-13-01").is_err());
    }

    #[test]
    fn a_report_date_reads_as_its_beijing_day() {
        let midnight = Timestamp {
            seconds: 1_793_462_400,
            nanos: 0,
        };
        assert_eq!(beijing_date(Some(&midnight)), "2026-11-01");
        assert_eq!(beijing_date(None), "");
    }
}

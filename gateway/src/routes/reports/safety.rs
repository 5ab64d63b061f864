//! The safety report (carSafetyReport; reading needs `oss:asset:report`,
//! editing the weights `as:alarm:rule`): alarms per 100 km by alarm type,
//! safety scores (100 minus the weighted alarms per 100 km; none under the
//! minimum mileage) ranked by vehicle, driver or organisation, a weekly
//! trend, the enterprise's weights and the ranking's export. A range is
//! whole Beijing days, at most 366. Distances in metres.

use axum::extract::State;
use chrono::FixedOffset;
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::enums::edge_enum;
use crate::edge::export::{ExportRecordBody, answer_started};
use crate::edge::paging::paging;
use crate::edge::query::{EdgeQuery, ExportQuery, batch};
use crate::edge::time::instant;
use crate::envelope::{ApiError, ApiResult, Envelope, Ok, OkWith, Page};
use crate::extract::TrimmedJson;
use crate::routes::risk::alarms::AlarmType;
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(get_safety_summary))
        .routes(routes!(list_safety_ranking))
        .routes(routes!(export_safety_ranking))
        .routes(routes!(get_safety_trend))
        .routes(routes!(get_safety_weights, update_safety_weights))
}

edge_enum!(
    /// What a safety ranking ranks: vehicles, drivers (the driver of each
    /// operation day) or organisations (the vehicles' own).
    SafetyDimension => pb::SafetyDimension { Vehicle, Driver, Org }
);

/// The report's range and organisations.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct SafetyParams {
    /// Required: the first Beijing day (yyyy-MM-dd); at most 366 days with the last.
    #[serde(default)]
    pub report_date_start: String,
    /// Required: the last Beijing day (yyyy-MM-dd), included.
    #[serde(default)]
    pub report_date_end: String,
    /// Organisations with their subtrees.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub org_ids: Vec<String>,
}

/// A day of the range: `yyyy-MM-dd`, the end exclusive at the next midnight.
fn report_day(value: &str, end: bool) -> Result<Option<prost_types::Timestamp>, ApiError> {
    if value.is_empty() {
        return Result::Ok(None);
    }
    chrono::NaiveDate::parse_from_str(value, "%Y-%m-%d")
        .ok()
        .and_then(|_| instant(value, end))
        .map(|t| Some(fleetdesk_kit::convert::timestamp(t)))
        .ok_or_else(|| ApiError::invalid("reportDate", "日期格式应为 yyyy-MM-dd"))
}

/// The service's filter of a range and organisations.
fn safety_filter(start: &str, end: &str, org_ids: &[String]) -> Result<pb::SafetyFilter, ApiError> {
    Result::Ok(pb::SafetyFilter {
        report_date: Some(common::TimeRange {
            start: report_day(start, false)?,
            end: report_day(end, true)?,
        }),
        org_ids: org_ids.to_vec(),
    })
}

impl SafetyParams {
    fn filter(&self) -> Result<pb::SafetyFilter, ApiError> {
        safety_filter(
            &self.report_date_start,
            &self.report_date_end,
            &self.org_ids,
        )
    }
}

/// One alarm type's alarms over the range.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SafetyTypeRateBody {
    pub alarm_type: Option<AlarmType>,
    pub alarm_count: i64,
    /// Per 100 km of the same rows' mileage; 0 without mileage.
    pub per_100km: f64,
    /// The enterprise's weight of the type.
    pub weight: f64,
}

impl From<pb::SafetyTypeRate> for SafetyTypeRateBody {
    fn from(r: pb::SafetyTypeRate) -> Self {
        SafetyTypeRateBody {
            alarm_type: AlarmType::from_pb(r.alarm_type),
            alarm_count: r.alarm_count,
            per_100km: r.per_100km,
            weight: r.weight,
        }
    }
}

/// The range's mileage and alarms, by alarm type.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SafetySummaryBody {
    pub mileage_m: i64,
    pub alarm_count: i64,
    pub alarms_per_100km: f64,
    /// Every alarm type, in type order.
    pub by_type: Vec<SafetyTypeRateBody>,
    /// Vehicles with operation days in the range.
    pub vehicle_count: i32,
    /// Below this mileage over the range a row has no score.
    pub min_mileage_m: i64,
}

#[utoipa::path(
    get, path = "/reports/safety/summary", tag = "reports",
    params(SafetyParams),
    responses((status = 200, description = "Alarms per 100 km by alarm type over the range in the caller's data scope; 4000 without a range or with one over 366 days", body = Envelope<SafetySummaryBody>)),
    security(("token" = ["oss:asset:report"]))
)]
async fn get_safety_summary(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<SafetyParams>,
) -> ApiResult<SafetySummaryBody> {
    let request = pb::GetSafetySummaryRequest {
        filter: Some(query.filter()?),
    };
    let r = state
        .telemetry()
        .get_safety_summary(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(SafetySummaryBody {
        mileage_m: r.mileage_m,
        alarm_count: r.alarm_count,
        alarms_per_100km: r.alarms_per_100km,
        by_type: r.by_type.into_iter().map(Into::into).collect(),
        vehicle_count: r.vehicle_count,
        min_mileage_m: r.min_mileage_m,
    }))
}

/// A ranking's filters, dimension and order.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct SafetyRankingParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    /// Required: the first Beijing day (yyyy-MM-dd); at most 366 days with the last.
    #[serde(default)]
    pub report_date_start: String,
    /// Required: the last Beijing day (yyyy-MM-dd), included.
    #[serde(default)]
    pub report_date_end: String,
    /// Organisations with their subtrees.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub org_ids: Vec<String>,
    /// VEHICLE when absent.
    #[param(inline)]
    pub dimension: Option<SafetyDimension>,
    /// Highest score first; by default the lowest (worst) first.
    #[serde(default)]
    pub best_first: bool,
}

impl SafetyRankingParams {
    fn filter(&self) -> Result<pb::SafetyFilter, ApiError> {
        safety_filter(
            &self.report_date_start,
            &self.report_date_end,
            &self.org_ids,
        )
    }
}

/// One vehicle, driver or organisation of a ranking.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SafetyRankingRowBody {
    /// The vehicle's, driver's or organisation's id.
    pub id: String,
    /// Plate number, driver name or organisation name.
    pub name: String,
    pub org_id: String,
    pub org_name: String,
    pub mileage_m: i64,
    pub alarm_count: i64,
    pub alarms_per_100km: f64,
    /// 0-100, one decimal; null under the minimum mileage.
    pub score: Option<f64>,
    /// Position in the ranking's order, from 1.
    pub rank: i32,
    /// Alarm types with alarms.
    pub by_type: Vec<SafetyTypeRateBody>,
    /// Vehicles counted (1 for a vehicle).
    pub vehicle_count: i32,
}

impl From<pb::SafetyRankingRow> for SafetyRankingRowBody {
    fn from(r: pb::SafetyRankingRow) -> Self {
        SafetyRankingRowBody {
            id: r.id,
            name: r.name,
            org_id: r.org_id,
            org_name: r.org_name,
            mileage_m: r.mileage_m,
            alarm_count: r.alarm_count,
            alarms_per_100km: r.alarms_per_100km,
            score: r.score,
            rank: r.rank,
            by_type: r.by_type.into_iter().map(Into::into).collect(),
            vehicle_count: r.vehicle_count,
        }
    }
}

#[utoipa::path(
    get, path = "/reports/safety/ranking", tag = "reports",
    params(SafetyRankingParams),
    responses((status = 200, description = "Vehicles, drivers or organisations by safety score, worst first unless bestFirst; rows without a score (under the minimum mileage) last; 4000 without a range or with one over 366 days", body = Envelope<Page<SafetyRankingRowBody>>)),
    security(("token" = ["oss:asset:report"]))
)]
async fn list_safety_ranking(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<SafetyRankingParams>,
) -> ApiResult<Page<SafetyRankingRowBody>> {
    let request = pb::ListSafetyRankingRequest {
        filter: Some(query.filter()?),
        dimension: query.dimension.map_or(0, i32::from),
        best_first: query.best_first,
        page: Some(paging(query.page, query.size)?),
    };
    let answer = state
        .telemetry()
        .list_safety_ranking(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer.rows.into_iter().map(Into::into).collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

#[utoipa::path(
    post, path = "/reports/safety/ranking/export", tag = "reports",
    params(SafetyRankingParams),
    responses((status = 200, description = "The export record of the ranking with its filters, dimension, order and the caller's data scope (paging ignored)", body = Envelope<ExportRecordBody>)),
    security(("token" = ["oss:asset:report"]))
)]
async fn export_safety_ranking(
    State(state): State<AppState>,
    principal: Principal,
    ExportQuery(query): ExportQuery<SafetyRankingParams>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportSafetyRankingRequest {
        filter: Some(query.filter()?),
        dimension: query.dimension.map_or(0, i32::from),
        best_first: query.best_first,
    };
    let answer = state
        .telemetry()
        .export_safety_ranking(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}

/// One ISO week (Monday to Sunday, Beijing) of the trend.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SafetyWeekBody {
    pub iso_year: i32,
    pub iso_week: i32,
    /// The week's first day inside the range, yyyy-MM-dd.
    pub week_start: String,
    pub mileage_m: i64,
    pub alarm_count: i64,
    pub alarms_per_100km: f64,
    /// Average score of the vehicles at or over the minimum mileage that week; null without one.
    pub average_score: Option<f64>,
    pub scored_vehicles: i32,
}

/// The weeks of the range, oldest first.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SafetyTrendBody {
    pub weeks: Vec<SafetyWeekBody>,
}

#[utoipa::path(
    get, path = "/reports/safety/trend", tag = "reports",
    params(SafetyParams),
    responses((status = 200, description = "Per ISO week of the range: mileage, alarms, alarms per 100 km and the average vehicle score; 4000 without a range or with one over 366 days", body = Envelope<SafetyTrendBody>)),
    security(("token" = ["oss:asset:report"]))
)]
async fn get_safety_trend(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<SafetyParams>,
) -> ApiResult<SafetyTrendBody> {
    let request = pb::GetSafetyTrendRequest {
        filter: Some(query.filter()?),
    };
    let answer = state
        .telemetry()
        .get_safety_trend(state.as_user(&principal, request))
        .await?
        .into_inner();
    let beijing = FixedOffset::east_opt(8 * 3600).expect("UTC+8 is a valid offset");
    Result::Ok(Ok(SafetyTrendBody {
        weeks: answer
            .weeks
            .into_iter()
            .map(|w| SafetyWeekBody {
                iso_year: w.iso_year,
                iso_week: w.iso_week,
                week_start: w
                    .week_start
                    .as_ref()
                    .and_then(fleetdesk_kit::convert::datetime)
                    .map(|t| t.with_timezone(&beijing).format("%Y-%m-%d").to_string())
                    .unwrap_or_default(),
                mileage_m: w.mileage_m,
                alarm_count: w.alarm_count,
                alarms_per_100km: w.alarms_per_100km,
                average_score: w.average_score,
                scored_vehicles: w.scored_vehicles,
            })
            .collect(),
    }))
}

/// One alarm type's weight: what one alarm per 100 km takes off a score.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SafetyWeightBody {
    pub alarm_type: Option<AlarmType>,
    pub weight: f64,
    /// Set by the enterprise (otherwise the default).
    pub customized: bool,
}

/// Every alarm type's weight.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SafetyWeightsBody {
    pub weights: Vec<SafetyWeightBody>,
}

fn weights_body(weights: Vec<pb::SafetyWeight>) -> SafetyWeightsBody {
    SafetyWeightsBody {
        weights: weights
            .into_iter()
            .map(|w| SafetyWeightBody {
                alarm_type: AlarmType::from_pb(w.alarm_type),
                weight: w.weight,
                customized: w.customized,
            })
            .collect(),
    }
}

#[utoipa::path(
    get, path = "/reports/safety/weights", tag = "reports",
    responses((status = 200, description = "The enterprise's weight of every alarm type (defaults where unset)", body = Envelope<SafetyWeightsBody>)),
    security(("token" = ["oss:asset:report"]))
)]
async fn get_safety_weights(
    State(state): State<AppState>,
    principal: Principal,
) -> ApiResult<SafetyWeightsBody> {
    let answer = state
        .telemetry()
        .get_safety_weights(state.as_user(&principal, pb::GetSafetyWeightsRequest {}))
        .await?
        .into_inner();
    Result::Ok(Ok(weights_body(answer.weights)))
}

/// One weight to set.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SafetyWeightInput {
    pub alarm_type: AlarmType,
    /// 0-100, two decimals kept.
    pub weight: f64,
}

/// The weights to set; types not listed keep theirs.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SafetyWeightsForm {
    pub weights: Vec<SafetyWeightInput>,
}

#[utoipa::path(
    put, path = "/reports/safety/weights", tag = "reports",
    request_body = SafetyWeightsForm,
    responses((status = 200, description = "Every weight after the change (each change audited with its previous value); 4000 on weights out of 0-100, a type twice or none", body = Envelope<SafetyWeightsBody>)),
    security(("token" = ["as:alarm:rule"]))
)]
async fn update_safety_weights(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedJson(form): TrimmedJson<SafetyWeightsForm>,
) -> ApiResult<SafetyWeightsBody> {
    let request = pb::UpdateSafetyWeightsRequest {
        weights: form
            .weights
            .into_iter()
            .map(|w| pb::SafetyWeight {
                alarm_type: w.alarm_type.into(),
                weight: w.weight,
                customized: true,
            })
            .collect(),
    };
    let answer = state
        .telemetry()
        .update_safety_weights(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(weights_body(answer.weights)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edge::query::{ListQuery, from_query};

    fn ranking(raw: &str) -> Result<SafetyRankingParams, ApiError> {
        from_query(&ListQuery::parse(raw)?)
    }

    #[test]
    fn a_ranking_reads_whole_beijing_days_its_dimension_and_order() {
        let q = ranking(
            "reportDateStart=2026-11-01&reportDateEnd=2026-11-07&orgIds=a&orgIds=b&dimension=DRIVER&bestFirst=true",
        )
        .unwrap();
        assert_eq!(q.dimension, Some(SafetyDimension::Driver));
        assert!(q.best_first);
        let f = q.filter().unwrap();
        let range = f.report_date.unwrap();
        // 2026-11-01 00:00 +08:00 to 2026-11-08 00:00 +08:00.
        assert_eq!(range.start.unwrap().seconds, 1_793_462_400);
        assert_eq!(range.end.unwrap().seconds, 1_793_462_400 + 7 * 86_400);
        assert_eq!(f.org_ids, ["a", "b"]);
        let bad = ranking("reportDateStart=2026-11-01%2010:00:00").unwrap();
        assert!(bad.filter().is_err());
    }
}

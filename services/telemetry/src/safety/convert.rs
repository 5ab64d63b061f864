//! Safety-report requests and rows ↔ proto.

use std::collections::BTreeMap;

use chrono::Datelike;
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::list::TimeRange;
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use uuid::Uuid;

use super::domain::{self, DayRange};
use super::store::{Dimension, RankRow, WeekRow, Weight};
use crate::alarms::domain::AlarmKind;
use crate::operation::rollup::{slot_of, slot_start};

/// The filter's whole Beijing days: the end instant's day is included
/// unless it is that day's midnight (the edge sends the next midnight).
pub fn day_range(range: Option<&common::TimeRange>) -> Result<DayRange, ServiceError> {
    let range = TimeRange::parse("reportDate", range)?;
    let (Some(start), Some(end)) = (range.start, range.end) else {
        return Err(ServiceError::invalid("reportDate", "请选择日期范围"));
    };
    let (from, _) = slot_of(start);
    let (to, end_slot) = slot_of(end);
    let to = if end_slot == 0 && end.timestamp() % 60 == 0 && to > from {
        to.pred_opt().unwrap_or(to)
    } else {
        to
    };
    DayRange::new(from, to)
}

/// A filter's organisation ids.
pub fn org_ids(values: &[String]) -> Result<Vec<Uuid>, ServiceError> {
    values
        .iter()
        .filter(|v| !v.trim().is_empty())
        .map(|v| Uuid::parse_str(v.trim()).map_err(|_| ServiceError::invalid("orgIds", "编号无效")))
        .collect()
}

pub fn dimension(value: i32) -> Result<Dimension, ServiceError> {
    match pb::SafetyDimension::try_from(value) {
        Ok(pb::SafetyDimension::Unspecified | pb::SafetyDimension::Vehicle) => {
            Ok(Dimension::Vehicle)
        }
        Ok(pb::SafetyDimension::Driver) => Ok(Dimension::Driver),
        Ok(pb::SafetyDimension::Org) => Ok(Dimension::Org),
        Err(_) => Err(ServiceError::invalid("dimension", "排名维度无效")),
    }
}

pub fn weight(w: &Weight) -> pb::SafetyWeight {
    let Weight {
        kind,
        weight,
        customized,
    } = *w;
    pb::SafetyWeight {
        alarm_type: kind.pb(),
        weight,
        customized,
    }
}

/// The weights an update sends, checked (an alarm type at most once).
pub fn weight_changes(weights: &[pb::SafetyWeight]) -> Result<Vec<(AlarmKind, f64)>, ServiceError> {
    let mut out: BTreeMap<i16, (AlarmKind, f64)> = BTreeMap::new();
    for w in weights {
        let pb::SafetyWeight {
            alarm_type,
            weight,
            customized: _,
        } = w;
        let kind = AlarmKind::from_pb(*alarm_type)
            .ok_or_else(|| ServiceError::invalid("weights", "报警类型无效"))?;
        if out
            .insert(i16::from(kind), (kind, domain::check_weight(*weight)?))
            .is_some()
        {
            return Err(ServiceError::invalid("weights", "报警类型重复"));
        }
    }
    if out.is_empty() {
        return Err(ServiceError::invalid("weights", "请填写权重"));
    }
    Ok(out.into_values().collect())
}

fn weight_of(weights: &[Weight], code: i16) -> f64 {
    weights
        .iter()
        .find(|w| i16::from(w.kind) == code)
        .map_or(0.0, |w| w.weight)
}

/// Alarm counts by type as rates over `mileage_m`; every type when `all`,
/// else the types with alarms.
pub fn type_rates(
    counts: &BTreeMap<i16, i64>,
    mileage_m: i64,
    weights: &[Weight],
    all: bool,
) -> Vec<pb::SafetyTypeRate> {
    weights
        .iter()
        .filter_map(|w| {
            let code = i16::from(w.kind);
            let count = counts.get(&code).copied().unwrap_or(0);
            (all || count > 0).then(|| pb::SafetyTypeRate {
                alarm_type: w.kind.pb(),
                alarm_count: count,
                per_100km: domain::per_100km(count, mileage_m),
                weight: weight_of(weights, code),
            })
        })
        .collect()
}

pub fn rank_row(row: RankRow, weights: &[Weight]) -> pb::SafetyRankingRow {
    let RankRow {
        key,
        name,
        org_id,
        org_name,
        mileage_m,
        vehicles,
        alarm_count,
        penalty,
        by_type,
        rank,
        total: _,
    } = row;
    let counts: BTreeMap<i16, i64> = by_type.0.into_iter().collect();
    pb::SafetyRankingRow {
        id: key.to_string(),
        name: name.unwrap_or_default(),
        org_id: org_id.map(|o| o.to_string()).unwrap_or_default(),
        org_name: org_name.unwrap_or_default(),
        mileage_m,
        alarm_count,
        alarms_per_100km: domain::per_100km(alarm_count, mileage_m),
        score: domain::score(mileage_m, penalty),
        rank: i32::try_from(rank).unwrap_or(i32::MAX),
        by_type: type_rates(&counts, mileage_m, weights, false),
        vehicle_count: i32::try_from(vehicles).unwrap_or(i32::MAX),
    }
}

/// Every week the range touches, oldest first; a week without rows has
/// zeros and no score.
pub fn weeks(range: DayRange, rows: Vec<WeekRow>) -> Vec<pb::SafetyWeek> {
    let by_week: BTreeMap<_, _> = rows.into_iter().map(|r| (r.week, r)).collect();
    range
        .weeks()
        .into_iter()
        .map(|monday| {
            let iso = monday.iso_week();
            let start = monday.max(range.from);
            let (mileage_m, alarm_count, average_score, scored) =
                by_week.get(&monday).map_or((0, 0, None, 0), |r| {
                    (r.mileage_m, r.alarm_count, r.average_score, r.scored)
                });
            pb::SafetyWeek {
                iso_year: iso.year(),
                iso_week: i32::try_from(iso.week()).unwrap_or_default(),
                week_start: Some(timestamp(slot_start(start, 0))),
                mileage_m,
                alarm_count,
                alarms_per_100km: domain::per_100km(alarm_count, mileage_m),
                average_score: average_score.map(|s| (s * 10.0).round() / 10.0),
                scored_vehicles: i32::try_from(scored).unwrap_or(i32::MAX),
            }
        })
        .collect()
}

//! Operation-log rows → proto.

use chrono::Datelike;
use fleetdesk_kit::convert::timestamp;
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use uuid::Uuid;

use super::rollup::slot_start;
use super::store::{DayRow, MonthRow, TotalsRow};

fn count(n: i64) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// Mileage over driving time, km/h with one decimal.
fn average_kmh(mileage_m: i64, driving_s: i64) -> f64 {
    if driving_s <= 0 {
        return 0.0;
    }
    (mileage_m as f64 / driving_s as f64 * 3.6 * 10.0).round() / 10.0
}

pub fn day(enterprise: Uuid, r: DayRow) -> pb::DailyOperationReport {
    pb::DailyOperationReport {
        enterprise_id: enterprise.to_string(),
        org_id: r.org_id.to_string(),
        org_name: r.org_name.unwrap_or_default(),
        vehicle_id: r.vehicle_id.to_string(),
        plate_number: r.plate_number,
        vin: r.vin,
        driver_name: r.driver_name.unwrap_or_default(),
        // The day's Beijing midnight.
        report_date: Some(timestamp(slot_start(r.day, 0))),
        mileage_m: r.mileage_m,
        start_odometer_m: r.min_odometer_m.unwrap_or_default(),
        end_odometer_m: r.max_odometer_m.unwrap_or_default(),
        driving_seconds: r.driving_s,
        idle_seconds: r.idle_s,
        online_seconds: r.online_s,
        trip_count: r.trip_count,
        max_speed_kmh: f64::from(r.max_speed_dkmh) / 10.0,
        avg_speed_kmh: average_kmh(r.mileage_m, r.driving_s),
        alarm_count: count(r.alarm_count),
        first_start_time: r.first_start_at.map(timestamp),
        last_stop_time: r.last_stop_at.map(timestamp),
        energy_consumed_wh: r.energy_consumed_wh.unwrap_or_default(),
        energy_consumed_known: r.energy_consumed_wh.is_some(),
        energy_charged_wh: r.energy_charged_wh,
        charge_count: r.charge_count,
    }
}

pub fn month(enterprise: Uuid, r: MonthRow) -> pb::MonthlyOperationReport {
    pb::MonthlyOperationReport {
        enterprise_id: enterprise.to_string(),
        org_id: r.org_id.to_string(),
        org_name: r.org_name.unwrap_or_default(),
        vehicle_id: r.vehicle_id.to_string(),
        plate_number: r.plate_number,
        vin: r.vin,
        month: Some(common::YearMonth {
            year: r.month.year(),
            month: r.month.month() as i32,
        }),
        mileage_m: r.mileage_m,
        operating_days: r.operating_days,
        driving_seconds: r.driving_s,
        idle_seconds: r.idle_s,
        alarm_count: count(r.alarm_count),
        avg_daily_mileage_m: if r.operating_days > 0 {
            r.mileage_m / i64::from(r.operating_days)
        } else {
            0
        },
        energy_consumed_wh: r.energy_consumed_wh.unwrap_or_default(),
        energy_consumed_known: r.energy_consumed_wh.is_some(),
        energy_per_100km_wh: match r.energy_consumed_wh {
            Some(wh) if r.mileage_m > 0 => wh * 100_000 / r.mileage_m,
            _ => 0,
        },
        energy_charged_wh: r.energy_charged_wh,
        charge_count: r.charge_count,
        ..Default::default()
    }
}

pub fn totals(t: &TotalsRow) -> pb::OperationReportTotals {
    pb::OperationReportTotals {
        mileage_m: t.mileage_m.unwrap_or_default(),
        driving_seconds: t.driving_s.unwrap_or_default(),
        energy_consumed_wh: t.energy_consumed_wh.unwrap_or_default(),
        energy_charged_wh: t.energy_charged_wh.unwrap_or_default(),
        charge_count: count(t.charge_count.unwrap_or_default()),
        ..Default::default()
    }
}

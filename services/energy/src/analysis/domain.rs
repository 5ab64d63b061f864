//! The behaviour analysis' arithmetic, without the database: figures from
//! the summed sessions (averages, off-peak share, price per kWh) and the
//! distance side (cost and energy per 100 km) over the vehicles whose
//! odometer covers the range. A vehicle charged on cards of several
//! organisations lends each organisation its distance in proportion to the
//! energy it charged there, so organisation distances add up to the
//! vehicle's and nothing is counted twice.

use std::collections::{HashMap, HashSet};

use fleetdesk_proto::energy::v1 as pb;
use uuid::Uuid;

use crate::reports::{fen_per_mwh, per};

/// SOC buckets at plug-in: ten of 10 points each, the last including 100.
pub const SOC_BUCKETS: i32 = 10;

/// Sums over a set of settled sessions (the database adds them up).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, sqlx::FromRow)]
pub struct Sums {
    pub session_count: i64,
    pub energy_wh: i64,
    pub total_fen: i64,
    pub peak_wh: i64,
    pub flat_wh: i64,
    pub valley_wh: i64,
    pub unknown_wh: i64,
    pub start_soc_sum: i64,
    pub start_soc_count: i64,
    pub end_soc_sum: i64,
    pub end_soc_count: i64,
    pub vehicle_count: i64,
}

/// The vehicles with an odometer over the range, among a set: how many,
/// the metres they drove and what their sessions in the set charged and cost.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Driven {
    pub vehicles: i64,
    pub metres: f64,
    pub energy_wh: i64,
    pub total_fen: i64,
}

fn average(sum: i64, count: i64) -> Option<i32> {
    (count > 0).then(|| i32::try_from(per(sum, 1, count)).unwrap_or(i32::MAX))
}

fn int(n: i64) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// The figures of `sums`, with the distance side of `driven`.
pub fn figures(sums: &Sums, driven: &Driven) -> pb::ChargingBehaviorFigures {
    let metres = driven.metres.round() as i64;
    let per_100km = |amount: i64| (metres > 0).then(|| per(amount, 100_000, metres));
    pb::ChargingBehaviorFigures {
        session_count: sums.session_count,
        energy_wh: sums.energy_wh,
        total_fen: sums.total_fen,
        peak_energy_wh: sums.peak_wh,
        flat_energy_wh: sums.flat_wh,
        valley_energy_wh: sums.valley_wh,
        unknown_band_energy_wh: sums.unknown_wh,
        off_peak_share: if sums.energy_wh > 0 {
            sums.valley_wh as f64 / sums.energy_wh as f64
        } else {
            0.0
        },
        avg_price_fen_per_mwh: fen_per_mwh(sums.total_fen, sums.energy_wh),
        avg_start_soc_percent: average(sums.start_soc_sum, sums.start_soc_count),
        avg_end_soc_percent: average(sums.end_soc_sum, sums.end_soc_count),
        vehicle_count: int(sums.vehicle_count),
        vehicles_with_distance: int(driven.vehicles),
        distance_m: metres,
        fen_per_100km: per_100km(driven.total_fen),
        wh_per_100km: per_100km(driven.energy_wh),
    }
}

/// What one vehicle charged on one organisation's cards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, sqlx::FromRow)]
pub struct VehicleShare {
    pub org_id: Uuid,
    pub vehicle_id: Uuid,
    pub energy_wh: i64,
    pub total_fen: i64,
}

/// The distance side overall and per organisation, from what each vehicle
/// charged where (`shares`) and the metres each drove (`distances`;
/// vehicles without an odometer are absent).
pub fn driven(
    shares: &[VehicleShare],
    distances: &HashMap<Uuid, i64>,
) -> (Driven, HashMap<Uuid, Driven>) {
    // A vehicle's energy over every organisation, and in how many it charged.
    let mut vehicle_energy: HashMap<Uuid, (i64, i64)> = HashMap::new();
    for s in shares {
        let e = vehicle_energy.entry(s.vehicle_id).or_default();
        e.0 += s.energy_wh;
        e.1 += 1;
    }
    let mut overall = Driven::default();
    let mut orgs: HashMap<Uuid, Driven> = HashMap::new();
    let mut counted: HashSet<Uuid> = HashSet::new();
    for s in shares {
        let Some(&metres) = distances.get(&s.vehicle_id) else {
            continue;
        };
        let (energy, places) = vehicle_energy[&s.vehicle_id];
        let lent = if energy > 0 {
            metres as f64 * s.energy_wh as f64 / energy as f64
        } else {
            metres as f64 / places as f64
        };
        let org = orgs.entry(s.org_id).or_default();
        org.vehicles += 1;
        org.metres += lent;
        org.energy_wh += s.energy_wh;
        org.total_fen += s.total_fen;
        overall.energy_wh += s.energy_wh;
        overall.total_fen += s.total_fen;
        if counted.insert(s.vehicle_id) {
            overall.vehicles += 1;
            overall.metres += metres as f64;
        }
    }
    (overall, orgs)
}

/// The 24 hours of the day, each with its sessions (absent hours at zero).
pub fn hours(rows: &HashMap<i32, Sums>) -> Vec<pb::HourOfDayFigure> {
    (0..24)
        .map(|hour| {
            let sums = rows.get(&hour).copied().unwrap_or_default();
            pb::HourOfDayFigure {
                hour,
                session_count: sums.session_count,
                energy_wh: sums.energy_wh,
            }
        })
        .collect()
}

/// The SOC buckets at plug-in (absent buckets at zero).
pub fn soc_buckets(rows: &HashMap<i32, Sums>) -> Vec<pb::SocBucket> {
    (0..SOC_BUCKETS)
        .map(|bucket| pb::SocBucket {
            from_percent: bucket * 10,
            to_percent: bucket * 10 + 10,
            session_count: rows.get(&bucket).map_or(0, |s| s.session_count),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sums(energy_wh: i64, total_fen: i64, valley_wh: i64) -> Sums {
        Sums {
            session_count: 2,
            energy_wh,
            total_fen,
            valley_wh,
            flat_wh: energy_wh - valley_wh,
            start_soc_sum: 45,
            start_soc_count: 2,
            vehicle_count: 1,
            ..Sums::default()
        }
    }

    #[test]
    fn figures_give_prices_shares_and_per_100km_only_with_distance() {
        // 100 kWh for 80.00 元, 40 kWh of it in the valley.
        let f = figures(&sums(100_000, 8_000, 40_000), &Driven::default());
        assert_eq!(f.avg_price_fen_per_mwh, 80_000);
        assert!((f.off_peak_share - 0.4).abs() < 1e-12);
        // (45 / 2 = 22.5) rounds half up.
        assert_eq!(f.avg_start_soc_percent, Some(23));
        assert_eq!(f.avg_end_soc_percent, None);
        assert_eq!((f.fen_per_100km, f.wh_per_100km), (None, None));
        let driven = Driven {
            vehicles: 1,
            metres: 250_000.0,
            energy_wh: 100_000,
            total_fen: 8_000,
        };
        let f = figures(&sums(100_000, 8_000, 40_000), &driven);
        // 80.00 元 over 250 km: 32.00 元 and 40 kWh per 100 km.
        assert_eq!(f.fen_per_100km, Some(3_200));
        assert_eq!(f.wh_per_100km, Some(40_000));
        assert_eq!(f.distance_m, 250_000);
        let empty = figures(&Sums::default(), &Driven::default());
        assert_eq!(
            (empty.off_peak_share, empty.avg_price_fen_per_mwh),
            (0.0, 0)
        );
    }

    #[test]
    fn a_vehicle_lends_its_distance_to_organisations_by_the_energy_it_charged_there() {
        let (o1, o2) = (Uuid::from_u128(1), Uuid::from_u128(2));
        let (v1, v2, v3) = (
            Uuid::from_u128(11),
            Uuid::from_u128(12),
            Uuid::from_u128(13),
        );
        let share = |org, vehicle, energy_wh, total_fen| VehicleShare {
            org_id: org,
            vehicle_id: vehicle,
            energy_wh,
            total_fen,
        };
        let shares = [
            share(o1, v1, 30_000, 3_000),
            share(o2, v1, 10_000, 1_000),
            share(o2, v2, 20_000, 2_000),
            // v3 has no odometer: it counts nowhere on the distance side.
            share(o1, v3, 50_000, 5_000),
        ];
        let distances = HashMap::from([(v1, 100_000), (v2, 40_000)]);
        let (overall, orgs) = driven(&shares, &distances);
        assert_eq!(overall.vehicles, 2);
        assert_eq!(overall.metres, 140_000.0);
        assert_eq!((overall.energy_wh, overall.total_fen), (60_000, 6_000));
        assert_eq!(orgs[&o1].metres, 75_000.0);
        assert_eq!(orgs[&o2].metres, 65_000.0);
        assert_eq!(orgs[&o1].metres + orgs[&o2].metres, overall.metres);
        assert_eq!((orgs[&o1].vehicles, orgs[&o2].vehicles), (1, 2));
        assert_eq!(orgs[&o1].total_fen, 3_000);
    }

    #[test]
    fn every_hour_and_bucket_is_listed() {
        let hours = hours(&HashMap::from([(23, sums(1, 1, 0))]));
        assert_eq!(hours.len(), 24);
        assert_eq!((hours[23].hour, hours[23].session_count), (23, 2));
        assert_eq!(hours[0].session_count, 0);
        let buckets = soc_buckets(&HashMap::from([(9, sums(1, 1, 0))]));
        assert_eq!(buckets.len(), 10);
        assert_eq!((buckets[9].from_percent, buckets[9].to_percent), (90, 100));
        assert_eq!(buckets[9].session_count, 2);
    }
}

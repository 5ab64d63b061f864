//! The dashboard's figures from its grouped rows: the period totals, one
//! trend point per day of the range (days without sessions at zero) and
//! the top ten stations, organisations and vehicles by energy.

use std::collections::HashMap;

use chrono::NaiveDate;
use uuid::Uuid;

use super::store::{Dimension, PeriodRow};

/// How many entries a ranking shows.
pub const TOP: usize = 10;

/// The period rows sorted out by what they group.
#[derive(Debug, Clone, Default)]
pub struct Period {
    pub all: Option<PeriodRow>,
    pub days: HashMap<NaiveDate, PeriodRow>,
    pub stations: Vec<(Uuid, PeriodRow)>,
    pub orgs: Vec<(Uuid, PeriodRow)>,
    pub vehicles: Vec<(Uuid, PeriodRow)>,
}

/// Most energy first (then most money, then id, so ties stay in one order),
/// at most [`TOP`].
fn top(mut rows: Vec<(Uuid, PeriodRow)>) -> Vec<(Uuid, PeriodRow)> {
    rows.sort_by(|(a_id, a), (b_id, b)| {
        b.energy_wh
            .cmp(&a.energy_wh)
            .then(b.total_fen.cmp(&a.total_fen))
            .then(a_id.cmp(b_id))
    });
    rows.truncate(TOP);
    rows
}

/// Sorts `rows` by dimension; the rankings keep their top ten. Groups
/// without a station or vehicle (sessions of driver cards, unknown
/// stations) rank nowhere.
pub fn sort(rows: Vec<PeriodRow>) -> Period {
    let mut period = Period::default();
    let (mut stations, mut orgs, mut vehicles) = (Vec::new(), Vec::new(), Vec::new());
    for row in rows {
        match row.dimension() {
            Some(Dimension::All) => period.all = Some(row),
            Some(Dimension::Day) => {
                if let Some(day) = row.day {
                    period.days.insert(day, row);
                }
            }
            Some(Dimension::Station) => {
                if let Some(id) = row.station_id {
                    stations.push((id, row));
                }
            }
            Some(Dimension::Org) => {
                if let Some(id) = row.org_id {
                    orgs.push((id, row));
                }
            }
            Some(Dimension::Vehicle) => {
                if let Some(id) = row.vehicle_id {
                    vehicles.push((id, row));
                }
            }
            None => tracing::error!(dim = row.dim, "Unknown dashboard grouping."),
        }
    }
    period.stations = top(stations);
    period.orgs = top(orgs);
    period.vehicles = top(vehicles);
    period
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(dim: i32, id: u128, energy_wh: i64, total_fen: i64) -> PeriodRow {
        let id = Some(Uuid::from_u128(id));
        PeriodRow {
            dim,
            day: (dim == 1).then(|| NaiveDate::from_ymd_opt(2026, 11, 2).unwrap()),
            station_id: if dim == 2 { id } else { None },
            org_id: if dim == 3 { id } else { None },
            vehicle_id: if dim == 4 { id } else { None },
            session_count: 1,
            energy_wh,
            electricity_fen: 0,
            service_fee_fen: 0,
            parking_fee_fen: 0,
            time_fee_fen: 0,
            fixed_fee_fen: 0,
            reservation_fee_fen: 0,
            discount_fen: 0,
            total_fen,
            vehicle_count: 1,
        }
    }

    #[test]
    fn rankings_keep_the_ten_with_most_energy_and_skip_groups_without_an_id() {
        let mut rows: Vec<PeriodRow> = (1..=12).map(|i| row(4, i, i as i64 * 1000, 0)).collect();
        rows.push(row(2, 1, 5, 0));
        rows.push(row(2, 2, 5, 9));
        let mut anonymous = row(4, 0, 999_999, 0);
        anonymous.vehicle_id = None;
        rows.push(anonymous);
        rows.push(row(0, 0, 1, 1));
        rows.push(row(1, 0, 1, 1));
        let period = sort(rows);
        assert_eq!(period.vehicles.len(), TOP);
        assert_eq!(period.vehicles[0].0, Uuid::from_u128(12));
        assert_eq!(period.vehicles[9].0, Uuid::from_u128(3));
        // Equal energy: more money first.
        assert_eq!(period.stations[0].0, Uuid::from_u128(2));
        assert!(period.all.is_some());
        assert_eq!(period.days.len(), 1);
        assert!(period.orgs.is_empty());
    }
}

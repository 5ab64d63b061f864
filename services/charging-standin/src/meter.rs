//! A session's meter: energy delivered at the pile's power until the
//! battery is full, counted in joules per tariff band so that the cost is
//! exact, and the charging periods a session update reports.

use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use fleetdesk_ocpi::decimal::WH_PER_KWH;
use fleetdesk_ocpi::{CdrDimension, CdrDimensionType, ChargingPeriod, Decimal};

use crate::tariff::{TariffPlan, fen_of};

/// How a vehicle charges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Charge {
    /// Power drawn, watts.
    pub power_w: i64,
    /// Usable battery capacity, Wh.
    pub battery_wh: i64,
    /// State of charge when plugged in, percent.
    pub start_soc: u8,
}

/// What the meter has counted.
#[derive(Debug, Clone)]
pub struct Meter {
    charge: Charge,
    plan: Arc<TariffPlan>,
    /// The session's clock: its start plus the time charged.
    clock: DateTime<Utc>,
    joules: i64,
    joules_by_band: Vec<i64>,
}

impl Meter {
    pub fn new(charge: Charge, plan: Arc<TariffPlan>, start: DateTime<Utc>) -> Meter {
        let bands = plan.bands.len();
        Meter {
            charge,
            plan,
            clock: start,
            joules: 0,
            joules_by_band: vec![0; bands],
        }
    }

    pub fn clock(&self) -> DateTime<Utc> {
        self.clock
    }

    pub fn tariff_id(&self) -> &str {
        &self.plan.id
    }

    pub fn energy_wh(&self) -> i64 {
        self.joules / 3600
    }

    /// Percent, never above 100.
    pub fn soc(&self) -> u8 {
        let full = self.charge.battery_wh.max(1) * 3600;
        let gained = self.joules.saturating_mul(100) / full;
        (i64::from(self.charge.start_soc) + gained).min(100) as u8
    }

    pub fn is_full(&self) -> bool {
        self.soc() >= 100
    }

    pub fn electricity_fen(&self) -> i64 {
        self.sum(|b| self.plan.bands[b].electricity_fen_per_mwh)
    }

    pub fn service_fee_fen(&self) -> i64 {
        self.sum(|b| self.plan.bands[b].service_fee_fen_per_mwh)
    }

    pub fn total_fen(&self) -> i64 {
        self.electricity_fen() + self.service_fee_fen()
    }

    fn sum(&self, price: impl Fn(usize) -> i64) -> i64 {
        self.joules_by_band
            .iter()
            .enumerate()
            .map(|(b, j)| fen_of(*j, price(b)))
            .sum()
    }

    /// The first period of a session: nothing delivered yet, the SOC at plug-in.
    pub fn opening_period(&self) -> ChargingPeriod {
        self.period(self.clock, 0, 0)
    }

    /// Charges for `elapsed` (less once the battery is full) and answers
    /// the periods of that stretch, one per tariff band crossed.
    pub fn advance(&mut self, elapsed: Duration) -> Vec<ChargingPeriod> {
        let end = self.clock + elapsed;
        let full = (100 - i64::from(self.charge.start_soc)).max(0) * self.charge.battery_wh * 36;
        let mut periods = Vec::new();
        for (band, from, to) in self.plan.split(self.clock, end) {
            let millis = (to - from).num_milliseconds();
            let joules = (self.charge.power_w * millis / 1000)
                .min(full - self.joules)
                .max(0);
            let wh_before = self.energy_wh();
            self.joules += joules;
            self.joules_by_band[band] += joules;
            let power = if joules > 0 { self.charge.power_w } else { 0 };
            periods.push(self.period(from, self.energy_wh() - wh_before, power));
        }
        self.clock = end;
        periods
    }

    fn period(&self, start: DateTime<Utc>, wh: i64, power_w: i64) -> ChargingPeriod {
        ChargingPeriod {
            start_date_time: start,
            dimensions: vec![
                CdrDimension {
                    kind: CdrDimensionType::Energy,
                    volume: Decimal::from_scaled(wh, WH_PER_KWH),
                },
                CdrDimension {
                    kind: CdrDimensionType::Power,
                    volume: Decimal::from_scaled(power_w, WH_PER_KWH),
                },
                CdrDimension {
                    kind: CdrDimensionType::StateOfCharge,
                    volume: Decimal::from_scaled(i64::from(self.soc()), 0),
                },
            ],
            tariff_id: Some(self.plan.id.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone as _;
    use fleetdesk_ocpi::TouPeriod;

    use super::*;
    use crate::tariff::{BandPrices, shanghai};

    fn plan() -> Arc<TariffPlan> {
        Arc::new(TariffPlan::from_hours(
            "T",
            &[(0, 8, TouPeriod::Valley), (8, 24, TouPeriod::Peak)],
            BandPrices {
                peak: (100_000, 80_000),
                flat: (0, 0),
                valley: (30_000, 40_000),
            },
        ))
    }

    fn at(h: u32, m: u32) -> DateTime<Utc> {
        shanghai()
            .with_ymd_and_hms(2026, 11, 23, h, m, 0)
            .unwrap()
            .with_timezone(&Utc)
    }

    #[test]
    fn energy_and_cost_follow_the_band_of_each_minute() {
        let charge = Charge {
            power_w: 60_000,
            battery_wh: 100_000,
            start_soc: 20,
        };
        let mut meter = Meter::new(charge, plan(), at(7, 30));
        let periods = meter.advance(Duration::minutes(60));
        // 30 min valley + 30 min peak at 60 kW: 30 kWh each side of 08:00.
        assert_eq!(periods.len(), 2);
        assert_eq!(meter.energy_wh(), 60_000);
        assert_eq!(
            periods[0]
                .volume(CdrDimensionType::Energy)
                .unwrap()
                .as_str(),
            "30"
        );
        // Valley 30 kWh × (0.30 + 0.40) = 21 CNY; peak 30 kWh × (1.00 + 0.80) = 54 CNY.
        assert_eq!(meter.electricity_fen(), 900 + 3_000);
        assert_eq!(meter.service_fee_fen(), 1_200 + 2_400);
        assert_eq!(meter.total_fen(), 7_500);
        assert_eq!(meter.soc(), 80);
        assert_eq!(meter.clock(), at(8, 30));
    }

    #[test]
    fn a_full_battery_takes_no_more_energy() {
        let charge = Charge {
            power_w: 120_000,
            battery_wh: 50_000,
            start_soc: 90,
        };
        let mut meter = Meter::new(charge, plan(), at(9, 0));
        meter.advance(Duration::minutes(30));
        assert_eq!(meter.energy_wh(), 5_000);
        assert!(meter.is_full());
        let before = meter.total_fen();
        let periods = meter.advance(Duration::minutes(10));
        assert_eq!(meter.total_fen(), before);
        assert_eq!(
            periods[0].volume(CdrDimensionType::Power).unwrap().as_str(),
            "0"
        );
    }
}

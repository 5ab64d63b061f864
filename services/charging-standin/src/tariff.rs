//! Time-of-use tariffs: a day in bands (peak, flat, valley), each with an
//! electricity price and a service fee in fen per MWh, local time
//! Asia/Shanghai (UTC+8, no daylight saving).

use chrono::{DateTime, Duration, FixedOffset, Timelike, Utc};
use fleetdesk_ocpi::decimal::FEN_PER_MWH_PER_CNY_PER_KWH;
use fleetdesk_ocpi::{
    COUNTRY, CURRENCY, Decimal, DisplayText, PriceComponent, Tariff, TariffDimensionType,
    TariffElement, TariffRestrictions, TariffType, TouPeriod,
};

/// Minutes in a day.
pub const DAY_MINUTES: u32 = 24 * 60;

/// One band of a day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Band {
    /// `[start, end)`, minutes after local midnight.
    pub start_minute: u32,
    pub end_minute: u32,
    pub period: TouPeriod,
    pub electricity_fen_per_mwh: i64,
    pub service_fee_fen_per_mwh: i64,
}

/// A tariff: bands covering the whole day, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TariffPlan {
    pub id: String,
    pub bands: Vec<Band>,
}

/// Local time of the stations.
pub fn shanghai() -> FixedOffset {
    FixedOffset::east_opt(8 * 3600).expect("UTC+8 is a valid offset")
}

/// Prices of the three bands: (electricity, service fee) fen per MWh.
#[derive(Debug, Clone, Copy)]
pub struct BandPrices {
    pub peak: (i64, i64),
    pub flat: (i64, i64),
    pub valley: (i64, i64),
}

impl TariffPlan {
    /// A plan from `(start hour, end hour, band)` ranges covering the day.
    pub fn from_hours(
        id: &str,
        ranges: &[(u32, u32, TouPeriod)],
        prices: BandPrices,
    ) -> TariffPlan {
        let bands = ranges
            .iter()
            .map(|&(start, end, period)| {
                let (electricity, service) = match period {
                    TouPeriod::Peak => prices.peak,
                    TouPeriod::Flat => prices.flat,
                    TouPeriod::Valley => prices.valley,
                };
                Band {
                    start_minute: start * 60,
                    end_minute: end * 60,
                    period,
                    electricity_fen_per_mwh: electricity,
                    service_fee_fen_per_mwh: service,
                }
            })
            .collect();
        let plan = TariffPlan {
            id: id.to_owned(),
            bands,
        };
        debug_assert!(plan.covers_the_day(), "tariff {id} must cover the day");
        plan
    }

    fn covers_the_day(&self) -> bool {
        let mut at = 0;
        for band in &self.bands {
            if band.start_minute != at || band.end_minute <= band.start_minute {
                return false;
            }
            at = band.end_minute;
        }
        at == DAY_MINUTES
    }

    /// The band in force at local minute `minute` of the day.
    pub fn band_at(&self, minute: u32) -> usize {
        self.bands
            .iter()
            .position(|b| b.start_minute <= minute && minute < b.end_minute)
            .unwrap_or(0)
    }

    /// `[from, to)` cut where the band changes: (band, start, end) pieces.
    pub fn split(
        &self,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
    ) -> Vec<(usize, DateTime<Utc>, DateTime<Utc>)> {
        let mut pieces = Vec::new();
        let mut at = from;
        while at < to {
            let local = at.with_timezone(&shanghai());
            let minute = local.hour() * 60 + local.minute();
            let band = self.band_at(minute);
            let into_minute = Duration::seconds(i64::from(local.second()))
                + Duration::nanoseconds(i64::from(local.nanosecond()));
            let left =
                Duration::minutes(i64::from(self.bands[band].end_minute - minute)) - into_minute;
            let end = (at + left).min(to);
            pieces.push((band, at, end));
            at = end;
        }
        pieces
    }

    /// As OCPI publishes it: a REGULAR tariff, an element per band with its
    /// ENERGY price and (vendor) its service fee and band, and a text for
    /// drivers.
    pub fn to_ocpi(&self, party_id: &str, updated: DateTime<Utc>) -> Tariff {
        let price =
            |fen_per_mwh: i64| Decimal::from_scaled(fen_per_mwh, FEN_PER_MWH_PER_CNY_PER_KWH);
        Tariff {
            country_code: COUNTRY.to_owned(),
            party_id: party_id.to_owned(),
            id: self.id.clone(),
            currency: CURRENCY.to_owned(),
            kind: Some(TariffType::Regular),
            tariff_alt_text: vec![DisplayText::zh(
                "分时电价：电费与服务费按峰、平、谷时段计价",
            )],
            tariff_alt_url: None,
            min_price: None,
            max_price: None,
            elements: self
                .bands
                .iter()
                .map(|b| TariffElement {
                    price_components: vec![PriceComponent {
                        kind: TariffDimensionType::Energy,
                        price: price(b.electricity_fen_per_mwh),
                        vat: None,
                        step_size: 1,
                    }],
                    restrictions: Some(TariffRestrictions::of_minutes(
                        b.start_minute as u16,
                        b.end_minute as u16,
                    )),
                    x_service_fee: Some(price(b.service_fee_fen_per_mwh)),
                    x_period: Some(b.period),
                })
                .collect(),
            start_date_time: None,
            end_date_time: None,
            energy_mix: None,
            last_updated: updated,
        }
    }
}

/// Joules in one MWh.
const JOULES_PER_MWH: i128 = 3_600_000_000;

/// Fen for `joules` at `fen_per_mwh`, half up.
pub fn fen_of(joules: i64, fen_per_mwh: i64) -> i64 {
    let exact = i128::from(joules) * i128::from(fen_per_mwh);
    i64::try_from((exact + JOULES_PER_MWH / 2) / JOULES_PER_MWH).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone as _;

    fn shenzhen() -> TariffPlan {
        TariffPlan::from_hours(
            "T",
            &[
                (0, 8, TouPeriod::Valley),
                (8, 10, TouPeriod::Flat),
                (10, 12, TouPeriod::Peak),
                (12, 24, TouPeriod::Flat),
            ],
            BandPrices {
                peak: (100_000, 80_000),
                flat: (70_000, 60_000),
                valley: (30_000, 40_000),
            },
        )
    }

    fn local(h: u32, m: u32) -> DateTime<Utc> {
        shanghai()
            .with_ymd_and_hms(2026, 11, 23, h, m, 0)
            .unwrap()
            .with_timezone(&Utc)
    }

    #[test]
    fn an_interval_is_cut_at_band_edges_in_local_time() {
        let plan = shenzhen();
        let pieces = plan.split(local(7, 30), local(10, 15));
        let bands: Vec<usize> = pieces.iter().map(|p| p.0).collect();
        assert_eq!(bands, [0, 1, 2]);
        assert_eq!(pieces[0].2, local(8, 0));
        assert_eq!(pieces[1].2, local(10, 0));
        assert_eq!(pieces[2].2, local(10, 15));
        // Across midnight back into the valley.
        let pieces = plan.split(local(23, 50), local(23, 50) + Duration::minutes(20));
        assert_eq!(pieces.iter().map(|p| p.0).collect::<Vec<_>>(), [3, 0]);
    }

    #[test]
    fn the_ocpi_tariff_lists_every_band_with_its_times() {
        let t = shenzhen().to_ocpi("SDC", Utc::now());
        assert_eq!(t.elements.len(), 4);
        let last = t.elements[3].restrictions.as_ref().unwrap();
        assert_eq!(last.minutes(), Some((720, 1440)));
        assert_eq!(t.elements[2].price_components[0].price.as_str(), "1");
        assert_eq!(
            t.elements[2].x_service_fee.as_ref().map(Decimal::as_str),
            Some("0.8")
        );
    }

    #[test]
    fn one_kwh_costs_its_price_per_mwh_over_a_thousand() {
        // 1 kWh = 3.6 MJ at 1.0000 CNY/kWh (100,000 fen/MWh) = 100 fen.
        assert_eq!(fen_of(3_600_000, 100_000), 100);
        assert_eq!(fen_of(1_800, 100_000), 0);
        assert_eq!(fen_of(18_000, 100_000), 1);
    }
}

//! A tariff as the platform publishes it, read: its elements and price
//! components whatever they price (ENERGY, FLAT, TIME, PARKING_TIME), and
//! the day of bands a station shows — the electricity price per kWh by
//! time of day, with the vendor's service fee and time-of-use band where
//! the elements carry them.

use fleetdesk_ocpi::decimal::FEN_PER_MWH_PER_CNY_PER_KWH;
use fleetdesk_ocpi::{Decimal, Tariff, TariffDimensionType, TouPeriod};
use fleetdesk_proto::energy::v1 as pb;

use crate::codes::stored_code;

stored_code!(
    /// The time-of-use band of a period.
    TouBand => pb::TouPeriod {
        Peak = 1, Flat = 2, Valley = 3,
    }
);

stored_code!(
    /// What a price component prices (OCPI TariffDimensionType).
    Dimension {
        Energy = 1, Flat = 2, ParkingTime = 3, Time = 4,
    }
);

impl TouBand {
    pub fn label(self) -> &'static str {
        match self {
            TouBand::Peak => "峰",
            TouBand::Flat => "平",
            TouBand::Valley => "谷",
        }
    }
}

impl From<TouPeriod> for TouBand {
    fn from(period: TouPeriod) -> TouBand {
        match period {
            TouPeriod::Peak => TouBand::Peak,
            TouPeriod::Flat => TouBand::Flat,
            TouPeriod::Valley => TouBand::Valley,
        }
    }
}

impl From<TariffDimensionType> for Dimension {
    fn from(kind: TariffDimensionType) -> Dimension {
        match kind {
            TariffDimensionType::Energy => Dimension::Energy,
            TariffDimensionType::Flat => Dimension::Flat,
            TariffDimensionType::ParkingTime => Dimension::ParkingTime,
            TariffDimensionType::Time => Dimension::Time,
        }
    }
}

/// Minutes in a day.
pub const DAY_MINUTES: i16 = 24 * 60;

/// One band of a tariff's day, `[start, end)` minutes Asia/Shanghai.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Period {
    pub start_minute: i16,
    pub end_minute: i16,
    /// The vendor's band; none for a standard tariff.
    pub band: Option<TouBand>,
    pub electricity_fen_per_mwh: i64,
    /// The vendor's service fee; 0 without one.
    pub service_fee_fen_per_mwh: i64,
}

/// An element that prices energy the same every day, in the stretches of
/// the day its time restriction allows.
struct DailyEnergy {
    windows: Vec<(u16, u16)>,
    electricity: i64,
    service: i64,
    band: Option<TouBand>,
}

/// CNY/kWh as fen per MWh, if it reads and is not negative.
fn fen_per_mwh(price: &Decimal) -> Option<i64> {
    price
        .to_scaled(FEN_PER_MWH_PER_CNY_PER_KWH)
        .filter(|p| *p >= 0)
}

/// The day's bands of a tariff, in order. As OCPI prices a dimension by
/// the first element for it whose restrictions hold, each stretch of the
/// day takes the ENERGY price of the first element that prices energy then
/// and applies every day — restricted by nothing but the time of day; what
/// depends on the weekday, the date, the session or a reservation is left
/// to the platform's account of the session. A stretch no such element
/// prices has no band (a tariff of FLAT or TIME prices alone has none).
/// Why not when a time of day, a price or a service fee does not read.
pub fn periods(tariff: &Tariff) -> Result<Vec<Period>, String> {
    let mut daily = Vec::new();
    for (n, element) in tariff.elements.iter().enumerate() {
        let windows = match &element.restrictions {
            Some(r) => {
                let windows = r
                    .windows()
                    .ok_or_else(|| format!("element {}: a bad time of day {r:?}", n + 1))?;
                if !r.time_of_day_only() {
                    continue;
                }
                windows
            }
            None => vec![(0, DAY_MINUTES as u16)],
        };
        let service = match &element.x_service_fee {
            Some(fee) => {
                fen_per_mwh(fee).ok_or_else(|| format!("element {}: a bad service fee", n + 1))?
            }
            None => 0,
        };
        let Some(energy) = element
            .price_components
            .iter()
            .find(|c| c.kind == TariffDimensionType::Energy)
        else {
            continue;
        };
        let electricity = fen_per_mwh(&energy.price)
            .ok_or_else(|| format!("element {}: a bad electricity price", n + 1))?;
        daily.push(DailyEnergy {
            windows,
            electricity,
            service,
            band: element.x_period.map(TouBand::from),
        });
    }
    let mut edges: Vec<u16> = daily
        .iter()
        .flat_map(|d| d.windows.iter().flat_map(|&(s, e)| [s, e]))
        .collect();
    edges.sort_unstable();
    edges.dedup();
    // (the element that prices it, the period)
    let mut periods: Vec<(usize, Period)> = Vec::new();
    for edge in edges.windows(2) {
        let (start, end) = (edge[0], edge[1]);
        let Some(at) = daily
            .iter()
            .position(|d| d.windows.iter().any(|&(s, e)| s <= start && end <= e))
        else {
            continue;
        };
        match periods.last_mut() {
            Some((last, p)) if *last == at && p.end_minute == start as i16 => {
                p.end_minute = end as i16;
            }
            _ => {
                let d = &daily[at];
                periods.push((
                    at,
                    Period {
                        start_minute: start as i16,
                        end_minute: end as i16,
                        band: d.band,
                        electricity_fen_per_mwh: d.electricity,
                        service_fee_fen_per_mwh: d.service,
                    },
                ));
            }
        }
    }
    Ok(periods.into_iter().map(|(_, p)| p).collect())
}

#[cfg(test)]
mod tests {
    use chrono::Utc;
    use fleetdesk_ocpi::{Decimal, PriceComponent, TariffElement, TariffRestrictions};

    use super::*;

    fn decimal(text: &str) -> Decimal {
        serde_json::from_str::<Decimal>(text).unwrap()
    }

    fn priced(kind: TariffDimensionType, price: &str) -> PriceComponent {
        PriceComponent {
            kind,
            price: decimal(price),
            vat: None,
            step_size: 1,
        }
    }

    fn element(start: u16, end: u16, price: &str, fee: &str, period: TouPeriod) -> TariffElement {
        TariffElement {
            price_components: vec![priced(TariffDimensionType::Energy, price)],
            restrictions: Some(TariffRestrictions::of_minutes(start, end)),
            x_service_fee: Some(decimal(fee)),
            x_period: Some(period),
        }
    }

    fn standard(price: &str, restrictions: Option<TariffRestrictions>) -> TariffElement {
        TariffElement {
            price_components: vec![priced(TariffDimensionType::Energy, price)],
            restrictions,
            x_service_fee: None,
            x_period: None,
        }
    }

    fn tariff(elements: Vec<TariffElement>) -> Tariff {
        Tariff {
            country_code: "CN".into(),
            party_id: "SDC".into(),
            id: "T1".into(),
            currency: "CNY".into(),
            kind: None,
            tariff_alt_text: Vec::new(),
            tariff_alt_url: None,
            min_price: None,
            max_price: None,
            elements,
            start_date_time: None,
            end_date_time: None,
            energy_mix: None,
            last_updated: Utc::now(),
        }
    }

    fn spans(p: &[Period]) -> Vec<(i16, i16, i64)> {
        p.iter()
            .map(|p| (p.start_minute, p.end_minute, p.electricity_fen_per_mwh))
            .collect()
    }

    #[test]
    fn a_whole_day_of_bands_reads_as_fen_per_mwh_in_order() {
        let t = tariff(vec![
            element(480, 1440, "1.0835", "0.8", TouPeriod::Peak),
            element(0, 480, "0.2611", "0.4", TouPeriod::Valley),
        ]);
        let p = periods(&t).unwrap();
        assert_eq!(p.len(), 2);
        assert_eq!(
            (p[0].start_minute, p[0].end_minute, p[0].band),
            (0, 480, Some(TouBand::Valley))
        );
        assert_eq!(p[0].electricity_fen_per_mwh, 26_110);
        assert_eq!(p[1].electricity_fen_per_mwh, 108_350);
        assert_eq!(p[1].service_fee_fen_per_mwh, 80_000);
    }

    #[test]
    fn the_first_element_pricing_energy_then_sets_each_stretch_of_the_day() {
        // A peak in the day over an unrestricted default.
        let t = tariff(vec![
            element(480, 1080, "1", "0.5", TouPeriod::Peak),
            standard("0.5", None),
        ]);
        assert_eq!(
            spans(&periods(&t).unwrap()),
            [(0, 480, 50_000), (480, 1080, 100_000), (1080, 1440, 50_000)]
        );
        // A valley across midnight.
        let night = TariffRestrictions {
            start_time: Some("22:00".into()),
            end_time: Some("06:00".into()),
            ..TariffRestrictions::default()
        };
        let t = tariff(vec![standard("0.3", Some(night)), standard("0.8", None)]);
        assert_eq!(
            spans(&periods(&t).unwrap()),
            [(0, 360, 30_000), (360, 1320, 80_000), (1320, 1440, 30_000)]
        );
        // Gaps stay gaps: no energy price then.
        let gap = tariff(vec![
            element(0, 400, "1", "1", TouPeriod::Flat),
            element(480, 1440, "1", "1", TouPeriod::Flat),
        ]);
        assert_eq!(
            spans(&periods(&gap).unwrap()),
            [(0, 400, 100_000), (480, 1440, 100_000)]
        );
    }

    #[test]
    fn standard_tariffs_read_without_bands_fees_or_conditional_prices() {
        // OCPI's max_power example: the restricted elements depend on the
        // session; the unrestricted fallback prices the day.
        let max_power = |kw: &str| TariffRestrictions {
            max_power: Some(decimal(kw)),
            ..TariffRestrictions::default()
        };
        let t = tariff(vec![
            standard("0.20", Some(max_power("16.00"))),
            standard("0.35", Some(max_power("32.00"))),
            standard("0.50", None),
        ]);
        let p = periods(&t).unwrap();
        assert_eq!(spans(&p), [(0, 1440, 50_000)]);
        assert_eq!((p[0].band, p[0].service_fee_fen_per_mwh), (None, 0));
        // Priced by time and a start fee alone: no energy bands, still read.
        let t = tariff(vec![TariffElement {
            price_components: vec![
                priced(TariffDimensionType::Flat, "0.5"),
                priced(TariffDimensionType::Time, "2.00"),
            ],
            restrictions: None,
            x_service_fee: None,
            x_period: None,
        }]);
        assert_eq!(periods(&t).unwrap(), []);
    }

    #[test]
    fn unreadable_times_and_prices_are_refused() {
        let bad_time = TariffRestrictions {
            start_time: Some("7:00".into()),
            ..TariffRestrictions::default()
        };
        assert!(periods(&tariff(vec![standard("1", Some(bad_time))])).is_err());
        assert!(periods(&tariff(vec![standard("-1", None)])).is_err());
        let mut bad_fee = element(0, 1440, "1", "1", TouPeriod::Flat);
        bad_fee.x_service_fee = Some(decimal("-0.1"));
        assert!(periods(&tariff(vec![bad_fee])).is_err());
    }
}

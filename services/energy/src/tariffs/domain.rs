//! A tariff's bands as OCPI publishes them, checked: every element names
//! its band (vendor `x_period`), an ENERGY price and a service fee, and the
//! elements cover the day exactly once.

use fleetdesk_ocpi::decimal::FEN_PER_MWH_PER_CNY_PER_KWH;
use fleetdesk_ocpi::{Tariff, TariffDimensionType, TouPeriod};
use fleetdesk_proto::energy::v1 as pb;

use crate::codes::stored_code;

stored_code!(
    /// The time-of-use band of a period.
    TouBand => pb::TouPeriod {
        Peak = 1, Flat = 2, Valley = 3,
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

/// Minutes in a day.
pub const DAY_MINUTES: i16 = 24 * 60;

/// One band of a tariff's day, `[start, end)` minutes Asia/Shanghai.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Period {
    pub start_minute: i16,
    pub end_minute: i16,
    pub band: TouBand,
    pub electricity_fen_per_mwh: i64,
    pub service_fee_fen_per_mwh: i64,
}

/// The periods of an OCPI tariff, in order; why not when it is not a
/// whole day of priced bands.
pub fn periods(tariff: &Tariff) -> Result<Vec<Period>, String> {
    let mut periods = Vec::with_capacity(tariff.elements.len());
    for element in &tariff.elements {
        let (start, end) = match &element.restrictions {
            Some(r) => r
                .minutes()
                .ok_or_else(|| format!("bad time restriction {r:?}"))?,
            None => (0, DAY_MINUTES as u16),
        };
        let electricity = element
            .price_components
            .iter()
            .find(|c| c.kind == TariffDimensionType::Energy)
            .ok_or("an element without an ENERGY price")?
            .price
            .to_scaled(FEN_PER_MWH_PER_CNY_PER_KWH)
            .filter(|p| *p >= 0)
            .ok_or("a bad electricity price")?;
        let service = element
            .x_service_fee
            .to_scaled(FEN_PER_MWH_PER_CNY_PER_KWH)
            .filter(|p| *p >= 0)
            .ok_or("a bad service fee")?;
        periods.push(Period {
            start_minute: start as i16,
            end_minute: end as i16,
            band: element.x_period.into(),
            electricity_fen_per_mwh: electricity,
            service_fee_fen_per_mwh: service,
        });
    }
    periods.sort_by_key(|p| p.start_minute);
    let mut at = 0;
    for p in &periods {
        if p.start_minute != at {
            return Err(format!("the bands leave a gap or overlap at minute {at}"));
        }
        at = p.end_minute;
    }
    if at != DAY_MINUTES {
        return Err("the bands do not cover the day".to_owned());
    }
    Ok(periods)
}

#[cfg(test)]
mod tests {
    use chrono::Utc;
    use fleetdesk_ocpi::{Decimal, PriceComponent, TariffElement, TariffRestrictions};

    use super::*;

    fn element(start: u16, end: u16, price: &str, fee: &str, period: TouPeriod) -> TariffElement {
        TariffElement {
            price_components: vec![PriceComponent {
                kind: TariffDimensionType::Energy,
                price: serde_json::from_str::<Decimal>(price).unwrap(),
                step_size: 1,
            }],
            restrictions: Some(TariffRestrictions::of_minutes(start, end)),
            x_service_fee: serde_json::from_str::<Decimal>(fee).unwrap(),
            x_period: period,
        }
    }

    fn tariff(elements: Vec<TariffElement>) -> Tariff {
        Tariff {
            country_code: "CN".into(),
            party_id: "SDC".into(),
            id: "T1".into(),
            currency: "CNY".into(),
            elements,
            last_updated: Utc::now(),
        }
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
            (0, 480, TouBand::Valley)
        );
        assert_eq!(p[0].electricity_fen_per_mwh, 26_110);
        assert_eq!(p[1].electricity_fen_per_mwh, 108_350);
        assert_eq!(p[1].service_fee_fen_per_mwh, 80_000);
    }

    #[test]
    fn gaps_overlaps_and_unpriced_elements_are_refused() {
        let gap = tariff(vec![
            element(0, 400, "1", "1", TouPeriod::Flat),
            element(480, 1440, "1", "1", TouPeriod::Flat),
        ]);
        assert!(periods(&gap).is_err());
        let short = tariff(vec![element(0, 1000, "1", "1", TouPeriod::Flat)]);
        assert!(periods(&short).is_err());
        let mut unpriced = element(0, 1440, "1", "1", TouPeriod::Flat);
        unpriced.price_components.clear();
        assert!(periods(&tariff(vec![unpriced])).is_err());
    }
}

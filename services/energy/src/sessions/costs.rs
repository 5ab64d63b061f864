//! What a CDR says a session cost, part by part, and the CDRs energy
//! refuses because booking them would move money wrongly.
//!
//! OCPI itemises `total_cost` into `total_energy_cost`, `total_time_cost`,
//! `total_parking_cost`, `total_fixed_cost` and `total_reservation_cost`
//! (here `total_energy_cost` is the electricity alone, and the vendor
//! `x_total_service_fee` the per-kWh service fee). Each part is booked as
//! what it is: on the session, its statement lines and the revenue account
//! of its kind. Amounts are VAT included (`incl_vat`, or `excl_vat` when
//! the platform sends no VAT), what the enterprise pays.
//!
//! A tariff's `min_price`/`max_price` may make `total_cost` differ from
//! the sum of the parts: a total above the parts books the difference as
//! a fixed cost (the minimum price's top-up), a total below them as a
//! discount taken off the parts from the last booked backwards. Without
//! `total_energy_cost`, energy is whatever the other parts leave.

use fleetdesk_ocpi::{Cdr, Price};

use crate::ledger::AccountKind;

/// A session's cost by part, in fen (VAT included).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Costs {
    pub electricity_fen: i64,
    pub service_fee_fen: i64,
    pub time_fee_fen: i64,
    pub parking_fee_fen: i64,
    pub fixed_fee_fen: i64,
    pub reservation_fee_fen: i64,
    /// Taken off the parts above (a tariff's maximum price); they are net of it.
    pub discount_fen: i64,
}

impl Costs {
    /// What the parts add up to: the session's cost.
    pub fn total_fen(&self) -> i64 {
        self.parts().iter().map(|(_, fen)| fen).sum()
    }

    /// Each part with the revenue account it is booked to, in booking order.
    pub fn parts(&self) -> [(AccountKind, i64); 6] {
        [
            (AccountKind::PlatformRevenue, self.electricity_fen),
            (AccountKind::ServiceFeeRevenue, self.service_fee_fen),
            (AccountKind::TimeFeeRevenue, self.time_fee_fen),
            (AccountKind::ParkingFeeRevenue, self.parking_fee_fen),
            (AccountKind::FixedFeeRevenue, self.fixed_fee_fen),
            (AccountKind::ReservationFeeRevenue, self.reservation_fee_fen),
        ]
    }

    fn part_mut(&mut self, kind: AccountKind) -> Option<&mut i64> {
        match kind {
            AccountKind::PlatformRevenue => Some(&mut self.electricity_fen),
            AccountKind::ServiceFeeRevenue => Some(&mut self.service_fee_fen),
            AccountKind::TimeFeeRevenue => Some(&mut self.time_fee_fen),
            AccountKind::ParkingFeeRevenue => Some(&mut self.parking_fee_fen),
            AccountKind::FixedFeeRevenue => Some(&mut self.fixed_fee_fen),
            AccountKind::ReservationFeeRevenue => Some(&mut self.reservation_fee_fen),
            AccountKind::Main
            | AccountKind::Organization
            | AccountKind::Card
            | AccountKind::Hold
            | AccountKind::Funding => None,
        }
    }

    /// The parts `captured_fen` (at most the cost) pays for, filled in
    /// booking order: what a short hold leaves uncollected is the last
    /// parts' (the capture's revenue legs).
    pub fn captured(&self, captured_fen: i64) -> [(AccountKind, i64); 6] {
        let mut left = captured_fen.max(0);
        self.parts().map(|(kind, fen)| {
            let paid = fen.min(left);
            left -= paid;
            (kind, paid)
        })
    }
}

/// Why a CDR is refused (nothing of it is booked).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// A field that does not read as an amount or quantity.
    Unreadable(&'static str),
    /// A charge (not a credit CDR) below zero.
    Negative(&'static str),
    /// Ends before it (or its session) started.
    EndsBeforeStart,
}

impl Refusal {
    /// The field it names.
    pub fn field(self) -> &'static str {
        match self {
            Refusal::Unreadable(field) | Refusal::Negative(field) => field,
            Refusal::EndsBeforeStart => "end_date_time",
        }
    }

    /// The reason the platform reads (OCPI status messages are English).
    pub fn message(self) -> String {
        match self {
            Refusal::Unreadable(field) => format!("{field} is not a valid amount"),
            Refusal::Negative(field) => format!(
                "{field} is negative; a CDR that takes money back must be a credit CDR \
                 (credit: true, credit_reference_id)"
            ),
            Refusal::EndsBeforeStart => "end_date_time is before the session's start".to_owned(),
        }
    }
}

/// A CDR's amounts as energy books them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Billed {
    pub costs: Costs,
    /// `total_cost` with VAT: what the parts add up to.
    pub total_fen: i64,
    /// `total_cost` without VAT.
    pub total_excl_vat_fen: i64,
}

fn amount(price: Option<&Price>, field: &'static str) -> Result<i64, Refusal> {
    let Some(price) = price else {
        return Ok(0);
    };
    let fen = price.to_fen().ok_or(Refusal::Unreadable(field))?;
    if fen < 0 {
        return Err(Refusal::Negative(field));
    }
    Ok(fen)
}

/// The amounts of a charging CDR (not a credit), refused when a cost is
/// negative or the CDR ends before `started` (its session's start, or its
/// own when energy has no session).
pub fn billed(cdr: &Cdr, started: chrono::DateTime<chrono::Utc>) -> Result<Billed, Refusal> {
    if cdr.end_date_time < cdr.start_date_time || cdr.end_date_time < started {
        return Err(Refusal::EndsBeforeStart);
    }
    let total_fen = amount(Some(&cdr.total_cost), "total_cost")?;
    let total_excl_vat_fen = cdr
        .total_cost
        .excl_vat_fen()
        .ok_or(Refusal::Unreadable("total_cost"))?;
    let electricity = match &cdr.total_energy_cost {
        Some(price) => Some(amount(Some(price), "total_energy_cost")?),
        None => None,
    };
    let mut costs = Costs {
        electricity_fen: electricity.unwrap_or(0),
        service_fee_fen: amount(cdr.x_total_service_fee.as_ref(), "x_total_service_fee")?,
        time_fee_fen: amount(cdr.total_time_cost.as_ref(), "total_time_cost")?,
        parking_fee_fen: amount(cdr.total_parking_cost.as_ref(), "total_parking_cost")?,
        fixed_fee_fen: amount(cdr.total_fixed_cost.as_ref(), "total_fixed_cost")?,
        reservation_fee_fen: amount(
            cdr.total_reservation_cost.as_ref(),
            "total_reservation_cost",
        )?,
        discount_fen: 0,
    };
    let unexplained = total_fen - costs.total_fen();
    if unexplained > 0 {
        match electricity {
            None => costs.electricity_fen = unexplained,
            Some(_) => costs.fixed_fee_fen += unexplained,
        }
    } else if unexplained < 0 {
        costs.discount_fen = -unexplained;
        let mut left = -unexplained;
        for (kind, _) in costs.parts().into_iter().rev() {
            let part = costs.part_mut(kind).expect("a part of the costs");
            let off = (*part).min(left);
            *part -= off;
            left -= off;
        }
    }
    debug_assert_eq!(costs.total_fen(), total_fen);
    Ok(Billed {
        costs,
        total_fen,
        total_excl_vat_fen,
    })
}

/// What a credit CDR takes back (fen, VAT included, positive): the negated
/// `total_cost`. Refused when it is not negative.
pub fn credited(cdr: &Cdr) -> Result<i64, Refusal> {
    let fen = cdr
        .total_cost
        .to_fen()
        .ok_or(Refusal::Unreadable("total_cost"))?;
    if fen >= 0 {
        return Err(Refusal::Unreadable("total_cost"));
    }
    Ok(-fen)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{DateTime, Utc};

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    fn price(text: &str) -> Price {
        serde_json::from_str(text).unwrap()
    }

    /// The OCPI 2.2.1 example CDR's amounts: a time-priced session.
    fn cdr() -> Cdr {
        serde_json::from_value(serde_json::json!({
            "country_code": "CN", "party_id": "SDC", "id": "12345",
            "start_date_time": "2015-06-29T21:39:09Z",
            "end_date_time": "2015-06-29T23:37:32Z",
            "cdr_token": {"country_code": "CN", "party_id": "FDK", "uid": "012345678",
                          "type": "RFID", "contract_id": "CN-FDK-012345678"},
            "auth_method": "WHITELIST",
            "cdr_location": {"id": "LOC1", "name": "Gent Zuid", "address": "F.Rooseveltlaan 3A",
                "city": "Gent", "country": "BEL",
                "coordinates": {"latitude": "3.729944", "longitude": "51.047599"},
                "evse_uid": "3256", "evse_id": "BE*BEC*E041503003", "connector_id": "1",
                "connector_standard": "GBT_DC", "connector_format": "SOCKET",
                "connector_power_type": "DC"},
            "currency": "CNY",
            "charging_periods": [],
            "total_cost": {"excl_vat": 4.00, "incl_vat": 4.40},
            "total_energy": 15.342,
            "total_time": 1.973,
            "total_time_cost": {"excl_vat": 4.00, "incl_vat": 4.40},
            "last_updated": "2015-06-29T22:01:13Z"
        }))
        .unwrap()
    }

    #[test]
    fn a_time_priced_cdr_is_booked_as_time_not_electricity() {
        let c = cdr();
        let b = billed(&c, c.start_date_time).unwrap();
        assert_eq!(b.total_fen, 440);
        assert_eq!(b.total_excl_vat_fen, 400);
        assert_eq!(
            b.costs,
            Costs {
                time_fee_fen: 440,
                ..Costs::default()
            }
        );
    }

    #[test]
    fn every_part_is_booked_as_itself() {
        let mut c = cdr();
        c.total_cost = price(r#"{"excl_vat": 20.00, "incl_vat": 22.60}"#);
        c.total_energy_cost = Some(price(r#"{"excl_vat": 10.00, "incl_vat": 11.30}"#));
        c.x_total_service_fee = Some(price(r#"{"excl_vat": 4.00, "incl_vat": 4.24}"#));
        c.total_time_cost = Some(price(r#"{"excl_vat": 2.00, "incl_vat": 2.12}"#));
        c.total_parking_cost = Some(price(r#"{"excl_vat": 1.00, "incl_vat": 1.06}"#));
        c.total_fixed_cost = Some(price(r#"{"excl_vat": 2.00, "incl_vat": 2.26}"#));
        c.total_reservation_cost = Some(price(r#"{"excl_vat": 1.50, "incl_vat": 1.62}"#));
        let b = billed(&c, c.start_date_time).unwrap();
        assert_eq!(
            b.costs,
            Costs {
                electricity_fen: 1130,
                service_fee_fen: 424,
                time_fee_fen: 212,
                parking_fee_fen: 106,
                fixed_fee_fen: 226,
                reservation_fee_fen: 162,
                discount_fen: 0,
            }
        );
        assert_eq!((b.total_fen, b.total_excl_vat_fen), (2260, 2000));
    }

    #[test]
    fn without_an_energy_cost_energy_is_what_the_other_parts_leave() {
        let mut c = cdr();
        c.total_cost = price(r#"{"excl_vat": 10.00}"#);
        c.total_time_cost = Some(price(r#"{"excl_vat": 3.00}"#));
        let b = billed(&c, c.start_date_time).unwrap();
        assert_eq!((b.costs.electricity_fen, b.costs.time_fee_fen), (700, 300));
    }

    #[test]
    fn a_minimum_price_tops_up_as_fixed_and_a_maximum_price_is_a_discount() {
        let mut c = cdr();
        c.total_energy_cost = Some(price(r#"{"excl_vat": 1.00}"#));
        c.total_time_cost = None;
        c.total_cost = price(r#"{"excl_vat": 2.50}"#);
        let b = billed(&c, c.start_date_time).unwrap();
        assert_eq!((b.costs.electricity_fen, b.costs.fixed_fee_fen), (100, 150));

        c.total_time_cost = Some(price(r#"{"excl_vat": 3.00}"#));
        c.total_cost = price(r#"{"excl_vat": 2.00}"#);
        let b = billed(&c, c.start_date_time).unwrap();
        // 4.00 of parts capped at 2.00: the time part goes first.
        assert_eq!(b.costs.discount_fen, 200);
        assert_eq!((b.costs.electricity_fen, b.costs.time_fee_fen), (100, 100));
        assert_eq!(b.costs.total_fen(), 200);
    }

    #[test]
    fn a_negative_charge_or_an_end_before_the_start_is_refused() {
        let mut c = cdr();
        c.total_cost = price(r#"{"excl_vat": -4.00, "incl_vat": -4.40}"#);
        assert_eq!(
            billed(&c, c.start_date_time),
            Err(Refusal::Negative("total_cost"))
        );
        let mut c = cdr();
        c.total_time_cost = Some(price(r#"{"excl_vat": -1.00}"#));
        assert_eq!(
            billed(&c, c.start_date_time),
            Err(Refusal::Negative("total_time_cost"))
        );
        let mut c = cdr();
        c.end_date_time = at("2015-06-29T21:00:00Z");
        assert_eq!(billed(&c, c.start_date_time), Err(Refusal::EndsBeforeStart));
        // Before the session energy knows, though after its own start.
        let c = cdr();
        assert_eq!(
            billed(&c, at("2015-06-30T00:00:00Z")),
            Err(Refusal::EndsBeforeStart)
        );
    }

    #[test]
    fn a_short_capture_leaves_the_last_parts_uncollected() {
        let costs = Costs {
            electricity_fen: 1000,
            service_fee_fen: 300,
            time_fee_fen: 200,
            ..Costs::default()
        };
        let captured = costs.captured(1200);
        assert_eq!(captured[0], (AccountKind::PlatformRevenue, 1000));
        assert_eq!(captured[1], (AccountKind::ServiceFeeRevenue, 200));
        assert_eq!(captured[2], (AccountKind::TimeFeeRevenue, 0));
        assert_eq!(captured.iter().map(|(_, f)| f).sum::<i64>(), 1200);
    }

    #[test]
    fn a_credit_takes_back_its_negated_total() {
        let mut c = cdr();
        assert!(credited(&c).is_err(), "a credit must be negative");
        c.total_cost = price(r#"{"excl_vat": -4.00, "incl_vat": -4.40}"#);
        assert_eq!(credited(&c), Ok(440));
    }
}

//! OCPI numbers (kWh, CNY, CNY/kWh) as exact integers of a smaller unit.
//!
//! OCPI sends decimals as JSON numbers (`"kwh": 12.345`, `"excl_vat": 8.6`).
//! Fleetdesk keeps Wh, fen and fen per MWh, so a number is read from its
//! decimal text and scaled without passing through floating-point
//! arithmetic: `12.345` kWh → 12 345 Wh, `0.8235` CNY/kWh → 82 350 fen/MWh.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Scale of Wh in kWh.
pub const WH_PER_KWH: u32 = 3;
/// Scale of fen in CNY.
pub const FEN_PER_CNY: u32 = 2;
/// Scale of fen per MWh in CNY per kWh (1 CNY/kWh = 100 000 fen/MWh).
pub const FEN_PER_MWH_PER_CNY_PER_KWH: u32 = 5;

/// A decimal as it travels: the JSON number's shortest text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decimal(String);

impl Decimal {
    /// `units` of 10^-`scale`: `from_scaled(1234, 2)` is `12.34`.
    pub fn from_scaled(units: i64, scale: u32) -> Decimal {
        let sign = if units < 0 { "-" } else { "" };
        let magnitude = units.unsigned_abs();
        if scale == 0 {
            return Decimal(format!("{sign}{magnitude}"));
        }
        let factor = 10u64.pow(scale);
        let whole = magnitude / factor;
        let fraction = format!("{:0width$}", magnitude % factor, width = scale as usize);
        let fraction = fraction.trim_end_matches('0');
        if fraction.is_empty() {
            Decimal(format!("{sign}{whole}"))
        } else {
            Decimal(format!("{sign}{whole}.{fraction}"))
        }
    }

    /// Whole units of 10^-`scale`, half away from zero past the last digit
    /// kept (a CPO may price to more decimals than a fen). `None` when the
    /// text is not a number or does not fit.
    pub fn to_scaled(&self, scale: u32) -> Option<i64> {
        let text = self.0.trim();
        let (mantissa, exponent) = match text.find(['e', 'E']) {
            Some(at) => (&text[..at], text[at + 1..].parse::<i32>().ok()?),
            None => (text, 0),
        };
        let (negative, digits) = match mantissa.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, mantissa.strip_prefix('+').unwrap_or(mantissa)),
        };
        let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
        if (whole.is_empty() && fraction.is_empty())
            || !whole
                .bytes()
                .chain(fraction.bytes())
                .all(|b| b.is_ascii_digit())
        {
            return None;
        }
        // value = all_digits × 10^(exponent − fraction digits); we want × 10^scale.
        let all: String = whole.chars().chain(fraction.chars()).collect();
        let shift = exponent + scale as i32 - fraction.len() as i32;
        let mut value: i128 = 0;
        let (kept, dropped) = if shift >= 0 {
            (all.as_str(), "")
        } else {
            let cut = all.len().saturating_sub(shift.unsigned_abs() as usize);
            all.split_at(cut)
        };
        for b in kept.bytes() {
            value = value.checked_mul(10)?.checked_add(i128::from(b - b'0'))?;
        }
        if shift > 0 {
            value = value.checked_mul(10i128.checked_pow(shift as u32)?)?;
        }
        // Digits dropped beyond what `kept` covers only matter by their first.
        let skipped = (shift.unsigned_abs() as usize).saturating_sub(all.len());
        if shift < 0 && skipped == 0 && dropped.bytes().next().is_some_and(|b| b >= b'5') {
            value += 1;
        }
        let value = if negative { -value } else { value };
        i64::try_from(value).ok()
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Serialize for Decimal {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // A JSON number, as OCPI has it; parsing keeps short decimals exact.
        let number: serde_json::Number = self.0.parse().map_err(serde::ser::Error::custom)?;
        number.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Decimal {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let number = serde_json::Number::deserialize(deserializer)?;
        Ok(Decimal(number.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scaled(text: &str, scale: u32) -> Option<i64> {
        Decimal(text.to_owned()).to_scaled(scale)
    }

    #[test]
    fn decimals_scale_exactly_without_floats() {
        assert_eq!(scaled("12.345", WH_PER_KWH), Some(12_345));
        assert_eq!(scaled("0.8235", FEN_PER_MWH_PER_CNY_PER_KWH), Some(82_350));
        assert_eq!(scaled("8.6", FEN_PER_CNY), Some(860));
        assert_eq!(scaled("100", FEN_PER_CNY), Some(10_000));
        assert_eq!(scaled("-3.5", FEN_PER_CNY), Some(-350));
        assert_eq!(scaled("1e-4", FEN_PER_MWH_PER_CNY_PER_KWH), Some(10));
        assert_eq!(scaled("1.5E2", 0), Some(150));
    }

    #[test]
    fn extra_digits_round_half_away_from_zero() {
        assert_eq!(scaled("12.345", FEN_PER_CNY), Some(1_235));
        assert_eq!(scaled("12.344", FEN_PER_CNY), Some(1_234));
        assert_eq!(scaled("-0.005", FEN_PER_CNY), Some(-1));
        assert_eq!(scaled("0.0000001", FEN_PER_CNY), Some(0));
    }

    #[test]
    fn garbage_and_overflow_are_refused() {
        for bad in ["", "abc", "1.2.3", "--1", "1e", "99999999999999999999"] {
            assert_eq!(scaled(bad, FEN_PER_CNY), None, "{bad}");
        }
    }

    #[test]
    fn integers_print_as_short_decimals_and_read_back() {
        for (units, scale, text) in [
            (1_234, 2, "12.34"),
            (1_200, 2, "12"),
            (82_350, 5, "0.8235"),
            (-5, 3, "-0.005"),
            (0, 3, "0"),
        ] {
            let d = Decimal::from_scaled(units, scale);
            assert_eq!(d.as_str(), text);
            let json = serde_json::to_string(&d).unwrap();
            assert_eq!(json, text);
            let back: Decimal = serde_json::from_str(&json).unwrap();
            assert_eq!(back.to_scaled(scale), Some(units));
        }
    }
}

//! The unified social credit code (统一社会信用代码, GB 32100-2015) an invoice
//! title carries as the buyer's taxpayer id: 18 characters from
//! `0-9A-HJ-NPQRTUWXY` (no I, O, S, V, Z, which read like digits), the last
//! a check character: 31 minus the weighted sum of the first 17 values
//! modulo 31, as a character of the same set. Checked before an invoice is
//! requested, so a mistyped title is refused with its field instead of by
//! the platform.

/// The code's characters; a character's value is its position.
const CHARSET: &str = "0123456789ABCDEFGHJKLMNPQRTUWXY";
/// Weights of positions 1..=17 (3^i mod 31).
const WEIGHTS: [u32; 17] = [
    1, 3, 9, 27, 19, 26, 16, 17, 20, 29, 25, 13, 8, 24, 10, 30, 28,
];
/// How long a code is.
pub const LENGTH: usize = 18;

/// Why a code is not a unified social credit code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CreditCodeError {
    #[error("统一社会信用代码应为 18 位，实际 {0} 位")]
    Length(usize),
    #[error(
        "统一社会信用代码第 {position} 位“{found}”不是允许的字符（数字或除 I、O、S、V、Z 外的大写字母）"
    )]
    Character { position: usize, found: char },
    #[error("统一社会信用代码校验位不符（应为 {expected}）")]
    CheckCharacter { expected: char },
}

fn value(c: char) -> Option<u32> {
    CHARSET
        .chars()
        .position(|allowed| allowed == c)
        .and_then(|p| u32::try_from(p).ok())
}

/// Checks `code` (as typed: no trimming, no case folding, so what is stored
/// is what was checked).
pub fn check(code: &str) -> Result<(), CreditCodeError> {
    let chars: Vec<char> = code.chars().collect();
    if chars.len() != LENGTH {
        return Err(CreditCodeError::Length(chars.len()));
    }
    let mut values = [0u32; LENGTH];
    for (i, c) in chars.iter().enumerate() {
        values[i] = value(*c).ok_or(CreditCodeError::Character {
            position: i + 1,
            found: *c,
        })?;
    }
    let sum: u32 = WEIGHTS.iter().zip(&values).map(|(w, v)| w * v).sum();
    let expected = (31 - sum % 31) % 31;
    if values[LENGTH - 1] != expected {
        let expected = CHARSET.chars().nth(expected as usize).unwrap_or('?');
        return Err(CreditCodeError::CheckCharacter { expected });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_codes_pass() {
        for code in [
            "91350100M000100Y43", // the standard's own example
            "9144030071526726XG",
            "91330100716105852F",
            "914403001922038216",
            "91110108551385082Q",
            "12100000400000624D", // a public institution (1…)
            "911100001000079554",
        ] {
            assert_eq!(check(code), Ok(()), "{code}");
        }
    }

    #[test]
    fn the_weights_are_powers_of_three_modulo_31() {
        let mut w = 1;
        for weight in WEIGHTS {
            assert_eq!(weight, w);
            w = w * 3 % 31;
        }
        assert_eq!(CHARSET.len(), 31);
    }

    #[test]
    fn a_wrong_check_character_names_the_right_one() {
        assert_eq!(
            check("91350100M000100Y44"),
            Err(CreditCodeError::CheckCharacter { expected: '3' })
        );
        // Two neighbours swapped.
        assert!(matches!(
            check("91350100M000010Y43"),
            Err(CreditCodeError::CheckCharacter { .. })
        ));
        // A check value of 0 is written 0 (31 - 0 is not a character),
        // and the last character of the set is reachable.
        assert_eq!(check("91440300MA5F000080"), Ok(()));
        assert_eq!(check("91440300MA5F00027Y"), Ok(()));
    }

    #[test]
    fn wrong_lengths_and_characters_are_refused_with_the_position() {
        assert_eq!(check(""), Err(CreditCodeError::Length(0)));
        assert_eq!(check("91350100M000100Y4"), Err(CreditCodeError::Length(17)));
        assert_eq!(
            check("91350100M000100Y433"),
            Err(CreditCodeError::Length(19))
        );
        assert_eq!(
            check("91350100I000100Y43"),
            Err(CreditCodeError::Character {
                position: 9,
                found: 'I'
            })
        );
        assert_eq!(
            check("91350100m000100Y43"),
            Err(CreditCodeError::Character {
                position: 9,
                found: 'm'
            })
        );
        assert_eq!(
            check("９1350100M000100Y43"),
            Err(CreditCodeError::Character {
                position: 1,
                found: '９'
            })
        );
        assert!(
            check("91350100M000100Y4O")
                .unwrap_err()
                .to_string()
                .contains("第 18 位")
        );
    }
}

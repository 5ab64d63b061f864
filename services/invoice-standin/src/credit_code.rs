//! The platform's own check of a taxpayer id: a unified social credit code
//! of GB 32100-2015. Written from the standard, not shared with finance's
//! check, so a mistake in one is caught by the other: the 31 characters
//! 0-9 and A-Z without I, O, S, V, Z; the weight of position i (from 0) is
//! 3^i mod 31; the 18th character is the one whose value makes the
//! weighted sum of all 18 a multiple of 31 (the 18th weighing 1).

const ALPHABET: &[u8; 31] = b"0123456789ABCDEFGHJKLMNPQRTUWXY";

/// Why an id is refused, in the platform's words.
pub fn problem(id: &str) -> Option<String> {
    let bytes = id.as_bytes();
    if id.chars().count() != 18 {
        return Some(format!(
            "统一社会信用代码应为 18 位，当前为 {} 位",
            id.chars().count()
        ));
    }
    let mut sum = 0u32;
    let mut weight = 1u32;
    for (i, b) in bytes.iter().enumerate() {
        let Some(v) = ALPHABET.iter().position(|a| a == b) else {
            return Some(format!("统一社会信用代码第 {} 位字符不合法", i + 1));
        };
        // The check character counts once: value + sum ≡ 0 (mod 31).
        let w = if i == 17 { 1 } else { weight };
        sum += w * v as u32;
        weight = weight * 3 % 31;
    }
    (!sum.is_multiple_of(31)).then(|| "统一社会信用代码校验位错误".to_owned())
}

#[cfg(test)]
mod tests {
    use super::problem;

    #[test]
    fn published_codes_pass_and_changed_ones_fail() {
        for id in [
            "91350100M000100Y43",
            "9144030071526726XG",
            "91110108551385082Q",
            "91440300MA5F000080",
        ] {
            assert_eq!(problem(id), None, "{id}");
        }
        assert!(problem("91350100M000100Y42").unwrap().contains("校验位"));
        assert!(problem("91350100M00010").unwrap().contains("14 位"));
        assert!(problem("91350100MO00100Y43").unwrap().contains("第 10 位"));
    }
}

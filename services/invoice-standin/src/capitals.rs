//! An amount in Chinese capitals (大写金额), as the invoice's 价税合计 line
//! writes it, by the rules of the People's Bank's 支付结算办法: 元 then 整
//! when there are no 角 or 分; one 零 for any run of zeros between two
//! written digits (万 and 亿 included: 壹佰万零壹仟元整); 零 before 分 when
//! 角 is zero after a written 元 (壹元零伍分); nothing before 角/分 when
//! there are no yuan (伍分); 拾 always with its digit (壹拾元整). A negative
//! amount (a red-letter invoice) is prefixed 负.

const DIGITS: [char; 10] = ['零', '壹', '贰', '叁', '肆', '伍', '陆', '柒', '捌', '玖'];
/// Units within a group of four digits, from the ones.
const PLACES: [&str; 4] = ["", "拾", "佰", "仟"];
/// Units of the groups of four, from the ones.
const GROUPS: [&str; 5] = ["", "万", "亿", "万亿", "亿亿"];

/// `fen` in capitals.
pub fn capitals(fen: i64) -> String {
    let mut out = String::new();
    if fen < 0 {
        out.push('负');
    }
    let fen = fen.unsigned_abs();
    let yuan = fen / 100;
    let jiao = (fen / 10 % 10) as usize;
    let fen_digit = (fen % 10) as usize;
    if yuan == 0 && jiao == 0 && fen_digit == 0 {
        return "零元整".to_owned();
    }
    if yuan > 0 {
        write_yuan(&mut out, yuan);
        out.push('元');
    }
    if jiao == 0 && fen_digit == 0 {
        out.push('整');
        return out;
    }
    if jiao > 0 {
        out.push(DIGITS[jiao]);
        out.push('角');
    } else if yuan > 0 {
        out.push('零');
    }
    if fen_digit > 0 {
        out.push(DIGITS[fen_digit]);
        out.push('分');
    }
    out
}

/// The whole yuan (> 0), digit by digit from the highest: a zero is held
/// back and written as one 零 only if a non-zero digit follows.
fn write_yuan(out: &mut String, yuan: u64) {
    let digits: Vec<usize> = yuan
        .to_string()
        .bytes()
        .map(|b| usize::from(b - b'0'))
        .collect();
    let mut zero_pending = false;
    let mut group_written = false;
    for (i, &digit) in digits.iter().enumerate() {
        let place = digits.len() - 1 - i;
        if digit == 0 {
            zero_pending = true;
        } else {
            if zero_pending {
                out.push('零');
                zero_pending = false;
            }
            out.push(DIGITS[digit]);
            out.push_str(PLACES[place % 4]);
            group_written = true;
        }
        if place.is_multiple_of(4) {
            if group_written {
                out.push_str(GROUPS[place / 4]);
            }
            group_written = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::capitals;

    #[test]
    fn the_examples_of_the_rules() {
        for (fen, text) in [
            (123_456, "壹仟贰佰叁拾肆元伍角陆分"),
            (10_000, "壹佰元整"),
            (5, "伍分"),
            (50, "伍角"),
            (55, "伍角伍分"),
            (0, "零元整"),
            (100, "壹元整"),
            (1_000, "壹拾元整"),
            (1_500, "壹拾伍元整"),
            (105, "壹元零伍分"),
            (1_005, "壹拾元零伍分"),
            (123_045, "壹仟贰佰叁拾元肆角伍分"),
            (100_500, "壹仟零伍元整"),
            (105_000, "壹仟零伍拾元整"),
            (1_000_500, "壹万零伍元整"),
            (10_050_000, "壹拾万零伍佰元整"),
            (100_100_000, "壹佰万零壹仟元整"),
            (101_000_000, "壹佰零壹万元整"),
            (10_000_000_000, "壹亿元整"),
            (10_001_000_000, "壹亿零壹万元整"),
            (10_000_000_001, "壹亿元零壹分"),
            (
                987_654_321_012,
                "玖拾捌亿柒仟陆佰伍拾肆万叁仟贰佰壹拾元壹角贰分",
            ),
            (-10_000, "负壹佰元整"),
            (-123_456, "负壹仟贰佰叁拾肆元伍角陆分"),
        ] {
            assert_eq!(capitals(fen), text, "{fen} fen");
        }
    }

    #[test]
    fn the_extremes_do_not_panic() {
        assert!(capitals(i64::MAX).ends_with("柒分"));
        assert!(capitals(i64::MIN).starts_with('负'));
    }
}

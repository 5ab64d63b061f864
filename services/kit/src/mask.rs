//! Masking of personal data, exactly as console spec §5 says. The server masks; the
//! console only shows what it is given.

/// Placeholders that mean "no value" and are shown as they are.
fn is_placeholder(s: &str) -> bool {
    matches!(s, "-" | "--" | "无")
}

/// Centre mode: under 3 chars unmasked, under 7 keep 1 at each end, under 9
/// keep 2 at each end, else keep 3 at the start and 4 at the end.
pub fn centre(value: &str) -> String {
    if is_placeholder(value) {
        return value.to_owned();
    }
    let chars: Vec<char> = value.chars().collect();
    let n = chars.len();
    let (head, tail) = match n {
        0..3 => return value.to_owned(),
        3..7 => (1, 1),
        7..9 => (2, 2),
        _ => (3, 4),
    };
    keep(&chars, head, tail)
}

/// End mode: up to 7 chars unmasked, up to 12 keep 7 at the start, longer keep 9.
pub fn end(value: &str) -> String {
    if is_placeholder(value) {
        return value.to_owned();
    }
    let chars: Vec<char> = value.chars().collect();
    let head = match chars.len() {
        0..=7 => return value.to_owned(),
        8..=12 => 7,
        _ => 9,
    };
    keep(&chars, head, 0)
}

fn keep(chars: &[char], head: usize, tail: usize) -> String {
    let n = chars.len();
    chars
        .iter()
        .enumerate()
        .map(|(i, c)| if i < head || i >= n - tail { *c } else { '*' })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn centre_mode_follows_the_length_bands() {
        assert_eq!(centre(""), "");
        assert_eq!(centre("张三"), "张三");
        assert_eq!(centre("abc"), "a*c");
        assert_eq!(centre("abcdef"), "a****f");
        assert_eq!(centre("abcdefg"), "ab***fg");
        assert_eq!(centre("abcdefgh"), "ab****gh");
        assert_eq!(centre("13812345678"), "138****5678");
        assert_eq!(centre("110101199001011234"), "110***********1234");
    }

    #[test]
    fn end_mode_follows_the_length_bands() {
        assert_eq!(end("北京市朝阳区"), "北京市朝阳区");
        assert_eq!(end("1234567"), "1234567");
        assert_eq!(end("12345678"), "1234567*");
        assert_eq!(end("123456789012"), "1234567*****");
        assert_eq!(end("1234567890123"), "123456789****");
    }

    #[test]
    fn placeholders_are_never_masked() {
        for p in ["-", "--", "无"] {
            assert_eq!(centre(p), p);
            assert_eq!(end(p), p);
        }
    }
}

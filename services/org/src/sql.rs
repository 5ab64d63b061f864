//! SQL text helpers every subject's store shares.

/// A LIKE pattern matching `needle` anywhere, with its wildcards escaped.
pub fn like_pattern(needle: &str) -> String {
    format!(
        "%{}%",
        needle
            .replace('\\', "\\\\")
            .replace('%', "\\%")
            .replace('_', "\\_")
    )
}

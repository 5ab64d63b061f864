//! Checks of a money move that accounts, cards and statements share.

use crate::envelope::ApiError;

/// Longest remark of a money move.
pub const MAX_REMARK_CHARS: usize = 200;

/// Refuses a remark longer than [`MAX_REMARK_CHARS`].
pub fn check_remark(field: &str, remark: &str) -> Result<(), ApiError> {
    if remark.chars().count() > MAX_REMARK_CHARS {
        return Err(ApiError::invalid(field, "备注不能超过 200 个字符"));
    }
    Result::Ok(())
}

/// Refuses an amount that is not positive.
pub fn check_amount(field: &str, amount_fen: i64) -> Result<(), ApiError> {
    if amount_fen <= 0 {
        return Err(ApiError::invalid(field, "金额须大于 0"));
    }
    Result::Ok(())
}

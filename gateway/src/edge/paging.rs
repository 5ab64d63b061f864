//! Paging of every list: `page` from 1, `size` one of a few page sizes.

use fleetdesk_proto::common::v1::PageRequest;

use crate::envelope::ApiError;

/// Page sizes a list accepts.
pub const PAGE_SIZES: [i32; 5] = [5, 10, 20, 50, 100];

/// Validates `page` (from 1) and `size` (5/10/20/50/100, default 20).
pub fn paging(page: Option<i32>, size: Option<i32>) -> Result<PageRequest, ApiError> {
    let page = page.unwrap_or(1);
    let size = size.unwrap_or(20);
    if page < 1 {
        return Err(ApiError::invalid("page", "页码从 1 开始"));
    }
    if !PAGE_SIZES.contains(&size) {
        return Err(ApiError::invalid(
            "size",
            "每页条数只能是 5、10、20、50 或 100",
        ));
    }
    Ok(PageRequest { page, size })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paging_accepts_only_the_listed_sizes() {
        assert_eq!(
            paging(None, None).unwrap(),
            PageRequest { page: 1, size: 20 }
        );
        for size in PAGE_SIZES {
            assert!(paging(Some(2), Some(size)).is_ok());
        }
        for size in [0, 7, 101, 1000] {
            assert!(paging(None, Some(size)).is_err(), "{size}");
        }
        assert!(paging(Some(0), None).is_err());
    }
}

//! A query string as a multimap: every key's values in order, trimmed,
//! empty ones set aside (absent for text, malformed for typed values).

use std::collections::BTreeMap;

use fleetdesk_proto::common::v1::PageRequest;

use crate::edge::paging::paging;
use crate::envelope::ApiError;

/// Query parameters of a list request, by key.
#[derive(Debug, Default, Clone)]
pub struct ListQuery {
    values: BTreeMap<String, Vec<String>>,
    /// Keys given only empty: absent for text, malformed for typed values.
    empty: Vec<String>,
}

impl ListQuery {
    /// Every non-empty value of `key`, in order.
    pub(crate) fn values_of(&self, key: &str) -> &[String] {
        self.values.get(key).map_or(&[], Vec::as_slice)
    }

    /// Whether `key` was given empty (too): absent for text, malformed for
    /// typed values.
    pub(crate) fn given_empty(&self, key: &str) -> bool {
        self.empty.iter().any(|k| k == key)
    }

    pub fn parse(raw: &str) -> Result<ListQuery, ApiError> {
        let pairs: Vec<(String, String)> = serde_urlencoded::from_str(raw)
            .map_err(|_| ApiError::invalid("query", "查询参数格式有误"))?;
        let mut values: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut empty = Vec::new();
        for (key, value) in pairs {
            let value = value.trim();
            if value.is_empty() {
                empty.push(key);
            } else {
                values.entry(key).or_default().push(value.to_owned());
            }
        }
        Ok(ListQuery { values, empty })
    }

    /// Refuses a typed key (number, flag, enum) given empty: `active=` is
    /// not a yes or no, so it must not read as "no filter".
    fn typed(&self, key: &str) -> Result<(), ApiError> {
        if self.empty.iter().any(|k| k == key) {
            return Err(ApiError::invalid(key, "筛选条件的取值无效"));
        }
        Ok(())
    }

    /// `page` (from 1, default 1) and `size` (5/10/20/50/100, default 20),
    /// read from the raw query: an export checks them as its list does,
    /// before its filters, whether its struct names them or not.
    pub fn paging(&self) -> Result<PageRequest, ApiError> {
        let number = |key: &str| -> Result<Option<i32>, ApiError> {
            self.typed(key)?;
            self.values_of(key)
                .last()
                .map(|v| v.parse().map_err(|_| ApiError::invalid(key, "请输入整数")))
                .transpose()
        };
        paging(number("page")?, number("size")?)
    }
}

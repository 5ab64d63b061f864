//! A query string as a multimap: every key's values in order, read by the
//! edge's one query reading ([`query_pairs`]: trimmed, a key given empty is
//! a key left out, a key given spaces only kept aside to be judged by its
//! type).

use std::collections::BTreeMap;

use fleetdesk_proto::common::v1::PageRequest;

use crate::edge::paging::paging;
use crate::envelope::ApiError;
use crate::extract::query_pairs;

/// Query parameters of a list request, by key.
#[derive(Debug, Default, Clone)]
pub struct ListQuery {
    values: BTreeMap<String, Vec<String>>,
    /// Keys given spaces only ([`query_pairs`]).
    blank: Vec<String>,
}

impl ListQuery {
    /// Every non-empty value of `key`, in order.
    pub(crate) fn values_of(&self, key: &str) -> &[String] {
        self.values.get(key).map_or(&[], Vec::as_slice)
    }

    pub fn parse(raw: &str) -> Result<ListQuery, ApiError> {
        let read = query_pairs(raw)?;
        let mut values: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (key, value) in read.given {
            values.entry(key).or_default().push(value);
        }
        Ok(ListQuery {
            values,
            blank: read.blank,
        })
    }

    /// The query with each key given spaces only given `""` instead, for
    /// the types to judge; `None` when no key is blank.
    pub(crate) fn blanks_as_empty(&self) -> Option<ListQuery> {
        (!self.blank.is_empty()).then(|| {
            let mut values = self.values.clone();
            for key in &self.blank {
                values.entry(key.clone()).or_default().push(String::new());
            }
            ListQuery {
                values,
                blank: Vec::new(),
            }
        })
    }

    /// `page` (from 1, default 1) and `size` (5/10/20/50/100, default 20),
    /// read from the raw query: an export checks them as its list does,
    /// before its filters, whether its struct names them or not.
    pub fn paging(&self) -> Result<PageRequest, ApiError> {
        let number = |key: &str| -> Result<Option<i32>, ApiError> {
            if self.blank.iter().any(|b| b == key) {
                return Err(ApiError::invalid(key, "请输入整数"));
            }
            self.values_of(key)
                .last()
                .map(|v| v.parse().map_err(|_| ApiError::invalid(key, "请输入整数")))
                .transpose()
        };
        paging(number("page")?, number("size")?)
    }
}

//! List queries (docs/ARCHITECTURE.md §3): one shape for every list, count and
//! export of a service, built on `sqlx::QueryBuilder` so every value is a
//! bind parameter.
//!
//! - [`Paging`] checks page (from 1) and size (5/10/20/50/100).
//! - [`batch`] checks a batch filter (plates, VINs: at most 250 values).
//! - [`Filters`] collects the `where` clause: the tenant and reach
//!   condition first, then each optional filter — left out entirely when it is
//!   empty (never `like '%%'`); `= any($n)` for batches, `ilike` for
//!   contains-search (served by a pg_trgm index), half-open time ranges.
//! - [`Sort`] is implemented by one enum per list mapping to a fixed
//!   `order by`, so no column name ever comes from a request.
//! - [`Filters::page`] and [`Filters::keyset`] finish a rows query; exports
//!   use the keyset (never OFFSET) so each page is an index range scan.

use chrono::{DateTime, Utc};
use sqlx::QueryBuilder;
use sqlx_postgres::Postgres;
use uuid::Uuid;

use crate::error::ServiceError;

/// Page sizes a list accepts.
pub const PAGE_SIZES: [i64; 5] = [5, 10, 20, 50, 100];
/// Most values a batch filter takes.
pub const BATCH_LIMIT: usize = 250;

/// The spec's text for a batch over the limit (`每次批量查询，最大不超过{max}{unit}`).
pub fn batch_limit_message() -> String {
    format!("每次批量查询，最大不超过{BATCH_LIMIT}台")
}

/// A checked page request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Paging {
    pub page: i64,
    pub size: i64,
}

impl Paging {
    /// Page from 1 (default 1); size one of [`PAGE_SIZES`] (default 20).
    pub fn parse(
        request: Option<&fleetdesk_proto::common::v1::PageRequest>,
    ) -> Result<Paging, ServiceError> {
        let page = request.map_or(0, |p| p.page);
        let size = request.map_or(0, |p| p.size);
        let page = if page == 0 { 1 } else { i64::from(page) };
        let size = if size == 0 { 20 } else { i64::from(size) };
        if page < 1 {
            return Err(ServiceError::invalid("page", "页码从 1 开始"));
        }
        if !PAGE_SIZES.contains(&size) {
            return Err(ServiceError::invalid(
                "size",
                "每页条数只能是 5、10、20、50 或 100",
            ));
        }
        Ok(Paging { page, size })
    }

    pub fn offset(&self) -> i64 {
        (self.page - 1) * self.size
    }

    pub fn info(&self, total: i64) -> fleetdesk_proto::common::v1::PageInfo {
        crate::convert::page_info(self.page, self.size, total)
    }
}

/// A batch filter's values: trimmed, empty ones dropped, duplicates removed
/// (by a set: comparing each with those kept was a tenth of a 250-plate
/// list's CPU), at most [`BATCH_LIMIT`] (else 4000 naming `field` with the
/// spec's text).
pub fn batch(field: &str, values: &[String]) -> Result<Vec<String>, ServiceError> {
    let mut seen = std::collections::HashSet::with_capacity(values.len());
    let mut out: Vec<String> = Vec::with_capacity(values.len());
    for value in values {
        let value = value.trim();
        if !value.is_empty() && seen.insert(value) {
            out.push(value.to_owned());
        }
    }
    if out.len() > BATCH_LIMIT {
        return Err(ServiceError::invalid(field, batch_limit_message()));
    }
    Ok(out)
}

/// Escapes `%`, `_` and `\` so user text matches literally inside `ilike`.
pub fn like_pattern(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('%');
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('%');
    out
}

/// A list's order: one enum per list, each variant a fixed `order by` list
/// ending in a unique column, so pages never overlap.
pub trait Sort {
    fn order_by(&self) -> &'static str;
}

/// A half-open time range `[start, end)`; either side may be open.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TimeRange {
    pub start: Option<DateTime<Utc>>,
    pub end: Option<DateTime<Utc>>,
}

impl TimeRange {
    /// From the proto range; refuses start after end, naming `field`.
    pub fn parse(
        field: &str,
        range: Option<&fleetdesk_proto::common::v1::TimeRange>,
    ) -> Result<TimeRange, ServiceError> {
        let Some(range) = range else {
            return Ok(TimeRange::default());
        };
        let start = range.start.as_ref().and_then(crate::convert::datetime);
        let end = range.end.as_ref().and_then(crate::convert::datetime);
        if let (Some(s), Some(e)) = (start, end)
            && s > e
        {
            return Err(ServiceError::invalid(field, "开始时间不允许大于结束时间"));
        }
        Ok(TimeRange { start, end })
    }

    pub fn is_empty(&self) -> bool {
        self.start.is_none() && self.end.is_none()
    }
}

/// The keyset position of an export page: the last row's time and id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor {
    pub at: DateTime<Utc>,
    pub id: Uuid,
}

/// The `where` clause of a list, count or export, over one `from`.
pub struct Filters<'a> {
    qb: QueryBuilder<'a, Postgres>,
    /// Where the conditions start in the query text (after `select ... from ...`).
    select_len: usize,
    conditions: usize,
    /// Conditions that bound what the caller may see (tenant, reach) rather
    /// than narrow the list.
    scope_conditions: usize,
}

impl std::fmt::Debug for Filters<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Filters")
            .field("sql", &self.qb.sql())
            .finish()
    }
}

impl<'a> Filters<'a> {
    /// `select ... from ...` with the tenant condition on `enterprise_column`
    /// (row-level security is the second line, not the only one).
    pub fn new(select_from: &str, enterprise_column: &str, enterprise: Uuid) -> Filters<'a> {
        let mut filters = Filters {
            qb: QueryBuilder::new(select_from),
            select_len: select_from.len(),
            conditions: 0,
            scope_conditions: 0,
        };
        filters
            .scope()
            .push(enterprise_column)
            .push(" = ")
            .push_bind(enterprise);
        filters
    }

    /// `select ... from ...` without a tenant condition: a service-level
    /// list over every enterprise (the platform operator's), read in a
    /// service-scoped transaction (`db::begin_service`).
    pub fn across_tenants(select_from: &str) -> Filters<'a> {
        Filters {
            qb: QueryBuilder::new(select_from),
            select_len: select_from.len(),
            conditions: 0,
            scope_conditions: 0,
        }
    }

    /// Starts a condition on what the caller may see (the reach condition)
    /// and hands out the builder to write it; it does not count as a filter.
    pub fn scope(&mut self) -> &mut QueryBuilder<'a, Postgres> {
        self.scope_conditions += 1;
        self.and()
    }

    /// Starts the next filter condition (` where ` or ` and `) and hands out
    /// the builder to write it.
    pub fn and(&mut self) -> &mut QueryBuilder<'a, Postgres> {
        self.qb.push(if self.conditions == 0 {
            " where "
        } else {
            " and "
        });
        self.conditions += 1;
        &mut self.qb
    }

    /// `column = any($n)` when `values` is not empty.
    pub fn any_of<T>(&mut self, column: &str, values: Vec<T>) -> &mut Self
    where
        T: 'a + sqlx::Type<Postgres> + sqlx::Encode<'a, Postgres> + Send,
        Vec<T>: sqlx::Type<Postgres> + sqlx::Encode<'a, Postgres>,
    {
        if !values.is_empty() {
            self.and()
                .push(column)
                .push(" = any(")
                .push_bind(values)
                .push(")");
        }
        self
    }

    /// `column = $n` when `value` is set.
    pub fn equals<T>(&mut self, column: &str, value: Option<T>) -> &mut Self
    where
        T: 'a + sqlx::Type<Postgres> + sqlx::Encode<'a, Postgres> + Send,
    {
        if let Some(value) = value {
            self.and().push(column).push(" = ").push_bind(value);
        }
        self
    }

    /// `column ilike '%text%'` (literal text) when `text` is not blank.
    pub fn contains(&mut self, column: &str, text: &str) -> &mut Self {
        let text = text.trim();
        if !text.is_empty() {
            self.and()
                .push(column)
                .push(" ilike ")
                .push_bind(like_pattern(text));
        }
        self
    }

    /// Any of `columns` contains `text` (one keyword over plate and VIN).
    pub fn contains_any(&mut self, columns: &[&str], text: &str) -> &mut Self {
        let text = text.trim();
        if !text.is_empty() && !columns.is_empty() {
            let pattern = like_pattern(text);
            let qb = self.and();
            qb.push("(");
            for (i, column) in columns.iter().enumerate() {
                if i > 0 {
                    qb.push(" or ");
                }
                qb.push(*column).push(" ilike ").push_bind(pattern.clone());
            }
            qb.push(")");
        }
        self
    }

    /// `column >= start and column < end` for the sides that are set.
    pub fn within(&mut self, column: &str, range: TimeRange) -> &mut Self {
        if let Some(start) = range.start {
            self.and().push(column).push(" >= ").push_bind(start);
        }
        if let Some(end) = range.end {
            self.and().push(column).push(" < ").push_bind(end);
        }
        self
    }

    /// `column is not null` (true) or `column is null` (false) when set.
    pub fn present(&mut self, column: &str, present: Option<bool>) -> &mut Self {
        if let Some(present) = present {
            self.and()
                .push(column)
                .push(if present { " is not null" } else { " is null" });
        }
        self
    }

    /// The conditions written so far (` where ...` with its `$n`
    /// placeholders). Another `Filters` given the same conditions binds the
    /// same values under the same placeholders, so this text can repeat in a
    /// subquery of its statement: a page that carries its own count.
    pub fn where_clause(&self) -> &str {
        &self.qb.sql()[self.select_len..]
    }

    /// Whether any filter beyond the tenant and reach was added.
    pub fn narrows(&self) -> bool {
        self.conditions > self.scope_conditions
    }

    /// Finishes a rows query: the list's order and one page.
    pub fn page(mut self, sort: &impl Sort, paging: Paging) -> QueryBuilder<'a, Postgres> {
        self.qb
            .push(" order by ")
            .push(sort.order_by())
            .push(" limit ")
            .push_bind(paging.size)
            .push(" offset ")
            .push_bind(paging.offset());
        self.qb
    }

    /// Finishes an export page: newest first by (`time_column`, `id_column`),
    /// after `cursor`, at most `limit` rows. Needs an index on
    /// (enterprise, time desc, id desc).
    pub fn keyset(
        mut self,
        time_column: &str,
        id_column: &str,
        cursor: Option<Cursor>,
        limit: i64,
    ) -> QueryBuilder<'a, Postgres> {
        if let Some(cursor) = cursor {
            self.and()
                .push("(")
                .push(time_column)
                .push(", ")
                .push(id_column)
                .push(") < (")
                .push_bind(cursor.at)
                .push(", ")
                .push_bind(cursor.id)
                .push(")");
        }
        self.qb
            .push(" order by ")
            .push(time_column)
            .push(" desc, ")
            .push(id_column)
            .push(" desc limit ")
            .push_bind(limit);
        self.qb
    }

    /// Finishes a count or any other query needing no order.
    pub fn finish(self) -> QueryBuilder<'a, Postgres> {
        self.qb
    }
}

#[cfg(test)]
mod tests {
    use fleetdesk_proto::common::v1::PageRequest;

    use super::*;

    #[test]
    fn paging_defaults_to_the_first_page_of_twenty_and_accepts_only_listed_sizes() {
        assert_eq!(Paging::parse(None).unwrap(), Paging { page: 1, size: 20 });
        for size in PAGE_SIZES {
            let req = PageRequest {
                page: 3,
                size: size as i32,
            };
            assert_eq!(Paging::parse(Some(&req)).unwrap().offset(), 2 * size);
        }
        for size in [7, 101, -5] {
            let err = Paging::parse(Some(&PageRequest { page: 1, size })).unwrap_err();
            assert_eq!(err.fields[0].field, "size");
        }
        assert!(Paging::parse(Some(&PageRequest { page: -1, size: 20 })).is_err());
    }

    #[test]
    fn a_batch_is_trimmed_deduplicated_and_limited_to_250_with_the_spec_text() {
        let values: Vec<String> = vec![
            " 粤B12345 ".into(),
            "".into(),
            "粤B12345".into(),
            "京A1".into(),
        ];
        assert_eq!(batch("plate", &values).unwrap(), vec!["粤B12345", "京A1"]);
        let many: Vec<String> = (0..251).map(|i| format!("V{i}")).collect();
        let err = batch("plate", &many).unwrap_err();
        assert_eq!(err.fields[0].field, "plate");
        assert_eq!(err.fields[0].message, "每次批量查询，最大不超过250台");
        assert_eq!(batch("plate", &many[..250]).unwrap().len(), 250);
    }

    #[test]
    fn like_patterns_match_user_text_literally() {
        assert_eq!(like_pattern("50%_a\\"), "%50\\%\\_a\\\\%");
    }

    struct Newest;
    impl Sort for Newest {
        fn order_by(&self) -> &'static str {
            "v.created_at desc, v.id desc"
        }
    }

    #[test]
    fn empty_filters_are_left_out_of_the_query() {
        let mut f = Filters::new("select v.id from vehicle v", "v.enterprise_id", Uuid::nil());
        f.scope().push("true");
        f.any_of::<String>("v.plate_number", vec![])
            .contains("v.brand", "  ")
            .contains_any(&["v.plate_number", "v.vin"], "")
            .within("v.created_at", TimeRange::default())
            .present("v.terminal_id", None)
            .equals::<i16>("v.status", None);
        assert!(!f.narrows());
        assert_eq!(f.where_clause(), " where v.enterprise_id = $1 and true");
        let sql = f.page(&Newest, Paging { page: 2, size: 20 }).into_sql();
        assert_eq!(
            sql,
            "select v.id from vehicle v where v.enterprise_id = $1 and true \
             order by v.created_at desc, v.id desc limit $2 offset $3"
        );
    }

    #[test]
    fn a_list_across_tenants_starts_with_the_first_filter() {
        let mut f = Filters::across_tenants("select a.id from application a");
        assert!(!f.narrows());
        f.any_of("a.status", vec![1i16]);
        assert_eq!(
            f.finish().into_sql(),
            "select a.id from application a where a.status = any($1)"
        );
    }

    #[test]
    fn set_filters_each_add_one_bound_condition() {
        let mut f = Filters::new("select v.id from vehicle v", "v.enterprise_id", Uuid::nil());
        f.any_of("v.plate_number", vec!["粤B12345".to_owned()])
            .contains_any(&["v.plate_number", "v.vin"], "B12")
            .within(
                "v.created_at",
                TimeRange {
                    start: Some(Utc::now()),
                    end: None,
                },
            )
            .present("v.terminal_id", Some(false));
        assert!(f.narrows());
        let sql = f
            .keyset(
                "v.created_at",
                "v.id",
                Some(Cursor {
                    at: Utc::now(),
                    id: Uuid::nil(),
                }),
                1000,
            )
            .into_sql();
        assert_eq!(
            sql,
            "select v.id from vehicle v where v.enterprise_id = $1 \
             and v.plate_number = any($2) \
             and (v.plate_number ilike $3 or v.vin ilike $4) \
             and v.created_at >= $5 and v.terminal_id is null \
             and (v.created_at, v.id) < ($6, $7) \
             order by v.created_at desc, v.id desc limit $8"
        );
    }
}

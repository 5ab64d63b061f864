//! This service's bulk imports (docs/ARCHITECTURE.md §3) through kit::import: the
//! vehicle and driver imports (`vehicles::import`, `drivers::import`) read
//! the file the gateway put in the object store, check every row with the
//! same domain rules as a create (`VehicleDraft::parse`, `DriverDraft::parse`)
//! and write all rows in one transaction or none.
//!
//! Shared here: reading the uploaded file, organisations by code or name
//! within the caller's reach, the per-row problem list (one problem per
//! column, domain field errors under their column titles), cell readers
//! (whole numbers, decimals, dates as Asia/Shanghai days, choices by label).
//! The templates are `templates`' (they name the subjects' columns).

use std::collections::HashMap;

use chrono::{DateTime, FixedOffset, NaiveDate, TimeZone, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::files::{self, FileStore};
use fleetdesk_kit::import::{Column, Problem, SheetRow};
use fleetdesk_proto::vehicle::v1 as pb;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use crate::context::Actor;

/// The bytes of an uploaded import file of the caller's enterprise. A key of
/// another enterprise is as unknown as one that never existed.
pub async fn file(
    store: &FileStore,
    actor: &Actor,
    file: Option<pb::ImportFile>,
) -> Result<bytes::Bytes, ServiceError> {
    let pb::ImportFile { key, name: _ } = file.unwrap_or_default();
    let key = key.trim();
    if key.is_empty() {
        return Err(ServiceError::invalid("file", "请先选择上传文件"));
    }
    if !files::owned_by(key, actor.enterprise_id) {
        return Err(ServiceError::not_found());
    }
    store.get_bytes(key).await
}

/// The organisations of one enterprise by code and by name (from the
/// org_unit replica), to read the 所属组织 column.
#[derive(Debug, Default)]
pub struct Orgs {
    by_code: HashMap<String, Uuid>,
    by_name: HashMap<String, Vec<Uuid>>,
}

impl Orgs {
    /// Every organisation of `enterprise_id`, in the caller's tenant transaction.
    pub async fn load(conn: &mut PgConnection, enterprise_id: Uuid) -> Result<Orgs, ServiceError> {
        let units: Vec<(Uuid, String, String)> =
            sqlx::query_as("select id, name, code from org_unit where enterprise_id = $1")
                .bind(enterprise_id)
                .fetch_all(conn)
                .await?;
        let mut orgs = Orgs::default();
        for (id, name, code) in units {
            if !code.trim().is_empty() {
                orgs.by_code.insert(code.trim().to_uppercase(), id);
            }
            orgs.by_name
                .entry(name.trim().to_owned())
                .or_default()
                .push(id);
        }
        Ok(orgs)
    }

    /// The organisation a cell names — its code, else its name when only one
    /// unit has it — if `actor` reaches it; else the reason for the row.
    pub fn resolve(&self, actor: &Actor, text: &str) -> Result<Uuid, String> {
        let text = text.trim();
        let id = match self.by_code.get(&text.to_uppercase()) {
            Some(id) => *id,
            None => match self.by_name.get(text).map(Vec::as_slice) {
                Some([id]) => *id,
                Some([_, _, ..]) => {
                    return Err(format!("组织名称“{text}”不唯一，请填写组织编码"));
                }
                Some([]) | None => return Err(format!("所属组织“{text}”不存在")),
            },
        };
        if actor.reach.sees(Some(id), None) {
            Ok(id)
        } else {
            Err("所选组织不在您的数据权限内".to_owned())
        }
    }
}

/// The problems of one row: at most one per column (the first found), so a
/// cell that could not be read is not also refused by the domain rule.
#[derive(Debug, Default)]
pub struct RowProblems(Vec<Problem>);

impl RowProblems {
    pub fn add(&mut self, column: &'static str, reason: impl Into<String>) {
        if !self.has(column) {
            self.0.push(Problem::new(column, reason));
        }
    }

    pub fn has(&self, column: &str) -> bool {
        self.0.iter().any(|p| p.column == column)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Required columns the row leaves empty, and cells holding control
    /// characters (which no stored text may contain).
    pub fn cells(&mut self, row: &SheetRow, columns: &'static [Column]) {
        for column in columns {
            let text = row.text(column.title);
            if column.required && text.is_empty() {
                self.add(column.title, format!("请填写{}", column.title));
            } else if text
                .chars()
                .any(|c| c.is_control() && !matches!(c, '\n' | '\t'))
            {
                self.add(column.title, format!("{}含有无效字符", column.title));
            }
        }
    }

    /// A domain refusal (field errors named by API field) under the column
    /// titles of `titles` (field → title); a field without a column names
    /// the whole row.
    pub fn domain(&mut self, err: ServiceError, titles: &[(&str, &'static str)]) {
        if err.fields.is_empty() {
            self.add("", err.message);
            return;
        }
        for field in err.fields {
            let column = titles
                .iter()
                .find(|(f, _)| *f == field.field)
                .map_or("", |(_, t)| *t);
            self.add(column, field.message);
        }
    }

    pub fn into_vec(self) -> Vec<Problem> {
        self.0
    }
}

/// A whole number (empty is 0).
pub fn integer(row: &SheetRow, column: &'static str, p: &mut RowProblems) -> i32 {
    let text = row.text(column);
    if text.is_empty() {
        return 0;
    }
    text.parse().unwrap_or_else(|_| {
        p.add(column, format!("{column}须为整数"));
        0
    })
}

/// A decimal with at most three places, in thousandths (kWh → Wh), read
/// without floating point; empty is 0.
pub fn thousandths(row: &SheetRow, column: &'static str, p: &mut RowProblems) -> i64 {
    let text = row.text(column);
    if text.is_empty() {
        return 0;
    }
    parse_thousandths(&text).unwrap_or_else(|| {
        p.add(column, format!("{column}须为数字，最多 3 位小数"));
        0
    })
}

fn parse_thousandths(text: &str) -> Option<i64> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    if whole.is_empty()
        || fraction.len() > 3
        || !whole.bytes().all(|b| b.is_ascii_digit())
        || !fraction.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let whole: i64 = whole.parse().ok()?;
    let fraction: i64 = format!("{fraction:0<3}").parse().ok()?;
    whole.checked_mul(1000)?.checked_add(fraction)
}

/// A date as the start of its day in Asia/Shanghai (as the create form
/// sends it); `None` when empty or unreadable (then with a problem).
pub fn day(row: &SheetRow, column: &'static str, p: &mut RowProblems) -> Option<DateTime<Utc>> {
    match row.date(column) {
        Ok(date) => date.and_then(shanghai_midnight),
        Err(reason) => {
            p.add(column, reason);
            None
        }
    }
}

fn shanghai_midnight(date: NaiveDate) -> Option<DateTime<Utc>> {
    let offset = FixedOffset::east_opt(8 * 3600)?;
    offset
        .from_local_datetime(&date.and_hms_opt(0, 0, 0)?)
        .single()
        .map(|t| t.with_timezone(&Utc))
}

/// A choice by its label (or one of `aliases`); `None` when empty or not
/// one of them (then with a problem listing the labels).
pub fn pick<T: Copy>(
    row: &SheetRow,
    column: &'static str,
    all: &[T],
    label: impl Fn(T) -> &'static str,
    aliases: &[(&str, T)],
    p: &mut RowProblems,
) -> Option<T> {
    let text = row.text(column);
    if text.is_empty() {
        return None;
    }
    let found = all
        .iter()
        .copied()
        .find(|v| label(*v).eq_ignore_ascii_case(&text))
        .or_else(|| aliases.iter().find(|(a, _)| *a == text).map(|(_, v)| *v));
    if found.is_none() {
        let labels: Vec<&str> = all.iter().map(|v| label(*v)).collect();
        p.add(column, format!("{column}只能填写：{}", labels.join("、")));
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_read_as_thousandths_without_rounding() {
        assert_eq!(parse_thousandths("81"), Some(81_000));
        assert_eq!(parse_thousandths("81.5"), Some(81_500));
        assert_eq!(parse_thousandths("0.125"), Some(125));
        for bad in ["", ".5", "1.2345", "-1", "1e3", "八十"] {
            assert_eq!(parse_thousandths(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_day_is_the_start_of_the_shanghai_day() {
        let at = shanghai_midnight(NaiveDate::from_ymd_opt(2026, 11, 23).unwrap()).unwrap();
        assert_eq!(at.to_rfc3339(), "2026-11-22T16:00:00+00:00");
    }

    fn actor(reach: Vec<Uuid>) -> Actor {
        Actor {
            enterprise_id: Uuid::nil(),
            user_id: Some(Uuid::from_u128(99)),
            name: String::new(),
            reach: fleetdesk_kit::reach::ResolvedReach {
                all: false,
                org_ids: reach,
                own: Some(Uuid::from_u128(99)),
            },
            idempotency_key: None,
        }
    }

    #[test]
    fn an_organisation_is_found_by_code_or_unique_name_within_reach() {
        let (east, west, other) = (Uuid::from_u128(1), Uuid::from_u128(2), Uuid::from_u128(3));
        let mut orgs = Orgs::default();
        orgs.by_code.insert("A01".into(), east);
        orgs.by_code.insert("A02".into(), west);
        orgs.by_name.insert("华东大区".into(), vec![east]);
        orgs.by_name.insert("一部".into(), vec![west, other]);
        let me = actor(vec![east]);
        assert_eq!(orgs.resolve(&me, "a01"), Ok(east));
        assert_eq!(orgs.resolve(&me, " 华东大区 "), Ok(east));
        assert_eq!(
            orgs.resolve(&me, "一部"),
            Err("组织名称“一部”不唯一，请填写组织编码".into())
        );
        assert_eq!(
            orgs.resolve(&me, "A02"),
            Err("所选组织不在您的数据权限内".into())
        );
        assert_eq!(
            orgs.resolve(&me, "不存在"),
            Err("所属组织“不存在”不存在".into())
        );
    }
}

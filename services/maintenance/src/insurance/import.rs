//! The policy import (carGuaranteeSlip › 导入): one policy per row, checked
//! by the form's rules (`PolicyForm::check`), the plate a vehicle of the
//! enterprise within the caller's data scope, the (insurer, policy number)
//! once per file and not yet recorded; then every row written with its
//! operation-log row. All rows or none (kit::import). Documents are attached
//! afterwards on the page.

use std::collections::HashSet;

use chrono::{DateTime, FixedOffset, NaiveDate, TimeZone, Utc};
use fleetdesk_assets::imports::RowProblems;
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::import::{
    Column, ErrorTable, ImportSchema, Parsed, Problem, SheetRow, fen_of_yuan,
};
use sqlx_postgres::PgConnection;

use super::domain::{Coverage, Kind, Policy, PolicyForm};
use super::store;
use crate::context::Actor;
use crate::plates::{self, vehicle_by_plate};

const PLATE: &str = "车牌号";
const KIND: &str = "险种";
const INSURER: &str = "保险公司";
const POLICY_NO: &str = "保单号";
const INSURED: &str = "被保险人";
const START: &str = "保险起期";
const END: &str = "保险止期";
const PREMIUM: &str = "保费(元)";
const COVERAGES: &str = "险别及保额(元)";

/// The columns, in template order (the export's titles).
pub const COLUMNS: &[Column] = &[
    Column {
        title: PLATE,
        required: true,
        example: "粤B12345",
    },
    Column {
        title: KIND,
        required: true,
        example: "商业险",
    },
    Column {
        title: INSURER,
        required: true,
        example: "中国人民财产保险股份有限公司",
    },
    Column {
        title: POLICY_NO,
        required: true,
        example: "PDAA202644030000000001",
    },
    Column {
        title: INSURED,
        required: false,
        example: "演示物流有限公司",
    },
    Column {
        title: START,
        required: true,
        example: "2026-01-01",
    },
    Column {
        title: END,
        required: true,
        example: "2026-12-31",
    },
    Column {
        title: PREMIUM,
        required: true,
        example: "5200.00",
    },
    Column {
        title: COVERAGES,
        required: false,
        example: "车损险:150000；第三者责任险:2000000；车上人员责任险:50000",
    },
];

/// Field errors of `PolicyForm::check` under their columns.
const FIELDS: &[(&str, &str)] = &[
    ("plateNumber", PLATE),
    ("kind", KIND),
    ("insurer", INSURER),
    ("policyNo", POLICY_NO),
    ("insuredName", INSURED),
    ("startTime", START),
    ("endTime", END),
    ("premiumFen", PREMIUM),
    ("coverages", COVERAGES),
];

fn beijing() -> FixedOffset {
    FixedOffset::east_opt(8 * 3600).expect("UTC+8 is a valid offset")
}

/// A policy starts at 00:00 of its first day and ends at 23:59:59 of its
/// last (Beijing), as policies word their period.
fn day_bound(day: NaiveDate, end: bool) -> Option<DateTime<Utc>> {
    let local = if end {
        day.and_hms_opt(23, 59, 59)?
    } else {
        day.and_hms_opt(0, 0, 0)?
    };
    beijing()
        .from_local_datetime(&local)
        .single()
        .map(|t| t.with_timezone(&Utc))
}

/// `名称:保额` items separated by `；` or `;` (sum insured in yuan).
fn coverages_of(text: &str) -> Result<Vec<Coverage>, String> {
    text.split(['；', ';'])
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(|item| {
            let (name, sum) = item
                .split_once([':', '：'])
                .ok_or_else(|| format!("险别“{item}”应写作 名称:保额"))?;
            let sum_insured_fen = fen_of_yuan(sum)
                .ok_or_else(|| format!("险别“{}”的保额应为金额（元）", name.trim()))?;
            Ok(Coverage {
                name: name.trim().to_owned(),
                sum_insured_fen,
                premium_fen: 0,
                deductible_fen: 0,
            })
        })
        .collect()
}

/// The policy import of one caller.
#[derive(Debug)]
pub struct PolicyImport<'a> {
    pub actor: &'a Actor,
}

impl ImportSchema for PolicyImport<'_> {
    type Row = Policy;

    fn columns(&self) -> &'static [Column] {
        COLUMNS
    }

    fn parse(&self, row: &SheetRow) -> Result<Policy, Vec<Problem>> {
        let mut p = RowProblems::default();
        p.cells(row, COLUMNS);
        let kind = Kind::from_label(&row.text(KIND));
        if kind.is_none() && !p.has(KIND) {
            let labels: Vec<&str> = Kind::ALL.iter().map(|k| k.label()).collect();
            p.add(KIND, format!("险种只能是{}", labels.join("、")));
        }
        let mut day = |column: &'static str, end: bool| match row.date(column) {
            Ok(d) => d.and_then(|d| day_bound(d, end)),
            Err(reason) => {
                p.add(column, reason);
                None
            }
        };
        let start = day(START, false);
        let end = day(END, true);
        let premium = fen_of_yuan(&row.text(PREMIUM));
        if premium.is_none() && !p.has(PREMIUM) {
            p.add(PREMIUM, "保费应为金额（元），最多两位小数");
        }
        let coverages = coverages_of(&row.text(COVERAGES)).unwrap_or_else(|reason| {
            p.add(COVERAGES, reason);
            Vec::new()
        });
        let form = PolicyForm {
            plate: row.text(PLATE),
            kind,
            insurer: row.text(INSURER),
            policy_no: row.text(POLICY_NO),
            insured_name: row.text(INSURED),
            start,
            end,
            premium_fen: premium.unwrap_or_default(),
            coverages,
            documents: Vec::new(),
        };
        if !p.is_empty() {
            return Err(p.into_vec());
        }
        form.check().map_err(|err| {
            p.domain(err, FIELDS);
            p.into_vec()
        })
    }

    fn keys(&self, row: &Policy) -> Vec<(&'static str, String)> {
        vec![(
            POLICY_NO,
            format!(
                "{}\u{1f}{}",
                row.insurer,
                row.policy_no.to_ascii_uppercase()
            ),
        )]
    }

    async fn check_existing(
        &self,
        conn: &mut PgConnection,
        rows: &[Parsed<Policy>],
    ) -> Result<ErrorTable, ServiceError> {
        let plates: Vec<&str> = rows.iter().map(|r| r.value.plate.as_str()).collect();
        let known = plates::vehicles_by_plate(conn, self.actor.enterprise_id, &plates).await?;
        let insurers: Vec<&str> = rows.iter().map(|r| r.value.insurer.as_str()).collect();
        let numbers: Vec<&str> = rows.iter().map(|r| r.value.policy_no.as_str()).collect();
        let taken: Vec<(String, String)> = sqlx::query_as(
            "select p.insurer, p.policy_no from insurance_policy p \
             join unnest($2::text[], $3::text[]) as r(insurer, policy_no) \
               on p.insurer = r.insurer and p.policy_no = r.policy_no \
             where p.enterprise_id = $1",
        )
        .bind(self.actor.enterprise_id)
        .bind(&insurers)
        .bind(&numbers)
        .fetch_all(&mut *conn)
        .await?;
        let taken: HashSet<(&str, &str)> = taken
            .iter()
            .map(|(i, n)| (i.as_str(), n.as_str()))
            .collect();
        let mut table = ErrorTable::default();
        for row in rows {
            if let Some(why) = plates::refusal(self.actor, known.get(&row.value.plate)) {
                table.push(row.row, PLATE, why);
            }
            if taken.contains(&(row.value.insurer.as_str(), row.value.policy_no.as_str())) {
                table.push(row.row, POLICY_NO, "该保险公司下已有相同保单号的保单");
            }
        }
        Ok(table)
    }

    async fn write(
        &self,
        conn: &mut PgConnection,
        rows: Vec<Parsed<Policy>>,
    ) -> Result<i64, ServiceError> {
        let mut written = 0;
        for row in rows {
            let Some(vehicle) =
                vehicle_by_plate(&mut *conn, self.actor.enterprise_id, &row.value.plate).await?
            else {
                continue;
            };
            store::insert(&mut *conn, self.actor, vehicle, &row.value).await?;
            written += 1;
        }
        Ok(written)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_checked_field_has_a_column() {
        for (_, title) in FIELDS {
            assert!(COLUMNS.iter().any(|c| c.title == *title), "{title}");
        }
    }

    #[test]
    fn periods_are_whole_beijing_days_and_amounts_are_yuan() {
        let day = NaiveDate::from_ymd_opt(2026, 1, 1).unwrap();
        assert_eq!(
            day_bound(day, false).unwrap().to_rfc3339(),
            "2025-12-31T16:00:00+00:00"
        );
        assert_eq!(
            day_bound(day, true).unwrap().to_rfc3339(),
            "2026-01-01T15:59:59+00:00"
        );
        let items = coverages_of("车损险:150000；第三者责任险：2000000").unwrap();
        assert_eq!(items.len(), 2);
        assert_eq!(items[1].sum_insured_fen, 200_000_000);
        assert!(coverages_of("车损险").is_err());
    }
}

//! The inspection import (drivingLicense › 导入): one inspection per row,
//! checked by the record's rules (`Inspection::check`), the plate a vehicle
//! of the enterprise within the caller's data scope, one row per vehicle
//! and day; then each recorded in date order as `RecordAnnualInspection`
//! records it, so the last row of a vehicle sets its due date. All rows or
//! none (kit::import).

use chrono::NaiveDate;
use fleetdesk_assets::imports::{RowProblems, pick, thousandths};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::codes::known;
use fleetdesk_kit::import::{Column, ErrorTable, ImportSchema, Parsed, Problem, SheetRow};
use sqlx_postgres::PgConnection;

use super::domain::{Class, Inspection, Outcome};
use super::store;
use crate::context::Actor;
use crate::odometer::beijing_day;
use crate::plates;

const PLATE: &str = "车牌号";
const DATE: &str = "检验日期";
const RESULT: &str = "检验结果";
const STATION: &str = "检验机构";
const ODOMETER: &str = "里程(公里)";
const COST: &str = "检验费用(元)";
const STAMP: &str = "有效期至";
const REMARK: &str = "备注";

/// The columns, in template order.
pub const COLUMNS: &[Column] = &[
    Column {
        title: PLATE,
        required: true,
        example: "粤B12345",
    },
    Column {
        title: DATE,
        required: true,
        example: "2026-11-01",
    },
    Column {
        title: RESULT,
        required: true,
        example: "合格",
    },
    Column {
        title: STATION,
        required: false,
        example: "深圳市安车机动车检测站",
    },
    Column {
        title: ODOMETER,
        required: false,
        example: "125000",
    },
    Column {
        title: COST,
        required: false,
        example: "390",
    },
    Column {
        title: STAMP,
        required: false,
        example: "",
    },
    Column {
        title: REMARK,
        required: false,
        example: "",
    },
];

/// Field errors of `Inspection::check` under their columns.
const FIELDS: &[(&str, &str)] = &[
    ("inspectionTime", DATE),
    ("stationName", STATION),
    ("odometerM", ODOMETER),
    ("costFen", COST),
    ("expireTime", STAMP),
    ("remark", REMARK),
];

/// One row: the plate and the inspection.
#[derive(Debug, Clone)]
pub struct Row {
    pub plate: String,
    pub inspection: Inspection,
}

/// The inspection import of one caller on one day.
#[derive(Debug)]
pub struct InspectionImport<'a> {
    pub actor: &'a Actor,
    pub today: NaiveDate,
}

impl ImportSchema for InspectionImport<'_> {
    type Row = Row;

    fn columns(&self) -> &'static [Column] {
        COLUMNS
    }

    fn parse(&self, row: &SheetRow) -> Result<Row, Vec<Problem>> {
        let mut p = RowProblems::default();
        p.cells(row, COLUMNS);
        let date = row.date(DATE).unwrap_or_else(|reason| {
            p.add(DATE, reason);
            None
        });
        let stamp = row.date(STAMP).unwrap_or_else(|reason| {
            p.add(STAMP, reason);
            None
        });
        let outcome = pick(row, RESULT, Outcome::ALL, Outcome::label, &[], &mut p);
        let odometer_m = thousandths(row, ODOMETER, &mut p);
        // Yuan read in thousandths: a fen is ten of them.
        let cost = thousandths(row, COST, &mut p);
        if cost % 10 != 0 && !p.has(COST) {
            p.add(COST, "检验费用应为金额（元），最多两位小数");
        }
        let (Some(inspected), Some(outcome)) = (date, outcome) else {
            return Err(p.into_vec());
        };
        let inspection = Inspection {
            inspected,
            outcome,
            station: row.text(STATION),
            odometer_m,
            cost_fen: cost / 10,
            stamp,
            remark: row.text(REMARK),
        };
        match inspection.check(self.today, None) {
            Ok(checked) if p.is_empty() => Ok(Row {
                plate: row.text(PLATE),
                inspection: checked,
            }),
            Ok(_) => Err(p.into_vec()),
            Err(err) => {
                p.domain(err, FIELDS);
                Err(p.into_vec())
            }
        }
    }

    fn keys(&self, row: &Row) -> Vec<(&'static str, String)> {
        vec![(DATE, format!("{} {}", row.plate, row.inspection.inspected))]
    }

    async fn check_existing(
        &self,
        conn: &mut PgConnection,
        rows: &[Parsed<Row>],
    ) -> Result<ErrorTable, ServiceError> {
        let plates: Vec<&str> = rows.iter().map(|r| r.value.plate.as_str()).collect();
        let known = plates::vehicles_by_plate(conn, self.actor.enterprise_id, &plates).await?;
        let mut table = ErrorTable::default();
        for row in rows {
            let found = known.get(&row.value.plate);
            if let Some(why) = plates::refusal(self.actor, found) {
                table.push(row.row, PLATE, why);
            } else if let Some(registered) = found.and_then(|v| v.register_time)
                && row.value.inspection.inspected < beijing_day(registered)
            {
                table.push(row.row, DATE, "检验日期不能早于车辆注册日期");
            }
        }
        Ok(table)
    }

    async fn write(
        &self,
        conn: &mut PgConnection,
        mut rows: Vec<Parsed<Row>>,
    ) -> Result<i64, ServiceError> {
        rows.sort_by_key(|r| r.value.inspection.inspected);
        let mut written = 0;
        for row in rows {
            let Some((vehicle, _)) =
                plates::vehicle_by_plate(&mut *conn, self.actor.enterprise_id, &row.value.plate)
                    .await?
            else {
                continue;
            };
            store::open(
                &mut *conn,
                self.actor.enterprise_id,
                Some(&[vehicle]),
                self.today,
            )
            .await?;
            let state = store::get(&mut *conn, self.actor, vehicle, true).await?;
            let class: Class = known(state.inspection_class)?;
            let inspection = &row.value.inspection;
            let due = inspection.due_after(class, state.registered(), state.due_date);
            store::record(
                &mut *conn,
                self.actor,
                &state,
                inspection,
                class,
                due,
                &serde_json::json!([]),
            )
            .await?;
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
}

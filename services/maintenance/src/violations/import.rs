//! The violation import (trafficViolations › 导入): one violation per row,
//! checked by the authority record's rules (`Incoming::check`), the plate a
//! vehicle of the enterprise within the caller's data scope, the decision number once per file; then every
//! row upserted by its decision number (`store::upsert`: a number already
//! stored, fetched or imported before, stays one row), each new one with its
//! responsible driver found at its time and its operation-log row. All rows
//! or none (kit::import).

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, TimeZone, Utc};
use fleetdesk_assets::imports::RowProblems;
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::import::{
    Column, ErrorTable, ImportSchema, Parsed, Problem, SheetRow, fen_of_yuan,
};
use sqlx_postgres::PgConnection;

use super::domain::{Incoming, Source};
use super::store;
use crate::context::Actor;
use crate::plates;

const PLATE: &str = "车牌号";
const TIME: &str = "违章时间";
const ADDRESS: &str = "违章地点";
const CODE: &str = "违法代码";
const ACT: &str = "违法行为";
const FINE: &str = "罚款(元)";
const POINTS: &str = "扣分";
const DECISION_NO: &str = "决定书编号";
const AUTHORITY: &str = "处理机关";

/// The columns, in template order (the export's titles).
pub const COLUMNS: &[Column] = &[
    Column {
        title: PLATE,
        required: true,
        example: "粤B12345",
    },
    Column {
        title: TIME,
        required: true,
        example: "2026-11-01 08:30:00",
    },
    Column {
        title: ADDRESS,
        required: false,
        example: "深南大道与华强北路交叉口",
    },
    Column {
        title: CODE,
        required: true,
        example: "1352A",
    },
    Column {
        title: ACT,
        required: false,
        example: "机动车超过规定时速未达20%的",
    },
    Column {
        title: FINE,
        required: true,
        example: "200",
    },
    Column {
        title: POINTS,
        required: true,
        example: "1",
    },
    Column {
        title: DECISION_NO,
        required: true,
        example: "440300202611010001",
    },
    Column {
        title: AUTHORITY,
        required: false,
        example: "深圳市公安局交通警察支队",
    },
];

/// Field errors of `Incoming::check` under their columns.
const FIELDS: &[(&str, &str)] = &[
    ("decisionNo", DECISION_NO),
    ("plateNumber", PLATE),
    ("violationTime", TIME),
    ("offenceCode", CODE),
    ("fineFen", FINE),
    ("penaltyPoints", POINTS),
];

fn beijing() -> FixedOffset {
    FixedOffset::east_opt(8 * 3600).expect("UTC+8 is a valid offset")
}

/// A Beijing time typed as text, to the minute or second; a bare date is
/// its midnight.
fn time_of(text: &str) -> Option<DateTime<Utc>> {
    let local = [
        "%Y-%m-%d %H:%M:%S",
        "%Y-%m-%d %H:%M",
        "%Y/%m/%d %H:%M:%S",
        "%Y/%m/%d %H:%M",
    ]
    .iter()
    .find_map(|f| NaiveDateTime::parse_from_str(text, f).ok())
    .or_else(|| {
        ["%Y-%m-%d", "%Y/%m/%d"]
            .iter()
            .find_map(|f| NaiveDate::parse_from_str(text, f).ok())
            .and_then(|d| d.and_hms_opt(0, 0, 0))
    })?;
    beijing()
        .from_local_datetime(&local)
        .single()
        .map(|t| t.with_timezone(&Utc))
}

/// The violation import of one caller at one time.
#[derive(Debug)]
pub struct ViolationImport<'a> {
    pub actor: &'a Actor,
    pub now: DateTime<Utc>,
}

impl ImportSchema for ViolationImport<'_> {
    type Row = Incoming;

    fn columns(&self) -> &'static [Column] {
        COLUMNS
    }

    fn parse(&self, row: &SheetRow) -> Result<Incoming, Vec<Problem>> {
        let mut p = RowProblems::default();
        p.cells(row, COLUMNS);
        let time = time_of(&row.text(TIME));
        if time.is_none() && !p.has(TIME) {
            p.add(
                TIME,
                "违章时间格式不正确，请填写如 2026-11-01 08:30:00 的时间",
            );
        }
        let fine = fen_of_yuan(&row.text(FINE));
        if fine.is_none() && !p.has(FINE) {
            p.add(FINE, "罚款应为金额（元），最多两位小数");
        }
        let points = row.text(POINTS).parse::<i32>().ok();
        if points.is_none() && !p.has(POINTS) {
            p.add(POINTS, "扣分应为整数");
        }
        let (Some(time), Some(fine_fen), Some(points)) = (time, fine, points) else {
            return Err(p.into_vec());
        };
        let incoming = Incoming {
            decision_no: row.text(DECISION_NO),
            plate: row.text(PLATE),
            time,
            address: row.text(ADDRESS),
            point: None,
            city_code: String::new(),
            offence_code: row.text(CODE),
            description: row.text(ACT),
            fine_fen,
            points,
            authority: row.text(AUTHORITY),
        };
        match incoming.check(self.now) {
            Ok(checked) if p.is_empty() => Ok(checked),
            Ok(_) => Err(p.into_vec()),
            Err(err) => {
                p.domain(err, FIELDS);
                Err(p.into_vec())
            }
        }
    }

    fn keys(&self, row: &Incoming) -> Vec<(&'static str, String)> {
        vec![(DECISION_NO, row.decision_no.to_ascii_uppercase())]
    }

    async fn check_existing(
        &self,
        conn: &mut PgConnection,
        rows: &[Parsed<Incoming>],
    ) -> Result<ErrorTable, ServiceError> {
        let plates: Vec<&str> = rows.iter().map(|r| r.value.plate.as_str()).collect();
        let known = plates::vehicles_by_plate(conn, self.actor.enterprise_id, &plates).await?;
        let mut table = ErrorTable::default();
        for row in rows {
            if let Some(why) = plates::refusal(self.actor, known.get(&row.value.plate)) {
                table.push(row.row, PLATE, why);
            }
        }
        Ok(table)
    }

    async fn write(
        &self,
        conn: &mut PgConnection,
        rows: Vec<Parsed<Incoming>>,
    ) -> Result<i64, ServiceError> {
        let mut written = 0;
        for row in rows {
            let Some(vehicle) =
                plates::vehicle_by_plate(&mut *conn, self.actor.enterprise_id, &row.value.plate)
                    .await?
            else {
                continue;
            };
            store::upsert(
                &mut *conn,
                self.actor,
                vehicle,
                &row.value,
                Source::Imported,
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

    #[test]
    fn times_are_beijing() {
        let at = time_of("2026-11-01 08:30").unwrap();
        assert_eq!(at.to_rfc3339(), "2026-11-01T00:30:00+00:00");
        assert_eq!(
            time_of("2026/11/01").unwrap().to_rfc3339(),
            "2026-10-31T16:00:00+00:00"
        );
        assert!(time_of("11-01 08:30").is_none());
    }
}

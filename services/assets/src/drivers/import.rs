//! The driver import (driverManagement › 导入): one driver per row, checked
//! by the create's rules (`DriverDraft::parse`: name, phone and ID number
//! through kit::ids, licence class and dates), the organisation by code or
//! name within the caller's reach, the ID card's end a date or 长期, phone
//! and ID number unique within the file and against the enterprise's
//! drivers; then every row in one statement (`unnest`), with its
//! operation-log row.

use std::collections::HashSet;

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::import::{Column, ErrorTable, ImportSchema, Parsed, Problem, SheetRow};
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::{self, DriverDraft, DriverFields, DriverStatus, LicenceClass};
use super::store;
use crate::context::Actor;
use crate::imports::{Orgs, RowProblems, day, pick};
use crate::oplog::Business;

const NAME: &str = "司机姓名";
const PHONE: &str = "手机号";
const ID_NUMBER: &str = "身份证号";
const ID_CARD_EXPIRE: &str = "身份证有效期至";
const ORG: &str = "所属组织";
const LICENCE_CLASS: &str = "准驾车型";
const LICENCE_EXPIRE: &str = "驾驶证有效期";
const LICENCE_FIRST: &str = "初次领证日期";
const EMPLOYEE_NO: &str = "工号";
const ADDRESS: &str = "住址";
const STATUS: &str = "状态";
const HIRED: &str = "入职日期";
const REMARK: &str = "备注";

/// The columns, in template order (the same titles as the export).
pub const COLUMNS: &[Column] = &[
    Column {
        title: NAME,
        required: true,
        example: "张伟",
    },
    Column {
        title: PHONE,
        required: true,
        example: "13812345678",
    },
    Column {
        title: ID_NUMBER,
        required: true,
        example: "11010519491231002X",
    },
    Column {
        title: ID_CARD_EXPIRE,
        required: false,
        example: "2035-06-30",
    },
    Column {
        title: ORG,
        required: true,
        example: "华东大区",
    },
    Column {
        title: LICENCE_CLASS,
        required: true,
        example: "C1",
    },
    Column {
        title: LICENCE_EXPIRE,
        required: true,
        example: "2030-05-01",
    },
    Column {
        title: LICENCE_FIRST,
        required: false,
        example: "2012-05-01",
    },
    Column {
        title: EMPLOYEE_NO,
        required: false,
        example: "SJ001",
    },
    Column {
        title: ADDRESS,
        required: false,
        example: "广东省深圳市南山区科技园南区8栋",
    },
    Column {
        title: STATUS,
        required: false,
        example: "在职",
    },
    Column {
        title: HIRED,
        required: false,
        example: "2023-03-01",
    },
    Column {
        title: REMARK,
        required: false,
        example: "",
    },
];

/// Field errors of `DriverDraft::parse` under their columns.
const FIELDS: &[(&str, &str)] = &[
    ("orgId", ORG),
    ("name", NAME),
    ("phone", PHONE),
    ("idNumber", ID_NUMBER),
    ("employeeNo", EMPLOYEE_NO),
    ("licenceClass", LICENCE_CLASS),
    ("address", ADDRESS),
    ("remark", REMARK),
    ("licenceExpireTime", LICENCE_EXPIRE),
    ("licenceFirstIssueTime", LICENCE_FIRST),
    ("idCardExpireTime", ID_CARD_EXPIRE),
];

/// The driver import of one caller.
#[derive(Debug)]
pub struct DriverImport<'a> {
    pub actor: &'a Actor,
    /// The caller's enterprise's organisations.
    pub orgs: Orgs,
}

impl DriverImport<'_> {
    fn fields(&self, row: &SheetRow, p: &mut RowProblems) -> DriverFields {
        let org = row.text(ORG);
        let org_id = if org.is_empty() {
            String::new()
        } else {
            match self.orgs.resolve(self.actor, &org) {
                Ok(id) => id.to_string(),
                Err(reason) => {
                    p.add(ORG, reason);
                    String::new()
                }
            }
        };
        // A long-term card is written 长期 in the date's column.
        let id_card_long_term = row.text(ID_CARD_EXPIRE).trim() == domain::ID_CARD_LONG_TERM;
        DriverFields {
            org_id,
            name: row.text(NAME),
            phone: row.text(PHONE),
            id_number: row.text(ID_NUMBER),
            employee_no: row.text(EMPLOYEE_NO),
            licence_class: pick(
                row,
                LICENCE_CLASS,
                LicenceClass::ALL,
                LicenceClass::label,
                &[],
                p,
            ),
            licence_first_issue_time: day(row, LICENCE_FIRST, p),
            licence_expire_time: day(row, LICENCE_EXPIRE, p),
            address: row.text(ADDRESS),
            licence_front: None,
            licence_back: None,
            id_card_front: None,
            id_card_back: None,
            id_card_expire_time: if id_card_long_term {
                None
            } else {
                day(row, ID_CARD_EXPIRE, p)
            },
            id_card_long_term,
            status: pick(row, STATUS, DriverStatus::ALL, DriverStatus::label, &[], p),
            hire_time: day(row, HIRED, p),
            remark: row.text(REMARK),
        }
    }
}

impl ImportSchema for DriverImport<'_> {
    type Row = DriverDraft;

    fn columns(&self) -> &'static [Column] {
        COLUMNS
    }

    fn parse(&self, row: &SheetRow) -> Result<DriverDraft, Vec<Problem>> {
        let mut p = RowProblems::default();
        p.cells(row, COLUMNS);
        let fields = self.fields(row, &mut p);
        match DriverDraft::parse(fields, None) {
            Ok(draft) if p.is_empty() => Ok(draft),
            Ok(_) => Err(p.into_vec()),
            Err(err) => {
                p.domain(err, FIELDS);
                Err(p.into_vec())
            }
        }
    }

    fn keys(&self, row: &DriverDraft) -> Vec<(&'static str, String)> {
        vec![
            (PHONE, row.phone.as_str().to_owned()),
            (ID_NUMBER, row.id_number.as_str().to_owned()),
        ]
    }

    async fn check_existing(
        &self,
        conn: &mut PgConnection,
        rows: &[Parsed<DriverDraft>],
    ) -> Result<ErrorTable, ServiceError> {
        let phones: Vec<&str> = rows.iter().map(|r| r.value.phone.as_str()).collect();
        let id_numbers: Vec<&str> = rows.iter().map(|r| r.value.id_number.as_str()).collect();
        let taken: Vec<(String, String)> = sqlx::query_as(
            "select phone, id_number from driver where enterprise_id = $1 \
             and (phone = any($2) or id_number = any($3))",
        )
        .bind(self.actor.enterprise_id)
        .bind(&phones)
        .bind(&id_numbers)
        .fetch_all(&mut *conn)
        .await?;
        let taken_phones: HashSet<&str> = taken.iter().map(|(p, _)| p.as_str()).collect();
        let taken_ids: HashSet<&str> = taken.iter().map(|(_, i)| i.as_str()).collect();
        let mut table = ErrorTable::default();
        for row in rows {
            if taken_phones.contains(row.value.phone.as_str()) {
                table.push(row.row, PHONE, domain::phone_taken().message);
            }
            if taken_ids.contains(row.value.id_number.as_str()) {
                table.push(row.row, ID_NUMBER, domain::id_number_taken().message);
            }
        }
        Ok(table)
    }

    async fn write(
        &self,
        conn: &mut PgConnection,
        rows: Vec<Parsed<DriverDraft>>,
    ) -> Result<i64, ServiceError> {
        let drafts: Vec<DriverDraft> = rows.into_iter().map(|r| r.value).collect();
        let ids: Vec<Uuid> = drafts.iter().map(|_| Uuid::new_v4()).collect();
        let written = store::insert_many(conn, self.actor, &ids, &drafts).await?;
        let remarks: Vec<String> = drafts
            .iter()
            .map(|d| format!("导入司机：{}", d.name))
            .collect();
        crate::oplog::record_many(conn, self.actor, Business::Driver, &ids, &remarks).await?;
        Ok(written)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_domain_field_has_a_column() {
        for (_, title) in FIELDS {
            assert!(COLUMNS.iter().any(|c| c.title == *title), "{title}");
        }
    }
}

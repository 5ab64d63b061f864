//! Drivers (driverManagement) as an export kind: the list's filter and
//! reach (`store::filtered`), newest first by keyset on (`created_at`, `id`).
//! Phone, ID number and address leave the service masked here as in the
//! list: a file is not a way around the audited reveal.

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::{Cell, JobScope};
use fleetdesk_kit::list::Cursor;
use fleetdesk_proto::vehicle::v1 as pb;
use sqlx_postgres::PgConnection;

use super::convert;
use super::domain::{self, DriverStatus, LicenceClass};
use super::store::{self, DriverQuery, DriverRow};
use crate::context::Actor;
use crate::exports::{self, ListExport, NewJob, day, label, moment, text};
use crate::vehicles;

/// The kind's name in `export_job.kind`.
pub const KIND: &str = "drivers";

/// The header row; the import reads the same titles (masked values are
/// refused there, so an export is no import template for personal data).
pub const HEADER: [&str; 15] = [
    "司机姓名",
    "手机号",
    "身份证号",
    "身份证有效期至",
    "工号",
    "所属组织",
    "准驾车型",
    "初次领证日期",
    "驾驶证有效期",
    "住址",
    "状态",
    "入职日期",
    "绑定车辆",
    "备注",
    "创建时间",
];

/// The job an `ExportDrivers` request queues (the filter checked now).
pub fn job(filter: &pb::DriverFilter) -> Result<NewJob, ServiceError> {
    convert::query(Some(filter.clone()))?;
    let filters_json = serde_json::json!({
        "orgIds": filter.org_ids,
        "name": filter.name,
        // The filter's phone is personal data too.
        "phone": domain::masked_phone(filter.phone.trim()),
        "employeeNo": filter.employee_no,
        "statuses": filter.statuses,
        "licenceClasses": filter.licence_classes,
        "hasVehicle": filter.has_vehicle,
        "licenceExpireTime": exports::range_json(filter.licence_expire_time.as_ref()),
        "plateNumbers": filter.plate_numbers,
    });
    Ok(NewJob {
        kind: KIND,
        name: "司机信息".to_owned(),
        module: "driverManagement",
        filter: prost::Message::encode_to_vec(filter),
        filters_json,
    })
}

/// The driver list as an export kind.
#[derive(Debug, Clone, Copy)]
pub struct DriversExport;

impl ListExport for DriversExport {
    type Scope = (Actor, DriverQuery);
    type Row = DriverRow;
    type Key = Cursor;

    fn header(&self) -> Vec<String> {
        exports::header(&HEADER)
    }

    async fn scope(
        &self,
        conn: &mut PgConnection,
        job: &JobScope,
    ) -> Result<Self::Scope, ServiceError> {
        let actor = exports::actor(job)?;
        let mut query = convert::query(Some(exports::filter::<pb::DriverFilter>(job)?))?;
        query.org_ids = vehicles::store::org_subtrees(conn, query.org_ids).await?;
        Ok((actor, query))
    }

    async fn count(
        &self,
        conn: &mut PgConnection,
        (actor, query): &Self::Scope,
    ) -> Result<i64, ServiceError> {
        store::count(conn, actor, query).await
    }

    async fn page(
        &self,
        conn: &mut PgConnection,
        (actor, query): &Self::Scope,
        after: Option<Cursor>,
        limit: i64,
    ) -> Result<Vec<DriverRow>, ServiceError> {
        store::export_page(conn, actor, query, after, limit).await
    }

    fn key(row: &DriverRow) -> Cursor {
        Cursor {
            at: row.created_at,
            id: row.id,
        }
    }

    fn cells(&self, row: DriverRow) -> Vec<Cell> {
        vec![
            Cell::from(row.name),
            text(domain::masked_phone(&row.phone)),
            text(domain::masked_id_number(&row.id_number)),
            if row.id_card_long_term {
                text(domain::ID_CARD_LONG_TERM.to_owned())
            } else {
                day(row.id_card_expire_time)
            },
            text(row.employee_no),
            text(row.org_name),
            label::<LicenceClass>(Some(row.licence_class), LicenceClass::label),
            day(row.licence_first_issue_time),
            day(row.licence_expire_time),
            text(domain::masked_address(&row.address)),
            label::<DriverStatus>(Some(row.status), DriverStatus::label),
            day(row.hire_time),
            text(row.bound_plate_number.unwrap_or_default()),
            text(row.remark),
            moment(Some(row.created_at)),
        ]
    }
}

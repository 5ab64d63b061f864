//! The binding log (bindingLog) as an export kind: the list's filter and
//! reach (`store::filtered`), newest binding first by keyset on
//! (`bound_at`, `id`).

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::{Cell, JobScope};
use fleetdesk_kit::list::Cursor;
use fleetdesk_proto::vehicle::v1 as pb;
use sqlx_postgres::PgConnection;

use super::convert;
use super::store::{self, BindingQuery, BindingRow};
use crate::context::Actor;
use crate::exports::{self, ListExport, NewJob, label, moment, text};
use crate::vehicles;
use crate::vehicles::binding_log::BindingKind;

/// The kind's name in `export_job.kind`.
pub const KIND: &str = "vehicle_bindings";

pub const HEADER: [&str; 11] = [
    "车牌号",
    "车架号(VIN)",
    "绑定类型",
    "绑定对象",
    "SIM卡号",
    "绑定时间",
    "解绑时间",
    "绑定状态",
    "绑定人",
    "解绑人",
    "备注",
];

/// The job an `ExportVehicleBindings` request queues (the filter checked now).
pub fn job(filter: &pb::VehicleBindingFilter) -> Result<NewJob, ServiceError> {
    convert::query(Some(filter.clone()))?;
    let filters_json = serde_json::json!({
        "plateNumbers": filter.plate_numbers,
        "vins": filter.vins,
        "orgIds": filter.org_ids,
        "kinds": filter.kinds,
        "targetId": filter.target_id,
        "active": filter.active,
        "bindTime": exports::range_json(filter.bind_time.as_ref()),
        "vehicleId": filter.vehicle_id,
    });
    Ok(NewJob {
        kind: KIND,
        name: "绑定记录".to_owned(),
        module: "bindingLog",
        filter: prost::Message::encode_to_vec(filter),
        filters_json,
    })
}

/// The binding log as an export kind.
#[derive(Debug, Clone, Copy)]
pub struct BindingsExport;

impl ListExport for BindingsExport {
    type Scope = (Actor, BindingQuery);
    type Row = BindingRow;
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
        let mut query = convert::query(Some(exports::filter::<pb::VehicleBindingFilter>(job)?))?;
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
    ) -> Result<Vec<BindingRow>, ServiceError> {
        store::export_page(conn, actor, query, after, limit).await
    }

    fn key(row: &BindingRow) -> Cursor {
        Cursor {
            at: row.bound_at,
            id: row.id,
        }
    }

    fn cells(&self, row: BindingRow) -> Vec<Cell> {
        let target = if row.target_name.is_empty() {
            row.target_id
        } else {
            row.target_name
        };
        vec![
            Cell::from(row.plate_number),
            Cell::from(row.vin),
            label::<BindingKind>(Some(row.kind), BindingKind::label),
            text(target),
            text(row.terminal_sim),
            moment(Some(row.bound_at)),
            moment(row.unbound_at),
            Cell::from(if row.unbound_at.is_none() {
                "绑定中"
            } else {
                "已解绑"
            }),
            text(row.bound_by_name),
            text(row.unbound_by_name),
            text(row.remark),
        ]
    }
}

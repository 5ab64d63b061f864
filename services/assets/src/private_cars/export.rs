//! Private cars (addPrivateCar) as an export kind: the list's filter and
//! reach (`store::filtered`), newest first by keyset on (`created_at`, `id`);
//! the owner's phone masked as the list shows it.

use fleetdesk_kit::export::{Cell, JobScope};
use fleetdesk_kit::list::Cursor;
use fleetdesk_kit::{ServiceError, mask};
use fleetdesk_proto::vehicle::v1 as pb;
use sqlx_postgres::PgConnection;

use super::convert;
use super::domain::PrivateCarStatus;
use super::store::{self, PrivateCarQuery, PrivateCarRow};
use crate::context::Actor;
use crate::exports::{self, ListExport, NewJob, label, moment, text};
use crate::vehicles;
use crate::vehicles::domain::{EnergyType, PlateColor};

/// The kind's name in `export_job.kind`.
pub const KIND: &str = "private_cars";

pub const HEADER: [&str; 14] = [
    "车牌号",
    "车牌颜色",
    "车架号(VIN)",
    "品牌",
    "车型",
    "能源类型",
    "所属组织",
    "车主姓名",
    "车主手机号",
    "每公里补贴(元)",
    "审核状态",
    "驳回原因",
    "备注",
    "申请时间",
];

/// The job an `ExportPrivateCars` request queues (the filter checked now).
pub fn job(filter: &pb::PrivateCarFilter) -> Result<NewJob, ServiceError> {
    convert::query(Some(filter.clone()))?;
    let filters_json = serde_json::json!({
        "plateNumbers": filter.plate_numbers,
        "orgIds": filter.org_ids,
        "statuses": filter.statuses,
        "ownerName": filter.owner_name,
    });
    Ok(NewJob {
        kind: KIND,
        name: "私车公用".to_owned(),
        module: "addPrivateCar",
        filter: prost::Message::encode_to_vec(filter),
        filters_json,
    })
}

/// The private-car list as an export kind.
#[derive(Debug, Clone, Copy)]
pub struct PrivateCarsExport;

impl ListExport for PrivateCarsExport {
    type Scope = (Actor, PrivateCarQuery);
    type Row = PrivateCarRow;
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
        let mut query = convert::query(Some(exports::filter::<pb::PrivateCarFilter>(job)?))?;
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
    ) -> Result<Vec<PrivateCarRow>, ServiceError> {
        store::export_page(conn, actor, query, after, limit).await
    }

    fn key(row: &PrivateCarRow) -> Cursor {
        Cursor {
            at: row.created_at,
            id: row.id,
        }
    }

    fn cells(&self, row: PrivateCarRow) -> Vec<Cell> {
        vec![
            Cell::from(row.plate_number),
            label::<PlateColor>(Some(row.plate_color), PlateColor::label),
            Cell::from(row.vin),
            text(row.brand),
            text(row.model),
            label::<EnergyType>(Some(row.energy_type), EnergyType::label),
            text(row.org_name),
            text(row.owner_name),
            text(mask::centre(&row.owner_phone)),
            Cell::from(exports::yuan(row.allowance_fen_per_km)),
            label::<PrivateCarStatus>(Some(row.status), PrivateCarStatus::label),
            text(row.reject_reason),
            text(row.remark),
            moment(Some(row.created_at)),
        ]
    }
}

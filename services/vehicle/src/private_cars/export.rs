//! Private cars (addPrivateCar) as an export kind: the list's filter and
//! reach (`store::filtered`), newest first by keyset on (`created_at`, `id`);
//! the owner's phone masked as the list shows it.

use fleetdesk_kit::export::{Cell, ExportKind, JobScope, Page};
use fleetdesk_kit::{ServiceError, mask};
use fleetdesk_proto::vehicle::v1 as pb;
use futures::future::BoxFuture;
use sqlx::PgConnection;

use super::convert;
use super::domain::PrivateCarStatus;
use super::store::{self, PrivateCarQuery, PrivateCarRow};
use crate::exports::{self, NewJob, label, moment, text};
use crate::grpc::Actor;
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

async fn scope(
    conn: &mut PgConnection,
    job: &JobScope,
) -> Result<(Actor, PrivateCarQuery), ServiceError> {
    let actor = exports::actor(job)?;
    let mut query = convert::query(Some(exports::filter::<pb::PrivateCarFilter>(job)?))?;
    query.org_ids = vehicles::store::org_subtrees(conn, query.org_ids).await?;
    Ok((actor, query))
}

fn cells(row: PrivateCarRow) -> Vec<Cell> {
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

impl ExportKind for PrivateCarsExport {
    fn header(&self) -> Vec<String> {
        HEADER.iter().map(|h| (*h).to_owned()).collect()
    }

    fn count<'a>(
        &'a self,
        conn: &'a mut PgConnection,
        job: &'a JobScope,
    ) -> BoxFuture<'a, Result<i64, ServiceError>> {
        Box::pin(async move {
            let (actor, query) = scope(conn, job).await?;
            store::count(conn, &actor, &query).await
        })
    }

    fn page<'a>(
        &'a self,
        conn: &'a mut PgConnection,
        job: &'a JobScope,
        after: Option<&'a str>,
        limit: i64,
    ) -> BoxFuture<'a, Result<Page, ServiceError>> {
        Box::pin(async move {
            let (actor, query) = scope(conn, job).await?;
            let cursor = exports::after(after)?;
            let rows = store::export_page(conn, &actor, &query, cursor, limit).await?;
            let next = rows.last().map(|r| exports::cursor(r.created_at, r.id));
            Ok(Page {
                rows: rows.into_iter().map(cells).collect(),
                next,
            })
        })
    }
}

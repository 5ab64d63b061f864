//! Annual-inspection RPCs: validate → domain → store → response, each in
//! one tenant transaction under the caller's reach. Every read or record
//! first opens the state rows of vehicles that have none (`store::open`);
//! a record locks the vehicle's row, so two records of one vehicle apply
//! in turn.

use chrono::Utc;
use fleetdesk_assets::vehicles::{self, convert::files_to_json};
use fleetdesk_kit::codes::known;
use fleetdesk_kit::convert::{datetime, id};
use fleetdesk_kit::{ServiceError, db};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use tonic::Request;

use super::domain::{Class, Inspection, Outcome};
use super::import::InspectionImport;
use super::{PERMISSION, convert, export, store};
use crate::context::{Actor, Context};
use crate::odometer::beijing_day;
use crate::{exports, oplog};

pub async fn list(
    ctx: &Context,
    req: Request<pb::ListAnnualInspectionsRequest>,
) -> Result<pb::ListAnnualInspectionsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin_list(&ctx.pool, &req, PERMISSION).await?;
    let message = req.into_inner();
    let paging = fleetdesk_kit::list::Paging::parse(message.page.as_ref())?;
    let today = beijing_day(Utc::now());
    let mut query = convert::filter(&message, today)?;
    store::open(&mut tx, actor.enterprise_id, None, today).await?;
    query.org_ids = vehicles::store::org_subtrees(&mut tx, query.org_ids).await?;
    let (rows, total) = store::list(&mut tx, &actor, &query, paging).await?;
    tx.commit().await?;
    Ok(pb::ListAnnualInspectionsResponse {
        inspections: rows
            .into_iter()
            .map(|row| convert::inspection(row, actor.enterprise_id, today))
            .collect::<Result<_, _>>()?,
        page: Some(paging.info(total)),
    })
}

pub async fn get(
    ctx: &Context,
    req: Request<pb::GetAnnualInspectionRequest>,
) -> Result<pb::GetAnnualInspectionResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::GetAnnualInspectionRequest { vehicle_id } = req.into_inner();
    let vehicle = id(&vehicle_id)?;
    let today = beijing_day(Utc::now());
    store::open(&mut tx, actor.enterprise_id, Some(&[vehicle]), today).await?;
    let row = store::get(&mut tx, &actor, vehicle, false).await?;
    let records = store::history(&mut tx, &actor, vehicle).await?;
    let logs = oplog::entries(&mut tx, &actor, store::BUSINESS_TYPE, row.id).await?;
    tx.commit().await?;
    Ok(pb::GetAnnualInspectionResponse {
        inspection: Some(convert::inspection(row, actor.enterprise_id, today)?),
        records: records
            .into_iter()
            .map(convert::record)
            .collect::<Result<_, _>>()?,
        logs,
    })
}

/// RecordAnnualInspection: the vehicle is found (NOT_FOUND for another
/// tenant's or one out of reach) before the record is checked.
pub async fn record(
    ctx: &Context,
    req: Request<pb::RecordAnnualInspectionRequest>,
) -> Result<pb::RecordAnnualInspectionResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::RecordAnnualInspectionRequest {
        vehicle_id,
        inspection_time,
        expire_time,
        station_name,
        licence_images,
        remark,
        result,
        odometer_m,
        cost_fen,
        inspection_class,
    } = req.into_inner();
    let vehicle = id(&vehicle_id)?;
    let today = beijing_day(Utc::now());
    store::open(&mut tx, actor.enterprise_id, Some(&[vehicle]), today).await?;
    let row = store::get(&mut tx, &actor, vehicle, true).await?;
    let Some(inspected) = inspection_time.as_ref().and_then(datetime) else {
        return Err(ServiceError::invalid("inspectionTime", "请填写检验日期"));
    };
    let Some(outcome) = Outcome::from_pb(result) else {
        return Err(ServiceError::invalid("result", "请选择检验结果"));
    };
    let class = match Class::from_pb(inspection_class) {
        Some(class) => class,
        None => known(row.inspection_class)?,
    };
    let inspection = Inspection {
        inspected: beijing_day(inspected),
        outcome,
        station: station_name,
        odometer_m,
        cost_fen,
        stamp: expire_time.as_ref().and_then(datetime).map(beijing_day),
        remark,
    }
    .check(today, row.registered())?;
    let due = inspection.due_after(class, row.registered(), row.due_date);
    let images = files_to_json(&licence_images);
    let record_id = store::record(&mut tx, &actor, &row, &inspection, class, due, &images).await?;
    let row = store::get(&mut tx, &actor, vehicle, false).await?;
    let record = store::record_row(&mut tx, record_id).await?;
    tx.commit().await?;
    Ok(pb::RecordAnnualInspectionResponse {
        inspection: Some(convert::inspection(row, actor.enterprise_id, today)?),
        record: Some(convert::record(record)?),
    })
}

/// ImportAnnualInspections: an xlsx of inspections, all rows or none (`super::import`).
pub async fn import(
    ctx: &Context,
    req: Request<pb::ImportAnnualInspectionsRequest>,
) -> Result<pb::ImportAnnualInspectionsResponse, ServiceError> {
    let (actor, tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    db::end_read(tx);
    let pb::ImportAnnualInspectionsRequest { file } = req.into_inner();
    let bytes = fleetdesk_assets::imports::file(&ctx.files, &actor, file).await?;
    let schema = InspectionImport {
        actor: &actor,
        today: beijing_day(Utc::now()),
    };
    let result =
        fleetdesk_kit::import::run(&ctx.pool, actor.enterprise_id, &schema, &bytes).await?;
    tracing::info!(
        imported = result.imported,
        refused = result.error_list.len(),
        "Annual inspection import done."
    );
    Ok(pb::ImportAnnualInspectionsResponse {
        result: Some(result),
    })
}

pub async fn export(
    ctx: &Context,
    req: Request<pb::ExportAnnualInspectionsRequest>,
) -> Result<pb::ExportAnnualInspectionsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::ExportAnnualInspectionsRequest { filter } = req.into_inner();
    // The job reads the state rows as they are when it was asked for.
    store::open(&mut tx, actor.enterprise_id, None, beijing_day(Utc::now())).await?;
    let job = exports::start(&mut tx, &actor, export::job(&filter.unwrap_or_default())?).await?;
    tx.commit().await?;
    Ok(pb::ExportAnnualInspectionsResponse { job: Some(job) })
}

/// GetAnnualInspectionImportTemplate: the import's header and example row.
pub fn template(
    req: &Request<pb::GetAnnualInspectionImportTemplateRequest>,
) -> Result<pb::GetAnnualInspectionImportTemplateResponse, ServiceError> {
    fleetdesk_kit::grpc::tenant(req)?;
    fleetdesk_kit::grpc::require_permission(req, PERMISSION)?;
    Ok(pb::GetAnnualInspectionImportTemplateResponse {
        template: Some(common::ImportTemplate {
            file_name: "年检导入模板.xlsx".to_owned(),
            content: fleetdesk_kit::import::template(super::import::COLUMNS)?,
        }),
    })
}

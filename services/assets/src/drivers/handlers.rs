//! Driver RPCs: validate → domain → store → response, each in one tenant
//! transaction under the caller's reach; every change writes its
//! operation-log row in the same transaction.

use fleetdesk_kit::convert::id;
use fleetdesk_kit::idempotency::{self, Claim};
use fleetdesk_kit::list::Paging;
use fleetdesk_kit::{ServiceError, db, grpc};
use fleetdesk_proto::vehicle::v1 as pb;
use tonic::Request;
use uuid::Uuid;

use super::domain::{self, DriverDraft, Sensitive};
use super::import::DriverImport;
use super::{PERMISSION, convert, export, store};
use crate::context::{Actor, Context};
use crate::oplog::{self, Business, Changes};
use crate::vehicles;
use crate::{exports, imports};

/// Permission to reveal masked personal data (org's sensitive-view flow).
pub const PERM_SENSITIVE: &str = "as:sensitive:view";

pub async fn list(
    ctx: &Context,
    req: Request<pb::ListDriversRequest>,
) -> Result<pb::ListDriversResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin_list(&ctx.pool, &req, PERMISSION).await?;
    let pb::ListDriversRequest { page, filter } = req.into_inner();
    let paging = Paging::parse(page.as_ref())?;
    let mut query = convert::query(filter)?;
    query.org_ids = vehicles::store::org_subtrees(&mut tx, query.org_ids).await?;
    let (rows, total) = store::list(&mut tx, &actor, &query, paging).await?;
    db::end_read(tx);
    Ok(pb::ListDriversResponse {
        drivers: rows
            .into_iter()
            .map(|r| convert::driver(r, actor.enterprise_id))
            .collect(),
        page: Some(paging.info(total)),
    })
}

/// Drivers of the caller's reach by part of name, newest first: the forms'
/// pickers. Any member may ask; only id and name answer.
pub async fn pick(
    ctx: &Context,
    req: Request<pb::PickDriversRequest>,
) -> Result<pb::PickDriversResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin_member(&ctx.pool, &req).await?;
    let pb::PickDriversRequest { keyword } = req.into_inner();
    let query = convert::query(Some(pb::DriverFilter {
        name: keyword,
        ..Default::default()
    }))?;
    let first = Paging { page: 1, size: 20 };
    let (rows, _) = store::list(&mut tx, &actor, &query, first).await?;
    db::end_read(tx);
    Ok(pb::PickDriversResponse {
        drivers: rows
            .into_iter()
            .map(|r| {
                let d = convert::driver(r, actor.enterprise_id);
                pb::DriverChoice {
                    id: d.id,
                    name: d.name,
                }
            })
            .collect(),
    })
}

pub async fn get(
    ctx: &Context,
    req: Request<pb::GetDriverRequest>,
) -> Result<pb::GetDriverResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let driver_id = id(&req.get_ref().driver_id)?;
    let row = store::get(&mut tx, &actor, driver_id).await?;
    db::end_read(tx);
    Ok(pb::GetDriverResponse {
        driver: Some(convert::driver(row, actor.enterprise_id)),
    })
}

pub async fn create(
    ctx: &Context,
    req: Request<pb::CreateDriverRequest>,
) -> Result<pb::CreateDriverResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let request = req.into_inner();
    let draft = DriverDraft::parse(
        convert::fields(request.driver.clone().unwrap_or_default()),
        None,
    )?;
    vehicles::store::check_org(&mut tx, &actor, draft.org_id).await?;
    let reservation = match idempotency::claim(
        &mut tx,
        actor.enterprise_id,
        "CreateDriver",
        actor.idempotency_key.clone(),
        &request,
    )
    .await?
    {
        Claim::Replay(answer) => return Ok(answer),
        Claim::Fresh(reservation) => reservation,
    };
    let driver_id = Uuid::new_v4();
    store::insert(&mut tx, &actor, driver_id, &draft).await?;
    let remark = Changes::new()
        .note(format!("新增司机：{}", draft.name))
        .finish();
    oplog::record(&mut tx, &actor, Business::Driver, driver_id, &remark).await?;
    let row = store::get(&mut tx, &actor, driver_id).await?;
    let answer = pb::CreateDriverResponse {
        driver: Some(convert::driver(row, actor.enterprise_id)),
    };
    reservation.complete(&mut tx, &answer).await?;
    tx.commit().await?;
    tracing::info!(%driver_id, "Driver created.");
    Ok(answer)
}

pub async fn update(
    ctx: &Context,
    req: Request<pb::UpdateDriverRequest>,
) -> Result<pb::UpdateDriverResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::UpdateDriverRequest { driver_id, driver } = req.into_inner();
    let driver_id = id(&driver_id)?;
    // Not found (another tenant's, out of reach) comes before any other answer.
    let stored = store::get_locked(&mut tx, &actor, driver_id, true).await?;
    let before = convert::draft(&stored)?;
    let draft = DriverDraft::parse(
        convert::fields(driver.unwrap_or_default()),
        Some(&convert::kept(&stored)),
    )?;
    vehicles::store::check_org(&mut tx, &actor, draft.org_id).await?;
    store::update(&mut tx, &actor, driver_id, &draft).await?;
    let row = store::get(&mut tx, &actor, driver_id).await?;
    let remark = domain::changes(&before, &draft, (&stored.org_name, &row.org_name));
    oplog::record(&mut tx, &actor, Business::Driver, driver_id, &remark).await?;
    tx.commit().await?;
    Ok(pb::UpdateDriverResponse {
        driver: Some(convert::driver(row, actor.enterprise_id)),
    })
}

/// The unmasked value of one of a driver's personal fields, for the
/// sensitive-view flow: the gateway answers it only after org has written
/// the view to the audit.
pub async fn reveal(
    ctx: &Context,
    req: Request<pb::RevealDriverSensitiveRequest>,
) -> Result<pb::RevealDriverSensitiveResponse, ServiceError> {
    grpc::require_permission(&req, PERM_SENSITIVE)?;
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::RevealDriverSensitiveRequest {
        driver_id,
        sensitive_type,
    } = req.into_inner();
    let kind = Sensitive::from_type(sensitive_type)
        .ok_or_else(|| ServiceError::invalid("sensitiveType", "该对象没有此类敏感信息"))?;
    let driver_id = id(&driver_id)?;
    let row = store::get(&mut tx, &actor, driver_id).await?;
    tx.commit().await?;
    let value = kind.value_of(&convert::draft(&row)?);
    if value.is_empty() {
        return Err(ServiceError::invalid(
            "sensitiveType",
            "该司机未填写此项信息",
        ));
    }
    Ok(pb::RevealDriverSensitiveResponse { value })
}

/// `ExportDrivers`: queues the export of the list's filter under the
/// caller's reach (personal data masked in the file) and answers the job.
pub async fn export(
    ctx: &Context,
    req: Request<pb::ExportDriversRequest>,
) -> Result<pb::ExportDriversResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::ExportDriversRequest { filter } = req.into_inner();
    let job = exports::start(&mut tx, &actor, export::job(&filter.unwrap_or_default())?).await?;
    tx.commit().await?;
    Ok(pb::ExportDriversResponse { job: Some(job) })
}

/// `ImportDrivers`: every row of the uploaded file or none.
pub async fn import(
    ctx: &Context,
    req: Request<pb::ImportDriversRequest>,
) -> Result<pb::ImportDriversResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let orgs = imports::Orgs::load(&mut tx, actor.enterprise_id).await?;
    tx.commit().await?;
    let pb::ImportDriversRequest { file } = req.into_inner();
    let bytes = imports::file(&ctx.files, &actor, file).await?;
    let schema = DriverImport {
        actor: &actor,
        orgs,
    };
    let result =
        fleetdesk_kit::import::run(&ctx.pool, actor.enterprise_id, &schema, &bytes).await?;
    tracing::info!(
        imported = result.imported,
        refused = result.error_list.len(),
        "Driver import done."
    );
    Ok(pb::ImportDriversResponse {
        result: Some(result),
    })
}

//! Invoice title RPCs: validate → domain → store → response, each in one
//! tenant transaction.

use fleetdesk_kit::convert::id;
use fleetdesk_kit::list::Paging;
use fleetdesk_kit::{ServiceError, db, grpc};
use fleetdesk_proto::finance::v1 as pb;
use tonic::Request;
use uuid::Uuid;

use super::{APPLYING, PERMISSION, convert, store};
use crate::context::{Actor, Context};

/// ListInvoiceTitles: for managing titles and for the application form's picker.
pub async fn list(
    ctx: &Context,
    req: Request<pb::ListInvoiceTitlesRequest>,
) -> Result<pb::ListInvoiceTitlesResponse, ServiceError> {
    grpc::require_permission(&req, PERMISSION)
        .or_else(|_| grpc::require_permission(&req, APPLYING))?;
    let (actor, mut tx) = Actor::begin_member(&ctx.pool, &req).await?;
    let pb::ListInvoiceTitlesRequest { page, keyword } = req.into_inner();
    let paging = Paging::parse(page.as_ref())?;
    let (rows, total) = store::list(&mut tx, &actor, &keyword, paging).await?;
    db::end_read(tx);
    Ok(pb::ListInvoiceTitlesResponse {
        titles: rows.into_iter().map(convert::title).collect(),
        page: Some(paging.info(total)),
    })
}

pub async fn create(
    ctx: &Context,
    req: Request<pb::CreateInvoiceTitleRequest>,
) -> Result<pb::CreateInvoiceTitleResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::CreateInvoiceTitleRequest {
        title,
        tax_number_confirmed,
    } = req.into_inner();
    let spec = convert::input(title).check(tax_number_confirmed)?;
    let title_id = Uuid::new_v4();
    store::insert(&mut tx, &actor, title_id, &spec).await?;
    let row = store::get(&mut tx, actor.enterprise_id, title_id, false).await?;
    tx.commit().await?;
    Ok(pb::CreateInvoiceTitleResponse {
        title: Some(convert::title(row)),
    })
}

pub async fn update(
    ctx: &Context,
    req: Request<pb::UpdateInvoiceTitleRequest>,
) -> Result<pb::UpdateInvoiceTitleResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::UpdateInvoiceTitleRequest {
        title_id,
        title,
        tax_number_confirmed,
    } = req.into_inner();
    let title_id = id(&title_id)?;
    let spec = convert::input(title).check(tax_number_confirmed)?;
    store::update(&mut tx, &actor, title_id, &spec).await?;
    let row = store::get(&mut tx, actor.enterprise_id, title_id, false).await?;
    tx.commit().await?;
    Ok(pb::UpdateInvoiceTitleResponse {
        title: Some(convert::title(row)),
    })
}

pub async fn delete(
    ctx: &Context,
    req: Request<pb::DeleteInvoiceTitleRequest>,
) -> Result<pb::DeleteInvoiceTitleResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::DeleteInvoiceTitleRequest { title_id } = req.into_inner();
    store::delete(&mut tx, actor.enterprise_id, id(&title_id)?).await?;
    tx.commit().await?;
    Ok(pb::DeleteInvoiceTitleResponse {})
}

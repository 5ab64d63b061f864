//! Invoice address RPCs: validate → domain → store → response, each in one
//! tenant transaction.

use fleetdesk_kit::convert::id;
use fleetdesk_kit::list::Paging;
use fleetdesk_kit::{ServiceError, db};
use fleetdesk_proto::finance::v1 as pb;
use tonic::Request;
use uuid::Uuid;

use super::{PERMISSION, convert, store};
use crate::context::{Actor, Context};

pub async fn list(
    ctx: &Context,
    req: Request<pb::ListInvoiceAddressesRequest>,
) -> Result<pb::ListInvoiceAddressesResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin_list(&ctx.pool, &req, PERMISSION).await?;
    let pb::ListInvoiceAddressesRequest { page } = req.into_inner();
    let paging = Paging::parse(page.as_ref())?;
    let (rows, total) = store::list(&mut tx, &actor, paging).await?;
    db::end_read(tx);
    Ok(pb::ListInvoiceAddressesResponse {
        addresses: rows.into_iter().map(convert::address).collect(),
        page: Some(paging.info(total)),
    })
}

pub async fn create(
    ctx: &Context,
    req: Request<pb::CreateInvoiceAddressRequest>,
) -> Result<pb::CreateInvoiceAddressResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::CreateInvoiceAddressRequest { address } = req.into_inner();
    let spec = convert::input(address).check(true)?;
    let address_id = Uuid::new_v4();
    store::insert(&mut tx, &actor, address_id, &spec).await?;
    let row = store::get(&mut tx, actor.enterprise_id, address_id).await?;
    tx.commit().await?;
    Ok(pb::CreateInvoiceAddressResponse {
        address: Some(convert::address(row)),
    })
}

pub async fn update(
    ctx: &Context,
    req: Request<pb::UpdateInvoiceAddressRequest>,
) -> Result<pb::UpdateInvoiceAddressResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::UpdateInvoiceAddressRequest {
        address_id,
        address,
    } = req.into_inner();
    let address_id = id(&address_id)?;
    let spec = convert::input(address).check(false)?;
    store::update(&mut tx, &actor, address_id, &spec).await?;
    let row = store::get(&mut tx, actor.enterprise_id, address_id).await?;
    tx.commit().await?;
    Ok(pb::UpdateInvoiceAddressResponse {
        address: Some(convert::address(row)),
    })
}

pub async fn delete(
    ctx: &Context,
    req: Request<pb::DeleteInvoiceAddressRequest>,
) -> Result<pb::DeleteInvoiceAddressResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::DeleteInvoiceAddressRequest { address_id } = req.into_inner();
    store::delete(&mut tx, actor.enterprise_id, id(&address_id)?).await?;
    tx.commit().await?;
    Ok(pb::DeleteInvoiceAddressResponse {})
}

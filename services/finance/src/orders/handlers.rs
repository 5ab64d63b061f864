//! Order RPCs: validate → domain → store → response, each in one tenant
//! transaction under the caller's reach; an order and its ORDER bill are
//! written, and cancelled, together.

use chrono::Utc;
use fleetdesk_kit::convert::id;
use fleetdesk_kit::list::Paging;
use fleetdesk_kit::{ServiceError, db};
use fleetdesk_proto::finance::v1 as pb;
use sqlx_postgres::PgConnection;
use tonic::Request;
use uuid::Uuid;

use super::domain::{self, OrderStatus};
use super::{PERMISSION, convert, store};
use crate::bills;
use crate::context::{self, Actor, Context};
use crate::filters;

pub async fn list(
    ctx: &Context,
    req: Request<pb::ListOrdersRequest>,
) -> Result<pb::ListOrdersResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin_list(&ctx.pool, &req, PERMISSION).await?;
    let message = req.into_inner();
    let paging = Paging::parse(message.page.as_ref())?;
    let mut query = convert::query(&message)?;
    query.org_ids = filters::org_subtrees(&mut tx, query.org_ids).await?;
    let (rows, total) = store::list(&mut tx, &actor, &query, paging).await?;
    let ids: Vec<Uuid> = rows.iter().map(|r| r.id).collect();
    let mut items = store::items(&mut tx, actor.enterprise_id, &ids).await?;
    db::end_read(tx);
    Ok(pb::ListOrdersResponse {
        orders: rows
            .into_iter()
            .map(|row| convert::order(row, &mut items))
            .collect::<Result<_, _>>()?,
        page: Some(paging.info(total)),
    })
}

pub async fn get(
    ctx: &Context,
    req: Request<pb::GetOrderRequest>,
) -> Result<pb::GetOrderResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::GetOrderRequest { order_id } = req.into_inner();
    let (order, bill) = read(&mut tx, &actor, id(&order_id)?).await?;
    db::end_read(tx);
    Ok(pb::GetOrderResponse {
        order: Some(order),
        bill,
    })
}

/// Order `id` with its items and its bill, as the caller sees them.
async fn read(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
) -> Result<(pb::Order, Option<pb::Bill>), ServiceError> {
    let row = store::get(conn, actor, id, false).await?;
    let mut items = store::items(conn, actor.enterprise_id, &[id]).await?;
    let order = convert::order(row, &mut items)?;
    let bill = match bills::store::of_order(conn, actor, id).await? {
        Some(row) => Some(bills::handlers::read(conn, actor, row.id).await?),
        None => None,
    };
    Ok((order, bill))
}

/// CreateOrder: a service names the enterprise, a user places for their
/// own; the same source answers the first order.
pub async fn create(
    ctx: &Context,
    req: Request<pb::CreateOrderRequest>,
) -> Result<pb::CreateOrderResponse, ServiceError> {
    let enterprise_id = req.get_ref().enterprise_id.clone();
    let (actor, mut tx) =
        context::begin_either(&ctx.pool, &req, &enterprise_id, PERMISSION).await?;
    let new = convert::new_order(req.into_inner(), actor.idempotency_key.as_deref())?;
    if !actor.reach.sees(Some(new.org_id), None) {
        return Err(ServiceError::invalid("orgId", "无权在该组织下单"));
    }
    let checked = new.check(Utc::now())?;
    let order_id = Uuid::new_v4();
    let order_no = format!(
        "DD{}-{}",
        crate::calendar::day_of(checked.placed_at).format("%Y%m%d"),
        &order_id.simple().to_string()[..8].to_uppercase()
    );
    let order_id = if store::insert(&mut tx, &actor, order_id, &order_no, &checked).await? {
        bills::handlers::raise(
            &mut tx,
            &actor,
            convert::order_bill(order_id, &order_no, &checked),
        )
        .await?;
        order_id
    } else {
        let source = &checked.order.source;
        let (first, kind, total) = store::by_source(
            &mut tx,
            actor.enterprise_id,
            source.service.trim(),
            source.id.trim(),
        )
        .await?
        .ok_or_else(ServiceError::not_found)?;
        domain::same_order((kind, total), &checked)?;
        first
    };
    let (order, bill) = read(&mut tx, &actor, order_id).await?;
    tx.commit().await?;
    Ok(pb::CreateOrderResponse {
        order: Some(order),
        bill,
    })
}

/// CancelOrder: only PENDING_PAYMENT; its unpaid bill is cancelled with it.
pub async fn cancel(
    ctx: &Context,
    req: Request<pb::CancelOrderRequest>,
) -> Result<pb::CancelOrderResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::CancelOrderRequest { order_id, reason } = req.into_inner();
    let order_id = id(&order_id)?;
    let row = store::get(&mut tx, &actor, order_id, true).await?;
    domain::cancellable(fleetdesk_kit::codes::known::<OrderStatus>(row.status)?)?;
    store::cancel(&mut tx, &actor, order_id, reason.trim()).await?;
    bills::store::cancel_of_order(&mut tx, &actor, order_id).await?;
    let (order, _) = read(&mut tx, &actor, order_id).await?;
    tx.commit().await?;
    Ok(pb::CancelOrderResponse { order: Some(order) })
}

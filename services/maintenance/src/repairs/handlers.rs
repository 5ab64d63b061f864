//! Repair order and record RPCs: validate → domain → store → response, each
//! in one tenant transaction under the caller's reach. A move locks the
//! order, asks the state machine (`domain`), writes it with its
//! operation-log row and answers the order as stored; a refused move
//! changes nothing.

use chrono::Utc;
use fleetdesk_kit::convert::{datetime, id, timestamp};
use fleetdesk_kit::idempotency::{self, Claim};
use fleetdesk_kit::{ServiceError, db};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use sqlx_postgres::PgConnection;
use tonic::Request;
use uuid::Uuid;

use super::domain::{self, Kind, Move};
use super::store::{self, Change, Completion, NewOrder, ORDER_LOG};
use super::{PERMISSION, approval, config, convert, export, settle};
use crate::context::{Actor, Context};
use crate::exports;
use fleetdesk_assets::vehicles;

pub async fn list(
    ctx: &Context,
    req: Request<pb::ListRepairOrdersRequest>,
) -> Result<pb::ListRepairOrdersResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin_list(&ctx.pool, &req, PERMISSION).await?;
    let message = req.into_inner();
    let paging = fleetdesk_kit::list::Paging::parse(message.page.as_ref())?;
    let mut query = convert::order_filter(&message)?;
    query.org_ids = vehicles::store::org_subtrees(&mut tx, query.org_ids).await?;
    let (rows, count) = store::list(&mut tx, &actor, &query, paging).await?;
    db::end_read(tx);
    Ok(pb::ListRepairOrdersResponse {
        orders: rows
            .into_iter()
            .map(|row| convert::order(row, actor.enterprise_id))
            .collect::<Result<_, _>>()?,
        page: Some(paging.info(count)),
    })
}

/// An order's operation log, newest first.
pub async fn logs(
    conn: &mut PgConnection,
    actor: &Actor,
    kind: i16,
    id: Uuid,
) -> Result<Vec<common::OperationLogEntry>, ServiceError> {
    Ok(store::logs(conn, actor, kind, id)
        .await?
        .into_iter()
        .map(|(remark, operator_name, at)| common::OperationLogEntry {
            remark,
            operator_name,
            operate_time: Some(timestamp(at)),
        })
        .collect())
}

pub async fn get(
    ctx: &Context,
    req: Request<pb::GetRepairOrderRequest>,
) -> Result<pb::GetRepairOrderResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::GetRepairOrderRequest { repair_order_id } = req.into_inner();
    let row = store::get(&mut tx, &actor, id(&repair_order_id)?, false).await?;
    let logs = logs(&mut tx, &actor, ORDER_LOG, row.id).await?;
    db::end_read(tx);
    Ok(pb::GetRepairOrderResponse {
        order: Some(convert::order(row, actor.enterprise_id)?),
        logs,
    })
}

/// The order as stored after a change, committed and answered.
async fn answer(
    mut tx: sqlx::Transaction<'static, sqlx_postgres::Postgres>,
    actor: &Actor,
    id: Uuid,
) -> Result<pb::RepairOrder, ServiceError> {
    let row = store::get(&mut tx, actor, id, false).await?;
    tx.commit().await?;
    convert::order(row, actor.enterprise_id)
}

/// A driver of the enterprise (a blank id is none).
async fn driver(
    conn: &mut PgConnection,
    actor: &Actor,
    driver_id: &str,
) -> Result<Option<(Uuid, String)>, ServiceError> {
    let driver_id = driver_id.trim();
    if driver_id.is_empty() {
        return Ok(None);
    }
    let parsed = Uuid::parse_str(driver_id)
        .map_err(|_| ServiceError::invalid("driverId", "司机编号无效"))?;
    crate::violations::store::driver(conn, actor.enterprise_id, parsed)
        .await?
        .map(Some)
        .ok_or_else(|| ServiceError::invalid("driverId", "司机不存在或不属于本企业"))
}

/// Largest odometer reading taken (10 million km).
const MAX_ODOMETER_M: i64 = 10_000_000_000;

fn odometer(field: &str, value: i64) -> Result<i64, ServiceError> {
    if (0..=MAX_ODOMETER_M).contains(&value) {
        Ok(value)
    } else {
        Err(ServiceError::invalid(field, "里程应在0至1000万公里之间"))
    }
}

pub async fn create(
    ctx: &Context,
    req: Request<pb::CreateRepairOrderRequest>,
) -> Result<pb::CreateRepairOrderResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let request = req.into_inner();
    let pb::CreateRepairOrderRequest {
        vehicle_id,
        driver_id,
        kind,
        fault_description,
        fault_images,
        odometer_m,
        shop_id,
        appointment_time,
        contact_name,
        contact_phone,
        accident_id,
        idempotency_key,
    } = request.clone();
    // Another tenant's or an unreachable vehicle or shop: not found first.
    let vehicle = vehicles::store::get(&mut tx, &actor, id(&vehicle_id)?, false).await?;
    let shop = config::supplier(&mut tx, &actor, id(&shop_id)?, false).await?;
    let kind =
        Kind::from_pb(kind).ok_or_else(|| ServiceError::invalid("kind", "请选择维修类型"))?;
    if !shop.enabled {
        return Err(ServiceError::invalid("shopId", "该维修厂已停用"));
    }
    let fault_description = fault_description.trim();
    if fault_description.chars().count() > 1000 {
        return Err(ServiceError::invalid(
            "faultDescription",
            "故障描述不能超过1000个字符",
        ));
    }
    let order = NewOrder {
        org_id: vehicle.org_id,
        vehicle_id: vehicle.id,
        plate_number: vehicle.plate_number.clone(),
        driver: driver(&mut tx, &actor, &driver_id).await?,
        contact_name: domain::optional("contactName", "联系人", &contact_name)?,
        contact_phone: domain::optional("contactPhone", "联系电话", &contact_phone)?,
        kind: kind.into(),
        fault_description: fault_description.to_owned(),
        fault_images: convert::files_json(&fault_images),
        odometer_m: odometer("odometerM", odometer_m)?,
        shop_id: shop.id,
        appointment_at: appointment_time.as_ref().and_then(datetime),
        accident_id: domain::optional("accidentId", "事故编号", &accident_id)?,
    };
    let key = actor
        .idempotency_key
        .clone()
        .or_else(|| Some(idempotency_key.trim().to_owned()).filter(|k| !k.is_empty()));
    let reservation = match idempotency::claim(
        &mut tx,
        actor.enterprise_id,
        "CreateRepairOrder",
        key,
        &request,
    )
    .await?
    {
        Claim::Replay(answer) => return Ok(answer),
        Claim::Fresh(reservation) => reservation,
    };
    let (order_id, _) = store::insert(&mut tx, &actor, &order).await?;
    let row = store::get(&mut tx, &actor, order_id, false).await?;
    let answer = pb::CreateRepairOrderResponse {
        order: Some(convert::order(row, actor.enterprise_id)?),
    };
    reservation.complete(&mut tx, &answer).await?;
    tx.commit().await?;
    Ok(answer)
}

pub async fn quote(
    ctx: &Context,
    req: Request<pb::SubmitRepairQuoteRequest>,
) -> Result<pb::SubmitRepairQuoteResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::SubmitRepairQuoteRequest {
        repair_order_id,
        items,
        remark,
    } = req.into_inner();
    let row = store::get(&mut tx, &actor, id(&repair_order_id)?, true).await?;
    row.state()?.apply(Move::Quote)?;
    let lines = domain::lines("items", &items)?;
    let remark = domain::optional("remark", "报价说明", &remark)?;
    store::quoted(
        &mut tx,
        &actor,
        &row,
        &lines,
        domain::total(&lines),
        &remark,
    )
    .await?;
    Ok(pb::SubmitRepairQuoteResponse {
        order: Some(answer(tx, &actor, row.id).await?),
    })
}

pub async fn confirm_price(
    ctx: &Context,
    req: Request<pb::ConfirmRepairPriceRequest>,
) -> Result<pb::ConfirmRepairPriceResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::ConfirmRepairPriceRequest {
        repair_order_id,
        accepted,
        expected_total_fen,
        reason,
    } = req.into_inner();
    let row = store::get(&mut tx, &actor, id(&repair_order_id)?, true).await?;
    let state = row.state()?;
    if !accepted {
        let to = state.apply(Move::Reject)?;
        let reason = domain::required("reason", "退回原因", &reason)?;
        store::moved(
            &mut tx,
            &actor,
            &row,
            to,
            Change::Rejected(&reason),
            &format!("退回报价：{reason}"),
        )
        .await?;
        return Ok(pb::ConfirmRepairPriceResponse {
            order: Some(answer(tx, &actor, row.id).await?),
        });
    }
    let threshold = config::threshold(&mut tx, actor.enterprise_id).await?;
    let needs_approval = domain::needs_approval(row.quote_total_fen, threshold);
    let to = state.apply(Move::Accept { needs_approval })?;
    if expected_total_fen != row.quote_total_fen {
        return Err(ServiceError::new(
            fleetdesk_kit::ErrorCode::Conflict,
            "报价已变更，请刷新后重新确认",
        ));
    }
    if needs_approval {
        store::moved(
            &mut tx,
            &actor,
            &row,
            to,
            Change::RequestApproval,
            &format!(
                "报价{}超过审批阈值{}，已提交审批",
                domain::yuan(row.quote_total_fen),
                domain::yuan(threshold)
            ),
        )
        .await?;
        approval::request(&mut tx, &actor, &row, threshold).await?;
    } else {
        store::moved(
            &mut tx,
            &actor,
            &row,
            to,
            Change::Confirm,
            &format!("确认价格{}", domain::yuan(row.quote_total_fen)),
        )
        .await?;
    }
    Ok(pb::ConfirmRepairPriceResponse {
        order: Some(answer(tx, &actor, row.id).await?),
    })
}

pub async fn cancel(
    ctx: &Context,
    req: Request<pb::CancelRepairOrderRequest>,
) -> Result<pb::CancelRepairOrderResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::CancelRepairOrderRequest {
        repair_order_id,
        reason,
    } = req.into_inner();
    let row = store::get(&mut tx, &actor, id(&repair_order_id)?, true).await?;
    let to = row.state()?.apply(Move::Cancel)?;
    let reason = domain::required("reason", "取消原因", &reason)?;
    store::moved(
        &mut tx,
        &actor,
        &row,
        to,
        Change::Cancel(&reason),
        &format!("取消原因：{reason}"),
    )
    .await?;
    Ok(pb::CancelRepairOrderResponse {
        order: Some(answer(tx, &actor, row.id).await?),
    })
}

pub async fn complete(
    ctx: &Context,
    req: Request<pb::CompleteRepairOrderRequest>,
) -> Result<pb::CompleteRepairOrderResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::CompleteRepairOrderRequest {
        repair_order_id,
        completed_time,
        odometer_m,
        completion_images,
        remark,
        final_items,
    } = req.into_inner();
    let row = store::get(&mut tx, &actor, id(&repair_order_id)?, true).await?;
    row.state()?.apply(Move::Complete)?;
    let completed_at = completed_time
        .as_ref()
        .and_then(datetime)
        .ok_or_else(|| ServiceError::invalid("completedTime", "请填写完工时间"))?;
    if completed_at > Utc::now() {
        return Err(ServiceError::invalid(
            "completedTime",
            "完工时间不能晚于当前时间",
        ));
    }
    if row.created_at > completed_at {
        return Err(ServiceError::invalid(
            "completedTime",
            "完工时间不能早于送修时间",
        ));
    }
    let odometer_m = odometer("odometerM", odometer_m)?;
    if odometer_m < row.odometer_m {
        return Err(ServiceError::invalid(
            "odometerM",
            "完工里程不能小于送修时的里程",
        ));
    }
    let lines = if final_items.is_empty() {
        row.quote_lines()
    } else {
        domain::lines("finalItems", &final_items)?
    };
    let done = Completion {
        completed_at,
        odometer_m,
        total_fen: domain::total(&lines),
        lines,
        images: convert::files_json(&completion_images),
        remark: domain::optional("remark", "备注", &remark)?,
    };
    store::completed(&mut tx, &actor, &row, &done).await?;
    let shop = config::supplier_of(&mut tx, actor.enterprise_id, row.shop_id).await?;
    settle::attach(&mut tx, &actor, &row, shop, completed_at).await?;
    Ok(pb::CompleteRepairOrderResponse {
        order: Some(answer(tx, &actor, row.id).await?),
    })
}

pub async fn export(
    ctx: &Context,
    req: Request<pb::ExportRepairOrdersRequest>,
) -> Result<pb::ExportRepairOrdersResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::ExportRepairOrdersRequest { filter } = req.into_inner();
    let job = exports::start(
        &mut tx,
        &actor,
        export::orders_job(&filter.unwrap_or_default())?,
    )
    .await?;
    tx.commit().await?;
    Ok(pb::ExportRepairOrdersResponse { job: Some(job) })
}

pub async fn list_records(
    ctx: &Context,
    req: Request<pb::ListRepairRecordsRequest>,
) -> Result<pb::ListRepairRecordsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin_list(&ctx.pool, &req, PERMISSION).await?;
    let message = req.into_inner();
    let paging = fleetdesk_kit::list::Paging::parse(message.page.as_ref())?;
    let mut query = convert::record_filter(&message)?;
    query.org_ids = vehicles::store::org_subtrees(&mut tx, query.org_ids).await?;
    let (rows, count) = store::records(&mut tx, &actor, &query, paging).await?;
    db::end_read(tx);
    Ok(pb::ListRepairRecordsResponse {
        records: rows
            .into_iter()
            .map(convert::record)
            .collect::<Result<_, _>>()?,
        page: Some(paging.info(count)),
    })
}

pub async fn get_record(
    ctx: &Context,
    req: Request<pb::GetRepairRecordRequest>,
) -> Result<pb::GetRepairRecordResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::GetRepairRecordRequest { repair_record_id } = req.into_inner();
    let record = store::record(&mut tx, &actor, id(&repair_record_id)?).await?;
    let order = store::get(&mut tx, &actor, record.repair_order_id, false).await?;
    db::end_read(tx);
    Ok(pb::GetRepairRecordResponse {
        record: Some(convert::record(record)?),
        order: Some(convert::order(order, actor.enterprise_id)?),
    })
}

pub async fn export_records(
    ctx: &Context,
    req: Request<pb::ExportRepairRecordsRequest>,
) -> Result<pb::ExportRepairRecordsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::ExportRepairRecordsRequest { filter } = req.into_inner();
    let job = exports::start(
        &mut tx,
        &actor,
        export::records_job(&filter.unwrap_or_default())?,
    )
    .await?;
    tx.commit().await?;
    Ok(pb::ExportRepairRecordsResponse { job: Some(job) })
}

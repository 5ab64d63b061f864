//! The repair configuration (orderConfig): the enterprise's suppliers, its
//! item catalogue with unit prices in fen, and the approval threshold above
//! which an accepted quote goes through an org approval. Small lists, read
//! whole by every holder of the permission; a supplier is changed only by
//! those reaching its organisation (whose statements and bills it has).

use fleetdesk_kit::convert::{id, timestamp};
use fleetdesk_kit::{ServiceError, on_constraint};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use tonic::Request;
use uuid::Uuid;

use super::PERMISSION;
use super::domain::{self, ItemKind};
use super::store::log;
use crate::context::{Actor, Context};
use fleetdesk_assets::vehicles;

/// The supplier's business type in the operation log: the statement's,
/// the nearest the contract has for a repair shop's own rows.
const CONFIG_LOG: i16 = pb::BusinessType::RepairStatement as i16;

/// Largest threshold (10,000,000 yuan).
const MAX_THRESHOLD_FEN: i64 = 1_000_000_000;

/// The enterprise's threshold (the default until one is set).
pub async fn threshold(conn: &mut PgConnection, enterprise: Uuid) -> Result<i64, ServiceError> {
    let stored: Option<i64> = sqlx::query_scalar(
        "select approval_threshold_fen from repair_config where enterprise_id = $1",
    )
    .bind(enterprise)
    .fetch_optional(conn)
    .await?;
    Ok(stored.unwrap_or(domain::DEFAULT_THRESHOLD_FEN))
}

#[derive(Debug, Clone, FromRow)]
pub struct SupplierRow {
    pub id: Uuid,
    pub org_id: Uuid,
    pub org_name: Option<String>,
    pub name: String,
    pub address: String,
    pub contact_name: String,
    pub contact_phone: String,
    pub enabled: bool,
    pub remark: String,
    pub created_by_name: String,
    pub updated_by_name: String,
    pub created_at: chrono::DateTime<chrono::Utc>,
    pub updated_at: chrono::DateTime<chrono::Utc>,
}

const SUPPLIERS: &str = "select s.id, s.org_id, o.name as org_name, s.name, s.address, \
     s.contact_name, s.contact_phone, s.enabled, s.remark, s.created_by_name, s.updated_by_name, \
     s.created_at, s.updated_at from repair_supplier s left join org_unit o on o.id = s.org_id \
     where s.enterprise_id = $1";

/// The enterprise's suppliers, by name: a shop is the enterprise's to send
/// vehicles to, whatever organisation works with it.
async fn suppliers(
    conn: &mut PgConnection,
    actor: &Actor,
) -> Result<Vec<SupplierRow>, ServiceError> {
    Ok(sqlx::query_as(&format!("{SUPPLIERS} order by s.name"))
        .bind(actor.enterprise_id)
        .fetch_all(conn)
        .await?)
}

/// One supplier of the enterprise (404 otherwise); to change it
/// (`for_edit`) the caller must reach its organisation too.
pub async fn supplier(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    for_edit: bool,
) -> Result<SupplierRow, ServiceError> {
    let row: Option<SupplierRow> = sqlx::query_as(&format!("{SUPPLIERS} and s.id = $2"))
        .bind(actor.enterprise_id)
        .bind(id)
        .fetch_optional(conn)
        .await?;
    row.filter(|s| !for_edit || actor.reach.sees(Some(s.org_id), None))
        .ok_or_else(ServiceError::not_found)
}

/// The organisation of supplier `id` of `enterprise` (its statements' reach).
pub async fn supplier_of(
    conn: &mut PgConnection,
    enterprise: Uuid,
    id: Uuid,
) -> Result<Uuid, ServiceError> {
    Ok(sqlx::query_scalar(
        "select org_id from repair_supplier where enterprise_id = $1 and id = $2",
    )
    .bind(enterprise)
    .bind(id)
    .fetch_one(conn)
    .await?)
}

#[derive(Debug, Clone, FromRow)]
pub struct ItemRow {
    pub id: Uuid,
    pub name: String,
    pub kind: i16,
    pub part_no: String,
    pub unit: String,
    pub unit_price_fen: i64,
    pub enabled: bool,
    pub created_by_name: String,
    pub updated_by_name: String,
    pub created_at: chrono::DateTime<chrono::Utc>,
    pub updated_at: chrono::DateTime<chrono::Utc>,
}

const ITEMS: &str = "select id, name, kind, part_no, unit, unit_price_fen, enabled, \
     created_by_name, updated_by_name, created_at, updated_at from repair_catalogue_item \
     where enterprise_id = $1";

fn audit(
    created_by: String,
    created_at: chrono::DateTime<chrono::Utc>,
    updated_by: String,
    updated_at: chrono::DateTime<chrono::Utc>,
) -> common::Audit {
    common::Audit {
        created_by,
        create_time: Some(timestamp(created_at)),
        updated_by,
        update_time: Some(timestamp(updated_at)),
    }
}

pub fn supplier_pb(row: SupplierRow) -> pb::RepairSupplier {
    let SupplierRow {
        id,
        org_id,
        org_name,
        name,
        address,
        contact_name,
        contact_phone,
        enabled,
        remark,
        created_by_name,
        updated_by_name,
        created_at,
        updated_at,
    } = row;
    pb::RepairSupplier {
        id: id.to_string(),
        org_id: org_id.to_string(),
        org_name: org_name.unwrap_or_default(),
        name,
        address,
        contact_name,
        contact_phone,
        enabled,
        remark,
        audit: Some(audit(
            created_by_name,
            created_at,
            updated_by_name,
            updated_at,
        )),
    }
}

fn item_pb(row: ItemRow) -> pb::RepairCatalogueItem {
    let ItemRow {
        id,
        name,
        kind,
        part_no,
        unit,
        unit_price_fen,
        enabled,
        created_by_name,
        updated_by_name,
        created_at,
        updated_at,
    } = row;
    pb::RepairCatalogueItem {
        id: id.to_string(),
        name,
        kind: ItemKind::try_from(kind).map_or(0, ItemKind::pb),
        part_no,
        unit,
        unit_price_fen,
        enabled,
        audit: Some(audit(
            created_by_name,
            created_at,
            updated_by_name,
            updated_at,
        )),
    }
}

pub async fn get(
    ctx: &Context,
    req: Request<pb::GetRepairConfigRequest>,
) -> Result<pb::GetRepairConfigResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::GetRepairConfigRequest {} = req.into_inner();
    let approval_threshold_fen = threshold(&mut tx, actor.enterprise_id).await?;
    let suppliers = suppliers(&mut tx, &actor).await?;
    let items: Vec<ItemRow> = sqlx::query_as(&format!("{ITEMS} order by kind, name"))
        .bind(actor.enterprise_id)
        .fetch_all(&mut *tx)
        .await?;
    fleetdesk_kit::db::end_read(tx);
    Ok(pb::GetRepairConfigResponse {
        approval_threshold_fen,
        suppliers: suppliers.into_iter().map(supplier_pb).collect(),
        items: items.into_iter().map(item_pb).collect(),
    })
}

pub async fn update_threshold(
    ctx: &Context,
    req: Request<pb::UpdateRepairApprovalThresholdRequest>,
) -> Result<pb::UpdateRepairApprovalThresholdResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::UpdateRepairApprovalThresholdRequest {
        approval_threshold_fen,
    } = req.into_inner();
    if !(0..=MAX_THRESHOLD_FEN).contains(&approval_threshold_fen) {
        return Err(ServiceError::invalid(
            "approvalThresholdFen",
            "审批阈值应在0至1000万元之间",
        ));
    }
    let before = threshold(&mut tx, actor.enterprise_id).await?;
    sqlx::query(
        "insert into repair_config (enterprise_id, approval_threshold_fen, updated_by_name) \
         values ($1, $2, $3) on conflict (enterprise_id) do update set \
           approval_threshold_fen = excluded.approval_threshold_fen, \
           updated_by_name = excluded.updated_by_name",
    )
    .bind(actor.enterprise_id)
    .bind(approval_threshold_fen)
    .bind(&actor.name)
    .execute(&mut *tx)
    .await?;
    log(
        &mut tx,
        &actor,
        CONFIG_LOG,
        actor.enterprise_id,
        &format!(
            "维修审批阈值：{} → {}",
            domain::yuan(before),
            domain::yuan(approval_threshold_fen)
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(pb::UpdateRepairApprovalThresholdResponse {
        approval_threshold_fen,
    })
}

fn supplier_conflict(err: sqlx::Error) -> ServiceError {
    on_constraint(err, |name| {
        (name == "repair_supplier_name_key")
            .then(|| ServiceError::invalid("name", "已有同名的维修厂"))
    })
}

pub async fn save_supplier(
    ctx: &Context,
    req: Request<pb::SaveRepairSupplierRequest>,
) -> Result<pb::SaveRepairSupplierResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::SaveRepairSupplierRequest { supplier: given } = req.into_inner();
    let pb::RepairSupplier {
        id: supplier_id,
        org_id,
        org_name: _,
        name,
        address,
        contact_name,
        contact_phone,
        enabled,
        remark,
        audit: _,
    } = given.unwrap_or_default();
    // Another tenant's or an unreachable supplier is not found before any validation.
    let existing = match supplier_id.trim() {
        "" => None,
        given => Some(supplier(&mut tx, &actor, id(given)?, true).await?),
    };
    let name = domain::required("name", "维修厂名称", &name)?;
    let address = domain::optional("address", "地址", &address)?;
    let contact_name = domain::optional("contactName", "联系人", &contact_name)?;
    let contact_phone = domain::optional("contactPhone", "联系电话", &contact_phone)?;
    let remark = domain::optional("remark", "备注", &remark)?;
    let org = Uuid::parse_str(org_id.trim())
        .map_err(|_| ServiceError::invalid("orgId", "请选择所属组织"))?;
    vehicles::store::check_org(&mut tx, &actor, org).await?;
    let id = existing.as_ref().map_or_else(Uuid::new_v4, |s| s.id);
    sqlx::query(
        "insert into repair_supplier (id, enterprise_id, org_id, name, address, contact_name, \
           contact_phone, enabled, remark, created_by_name, updated_by_name) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) \
         on conflict (id) do update set org_id = excluded.org_id, name = excluded.name, \
           address = excluded.address, contact_name = excluded.contact_name, \
           contact_phone = excluded.contact_phone, enabled = excluded.enabled, \
           remark = excluded.remark, updated_by_name = excluded.updated_by_name",
    )
    .bind(id)
    .bind(actor.enterprise_id)
    .bind(org)
    .bind(&name)
    .bind(&address)
    .bind(&contact_name)
    .bind(&contact_phone)
    .bind(enabled)
    .bind(&remark)
    .bind(&actor.name)
    .execute(&mut *tx)
    .await
    .map_err(supplier_conflict)?;
    let what = if existing.is_some() {
        "修改"
    } else {
        "新增"
    };
    log(
        &mut tx,
        &actor,
        CONFIG_LOG,
        id,
        &format!("{what}维修厂：{name}"),
    )
    .await?;
    let row = supplier(&mut tx, &actor, id, false).await?;
    tx.commit().await?;
    Ok(pb::SaveRepairSupplierResponse {
        supplier: Some(supplier_pb(row)),
    })
}

fn item_conflict(err: sqlx::Error) -> ServiceError {
    on_constraint(err, |name| {
        (name == "repair_catalogue_item_name_key")
            .then(|| ServiceError::invalid("name", "同类型下已有同名的项目"))
    })
}

pub async fn save_item(
    ctx: &Context,
    req: Request<pb::SaveRepairCatalogueItemRequest>,
) -> Result<pb::SaveRepairCatalogueItemResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::SaveRepairCatalogueItemRequest { item } = req.into_inner();
    let pb::RepairCatalogueItem {
        id: item_id,
        name,
        kind,
        part_no,
        unit,
        unit_price_fen,
        enabled,
        audit: _,
    } = item.unwrap_or_default();
    let existing = match item_id.trim() {
        "" => None,
        given => {
            let found: Option<ItemRow> = sqlx::query_as(&format!("{ITEMS} and id = $2"))
                .bind(actor.enterprise_id)
                .bind(id(given)?)
                .fetch_optional(&mut *tx)
                .await?;
            Some(found.ok_or_else(ServiceError::not_found)?)
        }
    };
    let name = domain::required("name", "项目名称", &name)?;
    let kind =
        ItemKind::from_pb(kind).ok_or_else(|| ServiceError::invalid("kind", "请选择项目类型"))?;
    let part_no = domain::optional("partNo", "配件编号", &part_no)?;
    let unit = domain::optional("unit", "单位", &unit)?;
    if !(0..=100_000_000).contains(&unit_price_fen) {
        return Err(ServiceError::invalid(
            "unitPriceFen",
            "单价应在0至100万元之间",
        ));
    }
    let id = existing.as_ref().map_or_else(Uuid::new_v4, |i| i.id);
    // The catalogue is the enterprise's: its root organisation owns it.
    sqlx::query(
        "insert into repair_catalogue_item (id, enterprise_id, org_id, name, kind, part_no, unit, \
           unit_price_fen, enabled, created_by_name, updated_by_name) \
         values ($1, $2, coalesce((select id from org_unit where enterprise_id = $2 \
           order by length(path), id limit 1), $2), $3, $4, $5, $6, $7, $8, $9, $9) \
         on conflict (id) do update set name = excluded.name, kind = excluded.kind, \
           part_no = excluded.part_no, unit = excluded.unit, \
           unit_price_fen = excluded.unit_price_fen, enabled = excluded.enabled, \
           updated_by_name = excluded.updated_by_name",
    )
    .bind(id)
    .bind(actor.enterprise_id)
    .bind(&name)
    .bind(i16::from(kind))
    .bind(&part_no)
    .bind(&unit)
    .bind(unit_price_fen)
    .bind(enabled)
    .bind(&actor.name)
    .execute(&mut *tx)
    .await
    .map_err(item_conflict)?;
    let what = if existing.is_some() {
        "修改"
    } else {
        "新增"
    };
    log(
        &mut tx,
        &actor,
        CONFIG_LOG,
        id,
        &format!(
            "{what}维修项目：{name}，单价{}",
            domain::yuan(unit_price_fen)
        ),
    )
    .await?;
    let row: ItemRow = sqlx::query_as(&format!("{ITEMS} and id = $2"))
        .bind(actor.enterprise_id)
        .bind(id)
        .fetch_one(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(pb::SaveRepairCatalogueItemResponse {
        item: Some(item_pb(row)),
    })
}

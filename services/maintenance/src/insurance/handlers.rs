//! Insurance policy RPCs: validate → domain → store → response, each in one
//! tenant transaction under the caller's reach. A write finds the policy
//! first (another tenant's or another organisation's id is not found before
//! any field is checked), then checks the form, the vehicle and the
//! documents, and writes the row with its operation-log row.

use chrono::Utc;
use fleetdesk_kit::convert::id;
use fleetdesk_kit::{ServiceError, db, files};
use fleetdesk_proto::vehicle::v1 as pb;
use sqlx_postgres::PgConnection;
use tonic::Request;
use uuid::Uuid;

use super::domain::{Document, Policy};
use super::import::PolicyImport;
use super::{FILE_PERMISSION, PERMISSION, convert, export, store};
use crate::context::{Actor, Context};
use crate::plates::vehicle_by_plate;
use crate::{exports, oplog};
use fleetdesk_assets::vehicles;

/// The upload purpose policy documents are stored under (images and PDF).
const DOCUMENT_PURPOSE: &str = "document";

pub async fn list(
    ctx: &Context,
    req: Request<pb::ListInsurancePoliciesRequest>,
) -> Result<pb::ListInsurancePoliciesResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin_list(&ctx.pool, &req, PERMISSION).await?;
    let message = req.into_inner();
    let paging = fleetdesk_kit::list::Paging::parse(message.page.as_ref())?;
    let now = Utc::now();
    let mut query = convert::filter(&message, now)?;
    query.org_ids = vehicles::store::org_subtrees(&mut tx, query.org_ids).await?;
    let (rows, total) = store::list(&mut tx, &actor, &query, paging).await?;
    db::end_read(tx);
    Ok(pb::ListInsurancePoliciesResponse {
        policies: rows
            .into_iter()
            .map(|row| convert::policy(row, actor.enterprise_id, now))
            .collect::<Result<_, _>>()?,
        page: Some(paging.info(total)),
    })
}

pub async fn get(
    ctx: &Context,
    req: Request<pb::GetInsurancePolicyRequest>,
) -> Result<pb::GetInsurancePolicyResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::GetInsurancePolicyRequest { policy_id } = req.into_inner();
    let row = store::get(&mut tx, &actor, id(&policy_id)?, false).await?;
    let logs = oplog::entries(&mut tx, &actor, store::BUSINESS_TYPE, row.id).await?;
    db::end_read(tx);
    Ok(pb::GetInsurancePolicyResponse {
        policy: Some(convert::policy(row, actor.enterprise_id, Utc::now())?),
        logs,
    })
}

/// The vehicle with `plate` of the caller's enterprise and reach: (id, organisation).
pub async fn vehicle_of(
    conn: &mut PgConnection,
    actor: &Actor,
    plate: &str,
) -> Result<(Uuid, Uuid), ServiceError> {
    let (vehicle, org) = vehicle_by_plate(conn, actor.enterprise_id, plate)
        .await?
        .ok_or_else(|| ServiceError::invalid("plateNumber", "车牌号不是本企业的车辆"))?;
    if !actor.reach.sees(Some(org), None) {
        return Err(ServiceError::invalid(
            "plateNumber",
            "该车辆不在您的数据权限范围内",
        ));
    }
    Ok((vehicle, org))
}

/// Documents must be the enterprise's own uploads of the document purpose,
/// still in the store.
async fn check_documents(
    ctx: &Context,
    actor: &Actor,
    documents: &[Document],
) -> Result<(), ServiceError> {
    for d in documents {
        let purpose = d.key.split('/').nth(1);
        if !files::owned_by(&d.key, actor.enterprise_id)
            || purpose != Some(DOCUMENT_PURPOSE)
            || !ctx.files.exists(&d.key).await?
        {
            return Err(ServiceError::invalid(
                "documents",
                "保单文件不存在或已过期，请重新上传",
            ));
        }
    }
    Ok(())
}

/// The form checked, its vehicle found and its documents verified.
async fn checked(
    ctx: &Context,
    conn: &mut PgConnection,
    actor: &Actor,
    form: Option<pb::InsurancePolicyForm>,
) -> Result<(Policy, (Uuid, Uuid)), ServiceError> {
    let policy = convert::form(form).check()?;
    let vehicle = vehicle_of(conn, actor, &policy.plate).await?;
    check_documents(ctx, actor, &policy.documents).await?;
    Ok((policy, vehicle))
}

/// The row as stored after a change, answered.
async fn answer(
    mut tx: sqlx::Transaction<'static, sqlx_postgres::Postgres>,
    actor: &Actor,
    id: Uuid,
) -> Result<pb::InsurancePolicy, ServiceError> {
    let row = store::get(&mut tx, actor, id, false).await?;
    tx.commit().await?;
    convert::policy(row, actor.enterprise_id, Utc::now())
}

pub async fn create(
    ctx: &Context,
    req: Request<pb::CreateInsurancePolicyRequest>,
) -> Result<pb::CreateInsurancePolicyResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::CreateInsurancePolicyRequest { form } = req.into_inner();
    let (policy, vehicle) = checked(ctx, &mut tx, &actor, form).await?;
    let id = store::insert(&mut tx, &actor, vehicle, &policy).await?;
    Ok(pb::CreateInsurancePolicyResponse {
        policy: Some(answer(tx, &actor, id).await?),
    })
}

pub async fn update(
    ctx: &Context,
    req: Request<pb::UpdateInsurancePolicyRequest>,
) -> Result<pb::UpdateInsurancePolicyResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::UpdateInsurancePolicyRequest { policy_id, form } = req.into_inner();
    let row = store::get(&mut tx, &actor, id(&policy_id)?, true).await?;
    let (policy, vehicle) = checked(ctx, &mut tx, &actor, form).await?;
    store::update(&mut tx, &actor, &row, vehicle, &policy).await?;
    Ok(pb::UpdateInsurancePolicyResponse {
        policy: Some(answer(tx, &actor, row.id).await?),
    })
}

/// GetInsurancePolicyDocument: one of the policy's documents, for a policy
/// the caller may see; any other key is not found.
pub async fn document(
    ctx: &Context,
    req: Request<pb::GetInsurancePolicyDocumentRequest>,
) -> Result<pb::GetInsurancePolicyDocumentResponse, ServiceError> {
    // The page's permission and the file permission both (console spec §6).
    fleetdesk_kit::grpc::require_permission(&req, FILE_PERMISSION)?;
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::GetInsurancePolicyDocumentRequest { policy_id, key } = req.into_inner();
    let row = store::get(&mut tx, &actor, id(&policy_id)?, false).await?;
    db::end_read(tx);
    let key = key.trim();
    let document = row
        .documents
        .0
        .iter()
        .find(|d| d.key == key)
        .ok_or_else(files::gone)?;
    Ok(pb::GetInsurancePolicyDocumentResponse {
        document: Some(convert::file_ref(document)),
    })
}

/// ImportInsurancePolicies: an xlsx of policies, all rows or none (`super::import`).
pub async fn import(
    ctx: &Context,
    req: Request<pb::ImportInsurancePoliciesRequest>,
) -> Result<pb::ImportInsurancePoliciesResponse, ServiceError> {
    let (actor, tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    db::end_read(tx);
    let pb::ImportInsurancePoliciesRequest { file } = req.into_inner();
    let bytes = fleetdesk_assets::imports::file(&ctx.files, &actor, file).await?;
    let schema = PolicyImport { actor: &actor };
    let result =
        fleetdesk_kit::import::run(&ctx.pool, actor.enterprise_id, &schema, &bytes).await?;
    tracing::info!(
        imported = result.imported,
        refused = result.error_list.len(),
        "Insurance policy import done."
    );
    Ok(pb::ImportInsurancePoliciesResponse {
        result: Some(result),
    })
}

pub async fn export(
    ctx: &Context,
    req: Request<pb::ExportInsurancePoliciesRequest>,
) -> Result<pb::ExportInsurancePoliciesResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::ExportInsurancePoliciesRequest { filter } = req.into_inner();
    let job = exports::start(&mut tx, &actor, export::job(&filter.unwrap_or_default())?).await?;
    tx.commit().await?;
    Ok(pb::ExportInsurancePoliciesResponse { job: Some(job) })
}

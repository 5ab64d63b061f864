//! Approvals: count, list, detail, approve/reject with a comment, and the
//! vehicle allotment list. Each approval is a small state machine whose every
//! move is kept with who and when. Every read and decision is bounded by the
//! caller's data scope over the applicant's organisation (and their own
//! applications); an approval outside it answers 4004 and is never counted.

use chrono::{DateTime, Utc};
use fleetdesk_kit::convert::{self, timestamp};
use fleetdesk_kit::{ErrorCode, ServiceError, db, events, grpc, mask, subjects};
use fleetdesk_proto::org::v1 as pb;
use sqlx::{FromRow, PgConnection, PgPool};
use tonic::{Request, Response};
use uuid::Uuid;

use crate::actor::{self, Actor};
use crate::scope::{self, Reach};

/// Permission of the approval pages (list, detail, count).
pub const PERM_APPROVALS: &str = "as:approval:pageInfo";
/// Permission to approve or reject.
pub const PERM_DECIDE: &str = "oss:as:approval";
/// Longest decision comment.
pub const MAX_COMMENT: usize = 200;
/// Most plates one vehicle allotment filter takes (ARCHITECTURE §3).
pub const MAX_PLATES: usize = 250;

/// Where an approval stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    Pending,
    Approved,
    Rejected,
    Withdrawn,
}

/// What someone does to an approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Approve,
    Reject,
    Withdraw,
}

/// A move the state machine refuses: the approval is no longer pending.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotPending(pub State);

impl State {
    pub fn from_code(code: i16) -> Option<State> {
        match code {
            1 => Some(State::Pending),
            2 => Some(State::Approved),
            3 => Some(State::Rejected),
            4 => Some(State::Withdrawn),
            _ => None,
        }
    }

    /// The stored code, the same as the contract's `ApprovalStatus`.
    pub fn code(self) -> i16 {
        match self {
            State::Pending => 1,
            State::Approved => 2,
            State::Rejected => 3,
            State::Withdrawn => 4,
        }
    }

    /// The state after `action`: only a pending approval moves; every
    /// other state is final.
    pub fn apply(self, action: Action) -> Result<State, NotPending> {
        match (self, action) {
            (State::Pending, Action::Approve) => Ok(State::Approved),
            (State::Pending, Action::Reject) => Ok(State::Rejected),
            (State::Pending, Action::Withdraw) => Ok(State::Withdrawn),
            (State::Approved | State::Rejected | State::Withdrawn, _) => Err(NotPending(self)),
        }
    }
}

impl From<NotPending> for ServiceError {
    fn from(err: NotPending) -> Self {
        let what = match err.0 {
            State::Approved => "已通过",
            State::Rejected => "已驳回",
            State::Withdrawn => "已撤回",
            State::Pending => "待审批",
        };
        ServiceError::new(ErrorCode::Conflict, format!("该审批{what}，不能重复处理"))
    }
}

#[derive(Debug, FromRow)]
struct ApprovalRow {
    id: Uuid,
    enterprise_id: Uuid,
    kind: i16,
    title: String,
    business_id: String,
    applicant_name: String,
    applicant_phone: String,
    plate_number: String,
    status: i16,
    detail: serde_json::Value,
    applied_at: DateTime<Utc>,
    decided_at: Option<DateTime<Utc>>,
}

#[derive(Debug, FromRow)]
struct StepRow {
    status: i16,
    operator_id: Option<Uuid>,
    operator_name: String,
    comment: String,
    created_at: DateTime<Utc>,
}

const SELECT: &str = "select id, enterprise_id, kind, title, business_id, applicant_name, \
     applicant_phone, plate_number, status, detail, applied_at, decided_at from approval";

fn approval_pb(row: ApprovalRow, history: Vec<StepRow>) -> pb::Approval {
    pb::Approval {
        id: row.id.to_string(),
        enterprise_id: row.enterprise_id.to_string(),
        kind: i32::from(row.kind),
        title: row.title,
        business_id: row.business_id,
        applicant_name: row.applicant_name,
        status: i32::from(row.status),
        detail_json: row.detail.to_string(),
        history: history
            .into_iter()
            .map(|s| pb::ApprovalStep {
                status: i32::from(s.status),
                operator_name: s.operator_name,
                comment: s.comment,
                operate_time: Some(timestamp(s.created_at)),
                operator_id: s.operator_id.map(|id| id.to_string()).unwrap_or_default(),
            })
            .collect(),
        apply_time: Some(timestamp(row.applied_at)),
        applicant_phone_masked: mask::centre(&row.applicant_phone),
        plate_number: row.plate_number,
        decide_time: row.decided_at.map(timestamp),
    }
}

/// The data-scope condition over approvals, binding the reach from `$first`
/// (see [`Reach::condition`]): the applicant's organisation, or the caller's own.
fn in_reach(first: usize) -> String {
    Reach::condition("org_id", "applicant_id", first)
}

/// Optional enum filter: 0 means any; otherwise the code must be known.
fn filter_code(field: &str, value: i32, max: i32) -> Result<Option<i16>, ServiceError> {
    match value {
        0 => Ok(None),
        v if (1..=max).contains(&v) => Ok(i16::try_from(v).ok()),
        _ => Err(ServiceError::invalid(field, "取值无效")),
    }
}

pub async fn count_pending(
    pool: &PgPool,
    request: Request<pb::CountPendingApprovalsRequest>,
) -> Result<Response<pb::CountPendingApprovalsResponse>, ServiceError> {
    grpc::require_permission(&request, PERM_APPROVALS)?;
    let actor = actor::of(&request)?;
    let mut tx = db::begin_tenant(pool, actor.enterprise_id).await?;
    let reach = scope::of_caller(&mut tx, actor.member_id).await?;
    let count: i64 = sqlx::query_scalar(&format!(
        "select count(*) from approval where enterprise_id = $1 and status = 1 and {}",
        in_reach(2)
    ))
    .bind(actor.enterprise_id)
    .bind(reach.all)
    .bind(reach.org_list())
    .bind(reach.own)
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Response::new(pb::CountPendingApprovalsResponse { count }))
}

/// One page of approvals matching the filters, newest first.
async fn page_of(
    pool: &PgPool,
    actor: Actor,
    page: Option<&fleetdesk_proto::common::v1::PageRequest>,
    status: Option<i16>,
    kind: Option<i16>,
    plates: &[String],
) -> Result<(Vec<pb::Approval>, fleetdesk_proto::common::v1::PageInfo), ServiceError> {
    let (page, size) = convert::page(page);
    let filter = format!(
        "enterprise_id = $1 and ($2::smallint is null or status = $2) \
         and ($3::smallint is null or kind = $3) \
         and (cardinality($4::text[]) = 0 or plate_number = any($4)) and {}",
        in_reach(5)
    );
    let mut tx = db::begin_tenant(pool, actor.enterprise_id).await?;
    let reach = scope::of_caller(&mut tx, actor.member_id).await?;
    let rows: Vec<ApprovalRow> = sqlx::query_as(&format!(
        "{SELECT} where {filter} order by applied_at desc, id limit $8 offset $9"
    ))
    .bind(actor.enterprise_id)
    .bind(status)
    .bind(kind)
    .bind(plates)
    .bind(reach.all)
    .bind(reach.org_list())
    .bind(reach.own)
    .bind(size)
    .bind((page - 1) * size)
    .fetch_all(&mut *tx)
    .await?;
    let total: i64 = sqlx::query_scalar(&format!("select count(*) from approval where {filter}"))
        .bind(actor.enterprise_id)
        .bind(status)
        .bind(kind)
        .bind(plates)
        .bind(reach.all)
        .bind(reach.org_list())
        .bind(reach.own)
        .fetch_one(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok((
        rows.into_iter()
            .map(|r| approval_pb(r, Vec::new()))
            .collect(),
        convert::page_info(page, size, total),
    ))
}

pub async fn list(
    pool: &PgPool,
    request: Request<pb::ListApprovalsRequest>,
) -> Result<Response<pb::ListApprovalsResponse>, ServiceError> {
    grpc::require_permission(&request, PERM_APPROVALS)?;
    let actor = actor::of(&request)?;
    let req = request.into_inner();
    let status = filter_code("status", req.status, 4)?;
    let kind = filter_code("kind", req.kind, 4)?;
    let (approvals, page) = page_of(pool, actor, req.page.as_ref(), status, kind, &[]).await?;
    Ok(Response::new(pb::ListApprovalsResponse {
        approvals,
        page: Some(page),
    }))
}

pub async fn list_vehicle_allotments(
    pool: &PgPool,
    request: Request<pb::ListVehicleAllotmentApprovalsRequest>,
) -> Result<Response<pb::ListVehicleAllotmentApprovalsResponse>, ServiceError> {
    grpc::require_permission(&request, PERM_APPROVALS)?;
    let actor = actor::of(&request)?;
    let req = request.into_inner();
    let status = filter_code("status", req.status, 4)?;
    let plates: Vec<String> = req
        .plate_numbers
        .iter()
        .map(|p| p.trim().to_uppercase())
        .filter(|p| !p.is_empty())
        .collect();
    if plates.len() > MAX_PLATES {
        return Err(ServiceError::invalid(
            "plateNumbers",
            format!("每次批量查询，最大不超过{MAX_PLATES}台"),
        ));
    }
    let kind = Some(pb::ApprovalKind::VehicleAllotment as i16);
    let (approvals, page) = page_of(pool, actor, req.page.as_ref(), status, kind, &plates).await?;
    Ok(Response::new(pb::ListVehicleAllotmentApprovalsResponse {
        approvals,
        page: Some(page),
    }))
}

/// The approval with its history, within the transaction's tenant and the
/// caller's reach.
async fn load(
    tx: &mut PgConnection,
    enterprise_id: Uuid,
    reach: &Reach,
    id: Uuid,
) -> sqlx::Result<Option<pb::Approval>> {
    let Some(row) = sqlx::query_as::<_, ApprovalRow>(&format!(
        "{SELECT} where enterprise_id = $1 and id = $2 and {}",
        in_reach(3)
    ))
    .bind(enterprise_id)
    .bind(id)
    .bind(reach.all)
    .bind(reach.org_list())
    .bind(reach.own)
    .fetch_optional(&mut *tx)
    .await?
    else {
        return Ok(None);
    };
    let steps: Vec<StepRow> = sqlx::query_as(
        "select status, operator_id, operator_name, comment, created_at from approval_step \
         where enterprise_id = $1 and approval_id = $2 order by created_at, id",
    )
    .bind(enterprise_id)
    .bind(id)
    .fetch_all(&mut *tx)
    .await?;
    Ok(Some(approval_pb(row, steps)))
}

pub async fn get(
    pool: &PgPool,
    request: Request<pb::GetApprovalRequest>,
) -> Result<Response<pb::GetApprovalResponse>, ServiceError> {
    grpc::require_permission(&request, PERM_APPROVALS)?;
    let actor = actor::of(&request)?;
    let id = convert::id(&request.get_ref().id)?;
    let mut tx = db::begin_tenant(pool, actor.enterprise_id).await?;
    let reach = scope::of_caller(&mut tx, actor.member_id).await?;
    let approval = load(&mut tx, actor.enterprise_id, &reach, id)
        .await?
        .ok_or_else(ServiceError::not_found)?;
    tx.commit().await?;
    Ok(Response::new(pb::GetApprovalResponse {
        approval: Some(approval),
    }))
}

/// Approves or rejects a pending approval. The row is locked while the state
/// machine decides, so of two racing decisions one wins and the other gets
/// CONFLICT; the history step and the event commit with the change.
pub async fn decide(
    pool: &PgPool,
    request: Request<pb::DecideApprovalRequest>,
) -> Result<Response<pb::DecideApprovalResponse>, ServiceError> {
    grpc::require_permission(&request, PERM_DECIDE)?;
    let actor = actor::of(&request)?;
    let req = request.into_inner();
    let id = convert::id(&req.id)?;
    let comment = req.comment.trim();
    actor::limit("comment", comment, MAX_COMMENT)?;
    let action = if req.approve {
        Action::Approve
    } else {
        if comment.is_empty() {
            return Err(ServiceError::invalid("comment", "请填写驳回原因"));
        }
        Action::Reject
    };
    let mut tx = db::begin_tenant(pool, actor.enterprise_id).await?;
    let reach = scope::of_caller(&mut tx, actor.member_id).await?;
    let current: (i16, i16, String) = sqlx::query_as(&format!(
        "select status, kind, business_id from approval where enterprise_id = $1 and id = $2 \
         and {} for update",
        in_reach(3)
    ))
    .bind(actor.enterprise_id)
    .bind(id)
    .bind(reach.all)
    .bind(reach.org_list())
    .bind(reach.own)
    .fetch_optional(&mut *tx)
    .await?
    .ok_or_else(ServiceError::not_found)?;
    let state = State::from_code(current.0).ok_or_else(|| ServiceError::of(ErrorCode::Internal))?;
    let next = state.apply(action)?;
    let operator_name = actor::name(&mut tx, &actor).await?;
    sqlx::query(
        "update approval set status = $3, decided_at = now(), updated_at = now() \
         where enterprise_id = $1 and id = $2",
    )
    .bind(actor.enterprise_id)
    .bind(id)
    .bind(next.code())
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "insert into approval_step (id, enterprise_id, approval_id, status, operator_id, operator_name, comment) \
         values ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(Uuid::new_v4())
    .bind(actor.enterprise_id)
    .bind(id)
    .bind(next.code())
    .bind(actor.member_id)
    .bind(&operator_name)
    .bind(comment)
    .execute(&mut *tx)
    .await?;
    events::enqueue(
        &mut tx,
        subjects::ORG_APPROVAL_DECIDED,
        &pb::ApprovalDecided {
            approval_id: id.to_string(),
            enterprise_id: actor.enterprise_id.to_string(),
            kind: i32::from(current.1),
            business_id: current.2.clone(),
            status: i32::from(next.code()),
            operator_id: actor.member_id.map(|m| m.to_string()).unwrap_or_default(),
        },
    )
    .await?;
    let approval = load(&mut tx, actor.enterprise_id, &reach, id)
        .await?
        .ok_or_else(ServiceError::not_found)?;
    tx.commit().await?;
    tracing::info!(approval_id = %id, status = next.code(), "Approval decided.");
    Ok(Response::new(pb::DecideApprovalResponse {
        approval: Some(approval),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [State; 4] = [
        State::Pending,
        State::Approved,
        State::Rejected,
        State::Withdrawn,
    ];
    const ACTIONS: [Action; 3] = [Action::Approve, Action::Reject, Action::Withdraw];

    #[test]
    fn a_pending_approval_moves_to_the_state_the_action_names() {
        assert_eq!(State::Pending.apply(Action::Approve), Ok(State::Approved));
        assert_eq!(State::Pending.apply(Action::Reject), Ok(State::Rejected));
        assert_eq!(State::Pending.apply(Action::Withdraw), Ok(State::Withdrawn));
    }

    #[test]
    fn every_decided_state_is_final() {
        for state in ALL.into_iter().filter(|s| *s != State::Pending) {
            for action in ACTIONS {
                assert_eq!(
                    state.apply(action),
                    Err(NotPending(state)),
                    "{state:?} {action:?}"
                );
            }
        }
    }

    #[test]
    fn a_second_decision_is_a_conflict() {
        let err = ServiceError::from(State::Approved.apply(Action::Reject).unwrap_err());
        assert_eq!(err.code, ErrorCode::Conflict);
        assert!(err.message.contains("已通过"), "{}", err.message);
    }

    #[test]
    fn codes_round_trip_and_match_the_contract() {
        for state in ALL {
            assert_eq!(State::from_code(state.code()), Some(state));
        }
        assert_eq!(State::Pending.code(), pb::ApprovalStatus::Pending as i16);
        assert_eq!(State::Approved.code(), pb::ApprovalStatus::Approved as i16);
        assert_eq!(State::Rejected.code(), pb::ApprovalStatus::Rejected as i16);
        assert_eq!(
            State::Withdrawn.code(),
            pb::ApprovalStatus::Withdrawn as i16
        );
        assert_eq!(State::from_code(0), None);
        assert_eq!(State::from_code(5), None);
    }
}

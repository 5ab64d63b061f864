//! Org's consumer of `ApprovalRequested`: a pending approval in the
//! approval centre, once per request key (see the module doc of [`super`]).
//! Deciding it is the approval centre's (`approvals::handlers::decide`),
//! which publishes `ApprovalDecided` with the kind and business id.

use fleetdesk_kit::{events, subjects};
use fleetdesk_proto::org::v1::ApprovalRequested;
use sqlx_postgres::{PgConnection, PgPool};
use uuid::Uuid;

use super::store::{self, Applicant, NewApproval};
use super::{MAX_CONTENT, MAX_TITLE, clip, optional_id};
use crate::approvals::domain::Kind;

/// Longest request key, business id, name and plate org keeps.
const MAX_KEY: usize = 200;

/// Applies one request in `tx` (the caller records its event id); the
/// approval's id when it raised one.
pub async fn apply(
    tx: &mut PgConnection,
    request: ApprovalRequested,
) -> anyhow::Result<Option<Uuid>> {
    let ApprovalRequested {
        enterprise_id,
        request_key,
        kind,
        business_id,
        applicant_id,
        applicant_name,
        title,
        content,
        organisation_id,
        plate_number,
    } = request;
    let Ok(enterprise) = Uuid::parse_str(enterprise_id.trim()) else {
        tracing::warn!(enterprise = %enterprise_id, "Approval request of a bad enterprise id ignored.");
        return Ok(None);
    };
    let Some(kind) = Kind::from_pb(kind) else {
        tracing::warn!(enterprise_id = %enterprise, kind, "Approval request of an unknown kind ignored.");
        return Ok(None);
    };
    let title = clip(&title, MAX_TITLE);
    let business_id = clip(&business_id, MAX_KEY);
    if title.is_empty() || business_id.is_empty() {
        tracing::warn!(enterprise_id = %enterprise, "Approval request without a title or business id ignored.");
        return Ok(None);
    }
    if !store::enterprise_exists(&mut *tx, enterprise).await? {
        tracing::warn!(enterprise_id = %enterprise, "Approval request of an unknown enterprise ignored.");
        return Ok(None);
    }
    fleetdesk_kit::db::enter_tenant(&mut *tx, enterprise).await?;
    // A member org knows applies as themselves; anyone else by the name sent.
    let known = match optional_id("applicant_id", &applicant_id).unwrap_or_default() {
        Some(member) => store::applicant(&mut *tx, member)
            .await?
            .map(|a| (member, a)),
        None => None,
    };
    let (applicant_id, mut applicant) = match known {
        Some((member, applicant)) => (Some(member), applicant),
        None => (
            None,
            Applicant {
                name: clip(&applicant_name, MAX_KEY),
                phone: String::new(),
                org_id: None,
            },
        ),
    };
    if let Some(org) = optional_id("organisation_id", &organisation_id).unwrap_or_default() {
        if store::org_exists(&mut *tx, org).await? {
            applicant.org_id = Some(org);
        } else {
            tracing::warn!(enterprise_id = %enterprise, org_id = %org, "Approval request of an unknown organisation: the applicant's is kept.");
        }
    }
    let request_key = clip(&request_key, MAX_KEY);
    let raised = store::raise_approval(
        &mut *tx,
        enterprise,
        &NewApproval {
            request_key: Some(request_key.as_str()).filter(|k| !k.is_empty()),
            kind: i16::from(kind),
            title: &title,
            business_id: &business_id,
            applicant_id,
            applicant: &applicant,
            plate_number: &clip(&plate_number, MAX_KEY).to_uppercase(),
            detail: serde_json::json!({ "content": clip(&content, MAX_CONTENT) }),
        },
    )
    .await?;
    match raised {
        Some(id) => {
            tracing::info!(approval_id = %id, enterprise_id = %enterprise, "Requested approval raised.")
        }
        None => {
            tracing::debug!(enterprise_id = %enterprise, request_key, "Approval already requested.")
        }
    }
    Ok(raised)
}

/// Org's handler of approval requests (see [`consumer`]).
#[derive(Debug, Clone, Copy)]
pub struct ApprovalRequests;

impl events::Handler for ApprovalRequests {
    type Event = ApprovalRequested;

    async fn handle(&self, tx: &mut PgConnection, event: ApprovalRequested) -> anyhow::Result<()> {
        apply(tx, event).await.map(|_| ())
    }
}

/// Org's durable consumer of every domain's approval requests, created
/// before org serves.
pub async fn consumer(
    pool: PgPool,
    nats: async_nats::Client,
) -> anyhow::Result<events::Consumer<ApprovalRequests>> {
    events::Consumer::new(
        pool,
        nats,
        "approval-requests",
        subjects::APPROVAL_REQUESTED_ALL,
        ApprovalRequests,
    )
    .await
}

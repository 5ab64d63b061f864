//! Sensitive data: reveal one masked value (audited in the same transaction
//! as the read) and the sensitive-view audit.

use axum::extract::State;
use fleetdesk_proto::org::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::paging::paging;
use crate::edge::time::rfc3339;
use crate::envelope::{ApiResult, Envelope, Ok, Page};
use crate::extract::{ClientMeta, TrimmedJson, TrimmedQuery};
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(reveal))
        .routes(routes!(list_view_logs))
}

/// The spec's sensitive-view log payload, naming the value to reveal.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RevealRequest {
    /// 1 phone, 2 ID number, 3 bank card, 4 ID front, 5 ID back, 6 licence
    /// front, 7 licence back, 8 address, 9 ID photo, 10 licence photo.
    pub sensitive_type: i32,
    /// 1 member (default), 2 approval applicant, 3 feedback contact.
    #[serde(default)]
    pub subject_kind: i32,
    /// Id of the member, approval or feedback.
    #[serde(default)]
    pub subject_id: String,
    /// The console page the value is shown on.
    #[serde(default)]
    pub page_url: String,
    #[serde(default)]
    pub source_module: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RevealBody {
    /// The unmasked value; for images the file key.
    pub value: String,
    /// ID and licence images (types 4, 5, 6, 7, 9, 10): confirm before showing.
    pub needs_confirmation: bool,
    /// The audit row written with this answer.
    pub log_id: String,
}

#[utoipa::path(
    post, path = "/sensitive/reveal", tag = "sensitive",
    request_body = RevealRequest,
    responses((status = 200, description = "The unmasked value; the view is in the audit", body = Envelope<RevealBody>)),
    security(("token" = ["as:sensitive:view"]))
)]
async fn reveal(
    State(state): State<AppState>,
    principal: Principal,
    client: ClientMeta,
    TrimmedJson(body): TrimmedJson<RevealRequest>,
) -> ApiResult<RevealBody> {
    let request = pb::RevealSensitiveRequest {
        sensitive_type: body.sensitive_type,
        subject_id: body.subject_id,
        page_url: body.page_url,
        source_module: body.source_module,
        ip: client.ip,
        subject_kind: body.subject_kind,
    };
    let answer = state
        .org()
        .reveal_sensitive(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(RevealBody {
        value: answer.value,
        needs_confirmation: answer.needs_confirmation,
        log_id: answer.log_id,
    }))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ViewLogQuery {
    /// Page from 1.
    pub page: Option<i32>,
    /// 5, 10, 20, 50 or 100 (default 20).
    pub size: Option<i32>,
    /// One type only (1-10).
    pub sensitive_type: Option<i32>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ViewLogBody {
    pub id: String,
    pub sensitive_type: i32,
    /// What was viewed, with the value masked.
    pub log_content: String,
    pub page_url: String,
    pub source_module: String,
    pub subject_kind: i32,
    pub subject_id: String,
    pub viewer_id: String,
    pub viewer_name: String,
    pub ip: String,
    pub view_time: String,
}

#[utoipa::path(
    get, path = "/sensitive/view-logs", tag = "sensitive",
    params(ViewLogQuery),
    responses((status = 200, description = "The enterprise's sensitive-view audit, newest first", body = Envelope<Page<ViewLogBody>>)),
    security(("token" = ["as:sensitive:view"]))
)]
async fn list_view_logs(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedQuery(query): TrimmedQuery<ViewLogQuery>,
) -> ApiResult<Page<ViewLogBody>> {
    let request = pb::ListSensitiveViewLogsRequest {
        page: Some(paging(query.page, query.size)?),
        sensitive_type: query.sensitive_type.unwrap_or(0),
    };
    let answer = state
        .org()
        .list_sensitive_view_logs(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer
            .logs
            .into_iter()
            .map(|l| ViewLogBody {
                id: l.id,
                sensitive_type: l.sensitive_type,
                log_content: l.log_content,
                page_url: l.page_url,
                source_module: l.source_module,
                subject_kind: l.subject_kind,
                subject_id: l.subject_id,
                viewer_id: l.viewer_id,
                viewer_name: l.viewer_name,
                ip: l.ip,
                view_time: rfc3339(l.view_time.as_ref()),
            })
            .collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

//! Notices (messages): the unread badge, the list, a detail, read marks.

use axum::extract::{Path, State};
use fleetdesk_proto::org::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::paging::paging;
use crate::edge::time::rfc3339;
use crate::envelope::{ApiResult, Envelope, Ok, Page};
use crate::extract::{TrimmedJson, TrimmedQuery};
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(unread_count))
        .routes(routes!(list_notices))
        .routes(routes!(get_notice))
        .routes(routes!(mark_read))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NoticeBody {
    pub id: String,
    pub title: String,
    pub content: String,
    /// system, approval, export, alarm (dictionary NOTICE_CATEGORY).
    pub category: String,
    pub read: bool,
    pub publish_time: String,
    /// Empty while unread.
    pub read_time: String,
    /// The console path the notice points at (e.g. the alarm of an alarm
    /// notice); empty: none.
    pub link: String,
}

impl From<pb::Notice> for NoticeBody {
    fn from(n: pb::Notice) -> Self {
        NoticeBody {
            id: n.id,
            title: n.title,
            content: n.content,
            category: n.category,
            read: n.read,
            publish_time: rfc3339(n.publish_time.as_ref()),
            read_time: rfc3339(n.read_time.as_ref()),
            link: n.link,
        }
    }
}

#[utoipa::path(
    get, path = "/notices/unread-count", tag = "notices",
    responses((status = 200, description = "Number of unread notices of the user (the shell's badge)", body = Envelope<i64>)),
    security(("token" = []))
)]
async fn unread_count(State(state): State<AppState>, principal: Principal) -> ApiResult<i64> {
    let answer = state
        .org()
        .count_unread_notices(state.as_user(&principal, pb::CountUnreadNoticesRequest {}))
        .await?
        .into_inner();
    Result::Ok(Ok(answer.count))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct NoticeQuery {
    /// Page from 1.
    pub page: Option<i32>,
    /// 5, 10, 20, 50 or 100 (default 20).
    pub size: Option<i32>,
    /// true: read only; false: unread only.
    pub read: Option<bool>,
    /// One category only.
    pub category: Option<String>,
}

#[utoipa::path(
    get, path = "/notices", tag = "notices",
    params(NoticeQuery),
    responses((status = 200, description = "Notices of the user, newest first", body = Envelope<Page<NoticeBody>>)),
    security(("token" = ["as:message:pageInfo"]))
)]
async fn list_notices(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedQuery(query): TrimmedQuery<NoticeQuery>,
) -> ApiResult<Page<NoticeBody>> {
    let request = pb::ListNoticesRequest {
        page: Some(paging(query.page, query.size)?),
        read: query.read,
        category: query.category.unwrap_or_default(),
    };
    let answer = state
        .org()
        .list_notices(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer.notices.into_iter().map(NoticeBody::from).collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

#[utoipa::path(
    get, path = "/notices/{id}", tag = "notices",
    params(("id" = String, Path, description = "Notice id")),
    responses((status = 200, description = "One notice", body = Envelope<NoticeBody>)),
    security(("token" = ["as:message:pageInfo"]))
)]
async fn get_notice(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
) -> ApiResult<NoticeBody> {
    let answer = state
        .org()
        .get_notice(state.as_user(&principal, pb::GetNoticeRequest { id }))
        .await?
        .into_inner();
    Result::Ok(Ok(NoticeBody::from(answer.notice.unwrap_or_default())))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MarkReadRequest {
    /// Notices to mark read.
    #[serde(default)]
    pub ids: Vec<String>,
    /// Mark every notice of the user read.
    #[serde(default)]
    pub all: bool,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct UpdatedBody {
    /// Notices that were unread before.
    pub updated: i64,
}

#[utoipa::path(
    post, path = "/notices/read", tag = "notices",
    request_body = MarkReadRequest,
    responses((status = 200, description = "Marked read (updateReadStatus); an unknown id changes nothing and answers 4004", body = Envelope<UpdatedBody>)),
    security(("token" = ["as:message:pageInfo"]))
)]
async fn mark_read(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedJson(body): TrimmedJson<MarkReadRequest>,
) -> ApiResult<UpdatedBody> {
    let answer = state
        .org()
        .mark_notices_read(state.as_user(
            &principal,
            pb::MarkNoticesReadRequest {
                ids: body.ids,
                all: body.all,
            },
        ))
        .await?
        .into_inner();
    Result::Ok(Ok(UpdatedBody {
        updated: answer.updated,
    }))
}

//! Help centre: the operation manual, feedback with attachments, and the
//! online customer-service page. Open to every signed-in user.

use axum::extract::{Path, State};
use chrono::{DateTime, FixedOffset, NaiveTime, Utc};
use fleetdesk_proto::org::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::paging::paging;
use crate::edge::time::rfc3339;
use crate::envelope::{ApiError, ApiResult, Envelope, Ok, OkWith, Page};
use crate::extract::{TrimmedJson, TrimmedQuery};
use crate::files::{self, LinkSigner};
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_articles))
        .routes(routes!(get_article))
        .routes(routes!(submit_feedback, list_feedback))
        .routes(routes!(customer_service))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ArticleBody {
    pub id: String,
    pub title: String,
    pub category: String,
    /// Markdown; only in the detail.
    #[serde(rename = "content")]
    pub content_markdown: String,
    pub sort: i32,
    pub update_time: String,
}

impl From<pb::HelpArticle> for ArticleBody {
    fn from(a: pb::HelpArticle) -> Self {
        ArticleBody {
            id: a.id,
            title: a.title,
            category: a.category,
            content_markdown: a.content_markdown,
            sort: a.sort,
            update_time: rfc3339(a.update_time.as_ref()),
        }
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ArticleQuery {
    /// One category only.
    pub category: Option<String>,
}

#[utoipa::path(
    get, path = "/help/articles", tag = "help",
    params(ArticleQuery),
    responses((status = 200, description = "Operation manual pages, without bodies", body = Envelope<Vec<ArticleBody>>)),
    security(("token" = []))
)]
async fn list_articles(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedQuery(query): TrimmedQuery<ArticleQuery>,
) -> ApiResult<Vec<ArticleBody>> {
    let request = pb::ListHelpArticlesRequest {
        category: query.category.unwrap_or_default(),
    };
    let answer = state
        .org()
        .list_help_articles(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(answer
        .articles
        .into_iter()
        .map(ArticleBody::from)
        .collect()))
}

#[utoipa::path(
    get, path = "/help/articles/{id}", tag = "help",
    params(("id" = String, Path, description = "Manual page id")),
    responses((status = 200, description = "One manual page", body = Envelope<ArticleBody>)),
    security(("token" = []))
)]
async fn get_article(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
) -> ApiResult<ArticleBody> {
    let answer = state
        .org()
        .get_help_article(state.as_user(&principal, pb::GetHelpArticleRequest { id }))
        .await?
        .into_inner();
    Result::Ok(Ok(ArticleBody::from(answer.article.unwrap_or_default())))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FeedbackBody {
    pub id: String,
    pub user_name: String,
    pub content: String,
    /// Masked by the server.
    pub contact: String,
    pub attachment_keys: Vec<String>,
    /// The attachments with signed download links (valid for 10 minutes).
    pub attachments: Vec<AttachmentBody>,
    pub create_time: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AttachmentBody {
    pub key: String,
    pub name: String,
    pub url: String,
}

fn feedback_body(f: pb::Feedback, links: &LinkSigner) -> FeedbackBody {
    let now = Utc::now().timestamp();
    FeedbackBody {
        attachments: f
            .attachment_keys
            .iter()
            .map(|key| AttachmentBody {
                key: key.clone(),
                name: files::key_name(key).to_owned(),
                url: links.link(key, now),
            })
            .collect(),
        id: f.id,
        user_name: f.user_name,
        content: f.content,
        contact: f.contact,
        attachment_keys: f.attachment_keys,
        create_time: rfc3339(f.create_time.as_ref()),
    }
}

/// Attachments must be files the caller's enterprise uploaded for feedback.
async fn check_attachments(
    state: &AppState,
    principal: &Principal,
    keys: &[String],
) -> Result<(), ApiError> {
    let prefix = format!("{}/feedback/", principal.enterprise_id);
    for key in keys {
        if !key.starts_with(&prefix) || !state.files.exists(key).await? {
            return Err(ApiError::invalid(
                "attachmentKeys",
                "附件不存在或已过期，请重新上传",
            ));
        }
    }
    Result::Ok(())
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FeedbackRequest {
    /// At most 500 characters.
    #[serde(default)]
    pub content: String,
    /// Phone or other contact, optional.
    #[serde(default)]
    pub contact: String,
    /// Keys of files uploaded with purpose feedback (POST /files), at most 10.
    #[serde(default)]
    pub attachment_keys: Vec<String>,
}

#[utoipa::path(
    post, path = "/help/feedback", tag = "help",
    request_body = FeedbackRequest,
    responses((status = 200, description = "Feedback received", body = Envelope<FeedbackBody>)),
    security(("token" = []))
)]
async fn submit_feedback(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedJson(body): TrimmedJson<FeedbackRequest>,
) -> Result<OkWith<FeedbackBody>, ApiError> {
    check_attachments(&state, &principal, &body.attachment_keys).await?;
    let request = pb::SubmitFeedbackRequest {
        content: body.content,
        attachment_keys: body.attachment_keys,
        contact: body.contact,
    };
    let answer = state
        .org()
        .submit_feedback(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(OkWith {
        msg: "提交成功，感谢您的反馈",
        data: feedback_body(answer.feedback.unwrap_or_default(), &state.links),
    })
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FeedbackQuery {
    /// Page from 1.
    pub page: Option<i32>,
    /// 5, 10, 20, 50 or 100 (default 20).
    pub size: Option<i32>,
}

#[utoipa::path(
    get, path = "/help/feedback", tag = "help",
    params(FeedbackQuery),
    responses((status = 200, description = "The user's own feedback, newest first", body = Envelope<Page<FeedbackBody>>)),
    security(("token" = []))
)]
async fn list_feedback(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedQuery(query): TrimmedQuery<FeedbackQuery>,
) -> ApiResult<Page<FeedbackBody>> {
    let request = pb::ListFeedbackRequest {
        page: Some(paging(query.page, query.size)?),
    };
    let answer = state
        .org()
        .list_feedback(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer
            .feedbacks
            .into_iter()
            .map(|f| feedback_body(f, &state.links))
            .collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

/// The online customer page and the shell's float: one source, the org
/// service's customer-service settings.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CustomerServiceBody {
    /// The hotline.
    pub phone: String,
    /// Chat hours in China time, e.g. 08:00-22:00.
    pub hours: String,
    pub email: String,
    /// Where the chat channel lives (e.g. WeCom customer service); empty when none.
    pub chat_url: String,
    /// Chat is staffed right now.
    pub chat_available: bool,
    /// While closed: when chat opens next (RFC 3339, China time); empty while open.
    pub next_open_time: String,
}

fn parse_time(value: &str) -> Option<NaiveTime> {
    NaiveTime::parse_from_str(value.trim(), "%H:%M").ok()
}

/// Whether `now` (China time) lies within [open, close).
pub fn within_hours(open: &str, close: &str, now: NaiveTime) -> bool {
    match (parse_time(open), parse_time(close)) {
        (Some(start), Some(end)) => start <= now && now < end,
        _ => false,
    }
}

/// When chat opens next after `now` (China time), if it is closed now.
pub fn next_opening(
    open: &str,
    close: &str,
    now: DateTime<FixedOffset>,
) -> Option<DateTime<FixedOffset>> {
    let start = parse_time(open)?;
    if within_hours(open, close, now.time()) {
        return None;
    }
    let today = now.date_naive();
    let day = if now.time() < start {
        today
    } else {
        today.succ_opt()?
    };
    day.and_time(start)
        .and_local_timezone(*now.offset())
        .single()
}

#[utoipa::path(
    get, path = "/help/customer-service", tag = "help",
    responses((status = 200, description = "Hotline, e-mail, chat hours and channel, whether chat is open now and when it opens next", body = Envelope<CustomerServiceBody>)),
    security(("token" = []))
)]
async fn customer_service(
    State(state): State<AppState>,
    principal: Principal,
) -> ApiResult<CustomerServiceBody> {
    let settings = state
        .org()
        .get_customer_service(state.as_user(&principal, pb::GetCustomerServiceRequest {}))
        .await?
        .into_inner();
    // Asia/Shanghai has no daylight saving: always UTC+8.
    let china = FixedOffset::east_opt(8 * 3600).expect("UTC+8");
    let now = Utc::now().with_timezone(&china);
    let (open, close) = (&settings.open_time, &settings.close_time);
    Result::Ok(Ok(CustomerServiceBody {
        chat_available: within_hours(open, close, now.time()),
        next_open_time: next_opening(open, close, now)
            .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, false))
            .unwrap_or_default(),
        hours: format!("{open}-{close}"),
        phone: settings.phone,
        email: settings.email,
        chat_url: settings.chat_url,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chat_is_open_within_its_hours_only() {
        let at = |h, m| NaiveTime::from_hms_opt(h, m, 0).unwrap();
        assert!(within_hours("08:00", "22:00", at(8, 0)));
        assert!(within_hours("08:00", "22:00", at(21, 59)));
        assert!(!within_hours("08:00", "22:00", at(22, 0)));
        assert!(!within_hours("08:00", "22:00", at(7, 59)));
        assert!(!within_hours("", "", at(12, 0)));
    }

    #[test]
    fn outside_its_hours_chat_says_when_it_opens() {
        let china = FixedOffset::east_opt(8 * 3600).unwrap();
        let at = |d, h, m| {
            chrono::NaiveDate::from_ymd_opt(2026, 11, d)
                .unwrap()
                .and_hms_opt(h, m, 0)
                .unwrap()
                .and_local_timezone(china)
                .unwrap()
        };
        assert_eq!(next_opening("08:00", "22:00", at(23, 12, 0)), None);
        assert_eq!(
            next_opening("08:00", "22:00", at(23, 6, 30)),
            Some(at(23, 8, 0))
        );
        assert_eq!(
            next_opening("08:00", "22:00", at(23, 22, 0)),
            Some(at(24, 8, 0))
        );
    }
}

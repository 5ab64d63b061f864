//! Help centre: operation manual pages (operator data shared by every
//! enterprise), members' feedback with attachments, and the customer-service
//! settings (one source for the console's float and online customer page).

use chrono::{DateTime, Utc};
use fleetdesk_kit::convert::{self, timestamp};
use fleetdesk_kit::{ServiceError, db, grpc, mask};
use fleetdesk_proto::org::v1 as pb;
use sqlx::{FromRow, PgPool};
use tonic::{Request, Response};
use uuid::Uuid;

use crate::actor;
use crate::config::CustomerServiceConfig;

/// Longest feedback text.
pub const MAX_CONTENT: usize = 500;
/// Longest contact.
pub const MAX_CONTACT: usize = 50;
/// Most attachments of one feedback (the upload control's default limit).
pub const MAX_ATTACHMENTS: usize = 10;

#[derive(Debug, FromRow)]
struct ArticleRow {
    id: Uuid,
    title: String,
    category: String,
    content_markdown: String,
    sort: i32,
    updated_at: DateTime<Utc>,
}

fn article_pb(row: ArticleRow, with_content: bool) -> pb::HelpArticle {
    pb::HelpArticle {
        id: row.id.to_string(),
        title: row.title,
        category: row.category,
        content_markdown: if with_content {
            row.content_markdown
        } else {
            String::new()
        },
        sort: row.sort,
        update_time: Some(timestamp(row.updated_at)),
    }
}

/// A mainland mobile number (11 digits from 1) or an e-mail address
/// (something@domain.tld, no spaces): what the contact field asks for.
pub fn is_phone_or_email(value: &str) -> bool {
    let phone =
        value.len() == 11 && value.starts_with('1') && value.bytes().all(|b| b.is_ascii_digit());
    let email = match value.split_once('@') {
        Some((local, domain)) => {
            !local.is_empty()
                && !value.contains(char::is_whitespace)
                && !domain.contains('@')
                && domain
                    .rsplit_once('.')
                    .is_some_and(|(host, tld)| !host.is_empty() && tld.len() >= 2)
        }
        None => false,
    };
    phone || email
}

/// The service desk works China time (no daylight saving, always UTC+8).
pub const SERVICE_TIME_ZONE: &str = "Asia/Shanghai";

/// The customer-service settings; any signed-in caller may read them.
pub fn customer_service<T>(
    config: &CustomerServiceConfig,
    request: &Request<T>,
) -> Result<pb::GetCustomerServiceResponse, ServiceError> {
    grpc::caller(request)?;
    Ok(pb::GetCustomerServiceResponse {
        phone: config.service_phone.clone(),
        email: config.service_email.clone(),
        open_time: config.service_open_time.clone(),
        close_time: config.service_close_time.clone(),
        time_zone: SERVICE_TIME_ZONE.to_owned(),
        chat_url: config.service_chat_url.clone(),
    })
}

/// Manual pages in order, without their bodies.
pub async fn list_articles(
    pool: &PgPool,
    request: Request<pb::ListHelpArticlesRequest>,
) -> Result<Response<pb::ListHelpArticlesResponse>, ServiceError> {
    grpc::caller(&request)?;
    let rows: Vec<ArticleRow> = sqlx::query_as(
        "select id, title, category, content_markdown, sort, updated_at from help_article \
         where ($1 = '' or category = $1) order by category, sort, title",
    )
    .bind(request.get_ref().category.trim())
    .fetch_all(pool)
    .await?;
    Ok(Response::new(pb::ListHelpArticlesResponse {
        articles: rows.into_iter().map(|r| article_pb(r, false)).collect(),
    }))
}

pub async fn get_article(
    pool: &PgPool,
    request: Request<pb::GetHelpArticleRequest>,
) -> Result<Response<pb::GetHelpArticleResponse>, ServiceError> {
    grpc::caller(&request)?;
    let id = convert::id(&request.get_ref().id)?;
    let row: ArticleRow = sqlx::query_as(
        "select id, title, category, content_markdown, sort, updated_at from help_article where id = $1",
    )
    .bind(id)
    .fetch_optional(pool)
    .await?
    .ok_or_else(ServiceError::not_found)?;
    Ok(Response::new(pb::GetHelpArticleResponse {
        article: Some(article_pb(row, true)),
    }))
}

#[derive(Debug, FromRow)]
struct FeedbackRow {
    id: Uuid,
    enterprise_id: Uuid,
    user_name: String,
    content: String,
    contact: String,
    attachment_keys: Vec<String>,
    created_at: DateTime<Utc>,
}

fn feedback_pb(row: FeedbackRow) -> pb::Feedback {
    pb::Feedback {
        id: row.id.to_string(),
        enterprise_id: row.enterprise_id.to_string(),
        user_name: row.user_name,
        content: row.content,
        attachment_keys: row.attachment_keys,
        contact: mask::centre(&row.contact),
        create_time: Some(timestamp(row.created_at)),
    }
}

/// Checks an attachment key: present, short, and without the characters the
/// upload control refuses in file names.
fn check_key(key: &str) -> Result<(), ServiceError> {
    if key.is_empty() || key.chars().count() > 200 || key.contains([',', '+']) || key.contains("..")
    {
        return Err(ServiceError::invalid(
            "attachmentKeys",
            "附件无效，文件名不能包含以下特殊符号：[,+].",
        ));
    }
    Ok(())
}

pub async fn submit_feedback(
    pool: &PgPool,
    request: Request<pb::SubmitFeedbackRequest>,
) -> Result<Response<pb::SubmitFeedbackResponse>, ServiceError> {
    let actor = actor::of(&request)?;
    let member = actor.member()?;
    let req = request.into_inner();
    let content = req.content.trim();
    let contact = req.contact.trim();
    if content.is_empty() {
        return Err(ServiceError::invalid("content", "请输入反馈内容"));
    }
    actor::limit("content", content, MAX_CONTENT)?;
    actor::limit("contact", contact, MAX_CONTACT)?;
    if !contact.is_empty() && !is_phone_or_email(contact) {
        return Err(ServiceError::invalid("contact", "请输入正确的手机号或邮箱"));
    }
    let keys: Vec<String> = req
        .attachment_keys
        .iter()
        .map(|k| k.trim().to_owned())
        .collect();
    if keys.len() > MAX_ATTACHMENTS {
        return Err(ServiceError::invalid(
            "attachmentKeys",
            format!("附件最多 {MAX_ATTACHMENTS} 个"),
        ));
    }
    keys.iter().try_for_each(|k| check_key(k))?;
    let mut tx = db::begin_tenant(pool, actor.enterprise_id).await?;
    let user_name = actor::name(&mut tx, &actor).await?;
    let row: FeedbackRow = sqlx::query_as(
        "insert into feedback (id, enterprise_id, member_id, user_name, content, contact, attachment_keys) \
         values ($1, $2, $3, $4, $5, $6, $7) \
         returning id, enterprise_id, user_name, content, contact, attachment_keys, created_at",
    )
    .bind(Uuid::new_v4())
    .bind(actor.enterprise_id)
    .bind(member)
    .bind(&user_name)
    .bind(content)
    .bind(contact)
    .bind(&keys)
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Response::new(pb::SubmitFeedbackResponse {
        feedback: Some(feedback_pb(row)),
    }))
}

/// The caller's own feedback, newest first; contacts masked.
pub async fn list_feedback(
    pool: &PgPool,
    request: Request<pb::ListFeedbackRequest>,
) -> Result<Response<pb::ListFeedbackResponse>, ServiceError> {
    let actor = actor::of(&request)?;
    let member = actor.member()?;
    let (page, size) = convert::page(request.get_ref().page.as_ref());
    let mut tx = db::begin_tenant(pool, actor.enterprise_id).await?;
    let rows: Vec<FeedbackRow> = sqlx::query_as(
        "select id, enterprise_id, user_name, content, contact, attachment_keys, created_at from feedback \
         where enterprise_id = $1 and member_id = $2 order by created_at desc, id limit $3 offset $4",
    )
    .bind(actor.enterprise_id)
    .bind(member)
    .bind(size)
    .bind((page - 1) * size)
    .fetch_all(&mut *tx)
    .await?;
    let total: i64 = sqlx::query_scalar(
        "select count(*) from feedback where enterprise_id = $1 and member_id = $2",
    )
    .bind(actor.enterprise_id)
    .bind(member)
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Response::new(pb::ListFeedbackResponse {
        feedbacks: rows.into_iter().map(feedback_pb).collect(),
        page: Some(convert::page_info(page, size, total)),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attachment_keys_refuse_the_upload_controls_forbidden_characters() {
        assert!(check_key("feedback/2026/截图.png").is_ok());
        for bad in ["", "a,b.png", "a+b.png", "../etc/passwd"] {
            assert!(check_key(bad).is_err(), "{bad}");
        }
    }
}

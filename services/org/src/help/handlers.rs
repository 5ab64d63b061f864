//! Help-centre RPCs: manual pages and the customer-service settings for any
//! signed-in caller; feedback for the calling member.

use fleetdesk_kit::{ServiceError, convert as kit_convert, db, grpc};
use fleetdesk_proto::org::v1 as pb;
use tonic::Request;

use super::convert;
use super::domain::{self, MAX_ATTACHMENTS, MAX_CONTACT, MAX_CONTENT};
use super::store::{self, NewFeedback};
use crate::context::{self, Context};
use crate::validate::limit;

/// The customer-service settings; any signed-in caller may read them.
pub async fn customer_service(
    ctx: &Context,
    request: Request<pb::GetCustomerServiceRequest>,
) -> Result<pb::GetCustomerServiceResponse, ServiceError> {
    grpc::caller(&request)?;
    Ok(convert::customer_service(&ctx.customer_service))
}

/// Manual pages in order, without their bodies.
pub async fn list_articles(
    ctx: &Context,
    request: Request<pb::ListHelpArticlesRequest>,
) -> Result<pb::ListHelpArticlesResponse, ServiceError> {
    grpc::caller(&request)?;
    let rows = store::articles(&ctx.pool, request.get_ref().category.trim()).await?;
    Ok(pb::ListHelpArticlesResponse {
        articles: rows
            .into_iter()
            .map(|r| convert::article(r, false))
            .collect(),
    })
}

pub async fn get_article(
    ctx: &Context,
    request: Request<pb::GetHelpArticleRequest>,
) -> Result<pb::GetHelpArticleResponse, ServiceError> {
    grpc::caller(&request)?;
    let id = kit_convert::id(&request.get_ref().id)?;
    let row = store::article(&ctx.pool, id)
        .await?
        .ok_or_else(ServiceError::not_found)?;
    Ok(pb::GetHelpArticleResponse {
        article: Some(convert::article(row, true)),
    })
}

pub async fn submit_feedback(
    ctx: &Context,
    request: Request<pb::SubmitFeedbackRequest>,
) -> Result<pb::SubmitFeedbackResponse, ServiceError> {
    let actor = context::actor(&request)?;
    let member = context::member(&actor)?;
    let pb::SubmitFeedbackRequest {
        content,
        attachment_keys,
        contact,
    } = request.into_inner();
    let content = content.trim();
    let contact = contact.trim();
    if content.is_empty() {
        return Err(ServiceError::invalid("content", "请输入反馈内容"));
    }
    limit("content", content, MAX_CONTENT)?;
    limit("contact", contact, MAX_CONTACT)?;
    if !contact.is_empty() && !domain::is_phone_or_email(contact) {
        return Err(ServiceError::invalid("contact", "请输入正确的手机号或邮箱"));
    }
    let keys: Vec<String> = attachment_keys
        .iter()
        .map(|k| k.trim().to_owned())
        .collect();
    if keys.len() > MAX_ATTACHMENTS {
        return Err(ServiceError::invalid(
            "attachmentKeys",
            format!("附件最多 {MAX_ATTACHMENTS} 个"),
        ));
    }
    keys.iter().try_for_each(|k| domain::check_key(k))?;
    let mut tx = db::begin_tenant(&ctx.pool, actor.enterprise_id).await?;
    let user_name = context::member_name(&mut tx, &actor).await?;
    let row = store::insert_feedback(
        &mut tx,
        NewFeedback {
            tenant: actor.enterprise_id,
            member,
            user_name: &user_name,
            content,
            contact,
            attachment_keys: &keys,
        },
    )
    .await?;
    tx.commit().await?;
    Ok(pb::SubmitFeedbackResponse {
        feedback: Some(convert::feedback(row)),
    })
}

/// The caller's own feedback, newest first; contacts masked.
pub async fn list_feedback(
    ctx: &Context,
    request: Request<pb::ListFeedbackRequest>,
) -> Result<pb::ListFeedbackResponse, ServiceError> {
    let actor = context::actor(&request)?;
    let member = context::member(&actor)?;
    let (page, size) = kit_convert::page(request.get_ref().page.as_ref());
    let mut tx = db::begin_tenant(&ctx.pool, actor.enterprise_id).await?;
    let (rows, total) =
        store::feedback_page(&mut tx, actor.enterprise_id, member, (page, size)).await?;
    tx.commit().await?;
    Ok(pb::ListFeedbackResponse {
        feedbacks: rows.into_iter().map(convert::feedback).collect(),
        page: Some(kit_convert::page_info(page, size, total)),
    })
}

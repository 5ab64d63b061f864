//! Proto ↔ domain for the help centre: manual pages, feedback (contact
//! masked) and the customer-service settings onto the wire.

use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::mask;
use fleetdesk_proto::org::v1 as pb;

use super::domain::SERVICE_TIME_ZONE;
use super::store::{ArticleRow, FeedbackRow};
use crate::config::CustomerServiceConfig;

pub fn article(row: ArticleRow, with_content: bool) -> pb::HelpArticle {
    let ArticleRow {
        id,
        title,
        category,
        content_markdown,
        sort,
        updated_at,
    } = row;
    pb::HelpArticle {
        id: id.to_string(),
        title,
        category,
        content_markdown: if with_content {
            content_markdown
        } else {
            String::new()
        },
        sort,
        update_time: Some(timestamp(updated_at)),
    }
}

pub fn feedback(row: FeedbackRow) -> pb::Feedback {
    let FeedbackRow {
        id,
        enterprise_id,
        user_name,
        content,
        contact,
        attachment_keys,
        created_at,
    } = row;
    pb::Feedback {
        id: id.to_string(),
        enterprise_id: enterprise_id.to_string(),
        user_name,
        content,
        attachment_keys,
        contact: mask::centre(&contact),
        create_time: Some(timestamp(created_at)),
    }
}

pub fn customer_service(config: &CustomerServiceConfig) -> pb::GetCustomerServiceResponse {
    let CustomerServiceConfig {
        service_phone,
        service_email,
        service_open_time,
        service_close_time,
        service_chat_url,
    } = config;
    pb::GetCustomerServiceResponse {
        phone: service_phone.clone(),
        email: service_email.clone(),
        open_time: service_open_time.clone(),
        close_time: service_close_time.clone(),
        time_zone: SERVICE_TIME_ZONE.to_owned(),
        chat_url: service_chat_url.clone(),
    }
}

//! Org's consumer of `NoticeRequested`: one notice per recipient and
//! source key (see the module doc of [`super`]).

use fleetdesk_kit::{events, subjects};
use fleetdesk_proto::org::v1::NoticeRequested;
use sqlx_postgres::{PgConnection, PgPool};
use uuid::Uuid;

use super::recipients::{self, Audience, Recipients};
use super::store::{self, NewNotice};
use super::{MAX_CONTENT, MAX_TITLE, clip, optional_id};

/// Longest source key, category and link org keeps.
const MAX_KEY: usize = 200;

/// Applies one request in `tx` (the caller records its event id); how many
/// notices it wrote.
pub async fn apply(tx: &mut PgConnection, request: NoticeRequested) -> anyhow::Result<u64> {
    let NoticeRequested {
        enterprise_id,
        source_key,
        category,
        title,
        content,
        link,
        member_ids,
        permission,
        org_id,
    } = request;
    let Ok(enterprise) = Uuid::parse_str(enterprise_id.trim()) else {
        tracing::warn!(enterprise = %enterprise_id, "Notice request of a bad enterprise id ignored.");
        return Ok(0);
    };
    let source_key = clip(&source_key, MAX_KEY);
    let title = clip(&title, MAX_TITLE);
    if source_key.is_empty() || title.is_empty() {
        tracing::warn!(enterprise_id = %enterprise, "Notice request without a source key or title ignored.");
        return Ok(0);
    }
    if !store::enterprise_exists(&mut *tx, enterprise).await? {
        tracing::warn!(enterprise_id = %enterprise, "Notice request of an unknown enterprise ignored.");
        return Ok(0);
    }
    let members = member_ids
        .iter()
        .filter_map(|id| optional_id("member_ids", id).ok().flatten())
        .collect();
    let audience = Audience {
        members,
        permission: Some(permission.trim().to_owned()).filter(|p| !p.is_empty()),
        org: optional_id("org_id", &org_id).unwrap_or_default(),
    };
    let recipients = recipients::resolve(&mut *tx, enterprise, &audience).await?;
    fleetdesk_kit::db::enter_tenant(&mut *tx, enterprise).await?;
    let members: Vec<Uuid>;
    let to = match &recipients {
        Recipients::Everyone => None,
        Recipients::Members(set) => {
            members = set.iter().copied().collect();
            Some(members.as_slice())
        }
    };
    if to.is_some_and(<[Uuid]>::is_empty) {
        tracing::info!(enterprise_id = %enterprise, source_key, "Notice request reaches nobody.");
        return Ok(0);
    }
    let category = match clip(&category, MAX_KEY) {
        c if c.is_empty() => "system".to_owned(),
        c => c,
    };
    let written = store::notify(
        &mut *tx,
        enterprise,
        to,
        &NewNotice {
            source_key: &source_key,
            category: &category,
            title: &title,
            content: &clip(&content, MAX_CONTENT),
            link: &clip(&link, MAX_KEY),
        },
    )
    .await?;
    tracing::debug!(enterprise_id = %enterprise, source_key, written, "Requested notice written.");
    Ok(written)
}

/// Org's handler of notice requests (see [`consumer`]).
#[derive(Debug, Clone, Copy)]
pub struct NoticeRequests;

impl events::Handler for NoticeRequests {
    type Event = NoticeRequested;

    async fn handle(&self, tx: &mut PgConnection, event: NoticeRequested) -> anyhow::Result<()> {
        apply(tx, event).await.map(|_| ())
    }
}

/// Org's durable consumer of every domain's notice requests, created before
/// org serves.
pub async fn consumer(
    pool: PgPool,
    nats: async_nats::Client,
) -> anyhow::Result<events::Consumer<NoticeRequests>> {
    events::Consumer::new(
        pool,
        nats,
        "notice-requests",
        subjects::NOTICE_REQUESTED_ALL,
        NoticeRequests,
    )
    .await
}

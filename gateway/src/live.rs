//! The monitoring map's live stream, shared at the edge. Browsers that see
//! the same positions — one enterprise and one reach — share one upstream
//! `WatchPositions` call, and each batch it brings is rendered into SSE
//! bytes once for all of them: a hundred open maps cost the vehicle service
//! one watcher and the gateway one encoding, not a hundred.
//!
//! A browser that falls behind skips whole batches (the map shows latest
//! positions; the next batch brings each moving vehicle again). A feed with
//! no browser left ends its upstream call.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use fleetdesk_proto::vehicle::v1 as pb;
use futures::{Stream, StreamExt as _};
use serde::Serialize;
use tokio::sync::broadcast;
use uuid::Uuid;

use crate::envelope::ApiError;
use crate::session::cache::Principal;

/// Batches kept for a browser that reads slowly: 4 s at the vehicle
/// service's one batch every 250 ms. The ring holds this many batches for as
/// long as the feed is open (a busy enterprise's batch is about 100 kB); a
/// browser further behind skips to the newest, and a vehicle whose update it
/// skipped moves again with its next fix.
const BACKLOG: usize = 16;
/// How often a feed with no batch coming checks whether anyone still reads.
const IDLE_CHECK: Duration = Duration::from_secs(15);

/// Whose positions a feed carries: the enterprise, and unless the reach is
/// the whole enterprise, the reached organisations and the person (whose
/// own vehicles count too).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FeedKey {
    enterprise_id: String,
    partial: Option<PartialReach>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct PartialReach {
    subtrees: Vec<Uuid>,
    orgs: Vec<Uuid>,
    user_id: String,
}

impl FeedKey {
    pub fn of(principal: &Principal) -> FeedKey {
        let reach = &principal.reach;
        let partial = (!reach.all).then(|| {
            let mut subtrees = reach.subtrees.clone();
            let mut orgs = reach.orgs.clone();
            subtrees.sort_unstable();
            orgs.sort_unstable();
            PartialReach {
                subtrees,
                orgs,
                user_id: principal.user_id.clone(),
            }
        });
        FeedKey {
            enterprise_id: principal.enterprise_id.clone(),
            partial,
        }
    }
}

/// The open feeds of this gateway.
#[derive(Debug, Default)]
pub struct LiveFeeds {
    feeds: Mutex<HashMap<FeedKey, broadcast::Sender<Bytes>>>,
}

impl LiveFeeds {
    /// Joins the principal's feed, opening it (and its upstream call, which
    /// `open` makes) when none is open; a new feed renders each position as
    /// a `Position` (the monitoring routes' answer body: this module knows
    /// no route and no request state). An upstream refusal is the caller's
    /// error.
    pub async fn join<Position, Open, Opening>(
        self: &Arc<Self>,
        principal: &Principal,
        open: Open,
    ) -> Result<broadcast::Receiver<Bytes>, ApiError>
    where
        Position: From<pb::VehiclePosition> + Serialize + 'static,
        Open: FnOnce() -> Opening,
        Opening: Future<Output = Result<tonic::Streaming<pb::WatchPositionsResponse>, ApiError>>,
    {
        let key = FeedKey::of(principal);
        if let Some(receiver) = self.existing(&key) {
            return Ok(receiver);
        }
        let upstream = open().await?;
        let mut feeds = self.feeds.lock().unwrap_or_else(|p| p.into_inner());
        // Another browser may have opened it meanwhile: ours goes unused.
        if let Some(sender) = feeds.get(&key) {
            return Ok(sender.subscribe());
        }
        let (sender, receiver) = broadcast::channel(BACKLOG);
        feeds.insert(key.clone(), sender.clone());
        drop(feeds);
        tokio::spawn(Arc::clone(self).pump::<Position>(key, upstream, sender));
        Ok(receiver)
    }

    fn existing(&self, key: &FeedKey) -> Option<broadcast::Receiver<Bytes>> {
        let feeds = self.feeds.lock().unwrap_or_else(|p| p.into_inner());
        feeds.get(key).map(broadcast::Sender::subscribe)
    }

    /// Renders each upstream batch once and hands it to every browser of
    /// the feed, until the upstream ends or no browser is left.
    async fn pump<Position>(
        self: Arc<Self>,
        key: FeedKey,
        mut upstream: tonic::Streaming<pb::WatchPositionsResponse>,
        sender: broadcast::Sender<Bytes>,
    ) where
        Position: From<pb::VehiclePosition> + Serialize + 'static,
    {
        let mut idle = tokio::time::interval(IDLE_CHECK);
        idle.tick().await;
        loop {
            tokio::select! {
                batch = upstream.next() => {
                    let Some(Ok(batch)) = batch else { break };
                    let rendered = render::<Position>(batch.positions);
                    if !rendered.is_empty() && sender.send(rendered).is_err() && self.retire(&key, &sender) {
                        return;
                    }
                }
                _ = idle.tick() => {
                    if sender.receiver_count() == 0 && self.retire(&key, &sender) {
                        return;
                    }
                }
            }
        }
        // The upstream ended: its browsers' streams end with the sender
        // (EventSource reconnects, and opens a fresh feed).
        let mut feeds = self.feeds.lock().unwrap_or_else(|p| p.into_inner());
        forget(&mut feeds, &key, &sender);
    }

    /// Closes the feed unless a browser joined meanwhile (joining holds the
    /// same lock, so none can slip in between the check and the removal).
    fn retire(&self, key: &FeedKey, sender: &broadcast::Sender<Bytes>) -> bool {
        let mut feeds = self.feeds.lock().unwrap_or_else(|p| p.into_inner());
        if sender.receiver_count() > 0 {
            return false;
        }
        forget(&mut feeds, key, sender);
        true
    }
}

/// Removes `key`'s feed if it is still `sender`'s (a newer one may have
/// taken the key).
fn forget(
    feeds: &mut HashMap<FeedKey, broadcast::Sender<Bytes>>,
    key: &FeedKey,
    sender: &broadcast::Sender<Bytes>,
) {
    if feeds.get(key).is_some_and(|s| s.same_channel(sender)) {
        feeds.remove(key);
    }
}

/// One `event: position` per position, `data` the console's JSON body.
fn render<Position>(positions: Vec<pb::VehiclePosition>) -> Bytes
where
    Position: From<pb::VehiclePosition> + Serialize,
{
    let mut out = Vec::with_capacity(positions.len() * 512);
    for p in positions {
        out.extend_from_slice(b"event: position\ndata: ");
        // Serialising a plain struct into a Vec cannot fail, and its JSON
        // has no raw newline to break the frame (strings escape theirs).
        if serde_json::to_writer(&mut out, &Position::from(p)).is_err() {
            continue;
        }
        out.extend_from_slice(b"\n\n");
    }
    Bytes::from(out)
}

/// A server-sent-events answer of `stream`.
pub fn sse(stream: impl Stream<Item = Bytes> + Send + 'static) -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        Body::from_stream(stream.map(Ok::<_, Infallible>)),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A position as a browser reads it (the monitoring routes' body has
    /// more fields, the same framing).
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Seen {
        plate_number: String,
        org_name: String,
    }

    impl From<pb::VehiclePosition> for Seen {
        fn from(p: pb::VehiclePosition) -> Seen {
            Seen {
                plate_number: p.plate_number,
                org_name: p.org_name,
            }
        }
    }

    fn position(plate: &str) -> pb::VehiclePosition {
        pb::VehiclePosition {
            vehicle_id: Uuid::nil().to_string(),
            plate_number: plate.to_owned(),
            org_name: "一部\n二部".to_owned(),
            ..Default::default()
        }
    }

    #[test]
    fn a_batch_is_one_event_per_position_and_newlines_stay_escaped() {
        let text = String::from_utf8(
            render::<Seen>(vec![position("粤B12345"), position("沪A D1234")]).to_vec(),
        )
        .unwrap();
        let events: Vec<&str> = text.split_terminator("\n\n").collect();
        assert_eq!(events.len(), 2, "{text}");
        for (event, plate) in events.iter().zip(["粤B12345", "沪A D1234"]) {
            let (name, data) = event.split_once('\n').unwrap();
            assert_eq!(name, "event: position");
            let json: serde_json::Value =
                serde_json::from_str(data.strip_prefix("data: ").unwrap()).unwrap();
            assert_eq!(json["plateNumber"], plate);
            assert_eq!(json["orgName"], "一部\n二部");
        }
        assert!(render::<Seen>(Vec::new()).is_empty());
    }
}

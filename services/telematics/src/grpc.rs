//! The thin gRPC layer: `MediaService`, one line per RPC into
//! [`crate::video::handlers`], behind the internal-token check.

use std::sync::Arc;

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::grpc::{self, Services};
use fleetdesk_kit::internal_token::TokenVerifier;
use fleetdesk_proto::telematics::v1 as pb;
use fleetdesk_proto::telematics::v1::media_service_server::{MediaService, MediaServiceServer};
use tonic::{Request, Response, Status};

use crate::video::handlers::{self, Watch};
use crate::video::streams::Streams;

/// The services of the telematics target, behind the internal-token check.
pub fn services(streams: Arc<Streams>, verifier: TokenVerifier) -> Services {
    Services::new(MediaServiceServer::with_interceptor(
        MediaApi(streams),
        grpc::authenticate(verifier),
    ))
}

#[derive(Debug, Clone)]
pub struct MediaApi(pub Arc<Streams>);

fn respond<T>(result: Result<T, ServiceError>) -> Result<Response<T>, Status> {
    result.map(Response::new).map_err(Status::from)
}

#[tonic::async_trait]
impl MediaService for MediaApi {
    type WatchLiveStream = Watch<pb::WatchLiveResponse>;
    type WatchPlaybackStream = Watch<pb::WatchPlaybackResponse>;

    async fn watch_live(
        &self,
        request: Request<pb::WatchLiveRequest>,
    ) -> Result<Response<Self::WatchLiveStream>, Status> {
        respond(handlers::watch_live(&self.0, request).await)
    }

    async fn get_av_attributes(
        &self,
        request: Request<pb::GetAvAttributesRequest>,
    ) -> Result<Response<pb::GetAvAttributesResponse>, Status> {
        respond(handlers::get_av_attributes(&self.0, request).await)
    }

    async fn list_resources(
        &self,
        request: Request<pb::ListResourcesRequest>,
    ) -> Result<Response<pb::ListResourcesResponse>, Status> {
        respond(handlers::list_resources(&self.0, request).await)
    }

    async fn watch_playback(
        &self,
        request: Request<pb::WatchPlaybackRequest>,
    ) -> Result<Response<Self::WatchPlaybackStream>, Status> {
        respond(handlers::watch_playback(&self.0, request).await)
    }

    async fn control_playback(
        &self,
        request: Request<pb::ControlPlaybackRequest>,
    ) -> Result<Response<pb::ControlPlaybackResponse>, Status> {
        respond(handlers::control_playback(&self.0, request).await)
    }
}

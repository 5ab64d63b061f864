//! TerminalDirectoryService (telematics.v1): each RPC one line into the
//! directory's handlers (the cameras' for audio/video attributes).

use fleetdesk_proto::telematics::v1 as pb;
use fleetdesk_proto::telematics::v1::terminal_directory_service_server::TerminalDirectoryService;
use fleetdesk_telemetry::context::Context;
use fleetdesk_telemetry::{cameras, directory};
use tonic::{Request, Response, Status};

use super::respond;

#[derive(Debug, Clone)]
pub struct DirectoryApi(pub Context);

type Answer<T> = Result<Response<T>, Status>;

#[tonic::async_trait]
impl TerminalDirectoryService for DirectoryApi {
    async fn register_terminal(
        &self,
        req: Request<pb::RegisterTerminalRequest>,
    ) -> Answer<pb::RegisterTerminalResponse> {
        respond(directory::handlers::register(&self.0, req).await)
    }

    async fn authenticate_terminal(
        &self,
        req: Request<pb::AuthenticateTerminalRequest>,
    ) -> Answer<pb::AuthenticateTerminalResponse> {
        respond(directory::handlers::authenticate(&self.0, req).await)
    }

    async fn report_av_attributes(
        &self,
        req: Request<pb::ReportAvAttributesRequest>,
    ) -> Answer<pb::ReportAvAttributesResponse> {
        respond(cameras::report::report(&self.0, req).await)
    }
}

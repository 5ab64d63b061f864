//! RiskService: each RPC one line into its subject's handlers. Alarms and
//! alarm rules are fleetdesk-telemetry's `alarms`; accidents, service
//! records and warnings are fleetdesk-risk's; video clips answer
//! UNIMPLEMENTED (`not_built`) until their module lands.

use fleetdesk_proto::vehicle::v1 as pb;
use fleetdesk_proto::vehicle::v1::risk_service_server::RiskService;
use fleetdesk_risk::{accidents, service_records, warnings};
use fleetdesk_telemetry::alarms::handlers as alarms;
use fleetdesk_telemetry::context::Context;
use tonic::{Request, Response, Status};

use super::not_built::not_built;
use super::respond;

/// Alarms' context (telemetry) and the risk records' (fleetdesk-risk).
#[derive(Debug, Clone)]
pub struct RiskApi(pub Context, pub fleetdesk_risk::context::Context);

type Answer<T> = Result<Response<T>, Status>;

fn unbuilt<T>(method: &str) -> Answer<T> {
    Err(not_built("RiskService", method))
}

#[tonic::async_trait]
impl RiskService for RiskApi {
    // --- Alarms ---

    async fn list_risk_alarms(
        &self,
        req: Request<pb::ListRiskAlarmsRequest>,
    ) -> Answer<pb::ListRiskAlarmsResponse> {
        respond(alarms::list(&self.0, req).await)
    }

    async fn export_risk_alarms(
        &self,
        req: Request<pb::ExportRiskAlarmsRequest>,
    ) -> Answer<pb::ExportRiskAlarmsResponse> {
        respond(alarms::export(&self.0, req).await)
    }

    async fn handle_risk_alarms(
        &self,
        req: Request<pb::HandleRiskAlarmsRequest>,
    ) -> Answer<pb::HandleRiskAlarmsResponse> {
        respond(alarms::handle(&self.0, req).await)
    }

    async fn get_risk_alarm(
        &self,
        req: Request<pb::GetRiskAlarmRequest>,
    ) -> Answer<pb::GetRiskAlarmResponse> {
        respond(alarms::get(&self.0, req).await)
    }

    async fn assign_risk_alarms(
        &self,
        req: Request<pb::AssignRiskAlarmsRequest>,
    ) -> Answer<pb::AssignRiskAlarmsResponse> {
        respond(alarms::assign(&self.0, req).await)
    }

    async fn comment_risk_alarm(
        &self,
        req: Request<pb::CommentRiskAlarmRequest>,
    ) -> Answer<pb::CommentRiskAlarmResponse> {
        respond(alarms::comment(&self.0, req).await)
    }

    // --- Alarm rules ---

    async fn list_alarm_rules(
        &self,
        req: Request<pb::ListAlarmRulesRequest>,
    ) -> Answer<pb::ListAlarmRulesResponse> {
        respond(alarms::rules(&self.0, req).await)
    }

    async fn create_alarm_rule(
        &self,
        req: Request<pb::CreateAlarmRuleRequest>,
    ) -> Answer<pb::CreateAlarmRuleResponse> {
        respond(alarms::create_rule(&self.0, req).await)
    }

    async fn update_alarm_rule(
        &self,
        req: Request<pb::UpdateAlarmRuleRequest>,
    ) -> Answer<pb::UpdateAlarmRuleResponse> {
        respond(alarms::update_rule(&self.0, req).await)
    }

    async fn delete_alarm_rule(
        &self,
        req: Request<pb::DeleteAlarmRuleRequest>,
    ) -> Answer<pb::DeleteAlarmRuleResponse> {
        respond(alarms::delete_rule(&self.0, req).await)
    }

    // --- Accidents, service records, warnings (fleetdesk-risk) ---

    async fn list_accidents(
        &self,
        req: Request<pb::ListAccidentsRequest>,
    ) -> Answer<pb::ListAccidentsResponse> {
        respond(accidents::handlers::list(&self.1, req).await)
    }

    async fn get_accident(
        &self,
        req: Request<pb::GetAccidentRequest>,
    ) -> Answer<pb::GetAccidentResponse> {
        respond(accidents::handlers::get(&self.1, req).await)
    }

    async fn create_accident(
        &self,
        req: Request<pb::CreateAccidentRequest>,
    ) -> Answer<pb::CreateAccidentResponse> {
        respond(accidents::handlers::create(&self.1, req).await)
    }

    async fn update_accident(
        &self,
        req: Request<pb::UpdateAccidentRequest>,
    ) -> Answer<pb::UpdateAccidentResponse> {
        respond(accidents::handlers::update(&self.1, req).await)
    }

    async fn list_customer_service_records(
        &self,
        req: Request<pb::ListCustomerServiceRecordsRequest>,
    ) -> Answer<pb::ListCustomerServiceRecordsResponse> {
        respond(service_records::handlers::list(&self.1, req).await)
    }

    async fn create_customer_service_record(
        &self,
        req: Request<pb::CreateCustomerServiceRecordRequest>,
    ) -> Answer<pb::CreateCustomerServiceRecordResponse> {
        respond(service_records::handlers::create(&self.1, req).await)
    }

    async fn update_customer_service_record(
        &self,
        req: Request<pb::UpdateCustomerServiceRecordRequest>,
    ) -> Answer<pb::UpdateCustomerServiceRecordResponse> {
        respond(service_records::handlers::update(&self.1, req).await)
    }

    async fn list_warnings(
        &self,
        req: Request<pb::ListWarningsRequest>,
    ) -> Answer<pb::ListWarningsResponse> {
        respond(warnings::handlers::list(&self.1, req).await)
    }

    async fn acknowledge_warnings(
        &self,
        req: Request<pb::AcknowledgeWarningsRequest>,
    ) -> Answer<pb::AcknowledgeWarningsResponse> {
        respond(warnings::handlers::acknowledge(&self.1, req).await)
    }

    // --- Not built yet ---

    async fn list_video_clips(
        &self,
        _req: Request<pb::ListVideoClipsRequest>,
    ) -> Answer<pb::ListVideoClipsResponse> {
        unbuilt("list_video_clips")
    }

    async fn request_video_clip(
        &self,
        _req: Request<pb::RequestVideoClipRequest>,
    ) -> Answer<pb::RequestVideoClipResponse> {
        unbuilt("request_video_clip")
    }
}

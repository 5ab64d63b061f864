//! The terminal directory of a deployment: vehicle's
//! `TerminalDirectoryService`, called with a service token. Vehicle owns the
//! terminal bindings; the edge only asks. When vehicle cannot be reached the
//! call fails with [`DirectoryError`], and the connection answers the
//! terminal with a failure it may retry after (never a refusal: the terminal
//! is not known to be bad).
//!
//! Authentication also answers the maker the terminal registered with
//! (kept by vehicle, so it survives an edge restart and holds on every
//! replica); the directory keeps the last answer per terminal, so
//! [`Directory::maker`] costs no second call.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use fleetdesk_kit::grpc;
use fleetdesk_kit::internal_token::{Claims, SignedToken, TokenSigner};
use fleetdesk_proto::telematics::v1 as pb;
use fleetdesk_proto::telematics::v1::terminal_directory_service_client::TerminalDirectoryServiceClient;
use tonic::transport::Channel;

use super::{Binding, Directory, DirectoryError, Registered};
use crate::jt808::message::{AvAttributes, RegisterResult, Registration};
use crate::video::convert;

/// How long a terminal's registration or authentication waits for vehicle.
const CALL_TIMEOUT: Duration = Duration::from_secs(5);

/// The issuer (and subject `svc:telematics`) of the edge's tokens.
const ISSUER: &str = "telematics";

/// The directory behind vehicle's gRPC API.
#[derive(Debug)]
pub struct GrpcDirectory {
    client: TerminalDirectoryServiceClient<Channel>,
    signer: TokenSigner,
    token: SignedToken,
    /// The maker each terminal's last accepted authentication answered:
    /// one short string per terminal that signed on to this replica.
    makers: Mutex<HashMap<String, String>>,
}

impl GrpcDirectory {
    /// A directory asking the vehicle target at `url`; connects on first use.
    pub fn new(url: &str, signer: TokenSigner) -> anyhow::Result<GrpcDirectory> {
        Ok(GrpcDirectory {
            client: TerminalDirectoryServiceClient::new(grpc::lazy_channel(url)?),
            signer,
            token: SignedToken::default(),
            makers: Mutex::default(),
        })
    }

    fn request<T>(&self, message: T) -> tonic::Request<T> {
        let token = self
            .token
            .get_or_sign(&self.signer, || Claims::service(ISSUER));
        let mut req = grpc::outgoing_signed(message, &token);
        req.set_timeout(CALL_TIMEOUT);
        req
    }

    /// Keeps the maker an authentication answered; an empty one (registered
    /// before makers were kept) forgets an older answer rather than keep it.
    fn remember_maker(&self, terminal: &str, maker_id: String) {
        let mut makers = self.makers.lock().expect("makers lock");
        if maker_id.is_empty() {
            makers.remove(terminal);
        } else {
            makers.insert(terminal.to_owned(), maker_id);
        }
    }
}

fn unavailable(step: &'static str, status: &tonic::Status) -> DirectoryError {
    metrics::counter!("telematics_directory_errors_total", "step" => step).increment(1);
    DirectoryError(format!("{:?}: {}", status.code(), status.message()))
}

impl Directory for GrpcDirectory {
    async fn register(
        &self,
        terminal: &str,
        registration: &Registration,
    ) -> Result<Registered, DirectoryError> {
        let Registration {
            province: _,
            city: _,
            manufacturer,
            model,
            terminal_id,
            plate_color,
            plate,
        } = registration;
        let req = self.request(pb::RegisterTerminalRequest {
            phone: terminal.to_owned(),
            terminal_id: terminal_id.clone(),
            plate_number: plate.clone(),
            plate_color: i32::from(*plate_color),
            maker_id: manufacturer.clone(),
            terminal_model: model.clone(),
        });
        let answer = self
            .client
            .clone()
            .register_terminal(req)
            .await
            .map_err(|s| unavailable("register", &s))?
            .into_inner();
        registered(answer)
    }

    async fn authenticate(
        &self,
        terminal: &str,
        code: &str,
    ) -> Result<Option<Binding>, DirectoryError> {
        let req = self.request(pb::AuthenticateTerminalRequest {
            phone: terminal.to_owned(),
            auth_code: code.to_owned(),
        });
        let pb::AuthenticateTerminalResponse {
            accepted,
            enterprise_id,
            vehicle_id,
            maker_id,
        } = self
            .client
            .clone()
            .authenticate_terminal(req)
            .await
            .map_err(|s| unavailable("authenticate", &s))?
            .into_inner();
        if accepted {
            self.remember_maker(terminal, maker_id);
        }
        Ok(accepted.then_some(Binding {
            enterprise_id,
            vehicle_id,
        }))
    }

    async fn report_av_attributes(
        &self,
        terminal: &str,
        attributes: &AvAttributes,
    ) -> Result<(), DirectoryError> {
        let req = self.request(pb::ReportAvAttributesRequest {
            phone: terminal.to_owned(),
            attributes: Some(convert::av_attributes(attributes)),
        });
        let pb::ReportAvAttributesResponse { stored } = self
            .client
            .clone()
            .report_av_attributes(req)
            .await
            .map_err(|s| unavailable("av_attributes", &s))?
            .into_inner();
        if !stored {
            tracing::info!(%terminal, "Audio/video attributes of a terminal bound to no vehicle.");
        }
        Ok(())
    }

    async fn maker(&self, terminal: &str) -> Result<Option<String>, DirectoryError> {
        Ok(self
            .makers
            .lock()
            .expect("makers lock")
            .get(terminal)
            .cloned())
    }
}

/// Vehicle's answer as the 0x8100 result.
fn registered(answer: pb::RegisterTerminalResponse) -> Result<Registered, DirectoryError> {
    let pb::RegisterTerminalResponse { outcome, auth_code } = answer;
    let refused = match pb::RegisterOutcome::try_from(outcome) {
        Ok(pb::RegisterOutcome::Accepted) if !auth_code.is_empty() => {
            return Ok(Registered::Accepted { auth_code });
        }
        Ok(pb::RegisterOutcome::Accepted | pb::RegisterOutcome::Unspecified) | Err(_) => {
            metrics::counter!("telematics_directory_errors_total", "step" => "register")
                .increment(1);
            return Err(DirectoryError(format!(
                "unusable registration answer (outcome {outcome})"
            )));
        }
        Ok(pb::RegisterOutcome::VehicleTaken) => RegisterResult::VehicleAlreadyRegistered,
        Ok(pb::RegisterOutcome::NoVehicle) => RegisterResult::NoSuchVehicle,
        Ok(pb::RegisterOutcome::TerminalTaken) => RegisterResult::TerminalAlreadyRegistered,
        Ok(pb::RegisterOutcome::NoTerminal) => RegisterResult::NoSuchTerminal,
    };
    Ok(Registered::Refused(refused))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_refusal_keeps_the_standards_result() {
        let answer = |outcome: pb::RegisterOutcome, code: &str| {
            registered(pb::RegisterTerminalResponse {
                outcome: outcome as i32,
                auth_code: code.to_owned(),
            })
        };
        assert_eq!(
            answer(pb::RegisterOutcome::Accepted, "c0de").unwrap(),
            Registered::Accepted {
                auth_code: "c0de".into()
            }
        );
        assert_eq!(
            answer(pb::RegisterOutcome::NoTerminal, "").unwrap(),
            Registered::Refused(RegisterResult::NoSuchTerminal)
        );
        assert_eq!(
            answer(pb::RegisterOutcome::VehicleTaken, "").unwrap(),
            Registered::Refused(RegisterResult::VehicleAlreadyRegistered)
        );
        assert!(answer(pb::RegisterOutcome::Accepted, "").is_err());
        assert!(answer(pb::RegisterOutcome::Unspecified, "").is_err());
    }
}

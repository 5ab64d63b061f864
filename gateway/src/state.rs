//! What every handler shares: upstream clients, the token signer and the
//! session cache.

use std::sync::Arc;

use fleetdesk_kit::internal_token::{Claims, TokenSigner};
use fleetdesk_proto::auth::v1::auth_service_client::AuthServiceClient;
use fleetdesk_proto::energy::v1::energy_service_client::EnergyServiceClient;
use fleetdesk_proto::finance::v1::finance_service_client::FinanceServiceClient;
use fleetdesk_proto::org::v1::org_service_client::OrgServiceClient;
use fleetdesk_proto::vehicle::v1::vehicle_service_client::VehicleServiceClient;
use tonic::transport::Channel;

use crate::access::AccessTable;
use crate::files::{FileStore, LinkSigner};
use crate::session::{Principal, SessionCache};

/// One channel per upstream service.
#[derive(Clone, Debug)]
pub struct Upstreams {
    pub auth: Channel,
    pub org: Channel,
    pub vehicle: Channel,
    pub energy: Channel,
    pub finance: Channel,
}

impl Upstreams {
    /// (name, channel) of each, for readiness checks.
    pub fn all(&self) -> [(&'static str, Channel); 5] {
        [
            ("auth", self.auth.clone()),
            ("org", self.org.clone()),
            ("vehicle", self.vehicle.clone()),
            ("energy", self.energy.clone()),
            ("finance", self.finance.clone()),
        ]
    }
}

#[derive(Clone, Debug)]
pub struct AppState {
    pub upstreams: Upstreams,
    pub signer: TokenSigner,
    pub sessions: Arc<SessionCache>,
    pub access: Arc<AccessTable>,
    pub trust_forwarded_for: bool,
    /// Development deployment: development-only routes answer, cookies may
    /// travel over plain HTTP.
    pub development: bool,
    /// Uploads, exports and statements.
    pub files: FileStore,
    /// Signs and checks download links.
    pub links: LinkSigner,
}

impl AppState {
    pub fn auth(&self) -> AuthServiceClient<Channel> {
        AuthServiceClient::new(self.upstreams.auth.clone())
    }

    pub fn org(&self) -> OrgServiceClient<Channel> {
        OrgServiceClient::new(self.upstreams.org.clone())
    }

    pub fn vehicle(&self) -> VehicleServiceClient<Channel> {
        VehicleServiceClient::new(self.upstreams.vehicle.clone())
    }

    pub fn energy(&self) -> EnergyServiceClient<Channel> {
        EnergyServiceClient::new(self.upstreams.energy.clone())
    }

    pub fn finance(&self) -> FinanceServiceClient<Channel> {
        FinanceServiceClient::new(self.upstreams.finance.clone())
    }

    /// A request made by the gateway itself (sign-in, session checks).
    pub fn as_gateway<T>(&self, message: T) -> tonic::Request<T> {
        fleetdesk_kit::grpc::outgoing(message, &self.signer, &Claims::service("gateway"))
    }

    /// A request made on behalf of a signed-in user in their enterprise.
    pub fn as_user<T>(&self, principal: &Principal, message: T) -> tonic::Request<T> {
        fleetdesk_kit::grpc::outgoing(message, &self.signer, &principal.claims())
    }
}

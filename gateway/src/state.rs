//! What every handler shares: upstream clients, the token signer and the
//! session cache.

use std::sync::Arc;

use fleetdesk_kit::internal_token::{Claims, TokenSigner};
use fleetdesk_proto::auth::v1::lean::AuthServiceClient;
use fleetdesk_proto::energy::v1::lean::EnergyServiceClient;
use fleetdesk_proto::finance::v1::lean::FinanceServiceClient;
use fleetdesk_proto::org::v1::lean::OrgServiceClient;
use fleetdesk_proto::telematics::v1::lean::MediaServiceClient;
use fleetdesk_proto::vehicle::v1::lean::AssetServiceClient;
use fleetdesk_proto::vehicle::v1::lean::MaintenanceServiceClient;
use fleetdesk_proto::vehicle::v1::lean::RiskServiceClient;
use fleetdesk_proto::vehicle::v1::lean::TelemetryServiceClient;
use tonic::transport::Channel;

/// Metadata with the caller's display name (UTF-8) for change logs.
const OPERATOR_NAME_KEY: &str = "operator-name-bin";

use crate::access::AccessTable;
use crate::envelope::ApiError;
use crate::files::{FileStore, LinkSigner};
use crate::idempotency::IdempotencyKey;
use crate::session::cache::{Principal, SessionCache};

/// One channel per upstream service.
#[derive(Clone, Debug)]
pub struct Upstreams {
    pub auth: Channel,
    pub org: Channel,
    pub vehicle: Channel,
    pub energy: Channel,
    pub finance: Channel,
    /// The device edge's MediaService. Not among the readiness checks: a
    /// video outage must not take the console's other pages down.
    pub telematics: Channel,
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
    /// Calls per client address on the routes a share link opens.
    pub public_limit: Arc<crate::public_limit::PublicLimiter>,
    /// The monitoring map's live feeds, shared by browsers that see the same.
    pub live: Arc<crate::live::LiveFeeds>,
}

impl AppState {
    pub fn auth(&self) -> AuthServiceClient {
        AuthServiceClient::new(self.upstreams.auth.clone())
    }

    pub fn org(&self) -> OrgServiceClient {
        OrgServiceClient::new(self.upstreams.org.clone())
    }

    /// Vehicle assets: vehicles, bindings, private cars, drivers, usage records.
    pub fn assets(&self) -> AssetServiceClient {
        AssetServiceClient::new(self.upstreams.vehicle.clone())
    }

    /// Monitoring: geofences, positions, remote lock, operation reports.
    pub fn telemetry(&self) -> TelemetryServiceClient {
        TelemetryServiceClient::new(self.upstreams.vehicle.clone())
    }

    /// Risk control: alarms, accidents, warnings, video.
    pub fn risk(&self) -> RiskServiceClient {
        RiskServiceClient::new(self.upstreams.vehicle.clone())
    }

    /// Vehicle management: violations, maintenance, inspections, repairs, insurance.
    pub fn maintenance(&self) -> MaintenanceServiceClient {
        MaintenanceServiceClient::new(self.upstreams.vehicle.clone())
    }

    pub fn energy(&self) -> EnergyServiceClient {
        EnergyServiceClient::new(self.upstreams.energy.clone())
    }

    pub fn finance(&self) -> FinanceServiceClient {
        FinanceServiceClient::new(self.upstreams.finance.clone())
    }

    /// Vehicle video (the device edge's MediaService). It takes service
    /// tokens only: call it after the user's permission and reach were
    /// checked through the vehicle service.
    pub fn media(&self) -> MediaServiceClient {
        MediaServiceClient::new(self.upstreams.telematics.clone())
    }

    /// A request made by the gateway itself (sign-in, session checks).
    pub fn as_gateway<T>(&self, message: T) -> tonic::Request<T> {
        fleetdesk_kit::grpc::outgoing(message, &self.signer, &Claims::service("gateway"))
    }

    /// A request made on behalf of a signed-in user in their enterprise. It
    /// carries the user's display name for the services' change logs.
    pub fn as_user<T>(&self, principal: &Principal, message: T) -> tonic::Request<T> {
        let token = principal
            .internal_token
            .get_or_sign(&self.signer, || principal.claims());
        let mut req = fleetdesk_kit::grpc::outgoing_signed(message, &token);
        req.metadata_mut().insert_bin(
            OPERATOR_NAME_KEY,
            tonic::metadata::MetadataValue::from_bytes(principal.name.as_bytes()),
        );
        req
    }

    /// [`AppState::as_user`] for a create that takes an `Idempotency-Key`.
    pub fn as_user_once<T>(
        &self,
        principal: &Principal,
        key: &IdempotencyKey,
        message: T,
    ) -> Result<tonic::Request<T>, ApiError> {
        let mut req = self.as_user(principal, message);
        key.apply(&mut req)?;
        Ok(req)
    }
}

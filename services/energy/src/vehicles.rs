//! The vehicle service as cards see it: the plate and organisation of the
//! vehicle a card is bound to and the name of a bound driver, read over
//! gRPC with this service's token acting in the caller's enterprise.

use fleetdesk_kit::internal_token::{Claims, TokenSigner};
use fleetdesk_kit::{ErrorCode, ServiceError, grpc};
use fleetdesk_proto::vehicle::v1 as pb;
use fleetdesk_proto::vehicle::v1::asset_service_client::AssetServiceClient;
use tonic::transport::Channel;
use uuid::Uuid;

/// A client of the vehicle service's AssetService.
#[derive(Debug, Clone)]
pub struct Vehicles {
    client: AssetServiceClient<Channel>,
    signer: TokenSigner,
}

/// What a card copies from its vehicle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoundVehicle {
    pub id: Uuid,
    pub plate_number: String,
    pub org_id: Option<Uuid>,
}

/// What a card copies from its driver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoundDriver {
    pub id: Uuid,
    pub name: String,
}

impl Vehicles {
    pub fn new(url: &str, signer: TokenSigner) -> anyhow::Result<Vehicles> {
        Ok(Vehicles {
            client: AssetServiceClient::new(grpc::lazy_channel(url)?),
            signer,
        })
    }

    fn request<T>(&self, enterprise_id: Uuid, message: T) -> tonic::Request<T> {
        let mut claims = Claims::service(crate::SCHEMA.name);
        claims.ent = Some(enterprise_id.to_string());
        grpc::outgoing(message, &self.signer, &claims)
    }

    /// The enterprise's vehicle `id`; NOT_FOUND (field `vehicleId`) when it has none.
    pub async fn vehicle(
        &self,
        enterprise_id: Uuid,
        id: Uuid,
    ) -> Result<BoundVehicle, ServiceError> {
        let answer = self
            .client
            .clone()
            .get_vehicle(self.request(
                enterprise_id,
                pb::GetVehicleRequest {
                    vehicle_id: id.to_string(),
                },
            ))
            .await
            .map_err(|s| upstream(&s, "vehicleId", "所选车辆不存在"))?
            .into_inner();
        let vehicle = answer.vehicle.ok_or_else(ServiceError::not_found)?;
        Ok(BoundVehicle {
            id,
            plate_number: vehicle.plate_number,
            org_id: Uuid::parse_str(&vehicle.org_id).ok(),
        })
    }

    /// The enterprise's driver `id`; NOT_FOUND (field `driverId`) when it has none.
    pub async fn driver(&self, enterprise_id: Uuid, id: Uuid) -> Result<BoundDriver, ServiceError> {
        let answer = self
            .client
            .clone()
            .get_driver(self.request(
                enterprise_id,
                pb::GetDriverRequest {
                    driver_id: id.to_string(),
                },
            ))
            .await
            .map_err(|s| upstream(&s, "driverId", "所选司机不存在"))?
            .into_inner();
        let driver = answer.driver.ok_or_else(ServiceError::not_found)?;
        Ok(BoundDriver {
            id,
            name: driver.name,
        })
    }
}

/// A vehicle-service answer as this service's: a missing row names the
/// request's field; anything else keeps its code.
fn upstream(status: &tonic::Status, field: &str, missing: &str) -> ServiceError {
    let err = ServiceError::from_status(status);
    match err.code {
        ErrorCode::NotFound => ServiceError::invalid(field, missing),
        ErrorCode::BadRequest
        | ErrorCode::Unauthenticated
        | ErrorCode::SessionEnded
        | ErrorCode::Forbidden
        | ErrorCode::Conflict
        | ErrorCode::TooManyRequests
        | ErrorCode::Unavailable
        | ErrorCode::Internal => err,
    }
}

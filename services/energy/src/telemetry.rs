//! The vehicle service's telemetry as the analysis reads it: kilometres
//! per vehicle over a range, from its `ListVehicleDistances` (odometer at the first and last fix of a range),
//! asked with this service's token acting in the enterprise, at most 250
//! vehicles a call.
//!
//! Why a call and not an event: the distance of an arbitrary range is a
//! read of vehicle's own position history (two index probes per vehicle),
//! which vehicle does not announce; keeping a copy of odometer readings
//! from the telemetry stream here would duplicate its ingest and its
//! retention for one figure. Energy never reads vehicle's schema.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use fleetdesk_kit::internal_token::{Claims, TokenSigner};
use fleetdesk_kit::list::BATCH_LIMIT;
use fleetdesk_kit::{ServiceError, grpc};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use fleetdesk_proto::vehicle::v1::telemetry_service_client::TelemetryServiceClient;
use tonic::transport::Channel;
use uuid::Uuid;

/// A client of the vehicle service's distances.
#[derive(Debug, Clone)]
pub struct Distances {
    client: TelemetryServiceClient<Channel>,
    signer: TokenSigner,
}

impl Distances {
    pub fn new(url: &str, signer: TokenSigner) -> anyhow::Result<Distances> {
        Ok(Distances {
            client: TelemetryServiceClient::new(grpc::lazy_channel(url)?),
            signer,
        })
    }

    /// Metres each of `vehicles` drove in `[start, end)`; vehicles without
    /// odometer readings at both ends are absent.
    pub async fn of(
        &self,
        enterprise_id: Uuid,
        vehicles: &[Uuid],
        start: DateTime<Utc>,
        end: DateTime<Utc>,
    ) -> Result<HashMap<Uuid, i64>, ServiceError> {
        let mut claims = Claims::service(crate::SCHEMA.name);
        claims.ent = Some(enterprise_id.to_string());
        let mut out = HashMap::new();
        for chunk in vehicles.chunks(BATCH_LIMIT) {
            let request = pb::ListVehicleDistancesRequest {
                vehicle_ids: chunk.iter().map(Uuid::to_string).collect(),
                time_range: Some(common::TimeRange {
                    start: Some(fleetdesk_kit::convert::timestamp(start)),
                    end: Some(fleetdesk_kit::convert::timestamp(end)),
                }),
            };
            let answer = self
                .client
                .clone()
                .list_vehicle_distances(grpc::outgoing(request, &self.signer, &claims))
                .await
                .map_err(|s| ServiceError::from_status(&s))?
                .into_inner();
            for d in answer.distances {
                if let Ok(id) = Uuid::parse_str(&d.vehicle_id) {
                    out.insert(id, d.distance_m);
                }
            }
        }
        Ok(out)
    }
}

//! Kilometres as the analysis takes them: what the vehicle service's
//! telemetry ([`crate::telemetry`]) knows, or none.

use std::collections::HashMap;

use uuid::Uuid;

use crate::telemetry::Distances;

/// The metres of `vehicles` over the query's range that the vehicle service
/// knows. Kilometres are an addition to the analysis: without the vehicle
/// service (not wired, or not answering) the figures stand without them,
/// and the failure is logged.
pub async fn known(
    distances: Option<&Distances>,
    query: &super::store::Query,
    vehicles: &[Uuid],
) -> HashMap<Uuid, i64> {
    let Some(distances) = distances.filter(|_| !vehicles.is_empty()) else {
        return HashMap::new();
    };
    let enterprise_id = query.scope.enterprise_id;
    match distances
        .of(enterprise_id, vehicles, query.start, query.end)
        .await
    {
        Ok(found) => found,
        Err(err) => {
            tracing::warn!(enterprise = %enterprise_id, error = %err,
                "Vehicle distances unavailable; analysis without kilometres.");
            HashMap::new()
        }
    }
}

//! The analysis between the wire and the store: the filter checked, and
//! the sums with their distance side as proto messages.

use std::collections::HashMap;

use fleetdesk_kit::{ServiceError, list};
use fleetdesk_proto::energy::v1 as pb;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::{self, Driven, Sums};
use super::store::{Query, VehicleRow};
use crate::context::Actor;
use crate::filters;
use crate::reports::{self, Scope};

/// The filter, checked (organisations expanded to their subtrees). The
/// range is required.
pub async fn query(
    conn: &mut PgConnection,
    actor: &Actor,
    filter: Option<&pb::ChargingBehaviorFilter>,
) -> Result<Query, ServiceError> {
    let empty = pb::ChargingBehaviorFilter::default();
    let f = filter.unwrap_or(&empty);
    let (start, end) = reports::range("startTime", f.start_time.as_ref(), None)?;
    let plates = list::batch("plateNumbers", &f.plate_numbers)?;
    let org_ids = filters::ids("orgIds", &f.org_ids, "组织编号无效")?;
    Ok(Query {
        scope: Scope {
            enterprise_id: actor.enterprise_id,
            reach: actor.reach.clone(),
            org_ids: filters::org_subtrees(conn, org_ids).await?,
        },
        plates,
        start,
        end,
    })
}

/// A vehicle's distance side: its own metres, when its odometer covers the range.
pub fn driven_alone(sums: &Sums, metres: Option<i64>) -> Driven {
    metres.map_or_else(Driven::default, |m| Driven {
        vehicles: 1,
        metres: m as f64,
        energy_wh: sums.energy_wh,
        total_fen: sums.total_fen,
    })
}

pub fn vehicle(
    row: VehicleRow,
    org_names: &HashMap<Uuid, String>,
    distances: &HashMap<Uuid, i64>,
) -> pb::VehicleChargingBehavior {
    let driven = driven_alone(&row.sums, distances.get(&row.vehicle_id).copied());
    pb::VehicleChargingBehavior {
        vehicle_id: row.vehicle_id.to_string(),
        plate_number: row.plate_number,
        org_id: row.org_id.to_string(),
        org_name: org_names.get(&row.org_id).cloned().unwrap_or_default(),
        figures: Some(domain::figures(&row.sums, &driven)),
        usual_start_hour: row.usual_hour,
    }
}

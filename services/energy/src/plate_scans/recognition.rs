//! A recognition pushed by the platform: matched to the card that carries
//! the plate (energy's own copy of the plates, from the cards) and so to
//! its vehicle and enterprise. A plate no card carries is recorded as not
//! registered and belongs to no enterprise; otherwise the result waits for
//! the authorisation the pile asks for next.

use fleetdesk_kit::{ServiceError, db};
use fleetdesk_ocpi::PlateScan;

use super::domain::{ScanResult, scan_id};
use super::store::{self, NewScan};
use crate::platform::Platform;
use crate::stations;

pub async fn record(p: &Platform, scan: &PlateScan) -> Result<(), ServiceError> {
    if scan.party_id != p.cpo.party_id {
        return Err(ServiceError::invalid("party_id", "party_id 无法识别"));
    }
    let plate = scan.plate.trim();
    if plate.is_empty() || plate.chars().count() > 16 {
        return Err(ServiceError::invalid("plate", "plate 无法识别"));
    }
    stations::sync::ensure(&p.pool, &p.cpo, &scan.location_id).await?;
    let mut tx = db::begin_service(&p.pool).await?;
    let owner = store::plate_owner(&mut tx, plate).await?;
    let place =
        stations::store::connector(&mut tx, &scan.party_id, &scan.location_id, &scan.evse_uid)
            .await?;
    let result = owner.is_none().then_some(ScanResult::NotRegistered);
    store::insert(
        &mut tx,
        &NewScan {
            id: scan_id(&scan.party_id, &scan.id),
            owner,
            party_id: scan.party_id.clone(),
            scan_no: scan.id.clone(),
            station_id: place.as_ref().map(|c| c.station_id),
            station_name: place
                .as_ref()
                .map(|c| c.station_name.clone())
                .unwrap_or_default(),
            location_id: scan.location_id.clone(),
            evse_uid: scan.evse_uid.clone(),
            pile_no: place.map(|c| c.pile_no).unwrap_or_default(),
            plate_number: plate.to_owned(),
            scan_time: scan.scanned_at,
            result,
        },
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

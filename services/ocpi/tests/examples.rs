//! Every Locations, Tariffs and Tokens example OCPI 2.2.1 publishes
//! (`tests/examples/`, copied unchanged from the specification) reads with
//! our types and writes back as the same JSON: a field we dropped, renamed
//! or spelled differently would show as a difference.

use std::path::PathBuf;

use chrono::{TimeZone, Utc};
use fleetdesk_ocpi::{
    Cdr, Connector, ConnectorPatch, EnergyMix, Evse, EvsePatch, Hours, Location, LocationPatch,
    PowerType, PushedLevel, Session, SessionPatch, Tariff, Token, TokenPatch,
    complete_location_push, complete_tariff_push,
};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

fn dir() -> PathBuf {
    // Read when the test runs, not baked in when it is built: a binary a
    // shared target reuses from another checkout reads this checkout's files.
    PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
        .join("tests/examples")
}

fn text(name: &str) -> String {
    std::fs::read_to_string(dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Reads `name` as a `T` and checks it writes back as the same JSON.
fn round_trips<T: DeserializeOwned + Serialize>(name: &str) -> T {
    let text = text(name);
    let object: T = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    let original: serde_json::Value = serde_json::from_str(&text).unwrap();
    let written = serde_json::to_value(&object).unwrap();
    assert_eq!(written, original, "{name} does not write back the same");
    object
}

/// The reason `name` does not read as a `T`.
fn refused<T: DeserializeOwned + std::fmt::Debug>(name: &str) -> String {
    match serde_json::from_str::<T>(&text(name)) {
        Ok(object) => panic!("{name} read as {object:?}"),
        Err(e) => e.to_string(),
    }
}

/// The fragments of a Location the standard shows on their own.
#[derive(Debug, Serialize, Deserialize)]
struct WithEnergyMix {
    energy_mix: EnergyMix,
}

#[derive(Debug, Serialize, Deserialize)]
struct WithOpeningTimes {
    opening_times: Hours,
}

const LOCATIONS: [&str; 6] = [
    "location_example.json",
    "location_example_parking_garage_opening_hours.json",
    "location_example_uc2_destination_charger.json",
    "location_example_uc3_destination_charger_not_published.json",
    "location_example_uc4_limited_visibility.json",
    "location_example_uc5_home_charge_point.json",
];

const TARIFFS: [&str; 19] = [
    "tariff_1_simple_2hour.json",
    "tariff_2_alt_text.json",
    "tariff_3_alt_url.json",
    "tariff_4_complex.json",
    "tariff_5_free_of_charge.json",
    "tariff_6_025kwh_start_max_price.json",
    "tariff_8_simple_025kwh.json",
    "tariff_9_025kwh_start.json",
    "tariff_10_025kwh_parking_start.json",
    "tariff_11_not_possible_alt_text.json",
    "tariff_12_025kwh_min_price.json",
    "tariff_13_simple_3hour_5parking.json",
    "tariff_14_step_size.json",
    "tariff_15_reservation_5_euro_per_hour.json",
    "tariff_16_reservation_2_euro_fee_5_euro_per_hour.json",
    "tariff_17_reservation_with_expire_fee.json",
    "tariff_18_reservation_with_expire_time.json",
    "tariffrestriction_example_max_duration.json",
    "tariffrestriction_example_max_power.json",
];

const TOKENS: [&str; 3] = [
    "token_example_1_app_user.json",
    "token_example_2_full_rfid.json",
    "token_put_example.json",
];

#[test]
fn every_published_location_reads_and_writes_back_unchanged() {
    for name in LOCATIONS {
        let l: Location = round_trips(name);
        assert!(!l.id.is_empty(), "{name}");
    }
    let home: Location = round_trips("location_example_uc5_home_charge_point.json");
    assert_eq!(home.name, None);
    assert!(!home.publish);
    assert_eq!(home.publish_allowed_to.len(), 1);
    let gent: Location = round_trips("location_example.json");
    let connector = &gent.evses[0].connectors[0];
    assert_eq!(connector.max_electric_power, None);
    // 220 V × 16 A over three phases.
    assert_eq!(connector.max_power_w(), 10_560);
    assert_eq!(connector.tariff_ids, ["11"]);
}

#[test]
fn the_published_fragments_of_a_location_read_and_write_back_unchanged() {
    for name in [
        "location_energymix_example_complete.json",
        "location_energymix_example_energy_provider.json",
        "location_energymix_example_simple.json",
    ] {
        round_trips::<WithEnergyMix>(name);
    }
    for name in [
        "location_hours_247_open_exception_closing.json",
        "location_hours_opening_hours_with_exceptional_closing.json",
        "location_hours_opening_hours_with_exceptional_opening.json",
    ] {
        round_trips::<Hours>(name);
    }
    let hours: WithOpeningTimes = round_trips("location_regularhours_example.json");
    assert_eq!(hours.opening_times.regular_hours.len(), 5);
}

#[test]
fn every_published_location_patch_reads_as_its_patch() {
    let name: LocationPatch = round_trips("location_patch_example_location.json");
    assert_eq!(name.name.as_deref(), Some("Interparking Gent Zuid"));
    let status: EvsePatch = round_trips("location_patch_example_status.json");
    assert!(status.is_status_only());
    let removed: EvsePatch = round_trips("location_patch_example_remove_evse.json");
    assert_eq!(removed.status, Some(fleetdesk_ocpi::EvseStatus::Removed));
    let tariff: ConnectorPatch = round_trips("location_patch_example_tariff.json");
    assert_eq!(tariff.tariff_ids, Some(vec!["15".to_owned()]));
}

#[test]
fn the_published_evse_put_is_taken_with_what_it_leaves_out_filled_in() {
    // Its Connector has no power_type, max_voltage, max_amperage or
    // last_updated, which the Connector object requires: read strictly, it
    // is refused.
    let reason = refused::<Evse>("location_put_example_add_evse.json");
    assert!(reason.contains("missing field `power_type`"), "{reason}");

    // Read as a receiver reads a push, it is taken.
    let received = Utc.with_ymd_and_hms(2026, 12, 5, 8, 0, 0).unwrap();
    let mut json: serde_json::Value =
        serde_json::from_str(&text("location_put_example_add_evse.json")).unwrap();
    complete_location_push(PushedLevel::Evse, &mut json, received);
    let evse: Evse = serde_json::from_value(json).unwrap();
    // `physical_reference` sent as a number reads as its text; `floor` is
    // not OCPI's (`floor_level`) and is left out.
    assert_eq!(evse.physical_reference.as_deref(), Some("3"));
    assert_eq!(evse.floor_level, None);
    let connector = &evse.connectors[0];
    // A Type 2 socket is AC; its voltage and amperage are not known (0),
    // nor, then, its power; it was last updated with its EVSE.
    assert_eq!(connector.power_type, PowerType::Ac1Phase);
    assert_eq!((connector.max_voltage, connector.max_amperage), (0, 0));
    assert_eq!(connector.max_power_w(), 0);
    assert_eq!(connector.last_updated, evse.last_updated);
    assert_eq!(
        fleetdesk_ocpi::datetime::format(&evse.last_updated),
        "2019-06-24T12:39:09Z"
    );
    assert_eq!(connector.tariff_ids, ["14"]);

    // What it writes is complete: it reads strictly.
    let written = serde_json::to_string(&evse).unwrap();
    assert_eq!(serde_json::from_str::<Evse>(&written).unwrap(), evse);
}

#[test]
fn a_pushed_location_or_connector_is_completed_at_every_level() {
    let received = Utc.with_ymd_and_hms(2026, 12, 5, 8, 0, 0).unwrap();
    let mut location: serde_json::Value =
        serde_json::from_str(&text("location_example.json")).unwrap();
    location.as_object_mut().unwrap().remove("last_updated");
    let evse = &mut location["evses"][0];
    evse.as_object_mut().unwrap().remove("last_updated");
    let connector = evse["connectors"][0].as_object_mut().unwrap();
    for field in ["power_type", "max_voltage", "max_amperage", "last_updated"] {
        connector.remove(field);
    }
    complete_location_push(PushedLevel::Location, &mut location, received);
    let location: Location = serde_json::from_value(location).unwrap();
    // Stamped at receipt, and the parts without a time with their parent's.
    assert_eq!(location.last_updated, received);
    assert_eq!(location.evses[0].last_updated, received);
    assert_eq!(location.evses[0].connectors[0].last_updated, received);
    // The connector's own time, where it has one, is kept.
    assert_ne!(location.evses[0].connectors[1].last_updated, received);

    // A Tesla plug carries AC or DC: without power_type it is refused.
    let mut tesla = serde_json::json!({
        "id": "1", "standard": "TESLA_S", "format": "CABLE",
    });
    complete_location_push(PushedLevel::Connector, &mut tesla, received);
    let reason = serde_json::from_value::<Connector>(tesla)
        .unwrap_err()
        .to_string();
    assert!(reason.contains("missing field `power_type`"), "{reason}");
    // A CCS combo is DC, and what the platform sent is kept.
    let mut ccs = serde_json::json!({
        "id": "2", "standard": "IEC_62196_T2_COMBO", "format": "CABLE",
        "max_voltage": 750, "max_electric_power": 120000,
    });
    complete_location_push(PushedLevel::Connector, &mut ccs, received);
    let ccs: Connector = serde_json::from_value(ccs).unwrap();
    assert_eq!(ccs.power_type, PowerType::Dc);
    assert_eq!((ccs.max_voltage, ccs.max_amperage), (750, 0));
    assert_eq!(ccs.max_power_w(), 120_000);
    assert_eq!(ccs.last_updated, received);
}

#[test]
fn every_published_tariff_reads_and_writes_back_unchanged() {
    for name in TARIFFS {
        let t: Tariff = round_trips(name);
        assert!(!t.elements.is_empty(), "{name}");
    }
    let plain: Tariff = round_trips("tariff_1_simple_2hour.json");
    assert!(plain.elements.iter().all(|e| e.x_period.is_none()));
    let capped: Tariff = round_trips("tariff_6_025kwh_start_max_price.json");
    assert!(capped.max_price.is_some() && capped.end_date_time.is_some());
}

#[test]
fn the_published_tariff_put_is_taken_stamped_with_when_it_was_received() {
    // No last_updated, which the Tariff object requires: read strictly, it
    // is refused.
    let reason = refused::<Tariff>("tariff_put_example.json");
    assert!(reason.contains("missing field `last_updated`"), "{reason}");

    // Read as a receiver reads a push, it is taken, stamped at receipt,
    // and writes back as sent but for that.
    let received = Utc.with_ymd_and_hms(2026, 12, 5, 8, 0, 0).unwrap();
    let mut json: serde_json::Value =
        serde_json::from_str(&text("tariff_put_example.json")).unwrap();
    complete_tariff_push(&mut json, received);
    let tariff: Tariff = serde_json::from_value(json.clone()).unwrap();
    assert_eq!(tariff.last_updated, received);
    assert_eq!(json["last_updated"], "2026-12-05T08:00:00Z");
    assert_eq!(serde_json::to_value(&tariff).unwrap(), json);
}

#[test]
fn every_published_token_reads_and_writes_back_unchanged() {
    for name in TOKENS {
        round_trips::<Token>(name);
    }
    let full: Token = round_trips("token_example_2_full_rfid.json");
    assert_eq!(full.language.as_deref(), Some("it"));
    assert_eq!(
        full.energy_contract.map(|c| c.supplier_name).as_deref(),
        Some("Greenpeace Energy eG")
    );
    let patch: TokenPatch = round_trips("token_patch_example.json");
    assert_eq!(patch.valid, Some(false));
}

#[test]
fn no_published_example_is_left_unread() {
    let read: Vec<&str> = LOCATIONS
        .iter()
        .chain(&TARIFFS)
        .chain(&TOKENS)
        .copied()
        .chain([
            "location_energymix_example_complete.json",
            "location_energymix_example_energy_provider.json",
            "location_energymix_example_simple.json",
            "location_hours_247_open_exception_closing.json",
            "location_hours_opening_hours_with_exceptional_closing.json",
            "location_hours_opening_hours_with_exceptional_opening.json",
            "location_regularhours_example.json",
            "location_patch_example_location.json",
            "location_patch_example_status.json",
            "location_patch_example_remove_evse.json",
            "location_patch_example_tariff.json",
            "location_put_example_add_evse.json",
            "tariff_put_example.json",
            "token_patch_example.json",
        ])
        .chain(SESSIONS_AND_CDRS)
        .collect();
    for entry in std::fs::read_dir(dir()).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".json") {
            assert!(read.contains(&name.as_str()), "{name} is not read");
        }
    }
}

const SESSIONS_AND_CDRS: [&str; 5] = [
    "session_example_1_simple_start.json",
    "session_example_2_short_finished.json",
    "session_patch_example_charging_period.json",
    "session_patch_example_total_cost.json",
    "cdr_example.json",
];

#[test]
fn every_session_and_cdr_example_reads_and_writes_back_the_same() {
    for name in &SESSIONS_AND_CDRS[..2] {
        round_trips::<Session>(name);
    }
    for name in &SESSIONS_AND_CDRS[2..4] {
        round_trips::<SessionPatch>(name);
    }
    let cdr: Cdr = round_trips("cdr_example.json");
    // A time-priced CDR: the cost is time, not energy.
    assert!(cdr.total_energy_cost.is_none());
    assert_eq!(cdr.total_time_cost.unwrap().to_fen(), Some(440));
    assert!(cdr.session_id.is_none());
}

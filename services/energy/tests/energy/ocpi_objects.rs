//! Energy's Locations and Tariffs receivers against what OCPI 2.2.1
//! publishes: every Location and Tariff example of the standard
//! (`services/ocpi/tests/examples`, unchanged but for the party they
//! belong to and the identifiers that must name known objects) pushed by
//! the registered platform, answered as OCPI has it, stored (the station,
//! its connectors, the tariff's components and bands) and answered back by
//! a GET as it was pushed.

use crate::support;

use std::collections::HashSet;
use std::path::PathBuf;

use chrono::Timelike as _;
use fleetdesk_charging_standin::PARTY_ID;
use fleetdesk_ocpi::{COUNTRY, EMSP_BASE, Empty, status};
use fleetdesk_proto::energy::v1 as pb;
use serde_json::{Value, json};
use support::platform::{Charging, charging};

fn example(name: &str) -> Value {
    // At run time: a binary reused from another checkout reads this one's files.
    let path =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
            .join("../ocpi/tests/examples")
            .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    serde_json::from_str(&text).unwrap()
}

/// An example as the stand-in's own: its country and party.
fn ours(name: &str) -> Value {
    let mut object = example(name);
    object["country_code"] = json!(COUNTRY);
    object["party_id"] = json!(PARTY_ID);
    object
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

impl Charging {
    fn url(&self, path: &str) -> String {
        format!("{}{EMSP_BASE}/{path}", self.emsp_url)
    }

    fn location_url(&self, path: &str) -> String {
        self.url(&format!("locations/{COUNTRY}/{PARTY_ID}/{path}"))
    }

    fn tariff_url(&self, id: &str) -> String {
        self.url(&format!("tariffs/{COUNTRY}/{PARTY_ID}/{id}"))
    }

    async fn put(&self, url: &str, body: &Value) -> (u16, Empty) {
        self.platform.emsp().put_raw(url, body).await.unwrap()
    }

    async fn patch(&self, url: &str, body: &Value) -> (u16, Empty) {
        self.platform.emsp().patch_raw(url, body).await.unwrap()
    }

    /// The object energy answers at `url`.
    async fn stored(&self, url: &str) -> Value {
        let (http, answer) = self.platform.emsp().get_raw(url).await.unwrap();
        assert_eq!(
            (http, answer.status_code),
            (200, status::SUCCESS),
            "{url}: {answer:?}"
        );
        answer.data.unwrap()
    }

    async fn stations(&self, keyword: &str) -> Vec<pb::Station> {
        let s = &self.stack;
        s.client
            .clone()
            .list_stations(s.req(
                &s.a,
                pb::ListStationsRequest {
                    keyword: keyword.to_owned(),
                    ..Default::default()
                },
            ))
            .await
            .unwrap()
            .into_inner()
            .stations
    }
}

/// 201 for an object new here, 200 for one replaced.
fn created_or_replaced(seen: &mut HashSet<String>, id: &str) -> u16 {
    if seen.insert(id.to_owned()) { 201 } else { 200 }
}

#[tokio::test]
async fn every_published_location_is_stored_and_answered_back_as_pushed() {
    // Arrange: energy with the registered stand-in.
    let c = charging().await;
    let mut seen = HashSet::new();

    for name in LOCATIONS {
        // Act: the platform PUTs the standard's location as its own.
        let location = ours(name);
        let id = location["id"].as_str().unwrap().to_owned();
        let (http, answer) = c.put(&c.location_url(&id), &location).await;

        // Assert: accepted, stored and answered back unchanged.
        assert_eq!(answer.status_code, status::SUCCESS, "{name}: {answer:?}");
        assert_eq!(http, created_or_replaced(&mut seen, &id), "{name}");
        assert_eq!(c.stored(&c.location_url(&id)).await, location, "{name}");
        let connectors: i64 = sqlx::query_scalar(
            "select count(*) from station_connector c join station s on s.id = c.station_id \
             where s.party_id = $1 and s.location_id = $2",
        )
        .bind(PARTY_ID)
        .bind(&id)
        .fetch_one(&c.stack.owner)
        .await
        .unwrap();
        let pushed = location["evses"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["connectors"].as_array().unwrap().len())
            .sum::<usize>();
        assert_eq!(connectors, pushed as i64, "{name}");
    }

    // The stations show in energy's list, the published one operating, the
    // unnamed home charge point by its address.
    let gent = c.stations("Gent Zuid").await;
    assert_eq!(gent.len(), 1);
    assert_eq!(gent[0].ac_connector_count, 3);
    assert_eq!(gent[0].ac_available_count, 2);
    assert_eq!(gent[0].max_power_kw, 10);
    assert_eq!(gent[0].status, pb::StationStatus::Operating as i32);
    let home = c.stations("Krautwigstraße").await;
    assert_eq!(home[0].name, "Krautwigstraße 283A");
    assert_eq!(home[0].status, pb::StationStatus::Closed as i32);
    let garage = c.stations("P-Huset Leonard").await;
    assert_eq!(garage[0].opening_hours, "07:00-18:00");

    // The EVSE and connector levels answer their part.
    let evse = c.stored(&c.location_url("LOC1/3257")).await;
    assert_eq!(evse["status"], "RESERVED");
    let connector = c.stored(&c.location_url("LOC1/3256/2")).await;
    assert_eq!(connector["tariff_ids"], json!(["13"]));
    let (http, answer) = c
        .platform
        .emsp()
        .get_raw(&c.location_url("NOPE"))
        .await
        .unwrap();
    assert_eq!((http, answer.status_code), (404, status::UNKNOWN_LOCATION));
}

#[tokio::test]
async fn the_published_patches_change_what_they_name_and_the_evse_put_is_taken() {
    // Arrange: the standard's public location, as the stand-in's.
    let c = charging().await;
    let location = ours("location_example.json");
    let (http, _) = c.put(&c.location_url("LOC1"), &location).await;
    assert_eq!(http, 201);

    // Act: the standard's PATCH examples, at LOC1 and its EVSEs 3256, 3257.
    for (path, name) in [
        ("LOC1", "location_patch_example_location.json"),
        ("LOC1/3256", "location_patch_example_status.json"),
        ("LOC1/3256/2", "location_patch_example_tariff.json"),
        ("LOC1/3257", "location_patch_example_remove_evse.json"),
    ] {
        let (http, answer) = c.patch(&c.location_url(path), &example(name)).await;
        assert_eq!(
            (http, answer.status_code),
            (200, status::SUCCESS),
            "{name}: {answer:?}"
        );
    }

    // Assert: each change is stored, and the parents moved on with it.
    let stored = c.stored(&c.location_url("LOC1")).await;
    assert_eq!(stored["name"], "Interparking Gent Zuid");
    assert_eq!(stored["last_updated"], "2019-06-24T12:39:09Z");
    assert_eq!(stored["evses"][0]["status"], "CHARGING");
    assert_eq!(
        stored["evses"][0]["connectors"][1]["tariff_ids"],
        json!(["15"])
    );
    assert_eq!(stored["evses"][1]["status"], "REMOVED");
    let station = c.stations("Interparking Gent Zuid").await;
    assert_eq!(station.len(), 1);
    // EVSE 3257 removed: its connector is gone; 3256 is charging.
    assert_eq!(station[0].ac_connector_count, 2);
    assert_eq!(station[0].ac_available_count, 0);

    // A PATCH older than what is stored changes nothing.
    let old = json!({ "status": "AVAILABLE", "last_updated": "2019-06-24T12:00:00Z" });
    let (_, answer) = c.patch(&c.location_url("LOC1/3256"), &old).await;
    assert_eq!(answer.status_code, status::SUCCESS);
    let evse = c.stored(&c.location_url("LOC1/3256")).await;
    assert_eq!(evse["status"], "CHARGING");

    // The standard's EVSE PUT lacks fields its Connector object requires
    // (power_type, max_voltage, max_amperage, last_updated), spells
    // floor_level `floor` and physical_reference as a number: taken as a
    // receiver takes what real platforms send, replacing EVSE 3256.
    let put = example("location_put_example_add_evse.json");
    let (http, answer) = c.put(&c.location_url("LOC1/3256"), &put).await;
    assert_eq!(
        (http, answer.status_code),
        (200, status::SUCCESS),
        "{answer:?}"
    );
    // Stored with what it left out filled in: the Type 2 socket is AC, its
    // voltage and amperage not known (0), its time its EVSE's; `floor` is
    // not OCPI's and is not kept.
    let mut expected = put.clone();
    expected.as_object_mut().unwrap().remove("floor");
    expected["physical_reference"] = json!("3");
    let connector = expected["connectors"][0].as_object_mut().unwrap();
    connector.insert("power_type".into(), json!("AC_1_PHASE"));
    connector.insert("max_voltage".into(), json!(0));
    connector.insert("max_amperage".into(), json!(0));
    connector.insert("last_updated".into(), json!("2019-06-24T12:39:09Z"));
    assert_eq!(c.stored(&c.location_url("LOC1/3256")).await, expected);
    let stored = c.stored(&c.location_url("LOC1")).await;
    assert_eq!(stored["evses"][0], expected);
    // Its pile counts as AC, available, of no known power.
    let pile: (String, Option<i32>) = sqlx::query_as(
        "select c.pile_no, c.power_kw from station_connector c \
         join station s on s.id = c.station_id \
         where s.location_id = 'LOC1' and c.evse_uid = '3256'",
    )
    .fetch_one(&c.stack.owner)
    .await
    .unwrap();
    assert_eq!(pile, ("3".to_owned(), None));
    let station = c.stations("Interparking Gent Zuid").await;
    assert_eq!(station[0].ac_connector_count, 1);
    assert_eq!(station[0].ac_available_count, 1);
    // A PATCH without last_updated is no PATCH either.
    let (http, answer) = c
        .patch(
            &c.location_url("LOC1/3256"),
            &json!({ "status": "AVAILABLE" }),
        )
        .await;
    assert_eq!(
        (http, answer.status_code),
        (200, status::INVALID_PARAMETERS)
    );
}

#[tokio::test]
async fn every_published_tariff_is_stored_with_its_components_and_answered_back() {
    // Arrange: energy with the registered stand-in, and the standard's
    // location whose connectors name tariffs 11, 12 and 13.
    let c = charging().await;
    let (http, _) = c
        .put(&c.location_url("LOC1"), &ours("location_example.json"))
        .await;
    assert_eq!(http, 201);
    let mut seen = HashSet::new();

    for name in TARIFFS {
        // Act: the platform PUTs the standard's tariff as its own.
        let tariff = ours(name);
        let id = tariff["id"].as_str().unwrap().to_owned();
        let (http, answer) = c.put(&c.tariff_url(&id), &tariff).await;

        // Assert: accepted, stored with every component, answered back.
        assert_eq!(answer.status_code, status::SUCCESS, "{name}: {answer:?}");
        assert_eq!(http, created_or_replaced(&mut seen, &id), "{name}");
        assert_eq!(c.stored(&c.tariff_url(&id)).await, tariff, "{name}");
        let components: i64 = sqlx::query_scalar(
            "select count(*) from tariff_component c join tariff t on t.id = c.tariff_id \
             where t.party_id = $1 and t.tariff_id = $2",
        )
        .bind(PARTY_ID)
        .bind(&id)
        .fetch_one(&c.stack.owner)
        .await
        .unwrap();
        let pushed = tariff["elements"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["price_components"].as_array().unwrap().len())
            .sum::<usize>();
        assert_eq!(components, pushed as i64, "{name}");
    }

    // A tariff priced by energy alone shows as one band of the day, without
    // a time-of-use period or service fee.
    let bands: Vec<(i16, i16, Option<i16>, i64, i64)> = sqlx::query_as(
        "select p.start_minute, p.end_minute, p.period, p.electricity_fen_per_mwh, \
         p.service_fee_fen_per_mwh from tariff_period p join tariff t on t.id = p.tariff_id \
         where t.party_id = $1 and t.tariff_id = '16'",
    )
    .bind(PARTY_ID)
    .fetch_all(&c.stack.owner)
    .await
    .unwrap();
    assert_eq!(bands, [(0, 1440, None, 25_000, 0)]);
    // Tariff 21 prices time and parking alone: no bands, components kept.
    let bands: i64 = sqlx::query_scalar(
        "select count(*) from tariff_period p join tariff t on t.id = p.tariff_id \
         where t.party_id = $1 and t.tariff_id = '21'",
    )
    .bind(PARTY_ID)
    .fetch_one(&c.stack.owner)
    .await
    .unwrap();
    assert_eq!(bands, 0);
    // The connector that named tariff 13 before it came now has it.
    let linked: bool = sqlx::query_scalar(
        "select c.tariff_id is not null from station_connector c \
         join station s on s.id = c.station_id \
         where s.location_id = 'LOC1' and c.evse_uid = '3256' and c.connector_id = '2'",
    )
    .fetch_one(&c.stack.owner)
    .await
    .unwrap();
    assert!(linked);

    // The standard's PUT example has no last_updated, which the Tariff
    // object requires: taken, stamped with when energy received it.
    let before = chrono::Utc::now().with_nanosecond(0).unwrap();
    let put = ours("tariff_put_example.json");
    let (http, answer) = c.put(&c.tariff_url("12"), &put).await;
    // Tariff 12 is the standard's simple one, PUT above: replaced.
    assert_eq!(
        (http, answer.status_code),
        (200, status::SUCCESS),
        "{answer:?}"
    );
    let after = chrono::Utc::now();
    let mut stored = c.stored(&c.tariff_url("12")).await;
    let stamped = stored.as_object_mut().unwrap().remove("last_updated");
    let stamped = fleetdesk_ocpi::datetime::parse(stamped.unwrap().as_str().unwrap()).unwrap();
    assert!(before <= stamped && stamped <= after, "{stamped}");
    assert_eq!(stored, put);
    let components: i64 = sqlx::query_scalar(
        "select count(*) from tariff_component c join tariff t on t.id = c.tariff_id \
         where t.party_id = $1 and t.tariff_id = '12'",
    )
    .bind(PARTY_ID)
    .fetch_one(&c.stack.owner)
    .await
    .unwrap();
    assert_eq!(components, 1);

    // A deleted tariff is gone, and a repeated DELETE answers the same.
    for _ in 0..2 {
        let (http, answer) = c
            .platform
            .emsp()
            .delete_raw(&c.tariff_url("13"))
            .await
            .unwrap();
        assert_eq!((http, answer.status_code), (200, status::SUCCESS));
    }
    let (http, _) = c
        .platform
        .emsp()
        .get_raw(&c.tariff_url("13"))
        .await
        .unwrap();
    assert_eq!(http, 404);
}

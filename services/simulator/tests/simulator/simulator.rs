//! The simulator against a real edge (fixed directory) and NATS: its
//! terminals sign on and report, and answer door commands honestly. And the
//! demo seed gives it a fleet to simulate.

use std::collections::HashSet;
use std::time::Duration;

use fleetdesk_kit::Shutdown;
use fleetdesk_kit::config::{CommonConfig, Environment};
use fleetdesk_proto::telematics::v1::{
    AlarmConfirmation, CommandDelivery, CommandOutcome, CommandResult, Fix, VehicleCommand,
    vehicle_command,
};
use fleetdesk_simulator::{Settings, SimVehicle, Start};
use fleetdesk_telematics::directory::{Binding, StaticDirectory};
use fleetdesk_telematics::{Application, Config, publish};
use fleetdesk_testkit::{NatsServer, TestDb};
use futures::StreamExt as _;
use prost::Message as _;

const ENTERPRISE: &str = "6f1c1c0e-2b53-4a57-8d0e-3d7a5f3f9c01";

fn vehicle(n: u8, phone: &str, start: Start) -> SimVehicle {
    SimVehicle {
        vehicle_id: format!("00000000-0000-4000-8000-0000000000{n:02}"),
        enterprise_id: ENTERPRISE.to_owned(),
        plate: format!("粤BD{n:05}"),
        phone: phone.to_owned(),
        terminal_id: format!("SIMT{n:04}"),
        refrigerated: n == 1,
        start,
        cameras: Vec::new(),
        odometer_m: 30_000_000,
    }
}

/// An edge knowing `fleet`, and the simulator driving it (reports every
/// second, terminals raising an alarm in that share of the reports).
async fn start(nats: &NatsServer, fleet: &[SimVehicle]) -> Shutdown {
    start_with_alarms(nats, fleet, 0.0).await
}

async fn start_with_alarms(nats: &NatsServer, fleet: &[SimVehicle], alarm_chance: f64) -> Shutdown {
    fleetdesk_testkit::init_test_logs();
    let objects = std::env::temp_dir().join("fd-simulator-test-objects");
    let config = Config::with_defaults(
        CommonConfig {
            database_url: String::new(),
            nats_url: nats.url(),
            internal_signing_key: None,
            environment: Environment::Development,
            db_max_connections: 1,
        },
        "http://127.0.0.1:1".to_owned(),
        objects,
        "127.0.0.1:0".to_owned(),
    );
    let directory = StaticDirectory::new(fleet.iter().map(|v| {
        (
            v.phone.clone(),
            Binding {
                enterprise_id: v.enterprise_id.clone(),
                vehicle_id: v.vehicle_id.clone(),
            },
        )
    }));
    let app = Application::build(&config, directory).await.unwrap();
    let port = app.port();
    let shutdown = Shutdown::new();
    tokio::spawn(app.run_until_stopped(shutdown.clone()));
    let mut settings = Settings::new(format!("127.0.0.1:{port}"), Duration::from_secs(1), 7);
    settings.alarm_chance = alarm_chance;
    settings.blind_zone_chance = 0.0;
    tokio::spawn(fleetdesk_simulator::simulate(
        fleet.to_vec(),
        settings,
        shutdown.clone(),
    ));
    shutdown
}

/// Messages on `filter` until `done` says enough, or 15 s.
async fn collect<T: prost::Message + Default>(
    nats: &NatsServer,
    filter: &str,
    done: impl Fn(&[T]) -> bool,
) -> Vec<T> {
    let js = async_nats::jetstream::new(async_nats::connect(nats.url()).await.unwrap());
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    let stream = loop {
        match js.get_stream(publish::TELEMETRY_STREAM).await {
            Ok(stream) => break stream,
            Err(_) if tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(err) => panic!("no telemetry stream: {err}"),
        }
    };
    let consumer = stream
        .create_consumer(async_nats::jetstream::consumer::pull::OrderedConfig {
            filter_subject: filter.to_owned(),
            ..Default::default()
        })
        .await
        .unwrap();
    let mut messages = consumer.messages().await.unwrap();
    let mut out = Vec::new();
    while !done(&out) {
        match tokio::time::timeout_at(deadline, messages.next()).await {
            Ok(Some(Ok(m))) => out.push(T::decode(m.payload.clone()).unwrap()),
            _ => break,
        }
    }
    out
}

async fn lock(nats: &NatsServer, phone: &str, command_id: &str) -> CommandDelivery {
    let client = async_nats::connect(nats.url()).await.unwrap();
    let command = VehicleCommand {
        command_id: command_id.to_owned(),
        phone: phone.to_owned(),
        action: Some(vehicle_command::Action::LockDoors(true)),
    };
    let answer = client
        .request(
            fleetdesk_kit::subjects::telematics_command(phone),
            command.encode_to_vec().into(),
        )
        .await
        .expect("the edge holding the terminal answers");
    CommandDelivery::decode(answer.payload).unwrap()
}

#[tokio::test]
async fn simulated_terminals_sign_on_report_and_answer_door_commands_honestly() {
    let nats = NatsServer::start().await;
    let parked = vehicle(1, "14400000000001", Start::Parked);
    let driving = vehicle(2, "14400000000002", Start::Driving);
    let shutdown = start(&nats, &[parked.clone(), driving.clone()]).await;

    // Both report: the parked van with its box temperatures, the other moving.
    let fixes: Vec<Fix> = collect(&nats, "telemetry.*.*", |fixes: &[Fix]| {
        let moving = fixes
            .iter()
            .any(|f| f.vehicle_id == driving.vehicle_id && f.speed_dkmh > 0);
        let parked_fix = fixes.iter().any(|f| f.vehicle_id == parked.vehicle_id);
        moving && parked_fix
    })
    .await;
    let vehicles: HashSet<&str> = fixes.iter().map(|f| f.vehicle_id.as_str()).collect();
    assert_eq!(vehicles.len(), 2, "{fixes:?}");
    for f in &fixes {
        assert_eq!(f.enterprise_id, ENTERPRISE);
        assert!(f.soc_percent.is_some() && f.mileage_m.is_some());
        assert!(
            (22.3..22.8).contains(&f.latitude),
            "Shenzhen plates drive in Shenzhen"
        );
    }
    let van = fixes
        .iter()
        .find(|f| f.vehicle_id == parked.vehicle_id)
        .unwrap();
    assert_eq!(van.speed_dkmh, 0);
    assert_eq!(van.temperatures.len(), 2);

    // Locking: done while parked, refused while moving.
    assert!(lock(&nats, &parked.phone, "lock-parked").await.sent);
    assert!(lock(&nats, &driving.phone, "lock-driving").await.sent);
    let results: Vec<CommandResult> =
        collect(&nats, "telemetry.*.*.command", |r: &[CommandResult]| {
            r.iter().any(|r| {
                r.command_id == "lock-parked" && r.outcome == CommandOutcome::Succeeded as i32
            }) && r.iter().any(|r| {
                r.command_id == "lock-driving" && r.outcome != CommandOutcome::Acknowledged as i32
            })
        })
        .await;
    let last = |id: &str| {
        results
            .iter()
            .rev()
            .find(|r| r.command_id == id)
            .unwrap_or_else(|| panic!("no result for {id}: {results:?}"))
    };
    let done = last("lock-parked");
    assert_eq!(done.outcome, CommandOutcome::Succeeded as i32);
    let position = done.position.as_ref().unwrap();
    assert_eq!(position.status_bits & (1 << 13), 1 << 13, "doors locked");
    let refused = last("lock-driving");
    assert_eq!(refused.outcome, CommandOutcome::Failed as i32);
    assert_eq!(refused.detail, "终端拒绝: 车辆行驶中");
    shutdown.trigger();
}

#[tokio::test]
async fn an_emergency_is_held_until_the_platform_confirms_it_with_0x8203() {
    let nats = NatsServer::start().await;
    let van = vehicle(3, "14400000000003", Start::Parked);
    let shutdown = start_with_alarms(&nats, std::slice::from_ref(&van), 1.0).await;
    let emergency = |f: &Fix| f.alarm_bits & 1 == 1;
    // The button's bit stays set report after report.
    let held: Vec<Fix> = collect(&nats, "telemetry.*.*", |fixes: &[Fix]| {
        fixes.iter().filter(|f| emergency(f)).count() >= 3
    })
    .await;
    let first = held
        .iter()
        .position(emergency)
        .expect("an emergency report");
    assert!(held[first..].iter().all(emergency), "held: {held:?}");

    let client = async_nats::connect(nats.url()).await.unwrap();
    let confirm = VehicleCommand {
        command_id: "alarm-1".to_owned(),
        phone: van.phone.clone(),
        action: Some(vehicle_command::Action::ConfirmAlarm(AlarmConfirmation {
            alarm_serial: 0,
            alarm_types: 1,
        })),
    };
    let answer = client
        .request(
            fleetdesk_kit::subjects::telematics_command(&van.phone),
            confirm.encode_to_vec().into(),
        )
        .await
        .expect("the edge holding the terminal answers");
    assert!(CommandDelivery::decode(answer.payload).unwrap().sent);
    // Cleared from the next reports on (the driver leaves the button alone
    // for a while after being called back).
    let after: Vec<Fix> = collect(&nats, "telemetry.*.*", |fixes: &[Fix]| {
        fixes.len() > held.len() + 3
    })
    .await;
    let tail = &after[after.len() - 2..];
    assert!(tail.iter().all(|f| !emergency(f)), "after: {tail:?}");
    shutdown.trigger();
}

#[tokio::test]
async fn the_demo_fleet_has_a_terminal_phone_for_every_bound_vehicle() {
    let db = TestDb::migrated(&[&fleetdesk_vehicle::SCHEMA]).await;
    let owner = fleetdesk_kit::db::connect_owner(&db.url, "vehicle", 2)
        .await
        .unwrap();
    fleetdesk_seed::vehicle::run(&owner).await.unwrap();
    owner.close().await;

    let pool = fleetdesk_kit::db::connect(&db.url, "vehicle", 2)
        .await
        .unwrap();
    let fleet = fleetdesk_simulator::load_fleet(&pool, 5_000).await.unwrap();
    assert!(fleet.len() > 1_500, "{} terminals", fleet.len());
    let phones: HashSet<&str> = fleet.iter().map(|v| v.phone.as_str()).collect();
    assert_eq!(phones.len(), fleet.len(), "one phone per terminal");
    assert!(fleet.iter().all(|v| v.phone.len() <= 20));
    assert!(fleet.iter().any(|v| v.refrigerated));
    // Cameras on road and cab: the first two and every fourth vehicle.
    let with_cameras: Vec<usize> = fleet
        .iter()
        .enumerate()
        .filter(|(_, v)| !v.cameras.is_empty())
        .map(|(i, _)| i)
        .collect();
    assert_eq!(with_cameras[..4], [0, 1, 4, 8]);
    assert_eq!(with_cameras.len(), fleet.len().div_ceil(4) + 1);
    assert!(
        fleet
            .iter()
            .all(|v| v.cameras.is_empty() || v.cameras == [1, 2])
    );
    // Nothing reported yet: each odometer starts where the seed's service
    // history expects it (5,000 to 80,000 km, by the vehicle).
    assert!(fleet.iter().all(|v| {
        let id = uuid::Uuid::parse_str(&v.vehicle_id).unwrap();
        v.odometer_m == fleetdesk_simulator::demo_odometer_m(id)
            && (5_000_000..80_000_000).contains(&v.odometer_m)
    }));
    // A vehicle that reported drives on from its last odometer after a restart.
    let first = &fleet[0];
    let owner = fleetdesk_kit::db::connect_owner(&db.url, "vehicle", 1)
        .await
        .unwrap();
    let mut tx = fleetdesk_kit::db::begin_service(&owner).await.unwrap();
    sqlx::query(
        "insert into latest_position (vehicle_id, enterprise_id, fix_time, receive_time, lat, lng, \
           altitude_m, speed_dkmh, heading, alarm_bits, status_bits, mileage_m) \
         values ($1::uuid, $2::uuid, now(), now(), 22.5, 114.0, 0, 0, 0, 0, 0, 123456700)",
    )
    .bind(&first.vehicle_id)
    .bind(&first.enterprise_id)
    .execute(&mut *tx)
    .await
    .unwrap();
    tx.commit().await.unwrap();
    owner.close().await;
    let again = fleetdesk_simulator::load_fleet(&pool, 10).await.unwrap();
    assert_eq!(again.len(), 10);
    assert_eq!(
        (again[0].vehicle_id.as_str(), again[0].odometer_m),
        (first.vehicle_id.as_str(), 123_456_700)
    );
    pool.close().await;
}

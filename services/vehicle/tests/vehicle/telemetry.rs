//! The vehicle service's telematics over real sockets, PostgreSQL and NATS:
//! the terminal directory the edge asks, telemetry ingest from the stream
//! (latency, duplicates, late fixes), history retention by partition, the
//! positions a caller of another tenant sees, and a live feed that follows
//! the organisation tree while it stays open.

use std::time::{Duration, Instant};

use chrono::{DateTime, Days, Utc};
use fleetdesk_kit::config::{CommonConfig, Environment, ServiceConfig};
use fleetdesk_kit::internal_token::{Claims, TokenSigner};
use fleetdesk_kit::reach::Reach;
use fleetdesk_kit::{Shutdown, db, events, grpc};
use fleetdesk_proto::telematics::v1 as tpb;
use fleetdesk_proto::telematics::v1::terminal_directory_service_client::TerminalDirectoryServiceClient;
use fleetdesk_proto::vehicle::v1 as pb;
use fleetdesk_proto::vehicle::v1::telemetry_service_client::TelemetryServiceClient;
use fleetdesk_telemetry::ingest;
use fleetdesk_telemetry::positions::live::Live;
use fleetdesk_testkit::TestDb;
use prost::Message as _;
use sqlx_postgres::PgPool;
use tonic::transport::Channel;
use uuid::Uuid;

struct Service {
    db: TestDb,
    owner: PgPool,
    channel: Channel,
    signer: TokenSigner,
    nats: async_nats::Client,
    shutdown: Shutdown,
}

impl Drop for Service {
    fn drop(&mut self) {
        self.shutdown.trigger();
    }
}

async fn spawn() -> Service {
    fleetdesk_testkit::init_test_logs();
    let db = TestDb::migrated(&[&fleetdesk_vehicle::SCHEMA]).await;
    let common = CommonConfig {
        database_url: db.url.clone(),
        nats_url: fleetdesk_testkit::nats_url(),
        internal_signing_key: None,
        environment: Environment::Development,
        db_max_connections: 5,
    };
    let signer = TokenSigner::generate();
    let app = fleetdesk_vehicle::Application::build(
        ServiceConfig {
            common: common.clone(),
            grpc_addr: "127.0.0.1:0".to_owned(),
            migrate_on_start: true,
            object_store_dir: std::env::temp_dir().join(format!("fd-objects-{}", Uuid::new_v4())),
        },
        signer.verifier(),
    )
    .await
    .expect("build vehicle");
    let port = app.port();
    let shutdown = Shutdown::new();
    tokio::spawn(app.run_until_stopped(shutdown.clone()));
    let owner = db::connect_owner(&db.url, "vehicle", 2)
        .await
        .expect("owner pool");
    let nats = events::connect_nats(&common.nats_url, "telemetry-test")
        .await
        .expect("nats");
    let channel = grpc::lazy_channel(&format!("http://127.0.0.1:{port}")).expect("channel");
    Service {
        db,
        owner,
        channel,
        signer,
        nats,
        shutdown,
    }
}

/// A vehicle with an active terminal binding, written as the assets module would.
struct Car {
    enterprise: Uuid,
    id: Uuid,
    terminal: String,
    phone: String,
}

async fn car(service: &Service, enterprise: Uuid) -> Car {
    let id = Uuid::new_v4();
    let n = id.as_u128() % 100_000_000;
    let terminal = format!("T{n:08}");
    let phone = format!("139{n:08}");
    let org = Uuid::new_v4();
    sqlx::query(
        "insert into vehicle (id, enterprise_id, org_id, plate_number, plate_color, vin, brand, \
         model, category, energy_type, ownership_type, status, terminal_id, terminal_sim, \
         terminal_bound_at) values ($1, $2, $3, $4, 3, $5, '比亚迪', 'T5', 2, 1, 2, 1, $6, $7, now())",
    )
    .bind(id)
    .bind(enterprise)
    .bind(org)
    .bind(format!("粤B{n:05}"))
    .bind(format!("LGXCE4CB{n:09}"))
    .bind(&terminal)
    .bind(format!("0{phone}"))
    .execute(&service.owner)
    .await
    .expect("vehicle");
    sqlx::query(
        "insert into vehicle_binding (id, enterprise_id, org_id, vehicle_id, kind, target_id, \
         target_name, terminal_sim, bound_at) values ($1, $2, $3, $4, 3, $5, $5, $6, now())",
    )
    .bind(Uuid::new_v4())
    .bind(enterprise)
    .bind(org)
    .bind(id)
    .bind(&terminal)
    .bind(format!("0{phone}"))
    .execute(&service.owner)
    .await
    .expect("binding");
    Car {
        enterprise,
        id,
        terminal,
        phone,
    }
}

fn as_service<T>(service: &Service, enterprise: Option<Uuid>, message: T) -> tonic::Request<T> {
    let mut claims = Claims::service("telematics");
    claims.ent = enterprise.map(|e| e.to_string());
    grpc::outgoing(message, &service.signer, &claims)
}

fn fix(car: &Car, at: DateTime<Utc>, speed_dkmh: i32, lat: f64) -> tpb::Fix {
    tpb::Fix {
        terminal: car.phone.clone(),
        enterprise_id: car.enterprise.to_string(),
        vehicle_id: car.id.to_string(),
        fix_time: Some(fleetdesk_kit::convert::timestamp(at)),
        receive_time: Some(fleetdesk_kit::convert::timestamp(Utc::now())),
        latitude: lat,
        longitude: 114.05,
        altitude_m: 12,
        speed_dkmh,
        heading: 90,
        alarm_bits: 0,
        status_bits: 3,
        mileage_m: Some(120_000),
        soc_percent: Some(80),
        temperatures: vec![tpb::ProbeTemperature {
            probe: 1,
            deci_celsius: -182,
        }],
        backfill: false,
        safety_alarms: Vec::new(),
    }
}

/// Publishes fixes as the edge does (Nats-Msg-Id = terminal:fix seconds).
async fn publish(service: &Service, fixes: &[tpb::Fix]) {
    let js = events::jetstream(service.nats.clone());
    ingest::ensure_stream(&js).await.expect("stream");
    for f in fixes {
        let mut headers = async_nats::HeaderMap::new();
        let secs = f.fix_time.as_ref().map_or(0, |t| t.seconds);
        headers.insert("Nats-Msg-Id", format!("{}:{secs}", f.terminal).as_str());
        js.publish_with_headers(
            format!("telemetry.{}.{}", f.enterprise_id, f.vehicle_id),
            headers,
            f.encode_to_vec().into(),
        )
        .await
        .expect("publish")
        .await
        .expect("ack");
    }
}

/// Waits until the service's telemetry consumer exists (it takes fixes
/// published from then on).
async fn ingest_ready(service: &Service) {
    let js = events::jetstream(service.nats.clone());
    let stream = ingest::ensure_stream(&js).await.expect("stream");
    let durable = ingest::consumer::durable_name(&service.db.name);
    let ready = eventually(Duration::from_secs(10), || {
        let stream = stream.clone();
        let durable = durable.clone();
        async move { stream.consumer_info(&durable).await.is_ok() }
    })
    .await;
    assert!(ready, "no consumer {durable}");
}

async fn latest(service: &Service, car: &Car) -> Option<pb::VehiclePosition> {
    latest_as(service, car.enterprise, car.id).await
}

/// The latest position of `vehicle` as a caller of `enterprise` sees it.
async fn latest_as(
    service: &Service,
    enterprise: Uuid,
    vehicle: Uuid,
) -> Option<pb::VehiclePosition> {
    let mut client = TelemetryServiceClient::new(service.channel.clone());
    let answer = client
        .list_latest_positions(as_service(
            service,
            Some(enterprise),
            pb::ListLatestPositionsRequest {
                whole_map: true,
                ..Default::default()
            },
        ))
        .await
        .expect("latest")
        .into_inner();
    answer
        .positions
        .into_iter()
        .find(|p| p.vehicle_id == vehicle.to_string())
}

/// Polls `check` until it holds or `within` passes.
async fn eventually<F, Fut>(within: Duration, mut check: F) -> bool
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = Instant::now() + within;
    loop {
        if check().await {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

#[tokio::test]
async fn a_bound_terminal_registers_and_authenticates_to_its_vehicle_and_others_are_refused() {
    let service = spawn().await;
    let a = car(&service, Uuid::new_v4()).await;
    let mut directory = TerminalDirectoryServiceClient::new(service.channel.clone());

    let registered = directory
        .register_terminal(as_service(
            &service,
            None,
            tpb::RegisterTerminalRequest {
                phone: format!("00{}", a.phone),
                terminal_id: a.terminal.clone(),
                ..Default::default()
            },
        ))
        .await
        .expect("register")
        .into_inner();
    assert_eq!(registered.outcome, tpb::RegisterOutcome::Accepted as i32);
    assert!(registered.auth_code.len() >= 16);
    let stored: Vec<u8> =
        sqlx::query_scalar("select code_hash from terminal_auth where phone = $1")
            .bind(&a.phone)
            .fetch_one(&service.owner)
            .await
            .expect("stored code");
    assert_ne!(
        stored,
        registered.auth_code.as_bytes(),
        "codes are kept hashed"
    );

    let auth = |code: String| tpb::AuthenticateTerminalRequest {
        phone: a.phone.clone(),
        auth_code: code,
    };
    let ok = directory
        .authenticate_terminal(as_service(
            &service,
            None,
            auth(registered.auth_code.clone()),
        ))
        .await
        .expect("authenticate")
        .into_inner();
    assert!(ok.accepted);
    assert_eq!(
        (ok.enterprise_id, ok.vehicle_id),
        (a.enterprise.to_string(), a.id.to_string())
    );
    let wrong = directory
        .authenticate_terminal(as_service(&service, None, auth("nope".into())))
        .await
        .expect("authenticate")
        .into_inner();
    assert!(!wrong.accepted);

    // Unknown SIM, and a known SIM with another serial.
    let unknown = directory
        .register_terminal(as_service(
            &service,
            None,
            tpb::RegisterTerminalRequest {
                phone: "13000000000".into(),
                terminal_id: "NOBODY".into(),
                ..Default::default()
            },
        ))
        .await
        .expect("register")
        .into_inner();
    assert_eq!(unknown.outcome, tpb::RegisterOutcome::NoTerminal as i32);
    assert!(unknown.auth_code.is_empty());
    let swapped = directory
        .register_terminal(as_service(
            &service,
            None,
            tpb::RegisterTerminalRequest {
                phone: a.phone.clone(),
                terminal_id: "OTHER".into(),
                ..Default::default()
            },
        ))
        .await
        .expect("register")
        .into_inner();
    assert_eq!(swapped.outcome, tpb::RegisterOutcome::VehicleTaken as i32);

    // Unbinding revokes the code at once.
    sqlx::query("update vehicle_binding set unbound_at = now() where vehicle_id = $1")
        .bind(a.id)
        .execute(&service.owner)
        .await
        .expect("unbind");
    let revoked = directory
        .authenticate_terminal(as_service(&service, None, auth(registered.auth_code)))
        .await
        .expect("authenticate")
        .into_inner();
    assert!(!revoked.accepted);

    // A user (not a service) is refused.
    let mut user = Claims::service("gateway");
    user.sub = format!("user:{}", Uuid::new_v4());
    user.ent = Some(a.enterprise.to_string());
    let refused = directory
        .register_terminal(grpc::outgoing(
            tpb::RegisterTerminalRequest::default(),
            &service.signer,
            &user,
        ))
        .await;
    assert!(refused.is_err());
}

#[tokio::test]
async fn a_terminal_authenticates_with_the_maker_of_its_last_registration() {
    let service = spawn().await;
    let a = car(&service, Uuid::new_v4()).await;
    let mut directory = TerminalDirectoryServiceClient::new(service.channel.clone());
    let mut sign_on = async |maker: &str| {
        let registered = directory
            .register_terminal(as_service(
                &service,
                None,
                tpb::RegisterTerminalRequest {
                    phone: a.phone.clone(),
                    terminal_id: a.terminal.clone(),
                    maker_id: maker.to_owned(),
                    ..Default::default()
                },
            ))
            .await
            .expect("register")
            .into_inner();
        assert_eq!(registered.outcome, tpb::RegisterOutcome::Accepted as i32);
        // As after an edge restart: only the code is carried over.
        directory
            .authenticate_terminal(as_service(
                &service,
                None,
                tpb::AuthenticateTerminalRequest {
                    phone: a.phone.clone(),
                    auth_code: registered.auth_code,
                },
            ))
            .await
            .expect("authenticate")
            .into_inner()
    };

    let first = sign_on(" 70107 ").await;
    assert!(first.accepted);
    assert_eq!(first.maker_id, "70107", "kept trimmed");
    let again = sign_on("FLEET").await;
    assert_eq!(again.maker_id, "FLEET", "a re-registration replaces it");
    let blank = sign_on("").await;
    assert!(blank.accepted);
    assert_eq!(blank.maker_id, "", "none sent, none answered");
}

#[tokio::test]
async fn a_published_fix_is_in_the_latest_positions_within_a_second() {
    let service = spawn().await;
    let a = car(&service, Uuid::new_v4()).await;
    ingest_ready(&service).await;

    let at = Utc::now() - chrono::Duration::seconds(2);
    let started = Instant::now();
    publish(&service, &[fix(&a, at, 356, 22.55)]).await;
    assert!(
        eventually(Duration::from_secs(1), || async {
            latest(&service, &a).await.is_some()
        })
        .await,
        "not visible within 1 s"
    );
    let elapsed = started.elapsed();
    let position = latest(&service, &a).await.expect("latest");
    assert_eq!(position.speed_kmh, 35.6);
    assert_eq!(position.status, pb::PositionStatus::Driving as i32);
    assert_eq!(position.temperatures[0].celsius, -18.2);
    assert_eq!(position.mileage_m, Some(120_000));
    assert!(elapsed < Duration::from_secs(1), "{elapsed:?}");

    // Another tenant's caller sees none of it.
    assert!(latest_as(&service, Uuid::new_v4(), a.id).await.is_none());
}

#[tokio::test]
async fn out_of_order_and_repeated_fixes_are_stored_once_and_the_latest_is_the_newest() {
    let service = spawn().await;
    let a = car(&service, Uuid::new_v4()).await;
    let base = Utc::now() - chrono::Duration::minutes(5);
    let at = |s: i64| base + chrono::Duration::seconds(s);
    ingest_ready(&service).await;
    publish(&service, &[fix(&a, at(0), 0, 22.50)]).await;

    // Newest first, then older ones, then the same fixes again under new
    // message ids (past the stream's dedupe: a terminal's re-upload).
    let late = [
        fix(&a, at(60), 100, 22.56),
        fix(&a, at(30), 100, 22.53),
        fix(&a, at(40), 100, 22.54),
    ];
    publish(&service, &late).await;
    let mut again = late.to_vec();
    for f in &mut again {
        f.terminal.push('x');
    }
    publish(&service, &again).await;
    let count = || async {
        sqlx::query_scalar::<_, i64>("select count(*) from position where vehicle_id = $1")
            .bind(a.id)
            .fetch_one(&service.owner)
            .await
            .expect("count")
    };
    assert!(eventually(Duration::from_secs(5), || async { count().await >= 4 }).await);
    // A later fix after all of them proves the repeats were applied too.
    publish(&service, &[fix(&a, at(20), 0, 22.52)]).await;
    assert!(eventually(Duration::from_secs(5), || async { count().await == 5 }).await);
    let times: Vec<DateTime<Utc>> =
        sqlx::query_scalar("select fix_time from position where vehicle_id = $1 order by fix_time")
            .bind(a.id)
            .fetch_all(&service.owner)
            .await
            .expect("times");
    assert_eq!(times.len(), 5);
    let readings: i64 =
        sqlx::query_scalar("select count(*) from temperature_reading where vehicle_id = $1")
            .bind(a.id)
            .fetch_one(&service.owner)
            .await
            .expect("readings");
    assert!(readings >= 4);
    let newest = latest(&service, &a).await.expect("latest");
    assert_eq!(
        newest
            .gps_time
            .and_then(|t| fleetdesk_kit::convert::datetime(&t)),
        Some(at(60).with_nanosecond_zeroed())
    );
    assert_eq!(newest.point.expect("point").latitude, 22.56);

    // The track: oldest first, one vehicle, at most 7 days.
    let mut client = TelemetryServiceClient::new(service.channel.clone());
    let range = |from: DateTime<Utc>, to: DateTime<Utc>| fleetdesk_proto::common::v1::TimeRange {
        start: Some(fleetdesk_kit::convert::timestamp(from)),
        end: Some(fleetdesk_kit::convert::timestamp(to)),
    };
    let track = client
        .list_position_history(as_service(
            &service,
            Some(a.enterprise),
            pb::ListPositionHistoryRequest {
                vehicle_id: a.id.to_string(),
                time_range: Some(range(base - chrono::Duration::hours(1), Utc::now())),
                max_points: 0,
            },
        ))
        .await
        .expect("track")
        .into_inner();
    let lats: Vec<f64> = track
        .positions
        .iter()
        .map(|p| p.point.as_ref().map_or(0.0, |p| p.latitude))
        .collect();
    assert_eq!(lats.len(), 5);
    assert_eq!(lats[lats.len() - 3..], [22.53, 22.54, 22.56]);
    let too_long = client
        .list_position_history(as_service(
            &service,
            Some(a.enterprise),
            pb::ListPositionHistoryRequest {
                vehicle_id: a.id.to_string(),
                time_range: Some(range(base - chrono::Duration::days(8), base)),
                max_points: 0,
            },
        ))
        .await
        .expect_err("8 days");
    assert_eq!(too_long.code(), tonic::Code::InvalidArgument);
    // Another tenant: not found.
    let hidden = client
        .list_position_history(as_service(
            &service,
            Some(Uuid::new_v4()),
            pb::ListPositionHistoryRequest {
                vehicle_id: a.id.to_string(),
                time_range: Some(range(base, Utc::now())),
                max_points: 0,
            },
        ))
        .await
        .expect_err("other tenant");
    assert_eq!(hidden.code(), tonic::Code::NotFound);
}

trait ZeroNanos {
    fn with_nanosecond_zeroed(self) -> Self;
}

impl ZeroNanos for DateTime<Utc> {
    fn with_nanosecond_zeroed(self) -> Self {
        // Postgres keeps microseconds.
        DateTime::from_timestamp_micros(self.timestamp_micros()).expect("time")
    }
}

#[tokio::test]
async fn retention_drops_whole_day_partitions_past_it() {
    let service = spawn().await;
    let today = Utc::now().date_naive();
    let old = today.checked_sub_days(Days::new(200)).expect("day");
    let table = format!("position_p{}", old.format("%Y%m%d"));
    let exists = |name: String| {
        let owner = service.owner.clone();
        async move {
            sqlx::query_scalar::<_, bool>("select to_regclass($1) is not null")
                .bind(name)
                .fetch_one(&owner)
                .await
                .expect("exists")
        }
    };
    // Created and seen under the job's lock, so the service's own round
    // cannot drop it in between.
    let mut tx = service.owner.begin().await.expect("tx");
    sqlx::query("select pg_advisory_xact_lock($1)")
        .bind(ingest::partitions::JOB_LOCK)
        .execute(&mut *tx)
        .await
        .expect("job lock");
    sqlx::query("select ensure_position_partition($1)")
        .bind(old)
        .execute(&mut *tx)
        .await
        .expect("old partition");
    let created: bool = sqlx::query_scalar("select to_regclass($1) is not null")
        .bind(&table)
        .fetch_one(&mut *tx)
        .await
        .expect("exists");
    assert!(created);
    tx.commit().await.expect("commit");

    // The service's own job may run the same round at start-up: either
    // way the old day is gone afterwards.
    ingest::partitions::maintain(&service.owner, today)
        .await
        .expect("maintain");
    assert!(!exists(table.clone()).await);
    assert!(!exists(format!("temperature_reading_p{}", old.format("%Y%m%d"))).await);
    // Today and the coming days are there.
    for d in 0..=3 {
        let day = today.checked_add_days(Days::new(d)).expect("day");
        assert!(exists(format!("position_p{}", day.format("%Y%m%d"))).await);
    }
    // Days inside retention stay.
    let kept = today.checked_sub_days(Days::new(7)).expect("day");
    assert!(exists(format!("position_p{}", kept.format("%Y%m%d"))).await);
}

#[tokio::test]
async fn the_sweep_expires_queued_commands_and_times_out_unanswered_ones() {
    let service = spawn().await;
    let a = car(&service, Uuid::new_v4()).await;
    let insert = |state: i16, sent_ago_s: Option<i64>, expires_in_s: i64| {
        let owner = service.owner.clone();
        let (enterprise, vehicle, phone) = (a.enterprise, a.id, a.phone.clone());
        async move {
            let id = Uuid::new_v4();
            sqlx::query(
                "insert into lock_command (id, enterprise_id, org_id, vehicle_id, plate_number, \
                 vin, phone, action, reason, state, sent_at, expire_at, next_attempt_at) \
                 values ($1, $2, $3, $4, 'P', 'V', $5, 1, '逾期', $6, \
                 now() - make_interval(secs => $7), now() + make_interval(secs => $8), \
                 now() + interval '1 hour')",
            )
            .bind(id)
            .bind(enterprise)
            .bind(Uuid::new_v4())
            .bind(vehicle)
            .bind(phone)
            .bind(state)
            .bind(sent_ago_s.map(|s| s as f64))
            .bind(expires_in_s as f64)
            .execute(&owner)
            .await
            .expect("command");
            id
        }
    };
    // Queued past its time; sent 2 minutes ago without an answer; sent just now.
    let stale_queued = insert(1, None, -1).await;
    let unanswered = insert(2, Some(120), 600).await;
    let fresh = insert(2, Some(1), 600).await;
    let acknowledged = insert(7, Some(120), 600).await;

    fleetdesk_telemetry::lock::delivery::sweep(&service.owner, &service.nats)
        .await
        .expect("sweep");
    let state = |id: Uuid| {
        let owner = service.owner.clone();
        async move {
            sqlx::query_scalar::<_, i16>("select state from lock_command where id = $1")
                .bind(id)
                .fetch_one(&owner)
                .await
                .expect("state")
        }
    };
    assert_eq!(state(stale_queued).await, 6, "expired");
    assert_eq!(state(unanswered).await, 8, "timed out");
    assert_eq!(state(acknowledged).await, 8, "timed out");
    assert_eq!(state(fresh).await, 2, "still waiting");
}

#[tokio::test]
async fn distances_come_from_the_odometer_at_both_ends_of_the_range_within_the_tenant() {
    let service = spawn().await;
    let enterprise = Uuid::new_v4();
    let (a, b) = (
        car(&service, enterprise).await,
        car(&service, enterprise).await,
    );
    let stranger = car(&service, Uuid::new_v4()).await;
    let base = Utc::now() - chrono::Duration::hours(3);
    let at = |m: i64| base + chrono::Duration::minutes(m);
    // a: the odometer runs 100.0 → 145.5 km; b: a terminal without one;
    // the stranger drives too, in another tenant.
    for (car, minute, mileage) in [
        (&a, 0, Some(100_000_i64)),
        (&a, 30, Some(130_000)),
        (&a, 90, Some(145_500)),
        (&a, 200, Some(190_000)),
        (&b, 10, None),
        (&b, 50, None),
        (&stranger, 10, Some(5_000)),
        (&stranger, 50, Some(9_000)),
    ] {
        sqlx::query(
            "insert into position (enterprise_id, vehicle_id, fix_time, receive_time, lat, lng, \
             altitude_m, speed_dkmh, heading, alarm_bits, status_bits, mileage_m, soc) \
             values ($1, $2, $3, $3, 22.5, 114.0, 10, 300, 90, 0, 3, $4, 60)",
        )
        .bind(car.enterprise)
        .bind(car.id)
        .bind(at(minute))
        .bind(mileage)
        .execute(&service.owner)
        .await
        .expect("fix");
    }
    let mut client = TelemetryServiceClient::new(service.channel.clone());
    let ask = |tenant: Uuid, from: i64, to: i64| {
        as_service(
            &service,
            Some(tenant),
            pb::ListVehicleDistancesRequest {
                vehicle_ids: [&a, &b, &stranger].map(|c| c.id.to_string()).to_vec(),
                time_range: Some(fleetdesk_proto::common::v1::TimeRange {
                    start: Some(fleetdesk_kit::convert::timestamp(at(from))),
                    end: Some(fleetdesk_kit::convert::timestamp(at(to))),
                }),
            },
        )
    };
    // The range ends before a's fix at minute 200.
    let answer = client
        .list_vehicle_distances(ask(enterprise, -5, 120))
        .await
        .expect("distances")
        .into_inner();
    assert_eq!(
        answer.distances,
        vec![pb::VehicleDistance {
            vehicle_id: a.id.to_string(),
            distance_m: 45_500,
            start_odometer_m: 100_000,
            end_odometer_m: 145_500,
        }]
    );
    // Another tenant asking for the same ids sees only its own vehicle.
    let theirs = client
        .list_vehicle_distances(ask(stranger.enterprise, -5, 120))
        .await
        .expect("theirs")
        .into_inner();
    let ids: Vec<&str> = theirs
        .distances
        .iter()
        .map(|d| d.vehicle_id.as_str())
        .collect();
    assert_eq!(ids, [stranger.id.to_string()]);
    let too_long = client
        .list_vehicle_distances(ask(enterprise, -93 * 24 * 60, 0))
        .await
        .expect_err("93 days");
    assert_eq!(too_long.code(), tonic::Code::InvalidArgument);
}

#[tokio::test]
async fn an_open_live_feed_follows_units_added_under_its_subtree() {
    let service = spawn().await;
    let enterprise = Uuid::new_v4();
    let car = car(&service, enterprise).await;
    // The caller reaches the subtree of unit U; the car is elsewhere.
    let unit = Uuid::new_v4();
    let org_unit = |id: Uuid, path: String| {
        sqlx::query(
            "insert into org_unit (id, enterprise_id, name, path, version) \
             values ($1, $2, '华南', $3, 1)",
        )
        .bind(id)
        .bind(enterprise)
        .bind(path)
    };
    org_unit(unit, format!("/{unit}/"))
        .execute(&service.owner)
        .await
        .expect("unit");
    let claims = Claims {
        iss: "gateway".into(),
        sub: format!("user:{}", Uuid::new_v4()),
        ent: Some(enterprise.to_string()),
        acc: None,
        perms: vec!["as:monitor".into()],
        reach: Some(fleetdesk_kit::reach::ReachClaim {
            subtrees: vec![unit],
            ..Default::default()
        }),
        flags: Vec::new(),
        iat: 0,
        exp: i64::MAX,
    };
    let app = db::connect(&service.db.url, "vehicle", 2)
        .await
        .expect("app pool");
    let live = Live::new(service.nats.clone(), app).refreshing_every(Duration::from_millis(300));
    let mut feed = live
        .watch(enterprise, Reach::of(&claims), Vec::new())
        .await
        .expect("watch");
    let subject = format!("telemetry.{enterprise}.{}", car.id);
    let mut at = Utc::now() - chrono::Duration::minutes(5);
    let mut next_fix = || {
        at += chrono::Duration::seconds(10);
        fix(&car, at, 0, 22.54).encode_to_vec()
    };
    for _ in 0..4 {
        service
            .nats
            .publish(subject.clone(), next_fix().into())
            .await
            .expect("publish");
        let got = tokio::time::timeout(Duration::from_millis(300), feed.recv()).await;
        assert!(got.is_err(), "a vehicle outside the reach was streamed");
    }
    // A unit under U, and the car moved into it, while the map stays open.
    let child = Uuid::new_v4();
    org_unit(child, format!("/{unit}/{child}/"))
        .execute(&service.owner)
        .await
        .expect("child unit");
    sqlx::query("update vehicle set org_id = $1 where id = $2")
        .bind(child)
        .bind(car.id)
        .execute(&service.owner)
        .await
        .expect("move");
    let mut seen = false;
    for _ in 0..40 {
        service
            .nats
            .publish(subject.clone(), next_fix().into())
            .await
            .expect("publish");
        if let Ok(Some(Ok(batch))) =
            tokio::time::timeout(Duration::from_millis(250), feed.recv()).await
        {
            assert!(
                batch
                    .positions
                    .iter()
                    .all(|p| p.vehicle_id == car.id.to_string())
            );
            seen = true;
            break;
        }
    }
    assert!(seen, "the moved car never reached the open feed");
}

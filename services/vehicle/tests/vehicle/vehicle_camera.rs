//! The terminal directory's `ReportAvAttributes` over real gRPC and
//! PostgreSQL: the edge's report of what a terminal can stream lands in
//! `vehicle_camera` for the vehicle its SIM is bound to, replaced by the
//! next report; an unbound SIM stores nothing; users are refused.

use fleetdesk_kit::config::{CommonConfig, Environment, ServiceConfig};
use fleetdesk_kit::internal_token::{Claims, TokenSigner};
use fleetdesk_kit::{Shutdown, db, grpc};
use fleetdesk_proto::telematics::v1 as tpb;
use fleetdesk_proto::telematics::v1::terminal_directory_service_client::TerminalDirectoryServiceClient;
use fleetdesk_testkit::TestDb;
use sqlx_postgres::PgPool;
use tonic::transport::Channel;
use uuid::Uuid;

struct Service {
    db: TestDb,
    owner: PgPool,
    channel: Channel,
    signer: TokenSigner,
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
            common,
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
    let channel = grpc::lazy_channel(&format!("http://127.0.0.1:{port}")).expect("channel");
    Service {
        db,
        owner,
        channel,
        signer,
        shutdown,
    }
}

/// A vehicle of `org` with an active terminal binding on a zero-padded SIM.
struct Car {
    id: Uuid,
    phone: String,
}

async fn car(service: &Service, enterprise: Uuid, org: Uuid) -> Car {
    let id = Uuid::new_v4();
    let n = id.as_u128() % 100_000_000;
    let terminal = format!("T{n:08}");
    let phone = format!("139{n:08}");
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
    Car { id, phone }
}

fn as_service<T>(service: &Service, message: T) -> tonic::Request<T> {
    grpc::outgoing(message, &service.signer, &Claims::service("telematics"))
}

/// 0x1003 of a terminal with `video` channels: G.711A audio, H.264 video.
fn attributes(video: u32, audio: u32) -> tpb::AvAttributes {
    tpb::AvAttributes {
        audio_encoding: 6,
        audio_channels: 1,
        sampling_rate: 0,
        sample_bits: 1,
        audio_frame_length: 320,
        audio_output: false,
        video_encoding: 98,
        max_audio_channels: audio,
        max_video_channels: video,
    }
}

type Row = (Uuid, Uuid, String, i16, i16, i16);

async fn rows(service: &Service) -> Vec<Row> {
    sqlx::query_as(
        "select enterprise_id, org_id, phone, video_channels, audio_channels, video_encoding \
         from vehicle_camera order by reported_at",
    )
    .fetch_all(&service.owner)
    .await
    .expect("cameras")
}

#[tokio::test]
async fn a_terminals_report_lands_in_vehicle_camera_and_the_next_replaces_it() {
    let service = spawn().await;
    let (enterprise, org) = (Uuid::new_v4(), Uuid::new_v4());
    let a = car(&service, enterprise, org).await;
    let mut directory = TerminalDirectoryServiceClient::new(service.channel.clone());

    let report = |phone: String, video: u32, audio: u32| tpb::ReportAvAttributesRequest {
        phone,
        attributes: Some(attributes(video, audio)),
    };
    let answer = directory
        .report_av_attributes(as_service(&service, report(format!("00{}", a.phone), 4, 1)))
        .await
        .expect("report")
        .into_inner();
    assert!(answer.stored);
    assert_eq!(
        rows(&service).await,
        vec![(enterprise, org, a.phone.clone(), 4, 1, 98)]
    );
    let vehicle: Uuid = sqlx::query_scalar("select vehicle_id from vehicle_camera")
        .fetch_one(&service.owner)
        .await
        .expect("vehicle");
    assert_eq!(vehicle, a.id);

    // The terminal's camera changed: one row, the new values.
    directory
        .report_av_attributes(as_service(&service, report(a.phone.clone(), 2, 0)))
        .await
        .expect("report again");
    assert_eq!(
        rows(&service).await,
        vec![(enterprise, org, a.phone.clone(), 2, 0, 98)]
    );

    // A SIM bound to no vehicle stores nothing.
    let stray = directory
        .report_av_attributes(as_service(&service, report("13700000009".into(), 4, 1)))
        .await
        .expect("report")
        .into_inner();
    assert!(!stray.stored);
    assert_eq!(rows(&service).await.len(), 1);

    // A value no terminal can send is refused, naming its field.
    let too_many = directory
        .report_av_attributes(as_service(&service, report(a.phone.clone(), 300, 1)))
        .await
        .expect_err("refused");
    assert_eq!(too_many.code(), tonic::Code::InvalidArgument);
    assert!(
        too_many.message().contains("视频通道数"),
        "{}",
        too_many.message()
    );

    // A user (not a service) is refused.
    let mut user = Claims::service("gateway");
    user.sub = format!("user:{}", Uuid::new_v4());
    user.ent = Some(enterprise.to_string());
    let refused = directory
        .report_av_attributes(grpc::outgoing(
            report(a.phone.clone(), 0, 0),
            &service.signer,
            &user,
        ))
        .await;
    assert!(refused.is_err());
    assert_eq!(rows(&service).await[0].3, 2);
}

#[tokio::test]
async fn another_tenant_does_not_see_a_vehicles_camera() {
    let service = spawn().await;
    let (enterprise, org) = (Uuid::new_v4(), Uuid::new_v4());
    let a = car(&service, enterprise, org).await;
    let mut directory = TerminalDirectoryServiceClient::new(service.channel.clone());
    directory
        .report_av_attributes(as_service(
            &service,
            tpb::ReportAvAttributesRequest {
                phone: a.phone.clone(),
                attributes: Some(attributes(4, 1)),
            },
        ))
        .await
        .expect("report");
    let pool = db::connect(&service.db.url, "vehicle", 1)
        .await
        .expect("app pool");
    let seen = |tenant: Uuid| {
        let pool = pool.clone();
        async move {
            let mut tx = db::begin_tenant(&pool, tenant).await.expect("tenant");
            let n: i64 = sqlx::query_scalar("select count(*) from vehicle_camera")
                .fetch_one(&mut *tx)
                .await
                .expect("count");
            n
        }
    };
    assert_eq!(seen(enterprise).await, 1);
    assert_eq!(seen(Uuid::new_v4()).await, 0);
}

//! One vehicle service for a whole test file: gRPC on port 0, a fresh
//! PostgreSQL database and a private JetStream server; each scenario makes
//! its own tenants on it, and hands fixes to ingest's pipeline directly.
//! Each test binary uses part of it.
#![allow(dead_code)]

use chrono::{DateTime, Utc};
use fleetdesk_kit::config::{CommonConfig, Environment, ServiceConfig};
use fleetdesk_kit::internal_token::{Claims, TokenSigner};
use fleetdesk_kit::reach::ReachClaim;
use fleetdesk_kit::{Shutdown, db, grpc};
use fleetdesk_proto::vehicle::v1::telemetry_service_client::TelemetryServiceClient;
use fleetdesk_telemetry::ingest::consumer::Pipeline;
use fleetdesk_telemetry::ingest::domain::FixRow;
use fleetdesk_testkit::{NatsServer, TestDb};
use sqlx_postgres::PgPool;
use tonic::transport::Channel;
use uuid::Uuid;

/// One tenant: an enterprise with one organisation, a user and vehicles.
#[derive(Debug, Clone)]
pub struct Tenant {
    pub enterprise: Uuid,
    pub org: Uuid,
    pub user: Uuid,
    pub vehicles: Vec<Uuid>,
}

pub struct Stack {
    _db: TestDb,
    pub nats: NatsServer,
    pub owner: PgPool,
    /// The service's own pool (the app role), for direct evaluation.
    pub app: PgPool,
    signer: TokenSigner,
    pub channel: Channel,
    /// The service's object store (export files).
    pub objects: std::path::PathBuf,
    pub telemetry: TelemetryServiceClient<Channel>,
    shutdown: Shutdown,
}

impl Drop for Stack {
    fn drop(&mut self) {
        self.shutdown.trigger();
    }
}

pub async fn stack() -> Stack {
    fleetdesk_testkit::init_test_logs();
    let db = TestDb::migrated(&[&fleetdesk_vehicle::SCHEMA]).await;
    let nats = NatsServer::start().await;
    let owner = db::connect_owner(&db.url, fleetdesk_vehicle::SCHEMA.name, 2)
        .await
        .unwrap();
    let signer = TokenSigner::generate();
    let objects = std::env::temp_dir().join(format!("fd-vehicle-{}", Uuid::new_v4()));
    let config = ServiceConfig {
        common: CommonConfig {
            database_url: db.url.clone(),
            nats_url: nats.url(),
            internal_signing_key: None,
            environment: Environment::Development,
            db_max_connections: 5,
        },
        grpc_addr: "127.0.0.1:0".to_owned(),
        migrate_on_start: false,
        object_store_dir: objects.clone(),
    };
    let app = fleetdesk_vehicle::Application::build(config, signer.verifier())
        .await
        .unwrap();
    let port = app.port();
    let shutdown = Shutdown::new();
    tokio::spawn(app.run_until_stopped(shutdown.clone()));
    let channel = Channel::from_shared(format!("http://127.0.0.1:{port}"))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let app_pool = db::connect(&db.url, fleetdesk_vehicle::SCHEMA.name, 3)
        .await
        .unwrap();
    // Ingest takes only fixes published after its consumer exists.
    let js = async_nats::jetstream::new(async_nats::connect(nats.url()).await.unwrap());
    let stream = fleetdesk_telemetry::ingest::ensure_stream(&js)
        .await
        .unwrap();
    let durable = fleetdesk_telemetry::ingest::consumer::durable_name(&db.name);
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    while stream.consumer_info(&durable).await.is_err() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "no consumer {durable}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    Stack {
        _db: db,
        objects,
        nats,
        owner,
        app: app_pool,
        signer,
        telemetry: TelemetryServiceClient::new(channel.clone()),
        channel,
        shutdown,
    }
}

impl Stack {
    /// A tenant of one scenario, with `vehicles` vehicles (粤B00000, …).
    pub async fn tenant(&self, vehicles: usize) -> Tenant {
        self.tenant_with_plates(vehicles, "粤B").await
    }

    /// A tenant whose plates start with `prefix`.
    pub async fn tenant_with_plates(&self, vehicles: usize, prefix: &str) -> Tenant {
        let t = Tenant {
            enterprise: Uuid::new_v4(),
            org: Uuid::new_v4(),
            user: Uuid::new_v4(),
            vehicles: (0..vehicles).map(|_| Uuid::new_v4()).collect(),
        };
        let mut tx = db::begin_service(&self.owner).await.unwrap();
        sqlx::query(
            "insert into org_unit (id, enterprise_id, name, path, version) \
             values ($1, $2, '总部', $3, 1)",
        )
        .bind(t.org)
        .bind(t.enterprise)
        .bind(format!("/{}/", t.org))
        .execute(&mut *tx)
        .await
        .unwrap();
        for (i, v) in t.vehicles.iter().enumerate() {
            sqlx::query(
                "insert into vehicle (id, enterprise_id, org_id, plate_number, plate_color, vin, \
                 brand, model, category, energy_type, ownership_type, status) \
                 values ($1, $2, $3, $4, 3, $5, '东风', 'EV', 2, 1, 1, 1)",
            )
            .bind(v)
            .bind(t.enterprise)
            .bind(t.org)
            .bind(format!("{prefix}{i:05}"))
            .bind(format!("LVIN{i:013}"))
            .execute(&mut *tx)
            .await
            .unwrap();
        }
        tx.commit().await.unwrap();
        t
    }

    /// A request as the gateway sends it for `user` of tenant `t`.
    pub fn req_as<T>(
        &self,
        t: &Tenant,
        user: Uuid,
        perms: &[&str],
        message: T,
    ) -> tonic::Request<T> {
        let whole = ReachClaim {
            all: true,
            ..ReachClaim::default()
        };
        self.req_reaching_claim(t, user, perms, whole, message)
    }

    /// A request of `user` of tenant `t` whose data scope is the
    /// organisation subtrees `subtrees` only.
    pub fn req_reaching<T>(
        &self,
        t: &Tenant,
        user: Uuid,
        perms: &[&str],
        subtrees: Vec<Uuid>,
        message: T,
    ) -> tonic::Request<T> {
        let reach = ReachClaim {
            subtrees,
            ..ReachClaim::default()
        };
        self.req_reaching_claim(t, user, perms, reach, message)
    }

    fn req_reaching_claim<T>(
        &self,
        t: &Tenant,
        user: Uuid,
        perms: &[&str],
        reach: ReachClaim,
        message: T,
    ) -> tonic::Request<T> {
        let claims = Claims {
            iss: "gateway".into(),
            sub: format!("user:{user}"),
            ent: Some(t.enterprise.to_string()),
            acc: None,
            perms: perms.iter().map(|p| (*p).to_owned()).collect(),
            reach: Some(reach),
            flags: Vec::new(),
            iat: 0,
            exp: 0,
        };
        grpc::outgoing(message, &self.signer, &claims)
    }

    pub fn pipeline(&self) -> Pipeline {
        Pipeline::new(self.app.clone())
    }
}

/// A checked fix of tenant `t`'s `vehicle`.
pub fn fix_row(t: &Tenant, vehicle: Uuid, time: DateTime<Utc>, speed_kmh: i32) -> FixRow {
    FixRow {
        enterprise_id: t.enterprise,
        vehicle_id: vehicle,
        fix_time: time,
        receive_time: time,
        lat: 22.54,
        lng: 114.05,
        altitude_m: 0,
        speed_dkmh: speed_kmh * 10,
        heading: 0,
        alarm_bits: 0,
        status_bits: 0,
        mileage_m: None,
        soc: Some(80),
        temperatures: Vec::new(),
        backfill: false,
        device_time: None,
    }
}

/// A seeded shuffle (the same order every run).
pub fn shuffled<T: Clone>(items: &[T], seed: u64) -> Vec<T> {
    let mut out = items.to_vec();
    let mut state = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
    for i in (1..out.len()).rev() {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let j = (state >> 33) as usize % (i + 1);
        out.swap(i, j);
    }
    out
}

/// The rows of an xlsx workbook's first sheet, every cell as text.
pub fn sheet_rows(bytes: &[u8]) -> Vec<Vec<String>> {
    use calamine::Reader as _;
    let mut book =
        calamine::open_workbook_auto_from_rs(std::io::Cursor::new(bytes.to_vec())).unwrap();
    book.worksheet_range_at(0)
        .unwrap()
        .unwrap()
        .rows()
        .map(|r| r.iter().map(|c| c.to_string()).collect())
        .collect()
}

impl Stack {
    /// An xlsx of `header` and `rows` (every cell text) stored as tenant
    /// `t`'s upload named `name`: what an import request names.
    pub async fn upload_sheet(
        &self,
        t: &Tenant,
        name: &str,
        header: &[&str],
        rows: &[&[&str]],
    ) -> fleetdesk_proto::vehicle::v1::ImportFile {
        let mut book = rust_xlsxwriter::Workbook::new();
        let sheet = book.add_worksheet();
        for (c, title) in header.iter().enumerate() {
            sheet.write_string(0, c as u16, *title).unwrap();
        }
        for (r, row) in rows.iter().enumerate() {
            for (c, cell) in row.iter().enumerate() {
                sheet.write_string(r as u32 + 1, c as u16, *cell).unwrap();
            }
        }
        let bytes = book.save_to_buffer().unwrap();
        let key =
            fleetdesk_kit::files::key(t.enterprise, "import", &Uuid::new_v4().to_string(), name);
        fleetdesk_kit::files::FileStore::local(&self.objects)
            .unwrap()
            .put(&key, bytes.into())
            .await
            .unwrap();
        fleetdesk_proto::vehicle::v1::ImportFile {
            key,
            name: name.to_owned(),
        }
    }

    /// Waits (up to 20 s) for export job `job` to succeed; its workbook's
    /// rows, header included.
    pub async fn exported_rows(&self, job: &str) -> Vec<Vec<String>> {
        let id = Uuid::parse_str(job).unwrap();
        for _ in 0..200 {
            let mut tx = db::begin_service(&self.owner).await.unwrap();
            let (status, key): (i16, String) =
                sqlx::query_as("select status, file_key from export_job where id = $1")
                    .bind(id)
                    .fetch_one(&mut *tx)
                    .await
                    .unwrap();
            drop(tx);
            match status {
                3 => {
                    let files = fleetdesk_kit::files::FileStore::local(&self.objects).unwrap();
                    return sheet_rows(&files.get_bytes(&key).await.unwrap());
                }
                4 | 5 => panic!("export {job} ended with status {status}"),
                _ => tokio::time::sleep(std::time::Duration::from_millis(100)).await,
            }
        }
        panic!("export {job} did not finish");
    }
}

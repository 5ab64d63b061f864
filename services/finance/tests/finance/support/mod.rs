//! The stack the finance tests share: a fresh PostgreSQL database with the
//! finance schema, the finance service on port 0 over real gRPC (its
//! consumers on the shared NATS server, told apart by the database's name),
//! and two tenants A and B, each with an organisation tree in finance's
//! org_unit replica.

#![allow(dead_code)]

pub mod bank;
pub mod invoicing;

use fleetdesk_kit::config::{CommonConfig, Environment, ServiceConfig};
use fleetdesk_kit::internal_token::{Claims, TokenSigner, enterprise_flag};
use fleetdesk_kit::reach::ReachClaim;
use fleetdesk_kit::{ServiceError, Shutdown, db, events, grpc};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::finance::v1 as pb;
use fleetdesk_proto::finance::v1::finance_service_client::FinanceServiceClient;
use fleetdesk_testkit::TestDb;
use sqlx_postgres::PgPool;
use tonic::transport::Channel;
use uuid::Uuid;

/// One tenant: its tree root → (east → shanghai), south, and a user.
#[derive(Debug, Clone)]
pub struct Tenant {
    pub enterprise: Uuid,
    pub root: Uuid,
    pub east: Uuid,
    pub shanghai: Uuid,
    pub south: Uuid,
    pub user: Uuid,
}

pub struct Stack {
    _db: TestDb,
    pub owner: PgPool,
    /// Finance's object store (exports).
    pub objects: std::path::PathBuf,
    pub signer: TokenSigner,
    pub client: FinanceServiceClient<Channel>,
    shutdown: Shutdown,
    pub a: Tenant,
    pub b: Tenant,
}

impl Drop for Stack {
    fn drop(&mut self) {
        self.shutdown.trigger();
    }
}

fn config(db: &TestDb) -> ServiceConfig {
    ServiceConfig {
        common: CommonConfig {
            database_url: db.url.clone(),
            nats_url: fleetdesk_testkit::nats_url(),
            internal_signing_key: None,
            environment: Environment::Development,
            db_max_connections: 10,
        },
        grpc_addr: "127.0.0.1:0".to_owned(),
        migrate_on_start: false,
        object_store_dir: std::env::temp_dir().join(format!("fd-finance-{}", Uuid::new_v4())),
    }
}

async fn tenant(owner: &PgPool) -> Tenant {
    let t = Tenant {
        enterprise: Uuid::new_v4(),
        root: Uuid::new_v4(),
        east: Uuid::new_v4(),
        shanghai: Uuid::new_v4(),
        south: Uuid::new_v4(),
        user: Uuid::new_v4(),
    };
    let units = [
        (t.root, None, "总部", format!("/{}/", t.root)),
        (
            t.east,
            Some(t.root),
            "华东",
            format!("/{}/{}/", t.root, t.east),
        ),
        (
            t.shanghai,
            Some(t.east),
            "上海",
            format!("/{}/{}/{}/", t.root, t.east, t.shanghai),
        ),
        (
            t.south,
            Some(t.root),
            "华南",
            format!("/{}/{}/", t.root, t.south),
        ),
    ];
    let mut tx = db::begin_service(owner).await.unwrap();
    for (id, parent, name, path) in &units {
        sqlx::query(
            "insert into org_unit (id, enterprise_id, parent_id, name, path, version) \
             values ($1, $2, $3, $4, $5, 1)",
        )
        .bind(id)
        .bind(t.enterprise)
        .bind(parent)
        .bind(name)
        .bind(path)
        .execute(&mut *tx)
        .await
        .unwrap();
    }
    tx.commit().await.unwrap();
    t
}

pub async fn stack() -> Stack {
    stack_with(|_| {}).await
}

/// The stack with `configure` applied to finance before it runs (an
/// invoicing platform, a bank).
pub async fn stack_with(configure: impl FnOnce(&mut fleetdesk_finance::Application)) -> Stack {
    fleetdesk_testkit::init_test_logs();
    let db = TestDb::migrated(&[&fleetdesk_finance::SCHEMA]).await;
    let owner = db::connect_owner(&db.url, fleetdesk_finance::SCHEMA.name, 2)
        .await
        .unwrap();
    let a = tenant(&owner).await;
    let b = tenant(&owner).await;
    let signer = TokenSigner::generate();
    let shutdown = Shutdown::new();
    let config = config(&db);
    let objects = config.object_store_dir.clone();
    let mut finance = fleetdesk_finance::Application::build(config, signer.verifier())
        .await
        .unwrap();
    configure(&mut finance);
    let port = finance.port();
    tokio::spawn(finance.run_until_stopped(shutdown.clone()));
    let client = FinanceServiceClient::connect(format!("http://127.0.0.1:{port}"))
        .await
        .unwrap();
    Stack {
        _db: db,
        owner,
        objects,
        signer,
        client,
        shutdown,
        a,
        b,
    }
}

pub fn err(status: &tonic::Status) -> ServiceError {
    ServiceError::from_status(status)
}

/// Every finance permission of the console.
pub const PERMISSIONS: [&str; 6] = [
    "bill:biz:pageInfo",
    "oss:bill:reconciliation",
    "as:b2b:bill",
    "as:order:center",
    "oss:bill:pagepay",
    "as:refund",
];

impl Stack {
    /// A user call of tenant `t` with every finance permission and the whole enterprise in reach.
    pub fn req<T>(&self, t: &Tenant, message: T) -> tonic::Request<T> {
        self.req_reaching(
            t,
            ReachClaim {
                all: true,
                ..ReachClaim::default()
            },
            message,
        )
    }

    /// A user call of tenant `t` reaching only `reach`; the enterprise is B2B
    /// and on the order-centre list, as [`PERMISSIONS`] suppose.
    pub fn req_reaching<T>(&self, t: &Tenant, reach: ReachClaim, message: T) -> tonic::Request<T> {
        self.user_call(
            t,
            reach,
            &PERMISSIONS,
            &[enterprise_flag::B2B, enterprise_flag::ORDER_CENTER],
            message,
        )
    }

    /// A user call of tenant `t` (the whole enterprise in reach) holding
    /// `perms`, the enterprise carrying the list markers `flags`.
    pub fn req_as<T>(
        &self,
        t: &Tenant,
        perms: &[&str],
        flags: &[&str],
        message: T,
    ) -> tonic::Request<T> {
        let reach = ReachClaim {
            all: true,
            ..ReachClaim::default()
        };
        self.user_call(t, reach, perms, flags, message)
    }

    fn user_call<T>(
        &self,
        t: &Tenant,
        reach: ReachClaim,
        perms: &[&str],
        flags: &[&str],
        message: T,
    ) -> tonic::Request<T> {
        let claims = Claims {
            iss: "gateway".into(),
            sub: format!("user:{}", t.user),
            ent: Some(t.enterprise.to_string()),
            acc: None,
            perms: perms.iter().map(|p| (*p).to_owned()).collect(),
            reach: Some(reach),
            flags: flags.iter().map(|f| (*f).to_owned()).collect(),
            iat: 0,
            exp: 0,
        };
        grpc::outgoing(message, &self.signer, &claims)
    }

    /// A call of another service (energy, vehicle).
    pub fn service<T>(&self, message: T) -> tonic::Request<T> {
        grpc::outgoing(message, &self.signer, &Claims::service("vehicle"))
    }

    /// Raises a bill for `t` through CreateBill.
    pub async fn create_bill(&self, req: pb::CreateBillRequest) -> Result<pb::Bill, tonic::Status> {
        self.client
            .clone()
            .create_bill(self.service(req))
            .await
            .map(|r| r.into_inner().bill.unwrap())
    }

    /// `t`'s bills under `filter`, all on one page.
    pub async fn bills(
        &self,
        t: &Tenant,
        mut filter: pb::ListBillsRequest,
    ) -> pb::ListBillsResponse {
        filter.page = Some(common::PageRequest { page: 1, size: 100 });
        self.client
            .clone()
            .list_bills(self.req(t, filter))
            .await
            .unwrap()
            .into_inner()
    }

    /// Publishes `event` on `subject` as a service's outbox relay does (id and source headers).
    pub async fn publish(&self, subject: &str, id: Uuid, event: &impl prost::Message) {
        let nats = async_nats::connect(fleetdesk_testkit::nats_url())
            .await
            .unwrap();
        let js = events::jetstream(nats);
        events::ensure_event_stream(&js).await.unwrap();
        let mut headers = async_nats::HeaderMap::new();
        headers.insert(events::ID_HEADER, id.to_string().as_str());
        let source = events::source_of(&self.owner).await.unwrap();
        headers.insert(events::SOURCE_HEADER, source.as_str());
        js.publish_with_headers(subject.to_owned(), headers, event.encode_to_vec().into())
            .await
            .unwrap()
            .await
            .unwrap();
    }

    /// How many bills of `t` come from `(service, source_id)`, straight from the table.
    pub async fn bills_of_source(&self, t: &Tenant, service: &str, source_id: &str) -> i64 {
        let mut tx = db::begin_service(&self.owner).await.unwrap();
        sqlx::query_scalar(
            "select count(*) from bill where enterprise_id = $1 and source_service = $2 and source_id = $3",
        )
        .bind(t.enterprise)
        .bind(service)
        .bind(source_id)
        .fetch_one(&mut *tx)
        .await
        .unwrap()
    }

    /// Waits (up to 10 s) for export job `job` to succeed; the rows of its
    /// workbook's first sheet, header included.
    pub async fn exported_rows(&self, job: &str) -> Vec<Vec<String>> {
        use calamine::Reader as _;
        let id = Uuid::parse_str(job).unwrap();
        for _ in 0..100 {
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
                    let bytes = files.get_bytes(&key).await.unwrap();
                    let mut book =
                        calamine::open_workbook_auto_from_rs(std::io::Cursor::new(bytes)).unwrap();
                    return book
                        .worksheet_range("Sheet1")
                        .unwrap()
                        .rows()
                        .map(|r| r.iter().map(|c| c.to_string()).collect())
                        .collect();
                }
                4 | 5 => panic!("export {job} ended with status {status}"),
                _ => tokio::time::sleep(std::time::Duration::from_millis(100)).await,
            }
        }
        panic!("export {job} did not finish");
    }
}

/// A small deterministic generator (xorshift), so a failing run repeats.
pub struct Seeded(pub u64);

impl Seeded {
    /// The next number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// A month on the wire.
pub fn month(year: i32, month: i32) -> common::YearMonth {
    common::YearMonth { year, month }
}

/// A line of `amount_fen` (one unit) for plate `plate`.
pub fn line(description: &str, plate: &str, amount_fen: i64) -> pb::BillLine {
    pb::BillLine {
        description: description.to_owned(),
        vehicle_id: String::new(),
        plate_number: plate.to_owned(),
        period: None,
        quantity: 1,
        unit_price_fen: amount_fen,
        amount_fen,
        tax_rate_bp: 600,
    }
}

/// A CreateBill request of `t` for `org`, kind `kind`, period `period`,
/// from source `source_id`, with `lines`.
pub fn new_bill(
    t: &Tenant,
    org: Uuid,
    kind: pb::BillKind,
    period: common::YearMonth,
    source_id: &str,
    lines: Vec<pb::BillLine>,
) -> pb::CreateBillRequest {
    pb::CreateBillRequest {
        enterprise_id: t.enterprise.to_string(),
        org_id: org.to_string(),
        channel: pb::Channel::Standard as i32,
        kind: kind as i32,
        title: format!("{}-{} 账单", period.year, period.month),
        period: Some(period),
        lines,
        discount_fen: 0,
        due_time: None,
        requires_confirmation: false,
        source_service: "vehicle".to_owned(),
        source_id: source_id.to_owned(),
        attachments: Vec::new(),
        remark: String::new(),
    }
}

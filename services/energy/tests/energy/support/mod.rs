//! The stack the energy tests share: a fresh PostgreSQL database with the
//! energy and vehicle schemas, the energy service and the vehicle service
//! (the vehicles and drivers cards are bound to) on port 0 over real gRPC,
//! and two tenants A and B, each with an organisation tree in energy's
//! org_unit replica, vehicles and a driver.

#![allow(dead_code)]

pub mod platform;

use fleetdesk_kit::config::{CommonConfig, Environment, ServiceConfig};
use fleetdesk_kit::internal_token::{Claims, TokenSigner};
use fleetdesk_kit::reach::ReachClaim;
use fleetdesk_kit::{ServiceError, Shutdown, db, grpc, idempotency};
use fleetdesk_proto::energy::v1 as pb;
use fleetdesk_proto::energy::v1::energy_service_client::EnergyServiceClient;
use fleetdesk_testkit::TestDb;
use sqlx_postgres::PgPool;
use tonic::transport::Channel;
use uuid::Uuid;

/// One tenant: its tree root → (east → shanghai), south, a user, vehicles
/// (plates `<prefix>0000`…) and a driver.
#[derive(Debug, Clone)]
pub struct Tenant {
    pub enterprise: Uuid,
    pub root: Uuid,
    pub east: Uuid,
    pub shanghai: Uuid,
    pub south: Uuid,
    pub user: Uuid,
    pub vehicles: Vec<(Uuid, String)>,
    pub driver: Uuid,
}

pub struct Stack {
    _db: TestDb,
    pub owner: PgPool,
    /// Energy's object store (statement workbooks, exports).
    pub objects: std::path::PathBuf,
    pub signer: TokenSigner,
    pub client: EnergyServiceClient<Channel>,
    shutdown: Shutdown,
    pub a: Tenant,
    pub b: Tenant,
    /// Port of energy's OCPI receiver, when the stack meets a platform.
    pub ocpi_port: Option<u16>,
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
            db_max_connections: 20,
        },
        grpc_addr: "127.0.0.1:0".to_owned(),
        migrate_on_start: false,
        object_store_dir: std::env::temp_dir().join(format!("fd-energy-{}", Uuid::new_v4())),
    }
}

async fn tenant(energy: &PgPool, vehicle: &PgPool, prefix: &str) -> Tenant {
    let t = Tenant {
        enterprise: Uuid::new_v4(),
        root: Uuid::new_v4(),
        east: Uuid::new_v4(),
        shanghai: Uuid::new_v4(),
        south: Uuid::new_v4(),
        user: Uuid::new_v4(),
        vehicles: (0..3)
            .map(|i| (Uuid::new_v4(), format!("{prefix}{i:04}")))
            .collect(),
        driver: Uuid::new_v4(),
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
    let mut tx = db::begin_service(energy).await.unwrap();
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
    let mut tx = db::begin_service(vehicle).await.unwrap();
    for (i, (id, plate)) in t.vehicles.iter().enumerate() {
        sqlx::query(
            "insert into vehicle (id, enterprise_id, org_id, plate_number, plate_color, vin, brand, \
             model, category, energy_type, ownership_type, status) \
             values ($1, $2, $3, $4, 3, $5, '比亚迪', 'T5', 2, 1, 1, 1)",
        )
        .bind(id)
        .bind(t.enterprise)
        .bind(t.shanghai)
        .bind(plate)
        .bind(format!("LGX{}{i:011}", &t.enterprise.simple().to_string()[..3]).to_uppercase())
        .execute(&mut *tx)
        .await
        .unwrap();
    }
    sqlx::query(
        "insert into driver (id, enterprise_id, org_id, name, phone, id_number, licence_class, status) \
         values ($1, $2, $3, '李师傅', '13800000000', '110101199001011234', 1, 1)",
    )
    .bind(t.driver)
    .bind(t.enterprise)
    .bind(t.shanghai)
    .execute(&mut *tx)
    .await
    .unwrap();
    tx.commit().await.unwrap();
    t
}

/// The stack; with `opened`, both tenants have charging opened by the operator.
pub async fn stack(opened: bool) -> Stack {
    stack_with(opened, None).await
}

/// [`stack`] with energy's OCPI side meeting the charging platform `ocpi` names.
pub async fn stack_with(opened: bool, ocpi: Option<&fleetdesk_energy::ocpi::OcpiConfig>) -> Stack {
    fleetdesk_testkit::init_test_logs();
    let db = TestDb::migrated(&[&fleetdesk_energy::SCHEMA, &fleetdesk_vehicle::SCHEMA]).await;
    let owner = db::connect_owner(&db.url, fleetdesk_energy::SCHEMA.name, 2)
        .await
        .unwrap();
    let vehicle_owner = db::connect_owner(&db.url, fleetdesk_vehicle::SCHEMA.name, 2)
        .await
        .unwrap();
    let a = tenant(&owner, &vehicle_owner, "粤B").await;
    let b = tenant(&owner, &vehicle_owner, "沪A").await;
    let signer = TokenSigner::generate();
    let shutdown = Shutdown::new();

    let vehicles = fleetdesk_vehicle::Application::build(config(&db), signer.verifier())
        .await
        .unwrap();
    let vehicle_url = format!("http://127.0.0.1:{}", vehicles.port());
    tokio::spawn(vehicles.run_until_stopped(shutdown.clone()));
    let energy_config = config(&db);
    let objects = energy_config.object_store_dir.clone();
    let mut energy = fleetdesk_energy::Application::build(energy_config, signer.verifier())
        .await
        .unwrap();
    energy.use_vehicles(&vehicle_url, signer.clone()).unwrap();
    let ocpi_port = match ocpi {
        Some(config) => energy.serve_ocpi(config).await.unwrap(),
        None => None,
    };
    let port = energy.port();
    tokio::spawn(energy.run_until_stopped(shutdown.clone()));
    let client = EnergyServiceClient::connect(format!("http://127.0.0.1:{port}"))
        .await
        .unwrap();
    let stack = Stack {
        _db: db,
        owner,
        objects,
        signer,
        client,
        shutdown,
        a,
        b,
        ocpi_port,
    };
    if opened {
        stack.open(&stack.a).await;
        stack.open(&stack.b).await;
    }
    stack
}

/// A service error back from a status.
pub fn allocate(from: &str, to: &str, amount_fen: i64) -> pb::AllocateBalanceRequest {
    pb::AllocateBalanceRequest {
        from_account_id: from.to_owned(),
        targets: vec![pb::AllocationTarget {
            to_account_id: to.to_owned(),
            amount_fen,
        }],
        remark: String::new(),
        idempotency_key: String::new(),
    }
}

pub fn reclaim(from: &str, amount_fen: i64) -> pb::ReclaimBalanceRequest {
    pb::ReclaimBalanceRequest {
        from_account_id: from.to_owned(),
        amount_fen,
        remark: String::new(),
        idempotency_key: String::new(),
    }
}

/// The accounts of `t`'s tree that an allocation storm moves money between.
/// Looked up before a race starts, so that only the storm's own calls meet
/// the race's load (and are retried as a client would).
pub struct StormTree {
    main: String,
    east: String,
    south: String,
    shanghai: String,
}

impl StormTree {
    pub async fn of(s: &Stack, t: &Tenant) -> Self {
        Self {
            main: s.account_of(t, t.root).await.id,
            east: s.account_of(t, t.east).await.id,
            south: s.account_of(t, t.south).await.id,
            shanghai: s.account_of(t, t.shanghai).await.id,
        }
    }
}

/// `n` allocations and reclaims racing at once over `t`'s tree (MAIN → east
/// → shanghai, MAIN → south, and back up), at most 64 in flight as a
/// gateway's connection pool would send them; the only refusal allowed is
/// 余额不足. A call answered Unavailable (the service's pool or Postgres
/// busy past its wait, on a loaded machine) is sent again with its key, as
/// a client retries: the key keeps it once-only. How many moved money.
pub async fn allocation_storm(s: &Stack, t: &Tenant, tree: &StormTree, n: u32) -> usize {
    const ATTEMPTS: usize = 3;
    let StormTree {
        main,
        east,
        south,
        shanghai,
    } = tree;
    let in_flight = std::sync::Arc::new(tokio::sync::Semaphore::new(64));
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..n {
        let mut c = s.client.clone();
        let in_flight = in_flight.clone();
        let amount = 500 + i64::from(i % 9) * 1_500;
        let key = format!("storm-{}-{i}", uuid::Uuid::new_v4().simple());
        let body = match i % 6 {
            0 => Ok(allocate(main, east, amount)),
            1 => Ok(allocate(main, south, amount)),
            2 => Ok(allocate(east, shanghai, amount)),
            3 => Err(reclaim(shanghai, amount)),
            4 => Err(reclaim(east, amount)),
            _ => Err(reclaim(south, amount)),
        };
        // The same call for each attempt, under one key.
        let attempts: Vec<_> = (0..ATTEMPTS)
            .map(|_| match &body {
                Ok(b) => Ok(s.keyed(t, &key, b.clone())),
                Err(b) => Err(s.keyed(t, &key, b.clone())),
            })
            .collect();
        tasks.spawn(async move {
            let _slot = in_flight.acquire().await.unwrap();
            let mut last = None;
            for req in attempts {
                let answer = match req {
                    Ok(req) => c.allocate_balance(req).await.map(|_| ()),
                    Err(req) => c.reclaim_balance(req).await.map(|_| ()),
                };
                let status = match answer {
                    Ok(()) => return true,
                    Err(status) => status,
                };
                let e = err(&status);
                if e.code != fleetdesk_kit::ErrorCode::Unavailable {
                    assert_eq!(e.code, fleetdesk_kit::ErrorCode::Conflict, "{}", e.message);
                    assert!(e.message.contains("余额不足"), "{}", e.message);
                    return false;
                }
                last = Some(e.message);
                tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            }
            panic!("unavailable {ATTEMPTS} times: {}", last.unwrap_or_default());
        });
    }
    let mut moved = 0;
    while let Some(done) = tasks.join_next().await {
        moved += usize::from(done.unwrap());
    }
    moved
}

pub fn err(status: &tonic::Status) -> ServiceError {
    ServiceError::from_status(status)
}

impl Stack {
    /// A user call of tenant `t` with every energy permission and the whole enterprise in reach.
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

    /// A user call of tenant `t` reaching only `reach`.
    pub fn req_reaching<T>(&self, t: &Tenant, reach: ReachClaim, message: T) -> tonic::Request<T> {
        let claims = Claims {
            iss: "gateway".into(),
            sub: format!("user:{}", t.user),
            ent: Some(t.enterprise.to_string()),
            acc: None,
            perms: vec![
                "oss:pc:energy:management".into(),
                "as:charge:fee".into(),
                "as:charge:card".into(),
                "as:charge:index".into(),
                "as:charge:settlement:page".into(),
                "as:charge:behavior".into(),
            ],
            reach: Some(reach),
            flags: Vec::new(),
            iat: 0,
            exp: 0,
        };
        grpc::outgoing(message, &self.signer, &claims)
    }

    /// [`Stack::req`] with an Idempotency-Key.
    pub fn keyed<T>(&self, t: &Tenant, key: &str, message: T) -> tonic::Request<T> {
        let mut req = self.req(t, message);
        req.metadata_mut()
            .insert(idempotency::METADATA_KEY, key.parse().unwrap());
        req
    }

    /// A call of the platform operator's tools.
    pub fn operator<T>(&self, message: T) -> tonic::Request<T> {
        grpc::outgoing(message, &self.signer, &Claims::service("operator"))
    }

    /// Applies for `t` and has the operator approve it; answers MAIN.
    pub async fn open(&self, t: &Tenant) -> pb::ChargingAccount {
        let application = self
            .client
            .clone()
            .apply_charging_open(self.req(t, pb::ApplyChargingOpenRequest::default()))
            .await
            .unwrap()
            .into_inner()
            .application
            .unwrap();
        self.client
            .clone()
            .approve_charging_open_application(self.operator(
                pb::ApproveChargingOpenApplicationRequest {
                    application_id: application.id,
                    credit_limit_fen: 0,
                    remark: String::new(),
                },
            ))
            .await
            .unwrap()
            .into_inner()
            .main_account
            .unwrap()
    }

    /// Puts `fen` on `t`'s main account from its funding account (as finance will).
    pub async fn top_up(&self, t: &Tenant, fen: i64) {
        let mut tx = db::begin_service(&self.owner).await.unwrap();
        let main: Uuid = sqlx::query_scalar(
            "select id from charging_account where enterprise_id = $1 and kind = 1",
        )
        .bind(t.enterprise)
        .fetch_one(&mut *tx)
        .await
        .unwrap();
        fleetdesk_energy::ledger::top_up(
            &mut tx,
            t.enterprise,
            main,
            fen,
            &Uuid::new_v4().to_string(),
            "测试充值",
        )
        .await
        .unwrap();
        tx.commit().await.unwrap();
    }

    /// `t`'s Shanghai account with `fen` more on it: topped up on MAIN and
    /// allocated down the tree (root → east → shanghai); its id.
    pub async fn funded_shanghai(&self, t: &Tenant, fen: i64) -> String {
        self.top_up(t, fen).await;
        let mut c = self.client.clone();
        let main = self.account_of(t, t.root).await.id;
        let east = self.account_of(t, t.east).await.id;
        let shanghai = self.account_of(t, t.shanghai).await.id;
        for (from, to) in [(&main, &east), (&east, &shanghai)] {
            c.allocate_balance(self.keyed(
                t,
                &Uuid::new_v4().to_string(),
                pb::AllocateBalanceRequest {
                    from_account_id: from.clone(),
                    targets: vec![pb::AllocationTarget {
                        to_account_id: to.clone(),
                        amount_fen: fen,
                    }],
                    remark: String::new(),
                    idempotency_key: String::new(),
                },
            ))
            .await
            .unwrap();
        }
        shanghai
    }

    /// `t`'s accounts by organisation: (org id, account).
    pub async fn accounts(&self, t: &Tenant) -> Vec<pb::ChargingAccount> {
        self.client
            .clone()
            .list_charging_accounts(self.req(t, pb::ListChargingAccountsRequest::default()))
            .await
            .unwrap()
            .into_inner()
            .accounts
    }

    /// The account of organisation `org` of `t`.
    pub async fn account_of(&self, t: &Tenant, org: Uuid) -> pb::ChargingAccount {
        self.accounts(t)
            .await
            .into_iter()
            .find(|a| a.org_id == org.to_string())
            .unwrap()
    }

    /// Every ledger account of `t`: (balance, sum of its entries).
    pub async fn books(&self, t: &Tenant) -> Vec<(i64, i64)> {
        let mut tx = db::begin_service(&self.owner).await.unwrap();
        sqlx::query_as(
            "select a.balance_fen, coalesce((select sum(e.amount_fen) from ledger_entry e \
             where e.account_id = a.id), 0)::bigint from ledger_account a where a.enterprise_id = $1",
        )
        .bind(t.enterprise)
        .fetch_all(&mut *tx)
        .await
        .unwrap()
    }
}

/// The rows of sheet `name` of an xlsx workbook, every cell as text
/// (numbers as calamine prints them).
pub fn sheet_rows(bytes: &[u8], name: &str) -> Vec<Vec<String>> {
    use calamine::Reader as _;
    let mut book =
        calamine::open_workbook_auto_from_rs(std::io::Cursor::new(bytes.to_vec())).unwrap();
    book.worksheet_range(name)
        .unwrap()
        .rows()
        .map(|r| r.iter().map(|c| c.to_string()).collect())
        .collect()
}

impl Stack {
    /// Waits (up to 10 s) for export job `job` to succeed; the rows of its
    /// workbook's first sheet, header included.
    pub async fn exported_rows(&self, job: &str) -> Vec<Vec<String>> {
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
                    return sheet_rows(&bytes, "Sheet1");
                }
                4 | 5 => panic!("export {job} ended with status {status}"),
                _ => tokio::time::sleep(std::time::Duration::from_millis(100)).await,
            }
        }
        panic!("export {job} did not finish");
    }
}

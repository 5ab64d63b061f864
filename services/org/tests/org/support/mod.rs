//! One org service for a test: gRPC on port 0, a fresh PostgreSQL database
//! (migrated) and a private JetStream server, and requests signed as the
//! gateway signs them. Each test binary uses part of it.
#![allow(dead_code)]

use fleetdesk_kit::config::{CommonConfig, Environment, ServiceConfig};
use fleetdesk_kit::internal_token::{Claims, TokenSigner};
use fleetdesk_kit::{Shutdown, db, grpc};
use fleetdesk_proto::org::v1::org_service_client::OrgServiceClient;
use fleetdesk_testkit::{NatsServer, TestDb};
use sqlx_postgres::PgPool;
use tonic::transport::Channel;
use uuid::Uuid;

pub struct Stack {
    pub db: TestDb,
    pub nats_server: NatsServer,
    /// The owner's pool, for fixtures (tenant tables need a service transaction).
    pub owner: PgPool,
    pub signer: TokenSigner,
    pub org: OrgServiceClient<Channel>,
    shutdown: Shutdown,
}

impl Drop for Stack {
    fn drop(&mut self) {
        self.shutdown.trigger();
    }
}

pub async fn stack() -> Stack {
    fleetdesk_testkit::init_test_logs();
    let db = TestDb::migrated(&[&fleetdesk_org::SCHEMA]).await;
    let nats_server = NatsServer::start().await;
    let owner = db::connect_owner(&db.url, fleetdesk_org::SCHEMA.name, 2)
        .await
        .unwrap();
    let signer = TokenSigner::generate();
    let config = fleetdesk_org::Config {
        service: ServiceConfig {
            common: CommonConfig {
                database_url: db.url.clone(),
                nats_url: nats_server.url(),
                internal_signing_key: None,
                environment: Environment::Development,
                db_max_connections: 5,
            },
            grpc_addr: "127.0.0.1:0".to_owned(),
            migrate_on_start: false,
            object_store_dir: std::env::temp_dir().join(format!("fd-org-{}", Uuid::new_v4())),
        },
        auth_url: "http://127.0.0.1:1".to_owned(),
        customer_service: Default::default(),
    };
    let app = fleetdesk_org::Application::build(config, signer.clone())
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
    Stack {
        db,
        nats_server,
        owner,
        signer,
        org: OrgServiceClient::new(channel),
        shutdown,
    }
}

impl Stack {
    /// A request of `member` of `enterprise` holding `perms`, as the gateway
    /// signs it (no reach claim: org reads the member's scope itself).
    pub fn req<T>(
        &self,
        enterprise: Uuid,
        member: Uuid,
        perms: &[&str],
        message: T,
    ) -> tonic::Request<T> {
        let claims = Claims {
            iss: "gateway".into(),
            sub: format!("user:{member}"),
            ent: Some(enterprise.to_string()),
            acc: None,
            perms: perms.iter().map(|p| (*p).to_owned()).collect(),
            reach: None,
            flags: Vec::new(),
            iat: 0,
            exp: 0,
        };
        grpc::outgoing(message, &self.signer, &claims)
    }
}

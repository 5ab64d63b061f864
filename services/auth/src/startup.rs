//! Building and running the auth service.

use std::sync::Arc;

use fleetdesk_kit::config::Environment;
use fleetdesk_kit::internal_token::TokenSigner;
use fleetdesk_kit::service::{Runtime, Schema};
use fleetdesk_kit::{Shutdown, grpc};
use fleetdesk_proto::auth::v1::auth_service_server::AuthServiceServer;
use fleetdesk_proto::org::v1::org_service_client::OrgServiceClient;
use secrecy::ExposeSecret as _;
use sqlx::migrate::Migrator;

use crate::Config;
use crate::context::Context;
use crate::credentials::PasswordHasher;
use crate::grpc::AuthApi;
use crate::sms::sender as sms_sender;
use crate::sms::{CodeKey, SmsCodes};
use crate::wecom::WeComClient;

pub static MIGRATOR: Migrator = sqlx::migrate!("./migrations");
pub const SCHEMA: Schema = Schema {
    name: "auth",
    migrator: &MIGRATOR,
    replicates_org: false,
};

/// A built service: listening, connected, ready to run.
#[derive(Debug)]
pub struct Application {
    runtime: Runtime,
    api: AuthApi,
}

impl Application {
    pub async fn build(config: Config, signer: TokenSigner) -> anyhow::Result<Application> {
        let environment = config.service.common.environment;
        // Refuse development shortcuts before opening anything.
        let code_key = config
            .sms
            .code_key
            .clone()
            .filter(|k| !k.expose_secret().trim().is_empty());
        if environment == Environment::Production && code_key.is_none() {
            anyhow::bail!("FLEETDESK_SMS_CODE_KEY is required in production");
        }
        let runtime = Runtime::build(&config.service, SCHEMA, signer.verifier()).await?;
        let sender = sms_sender::from_config(&config.sms, environment, &runtime.pool)?;
        let wecom = WeComClient::from_config(&config.wecom)?.map(Arc::new);
        if wecom.is_none() {
            tracing::info!("WeCom sign-in is off (no FLEETDESK_WECOM_CORP_ID).");
        }
        let api = AuthApi(Context {
            pool: runtime.pool.clone(),
            hasher: PasswordHasher::new(),
            org: OrgServiceClient::new(grpc::lazy_channel(&config.org_url)?),
            signer,
            session_days: config.session_days,
            sms: SmsCodes {
                pool: runtime.pool.clone(),
                key: CodeKey::new(code_key),
                sender,
            },
            wecom,
        });
        Ok(Application { runtime, api })
    }

    pub fn port(&self) -> u16 {
        self.runtime.port()
    }

    pub async fn run_until_stopped(self, shutdown: Shutdown) -> anyhow::Result<()> {
        let service = AuthServiceServer::with_interceptor(
            self.api,
            grpc::authenticate(self.runtime.verifier.clone()),
        );
        self.runtime.run(service, shutdown).await
    }
}

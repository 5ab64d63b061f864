//! What every handler shares: the service's [`Context`] (its pool, password
//! hasher, org client, token signer, session length, SMS codes and WeCom
//! client) and the caller's memberships, read from org.

use std::sync::Arc;

use fleetdesk_kit::internal_token::{Claims, TokenSigner};
use fleetdesk_kit::{ServiceError, grpc};
use fleetdesk_proto::org::v1::{
    ListMembershipsRequest, Membership, org_service_client::OrgServiceClient,
};
use sqlx_postgres::PgPool;
use tonic::transport::Channel;
use uuid::Uuid;

use crate::credentials::PasswordHasher;
use crate::sms::SmsCodes;
use crate::wecom::WeComClient;

#[derive(Clone, Debug)]
pub struct Context {
    pub pool: PgPool,
    pub hasher: PasswordHasher,
    pub org: OrgServiceClient<Channel>,
    pub signer: TokenSigner,
    pub session_days: i64,
    pub sms: SmsCodes,
    /// `None` when WeCom sign-in is not configured.
    pub wecom: Option<Arc<WeComClient>>,
}

impl Context {
    /// The account's enabled memberships in enabled enterprises.
    pub async fn memberships(&self, account_id: Uuid) -> Result<Vec<Membership>, ServiceError> {
        let req = grpc::outgoing(
            ListMembershipsRequest {
                account_id: account_id.to_string(),
            },
            &self.signer,
            &Claims::service("auth"),
        );
        Ok(self
            .org
            .clone()
            .list_memberships(req)
            .await
            .map_err(|s| ServiceError::from_status(&s))?
            .into_inner()
            .memberships)
    }
}

/// The enterprises of `memberships`.
pub fn enterprise_ids(memberships: &[Membership]) -> Vec<Uuid> {
    memberships
        .iter()
        .filter_map(|m| Uuid::parse_str(&m.enterprise_id).ok())
        .collect()
}

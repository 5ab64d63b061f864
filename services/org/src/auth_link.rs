//! How org reaches auth: creating (or linking) the sign-in account of a new
//! user, taking back one created for a member that could not be added, and
//! moving the sign-in phone with the member's.

use fleetdesk_kit::internal_token::{Claims, TokenSigner};
use fleetdesk_kit::{ServiceError, convert, grpc};
use fleetdesk_proto::auth::v1::auth_service_client::AuthServiceClient;
use fleetdesk_proto::auth::v1::{
    CreateAccountRequest, DeleteNewAccountRequest, SetAccountPhoneRequest,
};
use tonic::Request;
use tonic::transport::Channel;
use uuid::Uuid;

/// The auth client and the signer of org's service token.
#[derive(Clone, Debug)]
pub struct AuthLink {
    pub client: AuthServiceClient<Channel>,
    pub signer: TokenSigner,
}

/// The account a new user signs in with.
#[derive(Debug, Clone)]
pub struct Account {
    pub id: Uuid,
    pub username: String,
    /// An existing account (same account name or phone) was linked.
    pub linked: bool,
}

impl AuthLink {
    fn signed<T>(&self, message: T) -> Request<T> {
        grpc::outgoing(message, &self.signer, &Claims::service("org"))
    }

    /// The person's account: a new one, or the existing one holding the
    /// account name or phone.
    pub async fn account_for(
        &self,
        user_name: &str,
        name: &str,
        phone: &str,
        password: &str,
    ) -> Result<Account, ServiceError> {
        let answer = self
            .client
            .clone()
            .create_account(self.signed(CreateAccountRequest {
                username: user_name.to_owned(),
                name: name.to_owned(),
                phone: phone.to_owned(),
                password: password.to_owned(),
                link_existing: true,
            }))
            .await
            .map_err(|s| ServiceError::from_status(&s))?
            .into_inner();
        let account = answer.account.ok_or_else(ServiceError::not_found)?;
        Ok(Account {
            id: convert::id(&account.id)?,
            username: account.username,
            linked: answer.linked,
        })
    }

    /// Takes back an account created for a member that could not be added.
    pub async fn take_back(&self, account_id: Uuid) {
        let request = self.signed(DeleteNewAccountRequest {
            account_id: account_id.to_string(),
        });
        if let Err(status) = self.client.clone().delete_new_account(request).await {
            tracing::error!(%account_id, error = %status.message(), "Account of a member that was not added stays behind.");
        }
    }

    /// Moves the account's sign-in phone; a phone another person holds is refused.
    pub async fn set_phone(&self, account_id: Uuid, phone: &str) -> Result<(), ServiceError> {
        self.client
            .clone()
            .set_account_phone(self.signed(SetAccountPhoneRequest {
                account_id: account_id.to_string(),
                phone: phone.to_owned(),
            }))
            .await
            .map_err(|s| ServiceError::from_status(&s))?;
        Ok(())
    }
}

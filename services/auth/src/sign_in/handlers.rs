//! The three ways in: password, phone + SMS code, WeCom QR. Each counts the
//! attempt against the guard before any secret is checked, records it in the
//! login log, and on success opens a session.

use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::internal_token::Claims;
use fleetdesk_kit::{ErrorCode, ServiceError, grpc, mask};
use fleetdesk_proto::auth::v1 as pb;
use fleetdesk_proto::org::v1::{FindUserByWeComIdRequest, Membership};
use tonic::Request;
use uuid::Uuid;

use crate::accounts::store::{self, AccountRow};
use crate::context::{Context, enterprise_ids};
use crate::credentials::hash_error;
use crate::guard::{self, Key};
use crate::login_log::domain::LoginType;
use crate::login_log::store::{self as log_store, LoginAttempt};
use crate::sessions::convert::session;
use crate::sessions::store::SessionRow;
use crate::sms::{self, Phone, Purpose};
use crate::validate::required;
use crate::wecom::{self, ExchangeError};

/// The one answer for an unknown account and a wrong password (a lock answers
/// [`guard::locked_error`], whatever the name).
pub(crate) const BAD_CREDENTIALS: &str = "账号或密码错误";
/// The one answer for a wrong, used, expired or killed code and an unknown phone.
pub(crate) const BAD_SMS_CODE: &str = "验证码错误或已失效";
const WECOM_EXPIRED: &str = "二维码已失效，请刷新后重新扫码";
const WECOM_NOT_MEMBER: &str = "该企业微信账号未开通本系统登录权限";

/// Reasons kept in the login log (seen by the enterprise's administrators only).
pub(crate) mod reason {
    pub const LOCKED: &str = "尝试次数过多，已锁定";
    pub const UNKNOWN_ACCOUNT: &str = "账号不存在";
    pub const WRONG_PASSWORD: &str = "密码错误";
    pub const WRONG_CODE: &str = "验证码错误或已失效";
    pub const WECOM_STATE: &str = "二维码状态无效、已过期或不属于该浏览器";
    pub const WECOM_CODE: &str = "企业微信授权码无效";
    pub const WECOM_NOT_MEMBER: &str = "非本系统企业微信成员";
}

/// One sign-in attempt on its way to the login log.
struct Attempt<'a> {
    login_type: LoginType,
    principal: String,
    account_id: Option<Uuid>,
    enterprise_ids: Vec<Uuid>,
    client: &'a pb::ClientInfo,
}

impl Attempt<'_> {
    async fn record(
        &self,
        api: &Context,
        succeeded: bool,
        enterprise_id: Option<Uuid>,
        reason: &str,
    ) -> Result<(), ServiceError> {
        log_store::record(
            &api.pool,
            LoginAttempt {
                login_type: self.login_type,
                principal: &self.principal,
                account_id: self.account_id,
                enterprise_id,
                enterprise_ids: &self.enterprise_ids,
                succeeded,
                failure_reason: reason,
                ip: &self.client.ip,
                user_agent: &self.client.user_agent,
            },
        )
        .await?;
        Ok(())
    }

    async fn failed(&self, api: &Context, reason: &str) -> Result<(), ServiceError> {
        tracing::info!(login_type = ?self.login_type, reason, "Sign-in refused.");
        self.record(api, false, None, reason).await
    }

    async fn succeeded(&self, api: &Context, session: &SessionRow) -> Result<(), ServiceError> {
        tracing::info!(login_type = ?self.login_type, account_id = ?self.account_id, "Sign-in accepted.");
        self.record(api, true, session.enterprise_id, "").await
    }
}

fn refused(message: &str) -> ServiceError {
    ServiceError::new(ErrorCode::BadRequest, message)
}

impl Context {
    /// Counts an attempt against the keys, then lets it wait as long as its
    /// address has earned (see [`guard`]).
    pub(crate) async fn admit(&self, keys: &[Key]) -> Result<guard::Admission, ServiceError> {
        let admission = guard::admit(&self.pool, keys).await?;
        if !admission.delay.is_zero() {
            tokio::time::sleep(admission.delay).await;
        }
        Ok(admission)
    }

    async fn memberships_of(
        &self,
        account: Option<&AccountRow>,
    ) -> Result<Vec<Membership>, ServiceError> {
        match account {
            Some(a) => self.memberships(a.id).await,
            None => Ok(Vec::new()),
        }
    }

    pub(crate) async fn password_sign_in(
        &self,
        req: pb::SignInWithPasswordRequest,
    ) -> Result<(String, SessionRow), ServiceError> {
        let username = req.username.trim();
        required("username", username, "请输入账号")?;
        required("password", &req.password, "请输入密码")?;
        let client = req.client.unwrap_or_default();
        let account = store::by_username(&self.pool, username)
            .await?
            .filter(AccountRow::is_active);
        let memberships = self.memberships_of(account.as_ref()).await?;
        let attempt = Attempt {
            login_type: LoginType::Password,
            principal: username.to_owned(),
            account_id: account.as_ref().map(|a| a.id),
            enterprise_ids: enterprise_ids(&memberships),
            client: &client,
        };
        let account_key = account
            .as_ref()
            .map_or_else(|| Key::Unknown(username.to_owned()), |a| Key::Account(a.id));
        let admission = self
            .admit(&guard::sign_in_keys(account_key, &client.ip))
            .await?;
        if let Some(until) = admission.locked_until {
            attempt.failed(self, reason::LOCKED).await?;
            return Err(guard::locked_error(until));
        }
        let stored_hash = account.as_ref().and_then(|a| a.password_hash.clone());
        let verified = match self.hasher.verify(req.password, stored_hash).await {
            Ok(v) => v,
            Err(err) => {
                // Not checked, so not a failure: give the attempt back.
                guard::give_back(&self.pool, &admission).await?;
                return Err(hash_error(err));
            }
        };
        let Some(account) = account.filter(|_| verified) else {
            let why = if attempt.account_id.is_some() {
                reason::WRONG_PASSWORD
            } else {
                reason::UNKNOWN_ACCOUNT
            };
            attempt.failed(self, why).await?;
            return Err(refused(BAD_CREDENTIALS));
        };
        guard::succeeded(&self.pool, &admission).await?;
        let (token, session) = self.open_session(account.id, &memberships).await?;
        attempt.succeeded(self, &session).await?;
        Ok((token, session))
    }

    pub(crate) async fn sms_sign_in(
        &self,
        req: pb::SignInWithSmsCodeRequest,
    ) -> Result<(String, SessionRow), ServiceError> {
        let phone = Phone::parse(&req.phone)?;
        let code = req.verify_code.trim();
        required("verifyCode", code, "请输入验证码")?;
        let client = req.client.unwrap_or_default();
        let account = store::by_phone(&self.pool, phone.as_str())
            .await?
            .filter(AccountRow::is_active);
        let memberships = self.memberships_of(account.as_ref()).await?;
        let attempt = Attempt {
            login_type: LoginType::SmsCode,
            principal: mask::centre(phone.as_str()),
            account_id: account.as_ref().map(|a| a.id),
            enterprise_ids: enterprise_ids(&memberships),
            client: &client,
        };
        let account_key = account.as_ref().map_or_else(
            || Key::Unknown(format!("phone:{}", phone.as_str())),
            |a| Key::Account(a.id),
        );
        let admission = self
            .admit(&guard::sign_in_keys(account_key, &client.ip))
            .await?;
        if let Some(until) = admission.locked_until {
            attempt.failed(self, reason::LOCKED).await?;
            return Err(guard::locked_error(until));
        }
        let right = match &account {
            Some(_) => self.sms.check(&phone, Purpose::Login, code).await?,
            None => false,
        };
        let Some(account) = account.filter(|_| right) else {
            let why = if attempt.account_id.is_some() {
                reason::WRONG_CODE
            } else {
                reason::UNKNOWN_ACCOUNT
            };
            attempt.failed(self, why).await?;
            return Err(refused(BAD_SMS_CODE));
        };
        guard::succeeded(&self.pool, &admission).await?;
        let (token, session) = self.open_session(account.id, &memberships).await?;
        attempt.succeeded(self, &session).await?;
        Ok((token, session))
    }

    fn wecom_client(&self) -> Result<&crate::wecom::WeComClient, ServiceError> {
        self.wecom
            .as_deref()
            .ok_or_else(|| ServiceError::new(ErrorCode::NotFound, "企业微信登录未开通"))
    }

    pub(crate) async fn wecom_app_info(
        &self,
        browser_binding: &str,
    ) -> Result<pb::GetWeComAppInfoResponse, ServiceError> {
        let client = self.wecom_client()?;
        required("browserBinding", browser_binding, "缺少浏览器标识")?;
        let state = wecom::issue_state(&self.pool, browser_binding).await?;
        Ok(pb::GetWeComAppInfoResponse {
            appid: client.corp_id.clone(),
            redirect_uri: client.redirect_uri.clone(),
            state,
            agent_id: client.agent_id.clone(),
            qr_connect_url: client.qr_connect_url.clone(),
        })
    }

    pub(crate) async fn wecom_sign_in(
        &self,
        req: pb::SignInWithWeComRequest,
    ) -> Result<(String, SessionRow), ServiceError> {
        let wecom = self.wecom_client()?;
        required("authToken", &req.code, "缺少企业微信授权码")?;
        let client = req.client.unwrap_or_default();
        let mut attempt = Attempt {
            login_type: LoginType::Wecom,
            principal: String::new(),
            account_id: None,
            enterprise_ids: Vec::new(),
            client: &client,
        };
        // Who this is comes from WeCom, so only the address is counted (it
        // slows down, never locks); the account's lock is checked below.
        let admission = self.admit(&[Key::Address(client.ip.clone())]).await?;
        // The state first: a replayed, foreign or stale callback ends here.
        if !wecom::consume_state(&self.pool, req.state.trim(), &req.browser_binding).await? {
            attempt.failed(self, reason::WECOM_STATE).await?;
            return Err(refused(WECOM_EXPIRED));
        }
        let user_id = match wecom.user_id(req.code.trim()).await {
            Ok(user_id) => user_id,
            Err(ExchangeError::InvalidCode) => {
                attempt.failed(self, reason::WECOM_CODE).await?;
                return Err(refused(WECOM_EXPIRED));
            }
            Err(ExchangeError::NotMember) => {
                attempt.failed(self, reason::WECOM_NOT_MEMBER).await?;
                return Err(refused(WECOM_NOT_MEMBER));
            }
            Err(ExchangeError::Failed(err)) => {
                tracing::warn!(error = %format!("{err:#}"), "WeCom exchange failed.");
                return Err(ServiceError::new(
                    ErrorCode::Unavailable,
                    "企业微信服务暂不可用，请稍后再试",
                ));
            }
        };
        attempt.principal = user_id.clone();
        let Some(account) = self.account_of_wecom_user(&wecom.corp_id, &user_id).await? else {
            attempt.failed(self, reason::WECOM_NOT_MEMBER).await?;
            return Err(refused(WECOM_NOT_MEMBER));
        };
        let memberships = self.memberships(account.id).await?;
        attempt.principal = account.username.clone();
        attempt.account_id = Some(account.id);
        attempt.enterprise_ids = enterprise_ids(&memberships);
        // WeCom proves who this is, but a locked account stays locked (from
        // everywhere, or from this address).
        let account_key = Key::Account(account.id);
        let from_here = Key::from_address(&client.ip, &account_key);
        let locks = [
            guard::locked_until(&self.pool, &account_key).await?,
            guard::locked_until(&self.pool, &from_here).await?,
        ];
        if let Some(until) = locks.into_iter().flatten().max() {
            attempt.failed(self, reason::LOCKED).await?;
            return Err(guard::locked_error(until));
        }
        guard::succeeded(&self.pool, &admission).await?;
        let (token, session) = self.open_session(account.id, &memberships).await?;
        attempt.succeeded(self, &session).await?;
        Ok((token, session))
    }

    /// The active account behind (corp, WeCom user), through org.
    async fn account_of_wecom_user(
        &self,
        corp_id: &str,
        user_id: &str,
    ) -> Result<Option<AccountRow>, ServiceError> {
        let req = grpc::outgoing(
            FindUserByWeComIdRequest {
                corp_id: corp_id.to_owned(),
                wecom_user_id: user_id.to_owned(),
            },
            &self.signer,
            &Claims::service("auth"),
        );
        let membership = match self.org.clone().find_user_by_we_com_id(req).await {
            Ok(answer) => answer.into_inner().membership,
            Err(status) if status.code() == tonic::Code::NotFound => None,
            Err(status) => return Err(ServiceError::from_status(&status)),
        };
        let Some(account_id) = membership.and_then(|m| Uuid::parse_str(&m.account_id).ok()) else {
            return Ok(None);
        };
        Ok(store::by_id(&self.pool, account_id)
            .await?
            .filter(AccountRow::is_active))
    }
}

/// `SignInWithPassword`: a session for the account name and password.
pub async fn with_password(
    ctx: &Context,
    request: Request<pb::SignInWithPasswordRequest>,
) -> Result<pb::SignInWithPasswordResponse, ServiceError> {
    grpc::require_service(&request)?;
    let (token, row) = ctx.password_sign_in(request.into_inner()).await?;
    Ok(pb::SignInWithPasswordResponse {
        token,
        session: Some(session(&row)),
    })
}

/// `SignInWithSmsCode`: a session for the phone and its code.
pub async fn with_sms_code(
    ctx: &Context,
    request: Request<pb::SignInWithSmsCodeRequest>,
) -> Result<pb::SignInWithSmsCodeResponse, ServiceError> {
    grpc::require_service(&request)?;
    let (token, row) = ctx.sms_sign_in(request.into_inner()).await?;
    Ok(pb::SignInWithSmsCodeResponse {
        token,
        session: Some(session(&row)),
    })
}

/// `SignInWithWeCom`: a session for the WeCom QR scan.
pub async fn with_wecom(
    ctx: &Context,
    request: Request<pb::SignInWithWeComRequest>,
) -> Result<pb::SignInWithWeComResponse, ServiceError> {
    grpc::require_service(&request)?;
    let (token, row) = ctx.wecom_sign_in(request.into_inner()).await?;
    Ok(pb::SignInWithWeComResponse {
        token,
        session: Some(session(&row)),
    })
}

/// `SendSmsCode`: a code for signing in or resetting a password.
pub async fn send_sms_code(
    ctx: &Context,
    request: Request<pb::SendSmsCodeRequest>,
) -> Result<pb::SendSmsCodeResponse, ServiceError> {
    grpc::require_service(&request)?;
    let req = request.into_inner();
    let phone = sms::Phone::parse(&req.phone)?;
    let purpose = sms::Purpose::parse(req.purpose)?;
    let client = req.client.unwrap_or_default();
    let account = store::by_phone(&ctx.pool, phone.as_str())
        .await?
        .filter(AccountRow::is_active);
    ctx.sms
        .send(&phone, purpose, &client.ip, account.is_some())
        .await?;
    Ok(pb::SendSmsCodeResponse {
        resend_after_seconds: sms::RESEND_SECS as i32,
    })
}

/// `GetWeComAppInfo`: what the browser needs to show the WeCom QR code.
pub async fn wecom_app_info(
    ctx: &Context,
    request: Request<pb::GetWeComAppInfoRequest>,
) -> Result<pb::GetWeComAppInfoResponse, ServiceError> {
    grpc::require_service(&request)?;
    ctx.wecom_app_info(&request.into_inner().browser_binding)
        .await
}

/// `ListDevSmsMessages`: what the development sender kept.
pub async fn dev_sms_messages(
    ctx: &Context,
    request: Request<pb::ListDevSmsMessagesRequest>,
) -> Result<pb::ListDevSmsMessagesResponse, ServiceError> {
    grpc::require_service(&request)?;
    // Only the development sender keeps messages; never answer otherwise.
    if !ctx.sms.sender.records_messages() {
        return Err(ServiceError::not_found());
    }
    let rows = sms::dev_messages(&ctx.pool, request.get_ref().phone.trim()).await?;
    Ok(pb::ListDevSmsMessagesResponse {
        messages: rows
            .into_iter()
            .map(|(phone, text, at)| pb::DevSmsMessage {
                phone,
                text,
                send_time: Some(timestamp(at)),
            })
            .collect(),
    })
}

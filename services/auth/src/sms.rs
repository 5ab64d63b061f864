//! SMS verification codes: issuing them within the sending limits and
//! checking them.
//!
//! A code is 6 random digits, stored only as an HMAC bound to phone and
//! purpose, valid 5 minutes, good for one use; a newer code replaces older
//! ones, and 5 wrong entries kill it. Sending is limited per phone (one per
//! 60 s, 5 per hour, 10 per day) and per client address (20 per hour);
//! requests for the same address or phone are serialised by transaction
//! locks, so parallel requests cannot overrun a limit.

use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use fleetdesk_kit::{ErrorCode, ServiceError};
use fleetdesk_proto::auth::v1::SmsPurpose;
use hmac::{Hmac, Mac as _};
use rand::Rng as _;
use secrecy::{ExposeSecret as _, SecretString};
use sha2::Sha256;
use sqlx::PgPool;
use uuid::Uuid;

use crate::codes::stored_code;
use crate::sms_sender::SmsSender;

/// How long a code is valid.
pub const CODE_TTL_SECS: i64 = 5 * 60;
/// Wrong entries that kill a code.
pub const MAX_WRONG_ENTRIES: i32 = 5;
/// Seconds before the same phone may ask again.
pub const RESEND_SECS: i64 = 60;
const PHONE_PER_HOUR: usize = 5;
const PHONE_PER_DAY: usize = 10;
const ADDRESS_PER_HOUR: usize = 20;

/// A mainland mobile number: 11 digits starting with 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Phone(String);

impl Phone {
    pub fn parse(value: &str) -> Result<Phone, ServiceError> {
        let value = value.trim();
        if value.is_empty() {
            return Err(ServiceError::invalid("phone", "请输入手机号"));
        }
        let valid = value.len() == 11
            && value.starts_with('1')
            && value.bytes().all(|b| b.is_ascii_digit());
        if !valid {
            return Err(ServiceError::invalid("phone", "请输入正确的手机号"));
        }
        Ok(Phone(value.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

stored_code!(
    /// What a code may be used for (`sms_code.purpose`; its number is also
    /// sealed into the code's MAC).
    Purpose => SmsPurpose {
        Login = 1,
        ResetPassword = 2,
    }
);

impl Purpose {
    /// The purpose of a request: one of them, never unspecified.
    pub fn parse(value: i32) -> Result<Purpose, ServiceError> {
        Purpose::from_pb(value).ok_or_else(|| ServiceError::invalid("purpose", "验证码用途无效"))
    }

    fn text(self, code: &str) -> String {
        match self {
            Purpose::Login => {
                format!("【车管家】您的登录验证码为 {code}，5 分钟内有效，请勿泄露给他人。")
            }
            Purpose::ResetPassword => {
                format!("【车管家】您正在重置密码，验证码为 {code}，5 分钟内有效，请勿泄露给他人。")
            }
        }
    }
}

/// Why a send is refused: the message and the seconds to wait.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub wait_secs: u64,
    pub message: String,
}

fn secs_until(at: DateTime<Utc>, now: DateTime<Utc>) -> u64 {
    u64::try_from((at - now).num_seconds().max(1)).unwrap_or(1)
}

fn minutes(secs: u64) -> u64 {
    secs.div_ceil(60)
}

/// The sending limits. `phone_sends` are the phone's sends of the last day and
/// `address_sends` the address's of the last hour, oldest first.
pub fn send_refusal(
    now: DateTime<Utc>,
    phone_sends: &[DateTime<Utc>],
    address_sends: &[DateTime<Utc>],
) -> Option<Refusal> {
    let hour_ago = now - Duration::hours(1);
    if let Some(last) = phone_sends
        .last()
        .filter(|t| **t > now - Duration::seconds(RESEND_SECS))
    {
        let wait = secs_until(*last + Duration::seconds(RESEND_SECS), now);
        return Some(Refusal {
            wait_secs: wait,
            message: format!("验证码已发送，请 {wait} 秒后再试"),
        });
    }
    if phone_sends.len() >= PHONE_PER_DAY {
        let wait = secs_until(
            phone_sends[phone_sends.len() - PHONE_PER_DAY] + Duration::days(1),
            now,
        );
        return Some(Refusal {
            wait_secs: wait,
            message: format!(
                "今日验证码获取次数已达上限，请 {} 小时后再试",
                wait.div_ceil(3600)
            ),
        });
    }
    let last_hour: Vec<&DateTime<Utc>> = phone_sends.iter().filter(|t| **t > hour_ago).collect();
    if last_hour.len() >= PHONE_PER_HOUR {
        let wait = secs_until(
            *last_hour[last_hour.len() - PHONE_PER_HOUR] + Duration::hours(1),
            now,
        );
        return Some(Refusal {
            wait_secs: wait,
            message: format!("验证码获取过于频繁，请 {} 分钟后再试", minutes(wait)),
        });
    }
    if address_sends.len() >= ADDRESS_PER_HOUR {
        let wait = secs_until(
            address_sends[address_sends.len() - ADDRESS_PER_HOUR] + Duration::hours(1),
            now,
        );
        return Some(Refusal {
            wait_secs: wait,
            message: format!("验证码获取过于频繁，请 {} 分钟后再试", minutes(wait)),
        });
    }
    None
}

/// The key codes are stored under.
#[derive(Debug, Clone)]
pub struct CodeKey(Arc<SecretString>);

impl CodeKey {
    /// The configured key; `None` means a random one for this process (development).
    pub fn new(configured: Option<SecretString>) -> CodeKey {
        let key = configured.unwrap_or_else(|| {
            let mut bytes = [0u8; 32];
            rand::RngCore::fill_bytes(&mut rand::rngs::OsRng, &mut bytes);
            SecretString::from(hex::encode(bytes))
        });
        CodeKey(Arc::new(key))
    }

    fn mac(&self, phone: &Phone, purpose: Purpose, code: &str) -> Hmac<Sha256> {
        let mut mac = Hmac::<Sha256>::new_from_slice(self.0.expose_secret().as_bytes())
            .expect("HMAC takes any key length");
        mac.update(format!("{}:{}:{code}", i16::from(purpose), phone.as_str()).as_bytes());
        mac
    }

    fn seal(&self, phone: &Phone, purpose: Purpose, code: &str) -> Vec<u8> {
        self.mac(phone, purpose, code)
            .finalize()
            .into_bytes()
            .to_vec()
    }

    /// Constant-time comparison with a stored HMAC.
    fn opens(&self, phone: &Phone, purpose: Purpose, code: &str, sealed: &[u8]) -> bool {
        self.mac(phone, purpose, code).verify_slice(sealed).is_ok()
    }
}

fn new_code() -> String {
    format!("{:06}", rand::rngs::OsRng.gen_range(0..1_000_000u32))
}

/// Issues and checks codes.
#[derive(Debug, Clone)]
pub struct SmsCodes {
    pub pool: PgPool,
    pub key: CodeKey,
    pub sender: Arc<dyn SmsSender>,
}

impl SmsCodes {
    /// Counts a send for `phone` from `address` and, when `deliver` (the phone
    /// belongs to an account), sends a new code. Unknown phones are counted and
    /// answered alike but get no message, so the answer reveals no account.
    pub async fn send(
        &self,
        phone: &Phone,
        purpose: Purpose,
        address: &str,
        deliver: bool,
    ) -> Result<(), ServiceError> {
        let code = new_code();
        let mut tx = self.pool.begin().await?;
        // Always address first, then phone: one order, so no deadlock.
        for lock in [
            format!("sms:ip:{address}"),
            format!("sms:phone:{}", phone.0),
        ] {
            sqlx::query("select pg_advisory_xact_lock(hashtextextended($1, 0))")
                .bind(lock)
                .execute(&mut *tx)
                .await?;
        }
        // The time after the locks were won, not when the transaction began.
        let now: DateTime<Utc> = sqlx::query_scalar("select clock_timestamp()")
            .fetch_one(&mut *tx)
            .await?;
        let phone_sends: Vec<DateTime<Utc>> = sqlx::query_scalar(
            "select sent_at from sms_send where phone = $1 and sent_at > $2 - interval '1 day' order by sent_at",
        )
        .bind(&phone.0)
        .bind(now)
        .fetch_all(&mut *tx)
        .await?;
        let address_sends: Vec<DateTime<Utc>> = sqlx::query_scalar(
            "select sent_at from sms_send where ip = $1 and sent_at > $2 - interval '1 hour' order by sent_at",
        )
        .bind(address)
        .bind(now)
        .fetch_all(&mut *tx)
        .await?;
        if let Some(refusal) = send_refusal(now, &phone_sends, &address_sends) {
            tracing::info!(
                wait_secs = refusal.wait_secs,
                "SMS code refused by a limit."
            );
            let mut err = ServiceError::new(ErrorCode::TooManyRequests, refusal.message);
            err.retry_after_secs = Some(refusal.wait_secs);
            return Err(err);
        }
        let send_id = Uuid::new_v4();
        sqlx::query("insert into sms_send (id, phone, ip, sent_at) values ($1, $2, $3, $4)")
            .bind(send_id)
            .bind(&phone.0)
            .bind(address)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        sqlx::query("delete from sms_send where phone = $1 and sent_at < $2 - interval '1 day'")
            .bind(&phone.0)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        let code_id = Uuid::new_v4();
        if deliver {
            sqlx::query(
                "update sms_code set spent_at = $3 where phone = $1 and purpose = $2 and spent_at is null",
            )
            .bind(&phone.0)
            .bind(i16::from(purpose))
            .bind(now)
            .execute(&mut *tx)
            .await?;
            sqlx::query(
                "insert into sms_code (id, phone, purpose, code_hmac, created_at, expires_at) \
                 values ($1, $2, $3, $4, $5, $5 + make_interval(secs => $6))",
            )
            .bind(code_id)
            .bind(&phone.0)
            .bind(i16::from(purpose))
            .bind(self.key.seal(phone, purpose, &code))
            .bind(now)
            .bind(CODE_TTL_SECS as f64)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        if !deliver {
            tracing::info!("SMS code requested for a phone without an account; nothing sent.");
            return Ok(());
        }
        // Delivery happens outside the transaction: no connection is held
        // while the provider answers.
        if let Err(err) = self.sender.send(&phone.0, &purpose.text(&code)).await {
            tracing::warn!(error = %format!("{err:#}"), "SMS delivery failed.");
            // Give the attempt back and kill the undelivered code.
            sqlx::query("update sms_code set spent_at = now() where id = $1")
                .bind(code_id)
                .execute(&self.pool)
                .await?;
            sqlx::query("delete from sms_send where id = $1")
                .bind(send_id)
                .execute(&self.pool)
                .await?;
            return Err(ServiceError::new(
                ErrorCode::Unavailable,
                "短信发送失败，请稍后再试",
            ));
        }
        tracing::info!("SMS code sent.");
        Ok(())
    }

    /// True when `code` is the live code of phone and purpose; it is then spent.
    /// A wrong entry counts against the code, and the fifth kills it. The row
    /// lock makes parallel submissions of the right code succeed once.
    pub async fn check(&self, phone: &Phone, purpose: Purpose, code: &str) -> sqlx::Result<bool> {
        let mut tx = self.pool.begin().await?;
        let live: Option<(Uuid, Vec<u8>)> = sqlx::query_as(
            "select id, code_hmac from sms_code \
             where phone = $1 and purpose = $2 and spent_at is null and expires_at > now() \
               and failed_attempts < $3 \
             order by created_at desc limit 1 for update",
        )
        .bind(&phone.0)
        .bind(i16::from(purpose))
        .bind(MAX_WRONG_ENTRIES)
        .fetch_optional(&mut *tx)
        .await?;
        let Some((id, sealed)) = live else {
            return Ok(false);
        };
        let right = self.key.opens(phone, purpose, code, &sealed);
        if right {
            sqlx::query("update sms_code set spent_at = now() where id = $1")
                .bind(id)
                .execute(&mut *tx)
                .await?;
        } else {
            sqlx::query(
                "update sms_code set failed_attempts = failed_attempts + 1, \
                 spent_at = case when failed_attempts + 1 >= $2 then now() else spent_at end \
                 where id = $1",
            )
            .bind(id)
            .bind(MAX_WRONG_ENTRIES)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(right)
    }
}

/// Messages the development sender recorded, newest first.
pub async fn dev_messages(
    pool: &PgPool,
    phone: &str,
) -> sqlx::Result<Vec<(String, String, DateTime<Utc>)>> {
    sqlx::query_as(
        "select phone, text, created_at from dev_sms_message \
         where ($1 = '' or phone = $1) order by created_at desc, id limit 100",
    )
    .bind(phone)
    .fetch_all(pool)
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs_ago: i64, now: DateTime<Utc>) -> DateTime<Utc> {
        now - Duration::seconds(secs_ago)
    }

    #[test]
    fn phones_are_eleven_digits_starting_with_one() {
        assert!(Phone::parse(" 13800000001 ").is_ok());
        for bad in ["23800000001", "1380000000", "138000000012", "1380000000a"] {
            assert_eq!(
                Phone::parse(bad).unwrap_err().message,
                "请输入正确的手机号",
                "{bad}"
            );
        }
        assert_eq!(Phone::parse("  ").unwrap_err().message, "请输入手机号");
    }

    #[test]
    fn codes_are_six_digits() {
        for _ in 0..100 {
            let code = new_code();
            assert_eq!(code.len(), 6);
            assert!(code.bytes().all(|b| b.is_ascii_digit()));
        }
    }

    #[test]
    fn a_code_opens_only_for_its_phone_and_purpose() {
        let key = CodeKey::new(None);
        let phone = Phone::parse("13800000001").unwrap();
        let other = Phone::parse("13800000002").unwrap();
        let sealed = key.seal(&phone, Purpose::Login, "123456");
        assert!(key.opens(&phone, Purpose::Login, "123456", &sealed));
        assert!(!key.opens(&phone, Purpose::Login, "123457", &sealed));
        assert!(!key.opens(&other, Purpose::Login, "123456", &sealed));
        assert!(!key.opens(&phone, Purpose::ResetPassword, "123456", &sealed));
        assert!(!CodeKey::new(None).opens(&phone, Purpose::Login, "123456", &sealed));
    }

    #[test]
    fn a_phone_waits_sixty_seconds_between_codes() {
        let now = Utc::now();
        let refusal = send_refusal(now, &[at(45, now)], &[]).unwrap();
        assert_eq!(refusal.wait_secs, 15);
        assert!(send_refusal(now, &[at(61, now)], &[]).is_none());
    }

    #[test]
    fn a_phone_gets_five_codes_an_hour_and_ten_a_day() {
        let now = Utc::now();
        let hour: Vec<_> = [3000, 2400, 1800, 1200, 600].map(|s| at(s, now)).to_vec();
        let refusal = send_refusal(now, &hour, &[]).unwrap();
        assert_eq!(refusal.wait_secs, 600, "until the oldest leaves the hour");
        assert!(send_refusal(now, &hour[1..], &[]).is_none());

        let day: Vec<_> = (0..10).map(|i| at(80_000 - i * 3_700, now)).collect();
        let refusal = send_refusal(now, &day, &[]).unwrap();
        assert_eq!(refusal.wait_secs, 86_400 - 80_000);
        assert!(refusal.message.contains("今日"));
        assert!(send_refusal(now, &day[1..], &[]).is_none());
    }

    #[test]
    fn an_address_gets_twenty_codes_an_hour() {
        let now = Utc::now();
        let sends: Vec<_> = (0..20).map(|i| at(3_500 - i * 10, now)).collect();
        assert_eq!(send_refusal(now, &[], &sends).unwrap().wait_secs, 100);
        assert!(send_refusal(now, &[], &sends[1..]).is_none());
    }
}

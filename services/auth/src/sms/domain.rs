//! The rules of SMS codes: what a phone number is, what a code is for and
//! says, how it is sealed, and the sending limits.

use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_proto::auth::v1::SmsPurpose;
use hmac::{Hmac, Mac as _};
use rand::Rng as _;
use secrecy::{ExposeSecret as _, SecretString};
use sha2::Sha256;

use crate::codes::stored_code;

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
pub struct Phone(pub(super) String);

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

    pub(super) fn text(self, code: &str) -> String {
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

    pub(super) fn seal(&self, phone: &Phone, purpose: Purpose, code: &str) -> Vec<u8> {
        self.mac(phone, purpose, code)
            .finalize()
            .into_bytes()
            .to_vec()
    }

    /// Constant-time comparison with a stored HMAC.
    pub(super) fn opens(&self, phone: &Phone, purpose: Purpose, code: &str, sealed: &[u8]) -> bool {
        self.mac(phone, purpose, code).verify_slice(sealed).is_ok()
    }
}

pub(super) fn new_code() -> String {
    format!("{:06}", rand::rngs::OsRng.gen_range(0..1_000_000u32))
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

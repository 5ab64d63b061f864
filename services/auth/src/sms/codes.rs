//! Issuing and checking codes: the limits and the stored code in one
//! transaction, delivery after it.

use std::sync::Arc;

use fleetdesk_kit::{ErrorCode, ServiceError};
use sqlx_postgres::PgPool;
use uuid::Uuid;

use super::domain::{CodeKey, Phone, Purpose, new_code, send_refusal};
use super::sender::SmsSender;
use super::store;

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
        store::lock_sends(&mut tx, phone, address).await?;
        // The time after the locks were won, not when the transaction began.
        let now = store::clock(&mut tx).await?;
        let (phone_sends, address_sends) =
            store::recent_sends(&mut tx, phone, address, now).await?;
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
        store::record_send(&mut tx, send_id, phone, address, now).await?;
        let code_id = Uuid::new_v4();
        if deliver {
            let sealed = self.key.seal(phone, purpose, &code);
            store::replace_code(&mut tx, code_id, phone, purpose, sealed, now).await?;
        }
        tx.commit().await?;
        if !deliver {
            tracing::info!("SMS code requested for a phone without an account; nothing sent.");
            return Ok(());
        }
        // Delivery happens outside the transaction: no connection is held
        // while the provider answers.
        if let Err(err) = self.sender.send(phone.as_str(), &purpose.text(&code)).await {
            tracing::warn!(error = %format!("{err:#}"), "SMS delivery failed.");
            // Give the attempt back and kill the undelivered code.
            store::undo_send(&self.pool, code_id, send_id).await?;
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
        let Some((id, sealed)) = store::live_code(&mut tx, phone, purpose).await? else {
            return Ok(false);
        };
        let right = self.key.opens(phone, purpose, code, &sealed);
        if right {
            store::spend_code(&mut tx, id).await?;
        } else {
            store::count_wrong_entry(&mut tx, id).await?;
        }
        tx.commit().await?;
        Ok(right)
    }
}

//! The SQL of SMS codes: the sends counted against the limits, the stored
//! codes, and the development sender's outbox.

use chrono::{DateTime, Utc};
use sqlx::Transaction;
use sqlx_postgres::{PgPool, Postgres};
use uuid::Uuid;

use super::domain::{CODE_TTL_SECS, MAX_WRONG_ENTRIES, Phone, Purpose};

/// Waits for every other send for the address and the phone to finish; held
/// until the transaction ends.
pub async fn lock_sends(
    tx: &mut Transaction<'_, Postgres>,
    phone: &Phone,
    address: &str,
) -> sqlx::Result<()> {
    // Always address first, then phone: one order, so no deadlock.
    for lock in [
        format!("sms:ip:{address}"),
        format!("sms:phone:{}", phone.0),
    ] {
        sqlx::query("select pg_advisory_xact_lock(hashtextextended($1, 0))")
            .bind(lock)
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}

/// The database's time now, not when the transaction began.
pub async fn clock(tx: &mut Transaction<'_, Postgres>) -> sqlx::Result<DateTime<Utc>> {
    sqlx::query_scalar("select clock_timestamp()")
        .fetch_one(&mut **tx)
        .await
}

/// The phone's sends of the last day and the address's of the last hour,
/// oldest first.
pub async fn recent_sends(
    tx: &mut Transaction<'_, Postgres>,
    phone: &Phone,
    address: &str,
    now: DateTime<Utc>,
) -> sqlx::Result<(Vec<DateTime<Utc>>, Vec<DateTime<Utc>>)> {
    let phone_sends: Vec<DateTime<Utc>> = sqlx::query_scalar(
        "select sent_at from sms_send where phone = $1 and sent_at > $2 - interval '1 day' order by sent_at",
    )
    .bind(&phone.0)
    .bind(now)
    .fetch_all(&mut **tx)
    .await?;
    let address_sends: Vec<DateTime<Utc>> = sqlx::query_scalar(
        "select sent_at from sms_send where ip = $1 and sent_at > $2 - interval '1 hour' order by sent_at",
    )
    .bind(address)
    .bind(now)
    .fetch_all(&mut **tx)
    .await?;
    Ok((phone_sends, address_sends))
}

/// Counts a send, and forgets the phone's sends older than a day.
pub async fn record_send(
    tx: &mut Transaction<'_, Postgres>,
    send_id: Uuid,
    phone: &Phone,
    address: &str,
    now: DateTime<Utc>,
) -> sqlx::Result<()> {
    sqlx::query("insert into sms_send (id, phone, ip, sent_at) values ($1, $2, $3, $4)")
        .bind(send_id)
        .bind(&phone.0)
        .bind(address)
        .bind(now)
        .execute(&mut **tx)
        .await?;
    sqlx::query("delete from sms_send where phone = $1 and sent_at < $2 - interval '1 day'")
        .bind(&phone.0)
        .bind(now)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// Stores a new code for phone and purpose, spending the older live ones.
pub async fn replace_code(
    tx: &mut Transaction<'_, Postgres>,
    code_id: Uuid,
    phone: &Phone,
    purpose: Purpose,
    sealed: Vec<u8>,
    now: DateTime<Utc>,
) -> sqlx::Result<()> {
    sqlx::query(
        "update sms_code set spent_at = $3 where phone = $1 and purpose = $2 and spent_at is null",
    )
    .bind(&phone.0)
    .bind(i16::from(purpose))
    .bind(now)
    .execute(&mut **tx)
    .await?;
    sqlx::query(
        "insert into sms_code (id, phone, purpose, code_hmac, created_at, expires_at) \
         values ($1, $2, $3, $4, $5, $5 + make_interval(secs => $6))",
    )
    .bind(code_id)
    .bind(&phone.0)
    .bind(i16::from(purpose))
    .bind(sealed)
    .bind(now)
    .bind(CODE_TTL_SECS as f64)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Kills an undelivered code and gives its send back.
pub async fn undo_send(pool: &PgPool, code_id: Uuid, send_id: Uuid) -> sqlx::Result<()> {
    sqlx::query("update sms_code set spent_at = now() where id = $1")
        .bind(code_id)
        .execute(pool)
        .await?;
    sqlx::query("delete from sms_send where id = $1")
        .bind(send_id)
        .execute(pool)
        .await?;
    Ok(())
}

/// The newest live code of phone and purpose (id and HMAC), locked until the
/// transaction ends.
pub async fn live_code(
    tx: &mut Transaction<'_, Postgres>,
    phone: &Phone,
    purpose: Purpose,
) -> sqlx::Result<Option<(Uuid, Vec<u8>)>> {
    sqlx::query_as(
        "select id, code_hmac from sms_code \
         where phone = $1 and purpose = $2 and spent_at is null and expires_at > now() \
           and failed_attempts < $3 \
         order by created_at desc limit 1 for update",
    )
    .bind(&phone.0)
    .bind(i16::from(purpose))
    .bind(MAX_WRONG_ENTRIES)
    .fetch_optional(&mut **tx)
    .await
}

/// Spends a code that was entered right.
pub async fn spend_code(tx: &mut Transaction<'_, Postgres>, id: Uuid) -> sqlx::Result<()> {
    sqlx::query("update sms_code set spent_at = now() where id = $1")
        .bind(id)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// Counts a wrong entry against a code; the last allowed one kills it.
pub async fn count_wrong_entry(tx: &mut Transaction<'_, Postgres>, id: Uuid) -> sqlx::Result<()> {
    sqlx::query(
        "update sms_code set failed_attempts = failed_attempts + 1, \
         spent_at = case when failed_attempts + 1 >= $2 then now() else spent_at end \
         where id = $1",
    )
    .bind(id)
    .bind(MAX_WRONG_ENTRIES)
    .execute(&mut **tx)
    .await?;
    Ok(())
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

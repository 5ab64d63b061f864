//! The token list the platform learns cards and plates from (OCPI tokens
//! module, energy as sender): every card is an RFID token (an APP_USER one
//! for a virtual card) with its number as uid, and a vehicle card's plate
//! an OTHER token; both share the card number as `group_id`. A card that
//! is not active is listed as not valid. Whitelist NEVER: every session is
//! authorised in real time, since it needs a hold.
//!
//! A token's uid is printable ASCII (OCPI CiString), and a plate is not
//! (沪ADC9246): a plate token's uid is [`plate_uid`] — `PL-` and the
//! plate's UTF-8 bytes in hex — and the plate itself its `visual_number`,
//! as a platform shows it. [`plate_of`] reads a uid back to its plate.

use chrono::{DateTime, Utc};
use fleetdesk_kit::{ServiceError, db};
use fleetdesk_ocpi::{COUNTRY, PageQuery, Token, TokenType, WhitelistType};
use sqlx::FromRow;
use sqlx_postgres::PgPool;

use super::domain::{CardKind, CardStatus};
use crate::codes::optional;
use crate::platform::EMSP_PARTY_ID;

/// The language drivers of our cards read at the charge point (ISO 639-1).
pub const LANGUAGE: &str = "zh";

#[derive(Debug, FromRow)]
struct TokenRow {
    card_no: String,
    plate_number: String,
    kind: i16,
    status: i16,
    updated_at: DateTime<Utc>,
    /// 1: the card, 2: its plate.
    token: i32,
}

const WHERE: &str = "from charging_card c cross join lateral (values (1), (2)) t(token) \
     where (t.token = 1 or c.plate_number <> '') \
       and ($1::timestamptz is null or c.updated_at >= $1) \
       and ($2::timestamptz is null or c.updated_at < $2)";

/// One page of the token list, oldest change first, and how many there are.
pub async fn page(pool: &PgPool, query: &PageQuery) -> Result<(Vec<Token>, i64), ServiceError> {
    let mut tx = db::begin_service(pool).await?;
    let rows: Vec<TokenRow> = sqlx::query_as(&format!(
        "select c.card_no, c.plate_number, c.kind, c.status, c.updated_at, t.token {WHERE} \
         order by c.updated_at, c.id, t.token offset $3 limit $4"
    ))
    .bind(query.date_from)
    .bind(query.date_to)
    .bind(i64::try_from(query.offset).unwrap_or(i64::MAX))
    .bind(i64::try_from(query.limit()).unwrap_or(100))
    .fetch_all(&mut *tx)
    .await?;
    let total: i64 = sqlx::query_scalar(&format!("select count(*) {WHERE}"))
        .bind(query.date_from)
        .bind(query.date_to)
        .fetch_one(&mut *tx)
        .await?;
    db::end_read(tx);
    Ok((rows.into_iter().map(token).collect(), total))
}

/// The uid of the OTHER token of `plate`.
pub fn plate_uid(plate: &str) -> String {
    let mut uid = String::with_capacity(PLATE_PREFIX.len() + plate.len() * 2);
    uid.push_str(PLATE_PREFIX);
    for b in plate.trim().bytes() {
        uid.push_str(&format!("{b:02X}"));
    }
    uid
}

const PLATE_PREFIX: &str = "PL-";

/// The plate an OTHER token's uid names: [`plate_uid`] read back, or — a
/// platform that sends the plate itself — the uid as it is.
pub fn plate_of(uid: &str) -> Result<String, ServiceError> {
    let uid = uid.trim();
    let Some(hex) = uid.strip_prefix(PLATE_PREFIX) else {
        return Ok(uid.to_owned());
    };
    let bytes = (0..hex.len())
        .step_by(2)
        .map(|i| {
            hex.get(i..i + 2)
                .and_then(|b| u8::from_str_radix(b, 16).ok())
        })
        .collect::<Option<Vec<u8>>>();
    bytes
        .and_then(|b| String::from_utf8(b).ok())
        .filter(|plate| !plate.is_empty())
        .ok_or_else(|| ServiceError::invalid("uid", format!("token uid {uid} names no plate")))
}

fn token(row: TokenRow) -> Token {
    let (uid, kind, visual) = if row.token == 2 {
        (
            plate_uid(&row.plate_number),
            TokenType::Other,
            row.plate_number,
        )
    } else {
        let kind = match optional::<CardKind>(Some(row.kind)) {
            Some(CardKind::Virtual) => TokenType::AppUser,
            Some(CardKind::Physical) | None => TokenType::Rfid,
        };
        (row.card_no.clone(), kind, row.card_no.clone())
    };
    Token {
        country_code: COUNTRY.to_owned(),
        party_id: EMSP_PARTY_ID.to_owned(),
        visual_number: Some(visual),
        uid,
        kind,
        contract_id: format!("CN-{EMSP_PARTY_ID}-{}", row.card_no),
        issuer: "Fleetdesk".to_owned(),
        group_id: Some(row.card_no),
        valid: optional::<CardStatus>(Some(row.status)) == Some(CardStatus::Active),
        whitelist: WhitelistType::Never,
        language: Some(LANGUAGE.to_owned()),
        default_profile_type: None,
        energy_contract: None,
        last_updated: row.updated_at,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plate_token_has_a_printable_ascii_uid_that_reads_back_to_its_plate() {
        for plate in ["沪ADC9246", "粤BD12345", "京A12345"] {
            let uid = plate_uid(plate);
            assert!(uid.len() <= 36, "{uid}");
            assert!(uid.bytes().all(|b| b.is_ascii_graphic()), "{uid}");
            assert_eq!(plate_of(&uid).unwrap(), plate);
        }
        assert_eq!(plate_uid("沪A1"), "PL-E6B2AA4131");
        // A platform that sends the plate itself is still understood.
        assert_eq!(plate_of("沪ADC9246").unwrap(), "沪ADC9246");
        for bad in ["PL-E6B2A", "PL-ZZ", "PL-", "PL-FF"] {
            assert!(plate_of(bad).is_err(), "{bad}");
        }
    }
}

//! The token list the platform learns cards and plates from (OCPI tokens
//! module, energy as sender): every card is an RFID token (an APP_USER one
//! for a virtual card) with its number as uid, and a vehicle card's plate
//! an OTHER token; both share the card number as `group_id`. A card that
//! is not active is listed as not valid. Whitelist NEVER: every session is
//! authorised in real time, since it needs a hold.

use chrono::{DateTime, Utc};
use fleetdesk_kit::{ServiceError, db};
use fleetdesk_ocpi::{COUNTRY, PageQuery, Token, TokenType, WhitelistType};
use sqlx::{FromRow, PgPool};

use super::EMSP_PARTY_ID;
use crate::cards::domain::{CardKind, CardStatus};
use crate::codes::optional;

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

fn token(row: TokenRow) -> Token {
    let (uid, kind) = if row.token == 2 {
        (row.plate_number, TokenType::Other)
    } else {
        let kind = match optional::<CardKind>(Some(row.kind)) {
            Some(CardKind::Virtual) => TokenType::AppUser,
            Some(CardKind::Physical) | None => TokenType::Rfid,
        };
        (row.card_no.clone(), kind)
    };
    Token {
        country_code: COUNTRY.to_owned(),
        party_id: EMSP_PARTY_ID.to_owned(),
        visual_number: Some(uid.clone()),
        uid,
        kind,
        contract_id: format!("CN-{EMSP_PARTY_ID}-{}", row.card_no),
        issuer: "Fleetdesk".to_owned(),
        group_id: Some(row.card_no),
        valid: optional::<CardStatus>(Some(row.status)) == Some(CardStatus::Active),
        whitelist: WhitelistType::Never,
        last_updated: row.updated_at,
    }
}

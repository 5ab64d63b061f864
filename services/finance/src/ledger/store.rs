//! The enterprise's statement: entries of its prepaid balance (MAIN) with
//! the transfer behind each and the payment or refund that keyed it.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::{Filters, Paging, Sort, TimeRange};
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

#[derive(Debug, Clone, FromRow)]
pub struct EntryRow {
    pub id: Uuid,
    pub amount_fen: i64,
    pub balance_after_fen: i64,
    pub created_at: DateTime<Utc>,
    pub kind: i16,
    pub reference: String,
    pub reference_no: String,
    pub memo: String,
}

/// What the statement is filtered by.
#[derive(Debug, Clone, Default)]
pub struct EntryQuery {
    /// Credits (true), debits (false) or both.
    pub credits: Option<bool>,
    /// Transfer kinds; empty: every kind.
    pub kinds: Vec<i16>,
    /// The payment or refund behind the transfer.
    pub reference: Option<String>,
    pub occurred: TimeRange,
}

const SELECT: &str = "select e.id, e.amount_fen, e.balance_after_fen, e.created_at, t.kind, \
     t.idempotency_key as reference, coalesce(p.payment_no, r.refund_no, '') as reference_no, \
     t.memo \
     from ledger_entry e join ledger_transfer t on t.id = e.transfer_id \
     left join bill_payment p on p.enterprise_id = e.enterprise_id and p.id::text = t.idempotency_key \
     left join refund r on r.enterprise_id = e.enterprise_id and r.id::text = t.idempotency_key";

#[derive(Debug, Clone, Copy)]
struct NewestFirst;

impl Sort for NewestFirst {
    fn order_by(&self) -> &'static str {
        "e.created_at desc, e.id desc"
    }
}

fn filtered<'a>(
    select: &str,
    enterprise_id: Uuid,
    account: Uuid,
    query: &EntryQuery,
) -> Filters<'a> {
    let mut f = Filters::new(select, "e.enterprise_id", enterprise_id);
    f.scope().push("e.account_id = ").push_bind(account);
    match query.credits {
        Some(true) => {
            f.and().push("e.amount_fen > 0");
        }
        Some(false) => {
            f.and().push("e.amount_fen < 0");
        }
        None => {}
    }
    f.any_of("t.kind", query.kinds.clone())
        .equals("t.idempotency_key", query.reference.clone())
        .within("e.created_at", query.occurred);
    f
}

/// One page of the statement of `account`, and how many entries match.
pub async fn entries(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    account: Uuid,
    query: &EntryQuery,
    paging: Paging,
) -> Result<(Vec<EntryRow>, i64), ServiceError> {
    let rows = filtered(SELECT, enterprise_id, account, query)
        .page(&NewestFirst, paging)
        .build_query_as()
        .fetch_all(&mut *conn)
        .await?;
    let count: i64 = filtered(
        "select count(*) from ledger_entry e join ledger_transfer t on t.id = e.transfer_id",
        enterprise_id,
        account,
        query,
    )
    .finish()
    .build_query_scalar()
    .fetch_one(conn)
    .await?;
    Ok((rows, count))
}

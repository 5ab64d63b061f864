//! Ledger RPCs: the enterprise's balances and its statement. Only the
//! prepaid balance (MAIN) is the enterprise's; the other accounts are the
//! operator's side of its transfers and are not shown. DEPOSIT and
//! RECEIVABLE have no account of their own yet: asked for alone, the
//! statement is empty.

use chrono::Utc;
use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::list::{Paging, TimeRange};
use fleetdesk_kit::{ServiceError, codes, db};
use fleetdesk_proto::finance::v1 as pb;
use tonic::Request;
use uuid::Uuid;

use super::store::{self, EntryQuery, EntryRow};
use super::{AccountKind, TransferKind};
use crate::context::{self, Context};

/// The permissions of the balances (billPay, billList, billDashboard).
pub const BALANCE_PERMISSIONS: &[&str] = &["oss:bill:pagepay", "bill:biz:pageInfo", "as:b2b:bill"];
/// The permissions of the statement (billSettlement, billList).
pub const ENTRY_PERMISSIONS: &[&str] = &["bill:settlement", "bill:biz:pageInfo"];

pub async fn balances(
    ctx: &Context,
    req: Request<pb::GetLedgerBalancesRequest>,
) -> Result<pb::GetLedgerBalancesResponse, ServiceError> {
    let (actor, mut tx) = context::begin_read_any(&ctx.pool, &req, BALANCE_PERMISSIONS).await?;
    let main =
        fleetdesk_ledger::find_account(&mut tx, actor.enterprise_id, AccountKind::Main, None)
            .await?;
    let balance_fen = match main {
        Some(id) => fleetdesk_ledger::balances(&mut tx, actor.enterprise_id, &[id])
            .await?
            .first()
            .map_or(0, |(_, fen)| *fen),
        None => 0,
    };
    db::end_read(tx);
    Ok(pb::GetLedgerBalancesResponse {
        balances: vec![pb::LedgerBalance {
            account: pb::LedgerAccount::PrepaidBalance as i32,
            balance_fen,
            as_of_time: Some(timestamp(Utc::now())),
        }],
    })
}

pub async fn entries(
    ctx: &Context,
    req: Request<pb::ListLedgerEntriesRequest>,
) -> Result<pb::ListLedgerEntriesResponse, ServiceError> {
    let (actor, mut tx) = context::begin_read_any(&ctx.pool, &req, ENTRY_PERMISSIONS).await?;
    let pb::ListLedgerEntriesRequest {
        page,
        accounts,
        direction,
        business_types,
        reference_id,
        occurred_time,
    } = req.into_inner();
    let paging = Paging::parse(page.as_ref())?;
    let accounts = accounts
        .into_iter()
        .map(|a| pb::LedgerAccount::try_from(a).map_err(|_| invalid_code("accounts")))
        .collect::<Result<Vec<_>, _>>()?;
    let credits = match pb::LedgerDirection::try_from(direction) {
        Ok(pb::LedgerDirection::Unspecified) => None,
        Ok(pb::LedgerDirection::Credit) => Some(true),
        Ok(pb::LedgerDirection::Debit) => Some(false),
        Err(_) => return Err(invalid_code("direction")),
    };
    let filters_business = !business_types.is_empty();
    let mut kinds = Vec::new();
    for business in business_types {
        let business = pb::LedgerBusinessType::try_from(business)
            .map_err(|_| invalid_code("businessTypes"))?;
        kinds.extend(
            TransferKind::of_business(business)
                .into_iter()
                .map(i16::from),
        );
    }
    // Business types finance never posts (deposits, charging transfers)
    // match nothing rather than everything.
    let matches_nothing = filters_business && kinds.is_empty();
    let query = EntryQuery {
        credits,
        kinds,
        reference: Some(reference_id.trim().to_owned()).filter(|r| !r.is_empty()),
        occurred: TimeRange::parse("occurredTime", occurred_time.as_ref())?,
    };
    let main =
        fleetdesk_ledger::find_account(&mut tx, actor.enterprise_id, AccountKind::Main, None)
            .await?;
    let shows_main = accounts.is_empty() || accounts.contains(&pb::LedgerAccount::PrepaidBalance);
    let (rows, count) = match main {
        Some(main) if shows_main && !matches_nothing => {
            store::entries(&mut tx, actor.enterprise_id, main, &query, paging).await?
        }
        _ => (Vec::new(), 0),
    };
    db::end_read(tx);
    Ok(pb::ListLedgerEntriesResponse {
        entries: rows
            .into_iter()
            .map(|row| entry(row, actor.enterprise_id))
            .collect::<Result<_, _>>()?,
        page: Some(paging.info(count)),
    })
}

fn invalid_code(field: &str) -> ServiceError {
    ServiceError::invalid(field, "筛选条件无效")
}

/// One statement line as the enterprise reads it.
fn entry(row: EntryRow, enterprise_id: Uuid) -> Result<pb::LedgerEntry, ServiceError> {
    let EntryRow {
        id,
        amount_fen,
        balance_after_fen,
        created_at,
        kind,
        reference,
        reference_no,
        memo,
    } = row;
    let kind = codes::known::<TransferKind>(kind)?;
    let direction = if amount_fen > 0 {
        pb::LedgerDirection::Credit
    } else {
        pb::LedgerDirection::Debit
    };
    Ok(pb::LedgerEntry {
        id: id.to_string(),
        entry_no: format!("LS{}", &id.simple().to_string()[..12].to_uppercase()),
        enterprise_id: enterprise_id.to_string(),
        account: pb::LedgerAccount::PrepaidBalance as i32,
        direction: direction as i32,
        amount_fen: amount_fen.abs(),
        balance_after_fen,
        business_type: kind.business_type() as i32,
        reference_id: Uuid::parse_str(&reference)
            .map(|id| id.to_string())
            .unwrap_or_default(),
        reference_no,
        occurred_time: Some(timestamp(created_at)),
        remark: memo,
    })
}

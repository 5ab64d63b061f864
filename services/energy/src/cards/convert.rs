//! Proto ↔ domain for cards.

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::list::{self, TimeRange};
use fleetdesk_proto::energy::v1 as pb;
use uuid::Uuid;

use super::domain::{BudgetPeriod, CardKind, CardStatus, HolderKind};
use super::store::{CardQuery, CardRow};
use crate::accounts::convert::audit;
use crate::codes::optional;
use crate::filters;

fn id_text(id: Option<Uuid>) -> String {
    id.map(|i| i.to_string()).unwrap_or_default()
}

pub fn card(row: CardRow, enterprise_id: Uuid) -> pb::ChargingCard {
    let CardRow {
        id,
        card_no,
        org_id,
        org_name,
        account_id,
        ledger_account_id: _,
        kind,
        holder_kind,
        vehicle_id,
        plate_number,
        driver_id,
        driver_name,
        status,
        balance_fen,
        budget_period,
        budget_limit_fen,
        per_session_limit_fen,
        total_consumed_fen,
        issued_at,
        last_used_at,
        remark,
        created_by,
        updated_by,
        created_at,
        updated_at,
        station_ids,
    } = row;
    pb::ChargingCard {
        id: id.to_string(),
        card_no,
        enterprise_id: enterprise_id.to_string(),
        org_id: org_id.to_string(),
        org_name,
        account_id: account_id.to_string(),
        kind: optional::<CardKind>(Some(kind)).map_or(0, CardKind::pb),
        holder_kind: optional::<HolderKind>(Some(holder_kind)).map_or(0, HolderKind::pb),
        vehicle_id: id_text(vehicle_id),
        plate_number,
        driver_id: id_text(driver_id),
        driver_name,
        status: optional::<CardStatus>(Some(status)).map_or(0, CardStatus::pb),
        balance_fen,
        budget: Some(pb::CardBudget {
            period: optional::<BudgetPeriod>(Some(budget_period)).map_or(0, BudgetPeriod::pb),
            limit_fen: budget_limit_fen,
            // Spend per period is counted by the charging sessions.
            used_fen: 0,
            per_session_limit_fen,
            reset_time: None,
        }),
        total_consumed_fen,
        issued_time: Some(timestamp(issued_at)),
        last_used_time: last_used_at.map(timestamp),
        remark,
        audit: Some(audit(created_by, created_at, updated_by, updated_at)),
        allowed_station_ids: station_ids.iter().map(Uuid::to_string).collect(),
    }
}

/// The list request's filter, organisations not yet expanded (the junior
/// organisation rides in `junior_org_ids` as the one chosen).
pub fn query(request: &pb::ListChargingCardsRequest) -> Result<CardQuery, ServiceError> {
    let pb::ListChargingCardsRequest {
        page: _,
        card_nos,
        plate_numbers,
        org_ids,
        account_id,
        driver_name,
        kinds,
        holder_kinds,
        statuses,
        issued_time,
        junior_of_org_id,
    } = request;
    Ok(CardQuery {
        card_nos: list::batch("cardNos", card_nos)?
            .into_iter()
            .map(|c| c.to_ascii_uppercase())
            .collect(),
        plates: list::batch("plateNumbers", plate_numbers)?,
        org_ids: filters::ids("orgIds", org_ids, "所选组织不存在")?,
        account_id: filters::optional_id(account_id)?,
        driver_name: driver_name.trim().to_owned(),
        kinds: filters::codes("kinds", kinds, CardKind::from_pb)?,
        holder_kinds: filters::codes("holderKinds", holder_kinds, HolderKind::from_pb)?,
        statuses: filters::codes("statuses", statuses, CardStatus::from_pb)?,
        issued_time: TimeRange::parse("issuedTime", issued_time.as_ref())?,
        junior_org_ids: filters::optional_id(junior_of_org_id)?.map(|o| vec![o]),
    })
}

/// Expands the query's organisations through the replica: the chosen ones
/// with their subtrees, and for junior cards the units strictly below.
pub async fn expand(
    conn: &mut sqlx_postgres::PgConnection,
    mut query: CardQuery,
) -> Result<CardQuery, ServiceError> {
    query.org_ids = filters::org_subtrees(conn, query.org_ids).await?;
    if let Some(chosen) = query.junior_org_ids.take() {
        let mut below = fleetdesk_kit::reach::subtrees(conn, &chosen).await?;
        below.retain(|o| !chosen.contains(o));
        query.junior_org_ids = Some(below);
    }
    Ok(query)
}

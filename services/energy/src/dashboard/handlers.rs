//! `GetChargingDashboard`: balances now and the figures of a range (this
//! month so far by default) in the caller's reach and organisation filter.

use std::collections::HashMap;

use chrono::Utc;
use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::{ServiceError, db};
use fleetdesk_proto::energy::v1 as pb;
use tonic::Request;
use uuid::Uuid;

use super::PERMISSION;
use super::domain::{self, Period};
use super::store::{self, PeriodRow};
use crate::calendar::{self, Month};
use crate::context::{Actor, Context};
use crate::reports::{self, Scope};
use crate::{accounts, filters};

fn rank(rows: &[(Uuid, PeriodRow)], names: &HashMap<Uuid, String>) -> Vec<pb::ChargingRankItem> {
    rows.iter()
        .map(|(id, r)| pb::ChargingRankItem {
            id: id.to_string(),
            name: names.get(id).cloned().unwrap_or_default(),
            session_count: r.session_count,
            energy_wh: r.energy_wh,
            total_fen: r.total_fen,
        })
        .collect()
}

fn ids(rows: &[(Uuid, PeriodRow)]) -> Vec<Uuid> {
    rows.iter().map(|(id, _)| *id).collect()
}

pub async fn get(
    ctx: &Context,
    req: Request<pb::GetChargingDashboardRequest>,
) -> Result<pb::GetChargingDashboardResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    accounts::store::require_opened(&mut tx, actor.enterprise_id).await?;
    let r = req.into_inner();
    let now = Utc::now();
    // This month through today (the trend ends with today).
    let tomorrow = calendar::day_of(now) + chrono::Duration::days(1);
    let this_month = (Month::of(now).start(), calendar::midnight(tomorrow));
    let (start, end) = reports::range("timeRange", r.time_range.as_ref(), Some(this_month))?;
    let org_ids = filters::ids("orgIds", &r.org_ids, "组织编号无效")?;
    let scope = Scope {
        enterprise_id: actor.enterprise_id,
        org_ids: filters::org_subtrees(&mut tx, org_ids).await?,
        reach: actor.reach.clone(),
    };
    let balances = store::balances(&mut tx, &scope).await?;
    let Period {
        all,
        days,
        stations,
        orgs,
        vehicles,
    } = domain::sort(store::period(&mut tx, &scope, start, end).await?);
    let station_names: HashMap<Uuid, String> = store::station_names(&mut tx, &ids(&stations))
        .await?
        .into_iter()
        .collect();
    let org_names = accounts::store::org_names(&mut tx, &ids(&orgs)).await?;
    let plates: HashMap<Uuid, String> =
        store::plates(&mut tx, actor.enterprise_id, &ids(&vehicles), end)
            .await?
            .into_iter()
            .collect();
    db::end_read(tx);

    let all = all.unwrap_or_default();
    let trend = calendar::days(start, end)
        .into_iter()
        .map(|day| {
            let row = days.get(&day);
            pb::DailyChargingFigure {
                date: Some(timestamp(calendar::midnight(day))),
                session_count: row.map_or(0, |r| r.session_count),
                energy_wh: row.map_or(0, |r| r.energy_wh),
                total_fen: row.map_or(0, |r| r.total_fen),
            }
        })
        .collect();
    let count = |n: i64| i32::try_from(n).unwrap_or(i32::MAX);
    Ok(pb::GetChargingDashboardResponse {
        dashboard: Some(pb::ChargingDashboard {
            main_available_fen: balances.main_fen,
            total_available_fen: balances.accounts_fen + balances.cards_fen,
            frozen_fen: balances.held_fen,
            active_card_count: count(balances.active_cards),
            charging_now_count: count(balances.charging_now),
            totals: Some(pb::ChargingSessionTotals {
                session_count: all.session_count,
                energy_wh: all.energy_wh,
                electricity_fen: all.electricity_fen,
                service_fee_fen: all.service_fee_fen,
                parking_fee_fen: all.parking_fee_fen,
                time_fee_fen: all.time_fee_fen,
                fixed_fee_fen: all.fixed_fee_fen,
                reservation_fee_fen: all.reservation_fee_fen,
                discount_fen: all.discount_fen,
                total_fen: all.total_fen,
            }),
            vehicle_count: count(all.vehicle_count),
            saved_fen: all.discount_fen,
            avg_price_fen_per_mwh: reports::fen_per_mwh(all.total_fen, all.energy_wh),
            trend,
            top_stations: rank(&stations, &station_names),
            top_orgs: rank(&orgs, &org_names),
            top_vehicles: rank(&vehicles, &plates),
        }),
    })
}

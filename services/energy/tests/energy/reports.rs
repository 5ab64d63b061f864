//! The dashboard and the charging behaviour analysis over the real stack:
//! sessions charged on the platform stand-in and settled by energy, the
//! vehicle service answering distances from its position history, and
//! another tenant that sees none of it.

use crate::support;

use std::collections::HashMap;

use chrono::{DateTime, Duration, FixedOffset, Timelike, Utc};
use fleetdesk_kit::{ErrorCode, db};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::energy::v1 as pb;
use support::platform::{Charging, charging};
use support::{Tenant, err};
use uuid::Uuid;

/// One settled session of a tenant as stored.
#[derive(Debug, sqlx::FromRow)]
struct Settled {
    vehicle_id: Option<Uuid>,
    start_time: DateTime<Utc>,
    energy_wh: i64,
    total_fen: i64,
    start_soc: Option<i16>,
}

async fn settled(c: &Charging, t: &Tenant) -> Vec<Settled> {
    let mut tx = db::begin_service(&c.stack.owner).await.unwrap();
    let rows = sqlx::query_as(
        "select vehicle_id, start_time, energy_wh, total_fen, start_soc from charging_session \
         where enterprise_id = $1 and status = 2",
    )
    .bind(t.enterprise)
    .fetch_all(&mut *tx)
    .await
    .unwrap();
    tx.commit().await.unwrap();
    rows
}

/// Two fixes of `vehicle` in the vehicle service's history, its odometer
/// reading `from_m` then `to_m`.
async fn drive(c: &Charging, t: &Tenant, vehicle: Uuid, from_m: i64, to_m: i64) {
    let mut tx = db::begin_service(&c.stack.owner).await.unwrap();
    for (ago, mileage) in [(Duration::hours(2), from_m), (Duration::minutes(1), to_m)] {
        sqlx::query(
            "insert into vehicle.position (enterprise_id, vehicle_id, fix_time, receive_time, lat, \
             lng, altitude_m, speed_dkmh, heading, alarm_bits, status_bits, mileage_m, soc) \
             values ($1, $2, $3, $3, 31.2, 121.5, 5, 400, 90, 0, 3, $4, 60)",
        )
        .bind(t.enterprise)
        .bind(vehicle)
        .bind(Utc::now() - ago)
        .bind(mileage)
        .execute(&mut *tx)
        .await
        .unwrap();
    }
    tx.commit().await.unwrap();
}

fn last_day() -> common::TimeRange {
    let now = Utc::now();
    common::TimeRange {
        start: Some(fleetdesk_kit::convert::timestamp(now - Duration::days(1))),
        end: Some(fleetdesk_kit::convert::timestamp(now + Duration::hours(1))),
    }
}

fn filter() -> pb::ChargingBehaviorFilter {
    pb::ChargingBehaviorFilter {
        start_time: Some(last_day()),
        ..Default::default()
    }
}

async fn dashboard(c: &Charging, t: &Tenant) -> pb::ChargingDashboard {
    c.stack
        .client
        .clone()
        .get_charging_dashboard(c.stack.req(t, pb::GetChargingDashboardRequest::default()))
        .await
        .unwrap()
        .into_inner()
        .dashboard
        .unwrap()
}

async fn analysis(c: &Charging, t: &Tenant) -> pb::ChargingBehaviorAnalysis {
    c.stack
        .client
        .clone()
        .get_charging_behavior_analysis(c.stack.req(
            t,
            pb::GetChargingBehaviorAnalysisRequest {
                filter: Some(filter()),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .analysis
        .unwrap()
}

async fn vehicles(c: &Charging, t: &Tenant) -> pb::ListVehicleChargingBehaviorsResponse {
    c.stack
        .client
        .clone()
        .list_vehicle_charging_behaviors(c.stack.req(
            t,
            pb::ListVehicleChargingBehaviorsRequest {
                page: Some(common::PageRequest { page: 1, size: 20 }),
                filter: Some(filter()),
            },
        ))
        .await
        .unwrap()
        .into_inner()
}

/// `n / d` rounded half up (the reports' rule).
fn rounded(n: i64, d: i64) -> i64 {
    ((2 * i128::from(n) + i128::from(d)) / (2 * i128::from(d))) as i64
}

/// `amount` per 100 km of `metres`.
fn per_100km(amount: i64, metres: i64) -> i64 {
    rounded(amount * 100_000, metres)
}

#[tokio::test]
async fn the_dashboard_and_the_analysis_add_up_the_sessions_with_kilometres_from_telemetry() {
    let c = charging().await;
    let a = c.stack.a.clone();
    let shanghai = [a.east, a.shanghai];
    let van = c.card(&a, &shanghai, Some(0), 30_000).await;
    let truck = c.card(&a, &shanghai, Some(1), 30_000).await;
    let driver = c.card(&a, &[a.south], None, 30_000).await;
    for (card, minutes, soc) in [
        (&van, 60, 20),
        (&van, 30, 55),
        (&truck, 15, 90),
        (&driver, 20, 5),
    ] {
        c.session(&card.card_no, minutes, 60, soc).await;
    }
    // The van drove 250 km by its odometer; the truck's terminal reports none.
    let (van_id, van_plate) = a.vehicles[0].clone();
    drive(&c, &a, van_id, 1_000_000, 1_250_000).await;

    let sessions = settled(&c, &a).await;
    assert_eq!(sessions.len(), 4);
    let energy: i64 = sessions.iter().map(|s| s.energy_wh).sum();
    let total: i64 = sessions.iter().map(|s| s.total_fen).sum();
    let of_van: Vec<&Settled> = sessions
        .iter()
        .filter(|s| s.vehicle_id == Some(van_id))
        .collect();
    let van_fen: i64 = of_van.iter().map(|s| s.total_fen).sum();
    let van_wh: i64 = of_van.iter().map(|s| s.energy_wh).sum();

    // Dashboard: this month so far.
    let d = dashboard(&c, &a).await;
    let totals = d.totals.unwrap();
    assert_eq!(
        (totals.session_count, totals.energy_wh, totals.total_fen),
        (4, energy, total)
    );
    assert_eq!(d.vehicle_count, 2);
    assert_eq!(
        (d.charging_now_count, d.frozen_fen, d.active_card_count),
        (0, 0, 3)
    );
    // Every fen topped up is on an account or a card, or was captured.
    assert_eq!(d.total_available_fen, 3 * 30_000 - total);
    assert_eq!(d.trend.iter().map(|p| p.total_fen).sum::<i64>(), total);
    assert_eq!(d.trend.iter().map(|p| p.session_count).sum::<i64>(), 4);
    assert_eq!(d.top_vehicles.len(), 2);
    assert_eq!(
        (
            d.top_vehicles[0].id.as_str(),
            d.top_vehicles[0].name.as_str()
        ),
        (van_id.to_string().as_str(), van_plate.as_str())
    );
    assert_eq!(d.top_vehicles[0].energy_wh, van_wh);
    let orgs: HashMap<String, i64> = d
        .top_orgs
        .iter()
        .map(|o| (o.name.clone(), o.session_count))
        .collect();
    assert_eq!(
        orgs,
        HashMap::from([("上海".to_owned(), 3), ("华南".to_owned(), 1)])
    );
    assert_eq!(
        d.top_stations.iter().map(|s| s.session_count).sum::<i64>(),
        4
    );
    assert!(d.top_stations.iter().all(|s| !s.name.is_empty()));
    assert_eq!(d.avg_price_fen_per_mwh, rounded(total * 1_000_000, energy));

    // Analysis: hours, SOC at plug-in, bands, per 100 km over the van only.
    let an = analysis(&c, &a).await;
    let overall = an.overall.unwrap();
    assert_eq!(
        (overall.session_count, overall.energy_wh, overall.total_fen),
        (4, energy, total)
    );
    assert_eq!(
        overall.peak_energy_wh
            + overall.flat_energy_wh
            + overall.valley_energy_wh
            + overall.unknown_band_energy_wh,
        energy
    );
    assert_eq!(overall.unknown_band_energy_wh, 0);
    assert!(
        (overall.off_peak_share - overall.valley_energy_wh as f64 / energy as f64).abs() < 1e-9
    );
    assert_eq!(
        (overall.vehicle_count, overall.vehicles_with_distance),
        (2, 1)
    );
    assert_eq!(overall.distance_m, 250_000);
    assert_eq!(overall.fen_per_100km, Some(per_100km(van_fen, 250_000)));
    assert_eq!(overall.wh_per_100km, Some(per_100km(van_wh, 250_000)));
    let shanghai_hour = |t: DateTime<Utc>| {
        t.with_timezone(&FixedOffset::east_opt(8 * 3600).unwrap())
            .hour() as i32
    };
    for h in &an.by_hour {
        let expected = sessions
            .iter()
            .filter(|s| shanghai_hour(s.start_time) == h.hour)
            .count() as i64;
        assert_eq!(h.session_count, expected, "hour {}", h.hour);
    }
    assert_eq!(an.by_hour.len(), 24);
    for b in &an.start_soc {
        let expected = sessions
            .iter()
            .filter_map(|s| s.start_soc)
            .filter(|soc| (i32::from(*soc) / 10).min(9) * 10 == b.from_percent)
            .count() as i64;
        assert_eq!(b.session_count, expected, "bucket {}", b.from_percent);
    }
    let known = sessions.iter().filter(|s| s.start_soc.is_some()).count() as i64;
    assert_eq!(an.start_soc_unknown_count, 4 - known);
    let by_org: HashMap<String, &pb::OrgChargingBehavior> =
        an.orgs.iter().map(|o| (o.org_id.clone(), o)).collect();
    let south = by_org[&a.south.to_string()].figures.unwrap();
    assert_eq!(
        (
            south.session_count,
            south.vehicle_count,
            south.fen_per_100km
        ),
        (1, 0, None)
    );
    let sh = by_org[&a.shanghai.to_string()].figures.unwrap();
    assert_eq!((sh.session_count, sh.distance_m), (3, 250_000));

    // Per vehicle: the van first (most energy), with its kilometres.
    let list = vehicles(&c, &a).await;
    assert_eq!(list.page.unwrap().total, 2);
    let first = &list.vehicles[0];
    assert_eq!(
        (first.vehicle_id.as_str(), first.plate_number.as_str()),
        (van_id.to_string().as_str(), van_plate.as_str())
    );
    assert_eq!(first.org_name, "上海");
    let figures = first.figures.unwrap();
    assert_eq!(
        (figures.session_count, figures.energy_wh, figures.total_fen),
        (2, van_wh, van_fen)
    );
    assert_eq!(figures.fen_per_100km, Some(per_100km(van_fen, 250_000)));
    assert_eq!(list.vehicles[1].figures.unwrap().fen_per_100km, None);

    // The export: every vehicle in the list's order, with its kilometres.
    let job = c
        .stack
        .client
        .clone()
        .export_vehicle_charging_behaviors(c.stack.req(
            &a,
            pb::ExportVehicleChargingBehaviorsRequest {
                filter: Some(filter()),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .job
        .unwrap();
    let rows = c.stack.exported_rows(&job.id).await;
    assert_eq!(rows.len(), 3);
    assert_eq!(
        (rows[1][0].as_str(), rows[1][13].as_str()),
        (van_plate.as_str(), "250")
    );
    assert_eq!(rows[2][13], "");

    // A range over 92 days is refused.
    let mut long = filter();
    long.start_time = Some(common::TimeRange {
        start: Some(fleetdesk_kit::convert::timestamp(
            Utc::now() - Duration::days(93),
        )),
        end: Some(fleetdesk_kit::convert::timestamp(Utc::now())),
    });
    let refused = c
        .stack
        .client
        .clone()
        .get_charging_behavior_analysis(c.stack.req(
            &a,
            pb::GetChargingBehaviorAnalysisRequest { filter: Some(long) },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&refused).code, ErrorCode::BadRequest);
}

#[tokio::test]
async fn another_tenant_sees_none_of_the_statements_dashboard_or_analysis() {
    let c = charging().await;
    let (a, b) = (c.stack.a.clone(), c.stack.b.clone());
    let card = c.card(&a, &[a.south], Some(0), 30_000).await;
    c.session(&card.card_no, 30, 60, 20).await;
    let now = Utc::now().with_timezone(&FixedOffset::east_opt(8 * 3600).unwrap());
    let month = common::YearMonth {
        year: chrono::Datelike::year(&now),
        month: chrono::Datelike::month(&now) as i32,
    };
    let mut client = c.stack.client.clone();
    let theirs = client
        .generate_reconciliation_statement(c.stack.req(
            &a,
            pb::GenerateReconciliationStatementRequest { month: Some(month) },
        ))
        .await
        .unwrap()
        .into_inner()
        .statement
        .unwrap();
    assert_eq!(theirs.session_count, 1);

    // B's lists hold nothing of A's; A's ids answer NOT_FOUND.
    let listed = client
        .list_reconciliation_statements(
            c.stack
                .req(&b, pb::ListReconciliationStatementsRequest::default()),
        )
        .await
        .unwrap()
        .into_inner();
    assert!(listed.statements.iter().all(|s| s.id != theirs.id));
    assert_eq!(listed.page.unwrap().total, 0);
    let missing = client
        .get_reconciliation_statement(c.stack.req(
            &b,
            pb::GetReconciliationStatementRequest {
                statement_id: theirs.id.clone(),
                month: None,
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&missing).code, ErrorCode::NotFound);
    let by_month = client
        .get_reconciliation_statement(c.stack.req(
            &b,
            pb::GetReconciliationStatementRequest {
                statement_id: String::new(),
                month: Some(month),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&by_month).code, ErrorCode::NotFound);
    let lines = client
        .list_reconciliation_card_lines(c.stack.req(
            &b,
            pb::ListReconciliationCardLinesRequest {
                statement_id: theirs.id.clone(),
                ..Default::default()
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&lines).code, ErrorCode::NotFound);
    let confirm = client
        .confirm_reconciliation_statement(c.stack.req(
            &b,
            pb::ConfirmReconciliationStatementRequest {
                statement_id: theirs.id.clone(),
                accepted: true,
                expected_total_fen: theirs.total_fen,
                dispute_reason: String::new(),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&confirm).code, ErrorCode::NotFound);

    // B's dashboard and analysis count none of A's sessions, money or vehicles.
    let d = dashboard(&c, &b).await;
    assert_eq!(d.totals.unwrap().session_count, 0);
    assert_eq!((d.total_available_fen, d.vehicle_count), (0, 0));
    assert!(d.top_stations.is_empty() && d.top_orgs.is_empty() && d.top_vehicles.is_empty());
    let an = analysis(&c, &b).await;
    assert_eq!(an.overall.unwrap().session_count, 0);
    assert!(an.orgs.is_empty());
    let list = vehicles(&c, &b).await;
    assert!(list.vehicles.is_empty());
    // While A sees its own.
    assert_eq!(dashboard(&c, &a).await.totals.unwrap().session_count, 1);
    assert_eq!(analysis(&c, &a).await.overall.unwrap().session_count, 1);
}

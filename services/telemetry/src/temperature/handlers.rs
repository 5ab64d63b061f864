//! Temperature RPCs: validate → domain → store → response, each in one
//! tenant transaction under the caller's reach (the shared view excepted:
//! its token is the authority).

use chrono::{DateTime, Duration, Utc};
use fleetdesk_assets::vehicles;
use fleetdesk_kit::convert::{datetime, id, timestamp};
use fleetdesk_kit::idempotency::{self, Claim};
use fleetdesk_kit::list::{Paging, TimeRange, batch};
use fleetdesk_kit::{ErrorCode, ServiceError, db, grpc};
use fleetdesk_proto::vehicle::v1 as pb;
use tonic::Request;
use uuid::Uuid;

use super::domain::{self, Band, ShareDraft};
use super::{PERMISSION, convert, export, share, store};
use crate::context::{Actor, Context};
use crate::exports;
use crate::positions;

fn uuids(field: &str, values: &[String]) -> Result<Vec<Uuid>, ServiceError> {
    values
        .iter()
        .filter(|v| !v.trim().is_empty())
        .map(|v| Uuid::parse_str(v.trim()).map_err(|_| ServiceError::invalid(field, "编号无效")))
        .collect()
}

/// A required range of at most `days`.
fn bounded(
    field: &str,
    range: Option<&fleetdesk_proto::common::v1::TimeRange>,
    days: i64,
) -> Result<(DateTime<Utc>, DateTime<Utc>), ServiceError> {
    let r = TimeRange::parse(field, range)?;
    let (Some(start), Some(end)) = (r.start, r.end) else {
        return Err(ServiceError::invalid(field, "请选择开始和结束时间"));
    };
    if end - start > Duration::days(days) {
        return Err(ServiceError::invalid(
            field,
            format!("时间范围最长 {days} 天"),
        ));
    }
    Ok((start, end))
}

pub async fn set_threshold(
    ctx: &Context,
    req: Request<pb::SetTemperatureThresholdRequest>,
) -> Result<pb::SetTemperatureThresholdResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let t = req.into_inner().threshold.unwrap_or_default();
    let vehicle = id(&t.vehicle_id)?;
    vehicles::store::get(&mut tx, &actor, vehicle, true).await?;
    let (probe, band) = Band::parse(
        t.probe_no,
        t.min_celsius,
        t.max_celsius,
        t.min_duration_seconds,
    )?;
    store::set_threshold(&mut tx, &actor, vehicle, probe, band).await?;
    tx.commit().await?;
    tracing::info!(%vehicle, probe, enterprise = %actor.enterprise_id, "Temperature band set.");
    Ok(pb::SetTemperatureThresholdResponse {
        threshold: Some(convert::threshold(&store::ThresholdRow {
            vehicle_id: vehicle,
            probe,
            min_deci: band.min_deci,
            max_deci: band.max_deci,
            min_duration_s: band.min_duration_s,
        })),
    })
}

pub async fn thresholds(
    ctx: &Context,
    req: Request<pb::ListTemperatureThresholdsRequest>,
) -> Result<pb::ListTemperatureThresholdsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let vehicle = id(&req.get_ref().vehicle_id)?;
    vehicles::store::get(&mut tx, &actor, vehicle, false).await?;
    let rows = store::thresholds(&mut tx, actor.enterprise_id, &[vehicle]).await?;
    db::end_read(tx);
    Ok(pb::ListTemperatureThresholdsResponse {
        thresholds: rows.iter().map(convert::threshold).collect(),
    })
}

pub async fn vehicles(
    ctx: &Context,
    req: Request<pb::ListTemperatureVehiclesRequest>,
) -> Result<pb::ListTemperatureVehiclesResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let request = req.into_inner();
    let paging = Paging::parse(request.page.as_ref())?;
    let query = store::VehicleQuery {
        plate_search: request.plate_search.trim().to_owned(),
        org_ids: vehicles::store::org_subtrees(&mut tx, uuids("orgIds", &request.org_ids)?).await?,
        alarm_only: request.alarm_only,
    };
    let (rows, total) = store::vehicles(&mut tx, &actor, &query, paging).await?;
    let ids: Vec<Uuid> = rows.iter().map(|r| r.vehicle_id).collect();
    let bands = store::thresholds(&mut tx, actor.enterprise_id, &ids).await?;
    db::end_read(tx);
    Ok(pb::ListTemperatureVehiclesResponse {
        vehicles: rows
            .into_iter()
            .map(|r| pb::TemperatureVehicle {
                vehicle_id: r.vehicle_id.to_string(),
                plate_number: r.plate_number,
                org_name: r.org_name,
                latest: r
                    .temperatures
                    .as_ref()
                    .map(positions::convert::temperatures)
                    .unwrap_or_default(),
                latest_time: r.fix_time.map(timestamp),
                open_alarms: i32::try_from(r.open_alarms).unwrap_or(i32::MAX),
                thresholds: bands
                    .iter()
                    .filter(|b| b.vehicle_id == r.vehicle_id)
                    .map(convert::threshold)
                    .collect(),
            })
            .collect(),
        page: Some(paging.info(total)),
    })
}

pub async fn alarms(
    ctx: &Context,
    req: Request<pb::ListTemperatureAlarmsRequest>,
) -> Result<pb::ListTemperatureAlarmsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let request = req.into_inner();
    let paging = Paging::parse(request.page.as_ref())?;
    let query = convert::alarm_query(&request)?;
    let (rows, total) = store::alarms(&mut tx, &actor, &query, paging).await?;
    db::end_read(tx);
    Ok(pb::ListTemperatureAlarmsResponse {
        alarms: rows.into_iter().map(convert::alarm).collect(),
        page: Some(paging.info(total)),
    })
}

/// `ExportTemperatureAlarms`: queues the alarm list's filter under the
/// caller's reach and answers the job at once.
pub async fn export_alarms(
    ctx: &Context,
    req: Request<pb::ExportTemperatureAlarmsRequest>,
) -> Result<pb::ExportTemperatureAlarmsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let filter = req.into_inner().filter.unwrap_or_default();
    let job = exports::start(&mut tx, &actor, export::job(&filter)?).await?;
    tx.commit().await?;
    Ok(pb::ExportTemperatureAlarmsResponse { job: Some(job) })
}

pub async fn readings(
    ctx: &Context,
    req: Request<pb::ListTemperatureReadingsRequest>,
) -> Result<pb::ListTemperatureReadingsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let request = req.into_inner();
    let paging = Paging::parse(request.page.as_ref())?;
    let (start, end) = bounded(
        "recordTime",
        request.record_time.as_ref(),
        domain::MAX_SERIES_DAYS,
    )?;
    let query = store::ReadingQuery {
        plates: batch("plateNumbers", &request.plate_numbers)?,
        vins: batch("vins", &request.vins)?,
        org_ids: vehicles::store::org_subtrees(&mut tx, uuids("orgIds", &request.org_ids)?).await?,
        time: TimeRange {
            start: Some(start),
            end: Some(end),
        },
        probe: convert::probe_filter(request.probe_no)?,
        out_of_range_only: request.out_of_range_only,
    };
    let (rows, total) = store::readings(&mut tx, &actor, &query, paging).await?;
    db::end_read(tx);
    Ok(pb::ListTemperatureReadingsResponse {
        readings: rows
            .into_iter()
            .map(|r| convert::reading(r, actor.enterprise_id))
            .collect(),
        page: Some(paging.info(total)),
    })
}

/// Bucketed readings of one vehicle (both the console chart and the share view).
async fn bucketed(
    conn: &mut sqlx_postgres::PgConnection,
    enterprise: Uuid,
    vehicle: Uuid,
    plate: &str,
    (start, end): (DateTime<Utc>, DateTime<Utc>),
    max_points: i64,
) -> Result<Vec<pb::TemperatureReading>, ServiceError> {
    let span = (end - start).num_seconds().max(1);
    let bucket = (span / max_points.max(1)).max(1);
    let rows = store::series(conn, enterprise, vehicle, start, end, bucket).await?;
    Ok(rows
        .into_iter()
        .map(|(probe, at, deci)| pb::TemperatureReading {
            vehicle_id: vehicle.to_string(),
            enterprise_id: enterprise.to_string(),
            plate_number: plate.to_owned(),
            probe_no: i32::from(probe),
            temperature_celsius: domain::celsius(deci),
            humidity_percent: None,
            point: None,
            record_time: Some(timestamp(at)),
            out_of_range: false,
        })
        .collect())
}

pub async fn series(
    ctx: &Context,
    req: Request<pb::ListTemperatureSeriesRequest>,
) -> Result<pb::ListTemperatureSeriesResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let request = req.into_inner();
    let vehicle = id(&request.vehicle_id)?;
    let row = vehicles::store::get(&mut tx, &actor, vehicle, false).await?;
    let range = bounded("range", request.range.as_ref(), domain::MAX_SERIES_DAYS)?;
    let max_points = match request.max_points {
        0 => 500,
        n @ 1..=2000 => i64::from(n),
        _ => {
            return Err(ServiceError::invalid(
                "maxPoints",
                "点数应在 1 到 2000 之间",
            ));
        }
    };
    let readings = bucketed(
        &mut tx,
        actor.enterprise_id,
        vehicle,
        &row.plate_number,
        range,
        max_points,
    )
    .await?;
    let bands = store::thresholds(&mut tx, actor.enterprise_id, &[vehicle]).await?;
    db::end_read(tx);
    Ok(pb::ListTemperatureSeriesResponse {
        readings,
        thresholds: bands.iter().map(convert::threshold).collect(),
    })
}

pub async fn create_share(
    ctx: &Context,
    req: Request<pb::CreateTemperatureShareRequest>,
) -> Result<pb::CreateTemperatureShareResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let request = req.into_inner();
    let vehicle = id(&request.vehicle_id)?;
    vehicles::store::get(&mut tx, &actor, vehicle, false).await?;
    let draft = ShareDraft::parse(
        &request.consignee_name,
        &request.consignee_phone,
        request.expires_at.as_ref().and_then(datetime),
        Utc::now(),
    )?;
    let reservation = match idempotency::claim(
        &mut tx,
        actor.enterprise_id,
        "CreateTemperatureShare",
        actor.idempotency_key.clone(),
        &request,
    )
    .await?
    {
        Claim::Replay(answer) => return Ok(answer),
        Claim::Fresh(reservation) => reservation,
    };
    let (token, hash) = share::new_token();
    let share_id = Uuid::new_v4();
    store::insert_share(&mut tx, &actor, share_id, vehicle, &draft, &hash).await?;
    let row = store::share(&mut tx, &actor, share_id).await?;
    let answer = pb::CreateTemperatureShareResponse {
        share: Some(convert::share(row)),
        token,
    };
    reservation.complete(&mut tx, &answer).await?;
    tx.commit().await?;
    tracing::info!(share = %share_id, %vehicle, enterprise = %actor.enterprise_id, "Temperature share created.");
    Ok(answer)
}

pub async fn shares(
    ctx: &Context,
    req: Request<pb::ListTemperatureSharesRequest>,
) -> Result<pb::ListTemperatureSharesResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let request = req.into_inner();
    let paging = Paging::parse(request.page.as_ref())?;
    let vehicle = match request.vehicle_id.trim() {
        "" => None,
        v => Some(id(v)?),
    };
    let (rows, total) = store::shares(&mut tx, &actor, vehicle, paging).await?;
    db::end_read(tx);
    Ok(pb::ListTemperatureSharesResponse {
        shares: rows.into_iter().map(convert::share).collect(),
        page: Some(paging.info(total)),
    })
}

pub async fn revoke_share(
    ctx: &Context,
    req: Request<pb::RevokeTemperatureShareRequest>,
) -> Result<pb::RevokeTemperatureShareResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let share_id = id(&req.get_ref().share_id)?;
    store::share(&mut tx, &actor, share_id).await?;
    store::revoke(&mut tx, &actor, share_id).await?;
    tx.commit().await?;
    tracing::info!(share = %share_id, enterprise = %actor.enterprise_id, "Temperature share revoked.");
    Ok(pb::RevokeTemperatureShareResponse {})
}

/// The answer for a link that does not (or no longer) work.
fn link_gone() -> ServiceError {
    ServiceError::new(ErrorCode::NotFound, "该温度分享链接已失效或已被撤销")
}

/// `GetSharedTemperature`: any internal caller (the gateway's public
/// route); the token alone decides what is shown: one vehicle, the last 24 h.
pub async fn shared(
    ctx: &Context,
    req: Request<pb::GetSharedTemperatureRequest>,
) -> Result<pb::GetSharedTemperatureResponse, ServiceError> {
    grpc::caller(&req)?;
    let hash = share::parse(&req.get_ref().token).ok_or_else(link_gone)?;
    let mut tx = db::begin_service(&ctx.pool).await?;
    let found = store::shared(&mut tx, &hash).await?;
    db::end_read(tx);
    let now = Utc::now();
    let s = found
        .filter(|s| s.revoked_at.is_none() && s.expires_at > now)
        .ok_or_else(link_gone)?;
    let mut tx = db::begin_tenant(&ctx.pool, s.enterprise_id).await?;
    let plate = store::plate(&mut tx, s.vehicle_id).await?;
    let latest = store::latest(&mut tx, s.vehicle_id).await?;
    let readings = bucketed(
        &mut tx,
        s.enterprise_id,
        s.vehicle_id,
        &plate,
        (now - Duration::hours(24), now),
        288,
    )
    .await?;
    let bands = store::thresholds(&mut tx, s.enterprise_id, &[s.vehicle_id]).await?;
    db::end_read(tx);
    Ok(pb::GetSharedTemperatureResponse {
        plate_number: plate,
        expires_at: Some(timestamp(s.expires_at)),
        latest: latest
            .as_ref()
            .map(|(t, _)| positions::convert::temperatures(t))
            .unwrap_or_default(),
        latest_time: latest.map(|(_, at)| timestamp(at)),
        readings,
        thresholds: bands.iter().map(convert::threshold).collect(),
    })
}

//! Reminder RPCs: validate → domain → store → response, each in one tenant
//! transaction under the caller's reach. A completion closes the reminder,
//! records the service and opens the next cycle in one transaction.

use chrono::Utc;
use fleetdesk_kit::convert::id;
use fleetdesk_kit::list::{Paging, TimeRange, batch};
use fleetdesk_kit::{ErrorCode, ServiceError, db};
use fleetdesk_proto::vehicle::v1 as pb;
use tonic::Request;

use super::domain::{self, Completion};
use super::judge::{self, Refresh, StateFilter};
use super::store::{self, ReminderQuery};
use super::{PERMISSION, convert, export};
use crate::context::{Actor, Context};
use crate::exports;
use crate::filters::{codes, uuids};
use crate::odometer::{self, beijing_day, first_day_from};
use crate::plans::convert::strings;
use crate::plans::domain::{Base, Interval, Kind};
use fleetdesk_assets::vehicles;

/// A list request's filter, checked (organisations not yet expanded); the
/// export checks and reads it the same way.
pub fn filter(req: &pb::ListMaintenanceRemindersRequest) -> Result<ReminderQuery, ServiceError> {
    let pb::ListMaintenanceRemindersRequest {
        page: _,
        plate_numbers,
        vins,
        org_ids,
        kinds,
        statuses,
        due_time,
        plan_ids,
    } = req;
    let due_time = TimeRange::parse("dueTime", due_time.as_ref())?;
    Ok(ReminderQuery {
        plates: batch("plateNumbers", plate_numbers)?,
        vins: batch("vins", vins)?,
        org_ids: uuids("orgIds", org_ids)?,
        plan_ids: uuids("planIds", plan_ids)?,
        kinds: codes(kinds, Kind::from_pb),
        states: StateFilter::parse(statuses).ranks(),
        due_from: due_time.start.map(first_day_from),
        due_until: due_time.end.map(first_day_from),
    })
}

pub async fn list(
    ctx: &Context,
    req: Request<pb::ListMaintenanceRemindersRequest>,
) -> Result<pb::ListMaintenanceRemindersResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin_list(&ctx.pool, &req, PERMISSION).await?;
    let message = req.into_inner();
    let paging = Paging::parse(message.page.as_ref())?;
    let mut query = filter(&message)?;
    query.org_ids = vehicles::store::org_subtrees(&mut tx, query.org_ids).await?;
    let today = beijing_day(Utc::now());
    // Rows a plan's save moved since: judged before they are listed (none,
    // normally; the stale index finds that at once).
    judge::refresh(&ctx.pool, actor.enterprise_id, Refresh::Unjudged, today).await?;
    let (rows, total) = store::list(&mut tx, &actor, &query, paging).await?;
    db::end_read(tx);
    Ok(pb::ListMaintenanceRemindersResponse {
        reminders: rows
            .into_iter()
            .map(|row| convert::reminder(judge::stored(row, today), actor.enterprise_id))
            .collect::<Result<_, _>>()?,
        page: Some(paging.info(total)),
    })
}

pub async fn get(
    ctx: &Context,
    req: Request<pb::GetMaintenanceReminderRequest>,
) -> Result<pb::GetMaintenanceReminderResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::GetMaintenanceReminderRequest { reminder_id } = req.into_inner();
    let row = store::get(&mut tx, &actor, id(&reminder_id)?, false).await?;
    let records = store::history(&mut tx, &actor, row.vehicle_id, row.plan_id).await?;
    let judged = judge::one(&mut tx, &actor, row, beijing_day(Utc::now())).await?;
    db::end_read(tx);
    Ok(pb::GetMaintenanceReminderResponse {
        reminder: Some(convert::reminder(judged, actor.enterprise_id)?),
        records: records
            .into_iter()
            .map(convert::record)
            .collect::<Result<_, _>>()?,
    })
}

pub async fn complete(
    ctx: &Context,
    req: Request<pb::CompleteMaintenanceReminderRequest>,
) -> Result<pb::CompleteMaintenanceReminderResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let (reminder_id, fields) = convert::completion(req.into_inner());
    let reminder_id = id(&reminder_id)?;
    // Not found (another tenant's, out of reach) comes before any other answer.
    let row = store::get(&mut tx, &actor, reminder_id, true).await?;
    if row.completed_at.is_some() {
        return Err(ServiceError::new(
            ErrorCode::Conflict,
            "该提醒已完成保养，请刷新后查看下一次提醒",
        ));
    }
    let now = Utc::now();
    let last = store::last_service(&mut tx, &actor, row.vehicle_id, row.plan_id).await?;
    let c = Completion::parse(&fields, now, last.map(|(at, _)| at))?;
    let service_day = beijing_day(c.service_time);
    let previous = last.map(|(at, m)| (beijing_day(at), m)).or(row
        .last_service_time
        .zip(row.last_service_odometer_m)
        .map(|(at, m)| (beijing_day(at), m)));
    let around =
        odometer::around(&mut tx, actor.enterprise_id, row.vehicle_id, service_day).await?;
    let bounds = domain::bounds_with_previous(around.bounds(), previous, service_day);
    domain::check_odometer(c.odometer_m, previous.map(|(_, m)| m), bounds)?;
    let items = if c.items.is_empty() {
        strings(&row.plan_items)
    } else {
        c.items.clone()
    };
    let (base, due) = domain::next_due(
        c.schedule,
        Interval {
            m: row.interval_m,
            months: row.interval_months,
        },
        row.due(),
        Base {
            date: service_day,
            odometer_m: c.odometer_m,
        },
    );
    let (record_id, next_id) =
        store::complete(&mut tx, &actor, &row, &c, &items, (base, due), now).await?;
    let today = beijing_day(now);
    judge::refresh_in(
        &mut tx,
        actor.enterprise_id,
        Refresh::These(&[next_id]),
        today,
    )
    .await?;
    let completed = store::get(&mut tx, &actor, reminder_id, false).await?;
    let completed = judge::one(&mut tx, &actor, completed, today).await?;
    let next = store::get(&mut tx, &actor, next_id, false).await?;
    let next = judge::one(&mut tx, &actor, next, today).await?;
    tx.commit().await?;
    tracing::info!(
        %reminder_id,
        %record_id,
        schedule = c.schedule.label(),
        "Maintenance completed."
    );
    Ok(pb::CompleteMaintenanceReminderResponse {
        completed: Some(convert::reminder(completed, actor.enterprise_id)?),
        next: Some(convert::reminder(next, actor.enterprise_id)?),
    })
}

pub async fn export(
    ctx: &Context,
    req: Request<pb::ExportMaintenanceRemindersRequest>,
) -> Result<pb::ExportMaintenanceRemindersResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::ExportMaintenanceRemindersRequest { filter } = req.into_inner();
    let job = exports::start(&mut tx, &actor, export::job(&filter.unwrap_or_default())?).await?;
    tx.commit().await?;
    Ok(pb::ExportMaintenanceRemindersResponse { job: Some(job) })
}

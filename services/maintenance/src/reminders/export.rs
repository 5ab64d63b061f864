//! Maintenance reminders (carMaintenance) as an export kind: the list's
//! filter and reach, as stored (`super::judge`), in the list's order
//! (urgency), walked by [`OrderKey`] straight from the list's index.

use chrono::Utc;
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::{Cell, JobScope};
use fleetdesk_proto::vehicle::v1 as pb;
use sqlx_postgres::PgConnection;

use super::handlers::filter;
use super::judge::{self, Judged, OrderKey};
use super::store::{self, ReminderQuery};
use crate::context::Actor;
use crate::exports::{self, ListExport, NewJob, day, moment, text};
use crate::odometer::{beijing_day, day_start};
use crate::plans::domain::Kind;
use fleetdesk_assets::vehicles;

/// The kind's name in `export_job.kind`.
pub const KIND: &str = "maintenance_reminders";

pub const HEADER: [&str; 15] = [
    "车牌号",
    "车架号",
    "所属组织",
    "保养计划",
    "保养类型",
    "状态",
    "当前里程(公里)",
    "到期里程(公里)",
    "剩余里程(公里)",
    "到期日期",
    "预计到期日期",
    "日均里程(公里)",
    "上次保养日期",
    "上次保养里程(公里)",
    "完成时间",
];

/// The job an `ExportMaintenanceReminders` request queues (the filter checked now).
pub fn job(f: &pb::ListMaintenanceRemindersRequest) -> Result<NewJob, ServiceError> {
    filter(f)?;
    let filters_json = serde_json::json!({
        "plateNumbers": f.plate_numbers,
        "vins": f.vins,
        "orgIds": f.org_ids,
        "planIds": f.plan_ids,
        "kinds": f.kinds,
        "statuses": f.statuses,
        "dueTime": exports::range_json(f.due_time.as_ref()),
    });
    Ok(NewJob {
        kind: KIND,
        name: "保养提醒".to_owned(),
        module: "carMaintenance",
        filter: prost::Message::encode_to_vec(f),
        filters_json,
    })
}

/// Kilometres with one decimal, empty when unknown.
fn km(m: Option<i64>) -> Cell {
    m.map_or(Cell::Empty, |m| {
        let sign = if m < 0 { "-" } else { "" };
        let abs = m.unsigned_abs();
        Cell::Text(format!("{sign}{}.{}", abs / 1000, (abs % 1000) / 100))
    })
}

/// The reminder list as an export kind.
#[derive(Debug, Clone, Copy)]
pub struct RemindersExport;

impl ListExport for RemindersExport {
    type Scope = (Actor, ReminderQuery);
    type Row = Judged;
    type Key = OrderKey;

    fn header(&self) -> Vec<String> {
        exports::header(&HEADER)
    }

    async fn scope(
        &self,
        conn: &mut PgConnection,
        job: &JobScope,
    ) -> Result<Self::Scope, ServiceError> {
        let actor = exports::actor(job)?;
        let request = exports::filter::<pb::ListMaintenanceRemindersRequest>(job)?;
        let mut query = filter(&request)?;
        query.org_ids = vehicles::store::org_subtrees(conn, query.org_ids).await?;
        Ok((actor, query))
    }

    async fn count(
        &self,
        conn: &mut PgConnection,
        (actor, query): &Self::Scope,
    ) -> Result<i64, ServiceError> {
        store::count(conn, actor, query).await
    }

    async fn page(
        &self,
        conn: &mut PgConnection,
        (actor, query): &Self::Scope,
        after: Option<OrderKey>,
        limit: i64,
    ) -> Result<Vec<Judged>, ServiceError> {
        let today = beijing_day(Utc::now());
        let after = after.map(|a| (a.rank, a.day, a.id));
        let rows = store::after(conn, actor, query, after, limit).await?;
        Ok(rows
            .into_iter()
            .map(|row| judge::stored(row, today))
            .collect())
    }

    fn key(row: &Judged) -> OrderKey {
        OrderKey {
            rank: row.row.due_state,
            day: row.row.urgency,
            id: row.row.id,
        }
    }

    fn cells(&self, j: Judged) -> Vec<Cell> {
        let state = j.standing.map_or("已完成", |s| s.state.label());
        let kind = Kind::try_from(j.row.kind).map_or("", Kind::label);
        vec![
            text(j.row.plate_number),
            text(j.row.vin),
            text(j.row.org_name.unwrap_or_default()),
            text(j.row.plan_name),
            text(kind),
            text(state),
            km(j.meter.odometer_m),
            km(j.row.due_odometer_m),
            km(j.standing.and_then(|s| s.remaining_m)),
            day(j.row.due_date.map(day_start)),
            day(j.standing.and_then(|s| s.forecast).map(day_start)),
            km(j.meter.daily_m),
            day(j.row.last_service_time),
            km(j.row.last_service_odometer_m),
            moment(j.row.completed_at),
        ]
    }
}

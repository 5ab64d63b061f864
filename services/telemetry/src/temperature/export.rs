//! Temperature excursion alarms (temperatureMonitor) as an export kind: the
//! list's filter and reach (`store::alarms_filtered`), newest first by keyset
//! on (`started_at`, `id`).

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::{Cell, JobScope};
use fleetdesk_kit::list::Cursor;
use fleetdesk_proto::vehicle::v1 as pb;
use sqlx_postgres::PgConnection;

use super::convert;
use super::domain::celsius;
use super::store::{self, AlarmQuery, AlarmRow};
use crate::context::Actor;
use crate::exports::{self, ListExport, NewJob, moment, text};

/// The kind's name in `export_job.kind`.
pub const KIND: &str = "temperature_alarms";

pub const HEADER: [&str; 10] = [
    "车牌号",
    "探头",
    "开始时间",
    "结束时间",
    "最低温度(℃)",
    "最高温度(℃)",
    "温度下限(℃)",
    "温度上限(℃)",
    "最短超限时长(秒)",
    "状态",
];

/// The job an `ExportTemperatureAlarms` request queues (the filter checked now).
pub fn job(filter: &pb::ListTemperatureAlarmsRequest) -> Result<NewJob, ServiceError> {
    convert::alarm_query(filter)?;
    let filters_json = serde_json::json!({
        "plateNumbers": filter.plate_numbers,
        "vehicleId": filter.vehicle_id,
        "probeNo": filter.probe_no,
        "started": exports::range_json(filter.started.as_ref()),
        "openOnly": filter.open_only,
    });
    Ok(NewJob {
        kind: KIND,
        name: "温度报警记录".to_owned(),
        module: "temperatureMonitor",
        filter: prost::Message::encode_to_vec(filter),
        filters_json,
    })
}

/// The alarm list as an export kind.
#[derive(Debug, Clone, Copy)]
pub struct TemperatureAlarmsExport;

fn degrees(deci: i32) -> Cell {
    text(format!("{:.1}", celsius(deci)))
}

impl ListExport for TemperatureAlarmsExport {
    type Scope = (Actor, AlarmQuery);
    type Row = AlarmRow;
    type Key = Cursor;

    fn header(&self) -> Vec<String> {
        exports::header(&HEADER)
    }

    async fn scope(
        &self,
        _conn: &mut PgConnection,
        job: &JobScope,
    ) -> Result<Self::Scope, ServiceError> {
        let actor = exports::actor(job)?;
        let query =
            convert::alarm_query(&exports::filter::<pb::ListTemperatureAlarmsRequest>(job)?)?;
        Ok((actor, query))
    }

    async fn count(
        &self,
        conn: &mut PgConnection,
        (actor, query): &Self::Scope,
    ) -> Result<i64, ServiceError> {
        store::count_alarms(conn, actor, query).await
    }

    async fn page(
        &self,
        conn: &mut PgConnection,
        (actor, query): &Self::Scope,
        after: Option<Cursor>,
        limit: i64,
    ) -> Result<Vec<AlarmRow>, ServiceError> {
        store::alarms_page(conn, actor, query, after, limit).await
    }

    fn key(row: &AlarmRow) -> Cursor {
        Cursor {
            at: row.started_at,
            id: row.id,
        }
    }

    fn cells(&self, row: AlarmRow) -> Vec<Cell> {
        vec![
            Cell::from(row.plate_number),
            text(row.probe.to_string()),
            moment(Some(row.started_at)),
            moment(row.ended_at),
            degrees(row.min_seen_deci),
            degrees(row.max_seen_deci),
            degrees(row.threshold_min_deci),
            degrees(row.threshold_max_deci),
            text(row.min_duration_s.to_string()),
            Cell::from(if row.ended_at.is_some() {
                "已恢复"
            } else {
                "持续中"
            }),
        ]
    }
}

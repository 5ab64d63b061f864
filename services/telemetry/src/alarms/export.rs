//! Risk alarms (riskAlarmRecord) as an export kind: the list's filter
//! (`handlers::query`) and reach (`store::filtered`), newest first by keyset
//! on (`started_at`, `id`), the list's own order.

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::{Cell, JobScope};
use fleetdesk_kit::list::Cursor;
use fleetdesk_proto::vehicle::v1 as pb;
use sqlx_postgres::PgConnection;

use super::domain::{AlarmState, HandleMethod};
use super::store::{self, AlarmQuery, AlarmRow};
use super::{handlers, notify};
use crate::context::Actor;
use crate::exports::{self, ListExport, NewJob, moment, text};

/// The kind's name in `export_job.kind`.
pub const KIND: &str = "risk_alarms";

pub const HEADER: [&str; 16] = [
    "车牌号",
    "车架号",
    "所属组织",
    "报警类型",
    "报警等级",
    "报警规则",
    "开始时间",
    "结束时间",
    "持续时长(秒)",
    "最高速度(km/h)",
    "状态",
    "处理人",
    "处理方式",
    "处理备注",
    "处理时间",
    "指派给",
];

/// The job an `ExportRiskAlarms` request queues (its filter checked by the handler).
pub fn job(filter: &pb::ListRiskAlarmsRequest) -> NewJob {
    let filters_json = serde_json::json!({
        "plateNumbers": filter.plate_numbers,
        "vins": filter.vins,
        "orgIds": filter.org_ids,
        "alarmTypes": filter.alarm_types,
        "levels": filter.levels,
        "statuses": filter.statuses,
        "assigneeId": filter.assignee_id,
        "alarmTime": exports::range_json(filter.alarm_time.as_ref()),
    });
    NewJob {
        kind: KIND,
        name: "报警记录".to_owned(),
        module: "riskAlarmRecord",
        filter: prost::Message::encode_to_vec(filter),
        filters_json,
    }
}

/// The alarm list as an export kind.
#[derive(Debug, Clone, Copy)]
pub struct AlarmsExport;

fn state_label(state: AlarmState) -> &'static str {
    match state {
        AlarmState::Unhandled => "未处理",
        AlarmState::Processing => "处理中",
        AlarmState::Handled => "已处理",
        AlarmState::FalseAlarm => "误报",
    }
}

fn method_label(method: HandleMethod) -> &'static str {
    match method {
        HandleMethod::VoicePrompt => "语音提醒",
        HandleMethod::PhoneCall => "电话联系",
        HandleMethod::TextMessage => "短信下发",
        HandleMethod::NoAction => "无需处理",
    }
}

fn level_label(level: i16) -> &'static str {
    match level {
        1 => "一级",
        2 => "二级",
        3 => "三级",
        _ => "",
    }
}

fn label<T: TryFrom<i16>>(code: Option<i16>, name_of: fn(T) -> &'static str) -> Cell {
    code.and_then(|c| T::try_from(c).ok())
        .map_or(Cell::Empty, |v| Cell::Label(name_of(v)))
}

impl ListExport for AlarmsExport {
    type Scope = (Actor, AlarmQuery);
    type Row = AlarmRow;
    type Key = Cursor;

    fn header(&self) -> Vec<String> {
        exports::header(&HEADER)
    }

    async fn scope(
        &self,
        conn: &mut PgConnection,
        job: &JobScope,
    ) -> Result<Self::Scope, ServiceError> {
        let actor = exports::actor(job)?;
        let filter = exports::filter::<pb::ListRiskAlarmsRequest>(job)?;
        let query = handlers::query(conn, &filter).await?;
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
        after: Option<Cursor>,
        limit: i64,
    ) -> Result<Vec<AlarmRow>, ServiceError> {
        store::page(conn, actor, query, after, limit).await
    }

    fn key(row: &AlarmRow) -> Cursor {
        Cursor {
            at: row.started_at,
            id: row.id,
        }
    }

    fn cells(&self, row: AlarmRow) -> Vec<Cell> {
        let end = row.ended_at.unwrap_or(row.last_seen_at);
        vec![
            Cell::from(row.plate_number),
            Cell::from(row.vin),
            Cell::from(row.org_name.unwrap_or_default()),
            label(Some(row.kind), notify::label),
            Cell::Label(level_label(row.level)),
            Cell::from(row.rule_name.unwrap_or_default()),
            moment(Some(row.started_at)),
            moment(row.ended_at),
            text((end - row.started_at).num_seconds().to_string()),
            text(format!("{:.1}", f64::from(row.peak_speed_dkmh) / 10.0)),
            label(Some(row.status), state_label),
            Cell::from(row.handler_name),
            label(row.handle_method, method_label),
            Cell::from(row.handle_remark),
            moment(row.handled_at),
            Cell::from(row.assignee_name),
        ]
    }
}

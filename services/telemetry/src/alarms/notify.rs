//! Level-3 alarm notices without floods (issue 21): when a level-3 alarm
//! opens, the enterprise's risk members hear of it once, in the console's
//! notice centre. Telemetry does not write org's notices: it asks org with
//! a `NoticeRequested` event (docs/ARCHITECTURE.md §5.3) through the outbox,
//! in the transaction that opens the alarm, addressed to the holders of
//! [`PERMISSION`](super::PERMISSION) whose data scope reaches the vehicle's
//! organisation (org resolves them), keyed `risk-alarm:<alarm id>` (org
//! writes one notice per recipient and key).
//!
//! Once per alarm, never again: `evaluate`'s upsert calls [`opened`] with
//! what it wrote, and only rows inserted by this very transaction
//! (`created_at = now()`, the transaction's time) are candidates, so an
//! alarm updated while it lasts or re-evaluated is never one. Each notice
//! is kept in `alarm_notice`, which outlives the alarm row. An alarm is not
//! notified when:
//! - the rule's quiet period holds: a notice of the same rule and vehicle
//!   for an alarm starting less than `alarm_rule.quiet_minutes` before or
//!   after this one's start (fix times, so late and reordered fixes give the
//!   same answer; 0 is no quiet period). The alarm is still recorded.
//! - it replaces a notified alarm a replay of late fixes removed: a notice
//!   of the same rule, vehicle and condition whose alarm no longer exists
//!   and which started within the replacement's span (from
//!   [`MAX_GAP`](super::engine::MAX_GAP) before its start to its end).
//! - it started more than [`FRESH_HOURS`] before now: a backfill of old
//!   history (a terminal emptying its memory, the demo's weeks of fixes)
//!   records its alarms but pages nobody about the past.
//!
//! Alarms opened outside `evaluate`'s upsert (the offline job) call
//! [`opened`] with their keys the same way.

use chrono::{DateTime, Utc};
use fleetdesk_kit::{ServiceError, events, subjects};
use fleetdesk_proto::org::v1::NoticeRequested;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::{AlarmKind, beijing};
use super::engine::{MAX_GAP, Span};

/// The level whose alarms notify.
pub const NOTIFY_LEVEL: i16 = 3;
/// Alarms that started longer ago than this when found notify nobody.
pub const FRESH_HOURS: i64 = 24;
/// The notice centre's category of alarm notices.
pub const CATEGORY: &str = "alarm";
/// The console page of an alarm (console spec §2 riskAlarmRecord).
pub const ALARM_PAGE: &str = "/carManagement/riskControll/riskAlarmRecord";

/// One alarm as written: (vehicle, rule, condition, start) is its natural key.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Opened {
    pub vehicle_id: Uuid,
    pub rule_id: Uuid,
    pub condition: i16,
    pub started_at: DateTime<Utc>,
}

/// The level-3 alarms among what `evaluate` wrote, as [`opened`] takes them.
pub fn of_spans(found: &[(Uuid, Option<Uuid>, Span)]) -> Vec<Opened> {
    found
        .iter()
        .filter(|(_, _, s)| s.level == NOTIFY_LEVEL)
        .map(|(vehicle, _, s)| Opened {
            vehicle_id: *vehicle,
            rule_id: s.rule_id,
            condition: s.condition,
            started_at: s.start,
        })
        .collect()
}

#[derive(Debug, sqlx::FromRow)]
struct Candidate {
    id: Uuid,
    enterprise_id: Uuid,
    vehicle_id: Uuid,
    org_id: Option<Uuid>,
    rule_id: Uuid,
    condition: i16,
    kind: i16,
    started_at: DateTime<Utc>,
    ended_at: Option<DateTime<Utc>>,
    lat: f64,
    lng: f64,
    peak_speed_dkmh: i32,
    plate_number: String,
    rule_name: Option<String>,
    quiet_minutes: i32,
}

/// Asks org to notify the risk members of each level-3 alarm of `written`
/// that this transaction opened (see the module doc); answers how many.
pub async fn opened(conn: &mut PgConnection, written: &[Opened]) -> Result<usize, ServiceError> {
    if written.is_empty() {
        return Ok(0);
    }
    let candidates: Vec<Candidate> = sqlx::query_as(
        "select a.id, a.enterprise_id, a.vehicle_id, a.org_id, a.rule_id, a.condition, a.kind, \
           a.started_at, a.ended_at, a.lat, a.lng, a.peak_speed_dkmh, v.plate_number, \
           r.name as rule_name, coalesce(r.quiet_minutes, 0) as quiet_minutes \
         from unnest($1::uuid[], $2::uuid[], $3::int2[], $4::timestamptz[]) \
           w(vehicle_id, rule_id, condition, started_at) \
         join risk_alarm a on a.vehicle_id = w.vehicle_id and a.rule_id = w.rule_id \
           and a.condition = w.condition and a.started_at = w.started_at \
         join vehicle v on v.id = a.vehicle_id \
         left join alarm_rule r on r.id = a.rule_id \
         where a.created_at = now() and a.level = $5 \
           and a.started_at > now() - make_interval(hours => $6) \
         order by a.started_at, a.id",
    )
    .bind(written.iter().map(|w| w.vehicle_id).collect::<Vec<_>>())
    .bind(written.iter().map(|w| w.rule_id).collect::<Vec<_>>())
    .bind(written.iter().map(|w| w.condition).collect::<Vec<_>>())
    .bind(written.iter().map(|w| w.started_at).collect::<Vec<_>>())
    .bind(NOTIFY_LEVEL)
    .bind(i32::try_from(FRESH_HOURS).unwrap_or(24))
    .fetch_all(&mut *conn)
    .await?;
    let mut notified = 0;
    // Oldest first, one at a time: a later alarm of the batch sees the
    // notice of an earlier one in the same quiet period.
    for alarm in &candidates {
        if keep(conn, alarm).await? {
            events::enqueue(
                conn,
                &subjects::notice_requested(crate::exports::DOMAIN),
                &request(alarm),
            )
            .await?;
            notified += 1;
        }
    }
    if notified > 0 {
        tracing::info!(notified, "Level-3 alarm notices requested.");
    }
    Ok(notified)
}

/// Records the alarm's notice unless it is quiet or a replacement (module
/// doc); whether it was recorded (and so is to be sent).
async fn keep(conn: &mut PgConnection, a: &Candidate) -> Result<bool, ServiceError> {
    let kept: Option<Uuid> = sqlx::query_scalar(
        "insert into alarm_notice (alarm_id, enterprise_id, vehicle_id, rule_id, condition, started_at) \
         select $1, $2, $3, $4, $5, $6 where not exists ( \
           select 1 from alarm_notice n where n.vehicle_id = $3 and n.rule_id = $4 and ( \
             (n.started_at > $6 - make_interval(mins => $7) \
               and n.started_at < $6 + make_interval(mins => $7)) \
             or (n.condition = $5 and n.started_at >= $6 - make_interval(secs => $8) \
               and n.started_at <= coalesce($9, 'infinity'::timestamptz) \
               and not exists (select 1 from risk_alarm x where x.id = n.alarm_id)))) \
         on conflict (alarm_id) do nothing returning alarm_id",
    )
    .bind(a.id)
    .bind(a.enterprise_id)
    .bind(a.vehicle_id)
    .bind(a.rule_id)
    .bind(a.condition)
    .bind(a.started_at)
    .bind(a.quiet_minutes.max(0))
    .bind(MAX_GAP.num_seconds() as f64)
    .bind(a.ended_at)
    .fetch_optional(&mut *conn)
    .await?;
    Ok(kept.is_some())
}

/// The notice org is asked to publish about one alarm.
fn request(a: &Candidate) -> NoticeRequested {
    let kind = crate::codes::optional::<AlarmKind>(Some(a.kind)).map_or("报警", label);
    let at = a
        .started_at
        .with_timezone(&beijing())
        .format("%Y-%m-%d %H:%M:%S");
    let link = format!("{ALARM_PAGE}?alarmId={}", a.id);
    let rule = a
        .rule_name
        .as_deref()
        .map(|name| format!("（规则「{name}」）"))
        .unwrap_or_default();
    let speed = if a.peak_speed_dkmh > 0 {
        format!("，最高速度 {} km/h", f64::from(a.peak_speed_dkmh) / 10.0)
    } else {
        String::new()
    };
    NoticeRequested {
        enterprise_id: a.enterprise_id.to_string(),
        source_key: format!("risk-alarm:{}", a.id),
        category: CATEGORY.to_owned(),
        title: format!("三级告警：{kind} · {}", a.plate_number),
        content: format!(
            "车辆 {plate} 于 {at} 发生三级告警：{kind}{rule}，位置 {lat:.6}, {lng:.6}{speed}。请及时处理：{link}",
            plate = a.plate_number,
            lat = a.lat,
            lng = a.lng,
        ),
        link,
        member_ids: Vec::new(),
        permission: super::PERMISSION.to_owned(),
        org_id: a.org_id.map(|o| o.to_string()).unwrap_or_default(),
    }
}

/// The alarm kind as the console names it (zh-CN).
pub fn label(kind: AlarmKind) -> &'static str {
    match kind {
        AlarmKind::Overspeed => "超速",
        AlarmKind::FatigueDriving => "疲劳驾驶",
        AlarmKind::PhoneUse => "接打电话",
        AlarmKind::Smoking => "抽烟",
        AlarmKind::Distraction => "分神驾驶",
        AlarmKind::ForwardCollision => "前向碰撞",
        AlarmKind::LaneDeparture => "车道偏离",
        AlarmKind::HarshBraking => "急刹车",
        AlarmKind::HarshAcceleration => "急加速",
        AlarmKind::Geofence => "围栏报警",
        AlarmKind::LowBattery => "低电量",
        AlarmKind::BatteryFault => "电池故障",
        AlarmKind::Temperature => "温度异常",
        AlarmKind::CameraBlocked => "摄像头遮挡",
        AlarmKind::NightDriving => "夜间行驶",
        AlarmKind::Emergency => "紧急报警",
        AlarmKind::DangerWarning => "危险预警",
        AlarmKind::TerminalFault => "终端故障",
        AlarmKind::PowerCut => "主电源掉电",
        AlarmKind::Collision => "碰撞预警",
        AlarmKind::Rollover => "侧翻预警",
        AlarmKind::IllegalDoorOpening => "非法开门",
        AlarmKind::Theft => "车辆被盗",
        AlarmKind::Offline => "终端离线",
        AlarmKind::TerminalOther => "其他终端报警",
        AlarmKind::HeadwayTooShort => "车距过近",
        AlarmKind::PedestrianCollision => "行人碰撞",
        AlarmKind::FrequentLaneChange => "频繁变道",
        AlarmKind::RoadSignOverLimit => "道路标识超限",
        AlarmKind::Obstacle => "障碍物",
        AlarmKind::DriverAbsent => "驾驶员异常",
        AlarmKind::BlindSpot => "盲区监测",
        AlarmKind::TyrePressure => "胎压异常",
        AlarmKind::ActiveSafetyOther => "其他主动安全报警",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_level_three_spans_are_candidates() {
        let span = |level| Span {
            rule_id: Uuid::nil(),
            condition: -1,
            kind: AlarmKind::Overspeed,
            level,
            start: DateTime::from_timestamp(1_800_000_000, 0).unwrap(),
            end: None,
            last: DateTime::from_timestamp(1_800_000_000, 0).unwrap(),
            lat: 22.5,
            lng: 114.0,
            peak_dkmh: 900,
        };
        let v = Uuid::from_u128(7);
        let found = vec![(v, None, span(2)), (v, None, span(3)), (v, None, span(1))];
        let opened = of_spans(&found);
        assert_eq!(opened.len(), 1);
        assert_eq!(opened[0].vehicle_id, v);
    }

    #[test]
    fn the_notice_names_the_kind_the_plate_the_place_and_the_alarm() {
        let id = Uuid::from_u128(42);
        let a = Candidate {
            id,
            enterprise_id: Uuid::from_u128(1),
            vehicle_id: Uuid::from_u128(2),
            org_id: Some(Uuid::from_u128(3)),
            rule_id: Uuid::from_u128(4),
            condition: -1,
            kind: i16::from(AlarmKind::Overspeed),
            // 2027-01-15 08:00:00 UTC = 16:00 in Beijing.
            started_at: DateTime::from_timestamp(1_800_000_000, 0).unwrap(),
            ended_at: None,
            lat: 22.54,
            lng: 114.05,
            peak_speed_dkmh: 905,
            plate_number: "粤B12345".into(),
            rule_name: Some("城区超速".into()),
            quiet_minutes: 0,
        };
        let n = request(&a);
        assert_eq!(n.title, "三级告警：超速 · 粤B12345");
        assert!(n.content.contains("2027-01-15 16:00:00"), "{}", n.content);
        assert!(n.content.contains("22.540000, 114.050000"), "{}", n.content);
        assert!(n.content.contains("90.5 km/h"), "{}", n.content);
        assert_eq!(
            n.link,
            format!("/carManagement/riskControll/riskAlarmRecord?alarmId={id}")
        );
        assert_eq!(n.source_key, format!("risk-alarm:{id}"));
        assert_eq!(
            (n.permission.as_str(), n.org_id.as_str()),
            ("as:alarm", Uuid::from_u128(3).to_string().as_str())
        );
    }
}

//! Demo risk control: enterprise A's alarm rules (set before the telemetry
//! history runs through ingest, so its alarms and operation logs come from
//! the real evaluation), and the older alarms worked through the workflow
//! the way a risk team would have, so the list shows every state.

use chrono::{DateTime, Duration, Utc};
use fleetdesk_kit::actor::Actor;
use fleetdesk_kit::{db, demo_id};
use fleetdesk_telemetry::alarms::domain::{Activity, AlarmState, RuleDraft, RuleKind};
use fleetdesk_telemetry::alarms::store::{self, Move};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

/// Alarm rules of the demo enterprise: (key, name, level, kind).
fn rules() -> [(&'static str, &'static str, i16, RuleKind); 8] {
    [
        (
            "overspeed",
            "城区超速",
            2,
            RuleKind::Overspeed {
                limit_dkmh: 700,
                min_s: 20,
            },
        ),
        (
            "fatigue",
            "疲劳驾驶",
            3,
            RuleKind::Fatigue {
                max_drive_s: 4 * 3600,
                rest_s: 20 * 60,
                daily_s: None,
            },
        ),
        (
            "night",
            "夜间行车",
            1,
            RuleKind::NightDriving {
                from_minute: 0,
                to_minute: 5 * 60,
                min_s: 60,
            },
        ),
        (
            "low-soc",
            "低电量",
            2,
            RuleKind::LowSoc {
                below: 20,
                min_s: 300,
            },
        ),
        (
            "terminal",
            "终端紧急报警",
            3,
            // Emergency, danger warning, power cut, collision, rollover, doors.
            RuleKind::Terminal {
                bits: 1 | 1 << 3 | 1 << 8 | 1 << 29 | 1 << 30 | 1 << 31,
            },
        ),
        (
            "cold-chain",
            "冷链温度异常",
            2,
            RuleKind::Temperature { min_s: 10 * 60 },
        ),
        (
            "night-fence",
            "夜间出入围栏",
            1,
            // Every fence of the enterprise, 22:00-06:00 Beijing time.
            RuleKind::FenceWindow {
                fences: Vec::new(),
                on_enter: true,
                on_exit: true,
                from_minute: 22 * 60,
                to_minute: 6 * 60,
            },
        ),
        (
            "offline",
            "终端离线超过24小时",
            1,
            RuleKind::Offline { hours: 24 },
        ),
    ]
}

/// Sets the demo rules (in the caller's tenant transaction).
pub async fn set_rules(conn: &mut PgConnection, actor: &Actor) -> anyhow::Result<()> {
    for (key, name, level, kind) in rules() {
        let draft = RuleDraft {
            name: name.to_owned(),
            level,
            org_id: None,
            enabled: true,
            kind,
            quiet_minutes: 30,
        };
        store::save_rule(
            conn,
            actor,
            demo_id(&format!("alarm-rule:{key}")),
            None,
            &draft,
        )
        .await?;
    }
    Ok(())
}

/// Works the alarms older than a day: most handled by phone or voice
/// prompt, some dismissed as false, some still assigned; the newest stay
/// untreated for the risk team.
pub async fn work_alarms(
    pool: &PgPool,
    actor: &Actor,
    now: DateTime<Utc>,
) -> anyhow::Result<usize> {
    let mut tx = db::begin_tenant(pool, actor.enterprise_id).await?;
    let ids: Vec<Uuid> = sqlx::query_scalar(
        "select id from risk_alarm where enterprise_id = $1 and status = 1 and started_at < $2 \
         order by started_at, id",
    )
    .bind(actor.enterprise_id)
    .bind(now - Duration::days(1))
    .fetch_all(&mut *tx)
    .await?;
    for (i, id) in ids.iter().enumerate() {
        let (to, action, method, remark) = match i % 10 {
            0 => (
                AlarmState::FalseAlarm,
                Activity::Dismissed,
                None,
                "定位漂移，车辆实际未超速",
            ),
            1 => (
                AlarmState::Processing,
                Activity::Assigned,
                None,
                "请车队长跟进",
            ),
            2..=5 => (
                AlarmState::Handled,
                Activity::Handled,
                Some(2),
                "已电话提醒司机注意安全",
            ),
            _ => (
                AlarmState::Handled,
                Activity::Handled,
                Some(1),
                "已下发语音提醒",
            ),
        };
        let alarms = store::get_many(&mut tx, actor, &[*id], true).await?;
        let m = Move {
            to,
            action,
            assignee: (to == AlarmState::Processing)
                .then(|| (actor.user_id.unwrap_or_default(), actor.name.clone())),
            handle_method: method,
            remark: remark.to_owned(),
            attachments: serde_json::json!([]),
        };
        store::apply_move(&mut tx, actor, &alarms, &m).await?;
    }
    // Handled within the hour of the alarm, as a watching team would.
    sqlx::query(
        "update risk_alarm set handled_at = last_seen_at + interval '17 minutes' \
         where enterprise_id = $1 and handled_at is not null",
    )
    .bind(actor.enterprise_id)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "update risk_alarm_activity x set at = a.last_seen_at + interval '17 minutes' \
         from risk_alarm a where a.id = x.alarm_id and x.enterprise_id = $1",
    )
    .bind(actor.enterprise_id)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(ids.len())
}

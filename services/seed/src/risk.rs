//! Demo risk control: enterprise A's alarm rules (set before the telemetry
//! history runs through ingest, so its alarms and operation logs come from
//! the real evaluation), and the older alarms worked through the workflow
//! the way a risk team would have, so the list shows every state.

use chrono::{DateTime, Duration, Utc};
use fleetdesk_kit::actor::Actor;
use fleetdesk_kit::{db, demo_id};
use fleetdesk_telemetry::alarms::domain::{Activity, AlarmState, RuleDraft, RuleKind};
use fleetdesk_telemetry::alarms::store::{self, Move};
use sqlx_postgres::{PgConnection, PgPool};
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

/// Demo active-safety alarms: (key suffix, source, event, level, minutes
/// ago, where the risk team left it).
const SAFETY_ALARMS: [(&str, u8, u32, u32, i64, AlarmState); 3] = [
    ("phone", 2, 2, 2, 40, AlarmState::Unhandled),
    ("smoking", 2, 3, 1, 3 * 60, AlarmState::Processing),
    ("forward", 1, 1, 2, 26 * 60, AlarmState::Handled),
];

/// What [`evidence`] wrote.
#[derive(Debug, Default, Clone, Copy)]
pub struct EvidenceReport {
    pub alarms: usize,
    pub files: usize,
    /// Whether clips were made (ffmpeg present).
    pub clips: bool,
}

/// Runs ffmpeg on a finite test source (no stdin, killed after 30 s).
async fn ffmpeg(args: &[&str], out: &std::path::Path) -> anyhow::Result<Vec<u8>> {
    let mut command = tokio::process::Command::new("ffmpeg");
    command
        .args(["-nostdin", "-v", "error", "-y"])
        .args(args)
        .arg(out)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    let status = tokio::time::timeout(std::time::Duration::from_secs(30), command.status())
        .await
        .map_err(|_| anyhow::anyhow!("ffmpeg timed out"))??;
    anyhow::ensure!(status.success(), "ffmpeg: {status}");
    Ok(tokio::fs::read(out).await?)
}

/// A 3-second H.264 clip (baseline, faststart MP4) and a JPEG frame of a
/// moving test picture, made by ffmpeg; none when ffmpeg is missing.
async fn demo_media() -> Option<(Vec<u8>, Vec<u8>)> {
    let dir = std::env::temp_dir().join(format!("fd-seed-evidence-{}", std::process::id()));
    tokio::fs::create_dir_all(&dir).await.ok()?;
    let clip = ffmpeg(
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=size=480x270:rate=15:duration=3",
            "-c:v",
            "libx264",
            "-preset",
            "ultrafast",
            "-profile:v",
            "baseline",
            "-pix_fmt",
            "yuv420p",
            "-movflags",
            "+faststart",
        ],
        &dir.join("clip.mp4"),
    )
    .await;
    let photo = ffmpeg(
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=size=480x270:rate=1:duration=1",
            "-frames:v",
            "1",
        ],
        &dir.join("photo.jpg"),
    )
    .await;
    tokio::fs::remove_dir_all(&dir).await.ok();
    match (clip, photo) {
        (Ok(clip), Ok(photo)) => Some((clip, photo)),
        (Err(err), _) | (_, Err(err)) => {
            tracing::warn!(error = %format!("{err:#}"), "No demo clip (ffmpeg); evidence without clips.");
            None
        }
    }
}

/// Demo active-safety alarms of enterprise A (DMS phone use and smoking,
/// ADAS forward collision) on its first vehicles with a position, each
/// with a photo and, when ffmpeg is present, a real H.264 clip in the
/// object store, worked to different states. Written through the alarms'
/// and media's own stores; idempotent (an alarm key already there is left
/// alone).
pub async fn evidence(
    pool: &PgPool,
    store: &fleetdesk_kit::files::FileStore,
    now: DateTime<Utc>,
) -> anyhow::Result<EvidenceReport> {
    use fleetdesk_kit::files;
    use fleetdesk_telemetry::alarms::active_safety::{self, SafetyItem};
    use fleetdesk_telemetry::media::domain::MediaRow;

    let actor = crate::demo_admin();
    let eid = actor.enterprise_id;
    let mut report = EvidenceReport::default();
    let mut tx = db::begin_tenant(pool, eid).await?;
    let vehicles: Vec<(Uuid, f64, f64)> = sqlx::query_as(
        "select v.id, p.lat, p.lng from vehicle v join latest_position p on p.vehicle_id = v.id \
         where v.enterprise_id = $1 order by v.plate_number limit 3",
    )
    .bind(eid)
    .fetch_all(&mut *tx)
    .await?;
    let known: Vec<String> = sqlx::query_scalar(
        "select alarm_key from risk_alarm where enterprise_id = $1 and alarm_key like 'DEMO-%'",
    )
    .bind(eid)
    .fetch_all(&mut *tx)
    .await?;
    let todo: Vec<_> = SAFETY_ALARMS
        .iter()
        .zip(vehicles.iter().cycle())
        .filter(|((name, ..), _)| !known.contains(&format!("DEMO-{name}")))
        .collect();
    if todo.is_empty() {
        return Ok(report);
    }
    let media = demo_media().await;
    report.clips = media.is_some();
    for ((name, source, event, level, minutes, state), (vehicle, lat, lng)) in todo {
        let key = format!("DEMO-{name}");
        let at = DateTime::from_timestamp((now - Duration::minutes(*minutes)).timestamp(), 0)
            .unwrap_or(now);
        let item = SafetyItem {
            enterprise_id: eid,
            vehicle_id: *vehicle,
            alarm_key: key.clone(),
            source: *source,
            event: *event,
            level: *level,
            flag: 0,
            time: at,
            lat: *lat,
            lng: *lng,
            speed_dkmh: 420,
        };
        report.alarms += active_safety::apply(&mut tx, eid, &[item]).await?;
        let photo = match &media {
            Some((_, jpeg)) => ("photo.jpg", jpeg.clone()),
            None => (
                "photo.png",
                crate::driver_images::card_png(0, vehicle.as_u128() as u64),
            ),
        };
        let mut uploads = vec![(0i16, photo.0, photo.1)];
        if let Some((mp4, _)) = &media {
            uploads.push((2, "clip.mp4", mp4.clone()));
        }
        for (media_type, file, bytes) in uploads {
            let object_key = files::key(eid, "media", &format!("{vehicle}-{key}"), file);
            if !store.exists(&object_key).await? {
                store
                    .put(&object_key, bytes::Bytes::from(bytes.clone()))
                    .await?;
                report.files += 1;
            }
            let row = MediaRow {
                enterprise_id: eid,
                vehicle_id: *vehicle,
                media_type,
                event_code: 0,
                channel: if media_type == 2 { 2 } else { 1 },
                object_key,
                content_type: if media_type == 2 {
                    "video/mp4".to_owned()
                } else {
                    files::content_type(file).to_owned()
                },
                size_bytes: bytes.len() as i64,
                alarm_key: Some(key.clone()),
                file_name: format!("{:02}_{}_{}", media_type, 0x63 + source, file),
                taken_at: at + Duration::seconds(3),
            };
            fleetdesk_telemetry::media::store::insert(&mut tx, &row).await?;
        }
        if *state != AlarmState::Unhandled {
            let ids: Vec<Uuid> = sqlx::query_scalar(
                "select id from risk_alarm where vehicle_id = $1 and alarm_key = $2",
            )
            .bind(vehicle)
            .bind(&key)
            .fetch_all(&mut *tx)
            .await?;
            let alarms = store::get_many(&mut tx, &actor, &ids, true).await?;
            let handled = *state == AlarmState::Handled;
            let m = Move {
                to: *state,
                action: if handled {
                    Activity::Handled
                } else {
                    Activity::Assigned
                },
                assignee: (!handled)
                    .then(|| (actor.user_id.unwrap_or_default(), actor.name.clone())),
                handle_method: handled.then_some(1),
                remark: if handled {
                    "已下发语音提醒，司机保持车距".to_owned()
                } else {
                    "请车队长回看视频后跟进".to_owned()
                },
                attachments: serde_json::json!([]),
            };
            store::apply_move(&mut tx, &actor, &alarms, &m).await?;
        }
    }
    tx.commit().await?;
    tracing::info!(
        alarms = report.alarms,
        files = report.files,
        clips = report.clips,
        "Demo alarm evidence loaded."
    );
    Ok(report)
}

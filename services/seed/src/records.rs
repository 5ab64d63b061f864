//! Demo records of enterprise A the history does not produce: private cars
//! awaiting review, temperature share links, past remote-lock commands,
//! customer-service records (some about the demo alarms) and accidents of
//! the last two months; and one round of the warnings job.
//!
//! Each kind is written through its service's store in its own tenant
//! transaction, then dated into the past by SQL where no store function
//! sets a time. Ids come from `kit::demo_id`; a kind whose first record
//! exists is skipped, so a second run changes nothing. Runs after
//! [`crate::telemetry`] (service records name its alarms).

use chrono::{DateTime, Duration, FixedOffset, TimeZone as _, Utc};
use fleetdesk_assets::private_cars::domain::{PrivateCarDraft, PrivateCarFields, PrivateCarStatus};
use fleetdesk_assets::private_cars::store as private_cars;
use fleetdesk_assets::vehicles::domain::{EnergyType, PlateColor};
use fleetdesk_kit::actor::Actor;
use fleetdesk_kit::ids::Vin;
use fleetdesk_kit::{db, demo_id};
use fleetdesk_risk::accidents::domain::{
    AccidentDraft, AccidentFields, Liability, Severity, Status,
};
use fleetdesk_risk::accidents::store as accidents;
use fleetdesk_risk::lookup;
use fleetdesk_risk::service_records::domain::RecordStatus;
use fleetdesk_risk::service_records::domain::{Category, Channel, RecordDraft, RecordFields};
use fleetdesk_risk::service_records::store as service_records;
use fleetdesk_telemetry::lock::domain::{CommandState, LockAction};
use fleetdesk_telemetry::lock::store as lock;
use fleetdesk_telemetry::temperature::domain::ShareDraft;
use fleetdesk_telemetry::temperature::{share, store as temperatures};
use sqlx_postgres::{PgConnection, PgPool};
use uuid::Uuid;

/// What a run wrote (zeros for kinds already there).
#[derive(Debug, Clone, Copy, Default)]
pub struct Report {
    pub private_cars: usize,
    pub shares: usize,
    pub lock_commands: usize,
    pub service_records: usize,
    pub accidents: usize,
    pub warnings_raised: u64,
}

/// Loads the records (idempotent) on the vehicle schema's owner pool.
pub async fn run(pool: &PgPool, now: DateTime<Utc>) -> anyhow::Result<Report> {
    let actor = crate::demo_admin();
    let report = Report {
        private_cars: private_car_records(pool, &actor).await?,
        shares: shares(pool, &actor, now).await?,
        lock_commands: lock_commands(pool, &actor, now).await?,
        service_records: service_record_rows(pool, &actor, now).await?,
        accidents: accident_rows(pool, &actor, now).await?,
        warnings_raised: warnings(pool, &actor, now).await?,
    };
    tracing::info!(?report, "Demo records loaded.");
    Ok(report)
}

/// Whether `table` already holds the row `id` (the kind's first).
async fn exists(conn: &mut PgConnection, table: &str, id: Uuid) -> anyhow::Result<bool> {
    Ok(sqlx::query_scalar(&format!(
        "select exists(select 1 from {table} where id = $1)"
    ))
    .bind(id)
    .fetch_one(conn)
    .await?)
}

/// `days` before `now`'s Shanghai day, at `hour:minute` local time.
fn local(now: DateTime<Utc>, days: i64, hour: u32, minute: u32) -> DateTime<Utc> {
    let shanghai = FixedOffset::east_opt(8 * 3600).expect("UTC+8 is a valid offset");
    let day = now.with_timezone(&shanghai).date_naive() - Duration::days(days);
    let at = day
        .and_hms_opt(hour, minute, 0)
        .expect("a valid time of day");
    shanghai
        .from_local_datetime(&at)
        .single()
        .expect("a fixed offset has one local time")
        .with_timezone(&Utc)
}

/// Sets a row's creation time (and its last update) to when it happened.
async fn date(
    conn: &mut PgConnection,
    table: &str,
    id: Uuid,
    at: DateTime<Utc>,
) -> anyhow::Result<()> {
    sqlx::query(&format!(
        "update {table} set created_at = $2, updated_at = $2 where id = $1"
    ))
    .bind(id)
    .bind(at)
    .execute(conn)
    .await?;
    Ok(())
}

// --- Private cars ---

/// An employee's own car: (brand, model, energy, plate, VIN without its
/// check digit, allowance fen/km, days ago, rejected with this reason).
type PrivateCar = (
    &'static str,
    &'static str,
    EnergyType,
    &'static str,
    &'static str,
    i64,
    i64,
    Option<&'static str>,
);

const PRIVATE_CARS: [PrivateCar; 5] = [
    (
        "大众",
        "朗逸",
        EnergyType::Fuel,
        "沪A3K7Q2",
        "LSVNV2187N2104512",
        80,
        12,
        None,
    ),
    (
        "比亚迪",
        "秦PLUS DM-i",
        EnergyType::PlugInHybrid,
        "沪AD72815",
        "LGXCE4CB0P0217733",
        60,
        9,
        None,
    ),
    (
        "丰田",
        "卡罗拉",
        EnergyType::Fuel,
        "苏E5M2R8",
        "LVGBE40K6NG083291",
        80,
        6,
        Some("行驶证照片不清晰，请重新上传"),
    ),
    (
        "特斯拉",
        "Model 3",
        EnergyType::BatteryElectric,
        "沪AF09321",
        "LRW3E7EA0PC552816",
        50,
        3,
        None,
    ),
    (
        "本田",
        "雅阁",
        EnergyType::Fuel,
        "浙A8P6T1",
        "LHGCV1658N8047326",
        80,
        1,
        Some("交强险已过期，请续保后再提交"),
    ),
];

async fn private_car_records(pool: &PgPool, actor: &Actor) -> anyhow::Result<usize> {
    let mut tx = db::begin_tenant(pool, actor.enterprise_id).await?;
    if exists(&mut tx, "private_car", demo_id("private-car:0")).await? {
        return Ok(0);
    }
    // Owners: drivers past those the demo cards go to.
    let owners: Vec<(Uuid, String, String, Uuid)> = sqlx::query_as(
        "select id, name, phone, org_id from driver where enterprise_id = $1 \
         order by id offset 40 limit $2",
    )
    .bind(actor.enterprise_id)
    .bind(PRIVATE_CARS.len() as i64)
    .fetch_all(&mut *tx)
    .await?;
    let now = Utc::now();
    for (i, ((brand, model, energy, plate, vin, allowance, days, rejected), owner)) in
        PRIVATE_CARS.iter().zip(&owners).enumerate()
    {
        let mut vin = (*vin).to_owned();
        let check = Vin::check_digit_for(&vin).expect("demo VINs use valid characters");
        vin.replace_range(8..9, &check.to_string());
        let draft = PrivateCarDraft::parse(PrivateCarFields {
            org_id: owner.3.to_string(),
            plate_number: (*plate).to_owned(),
            plate_color: Some(if plate.chars().count() == 8 {
                PlateColor::Green
            } else {
                PlateColor::Blue
            }),
            vin,
            brand: (*brand).to_owned(),
            model: (*model).to_owned(),
            energy_type: Some(*energy),
            owner_driver_id: owner.0.to_string(),
            owner_name: owner.1.clone(),
            owner_phone: owner.2.clone(),
            allowance_fen_per_km: *allowance,
            licence_images: serde_json::json!([]),
            insurance_images: serde_json::json!([]),
            remark: "外勤拜访客户用车".to_owned(),
        })
        .map_err(|e| anyhow::anyhow!("demo private car {plate}: {e:?}"))?;
        let id = demo_id(&format!("private-car:{i}"));
        private_cars::insert(&mut tx, actor, id, &draft).await?;
        if let Some(reason) = rejected {
            private_cars::set_review(&mut tx, actor, id, PrivateCarStatus::Rejected, reason, None)
                .await?;
        }
        let at = local(now, *days, 10, 5 * i as u32);
        date(&mut tx, "private_car", id, at).await?;
        sqlx::query(
            "update private_car set reviewed_at = $2 where id = $1 and reviewed_at is not null",
        )
        .bind(id)
        .bind(at + Duration::hours(4))
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(owners.len())
}

// --- Temperature shares ---

/// Links to consignees: (name, phone, created days ago, valid days, revoked).
const SHARES: [(&str, &str, i64, i64, bool); 6] = [
    ("盒马鲜生浦东仓 王经理", "13816620451", 20, 3, false),
    ("叮咚买菜嘉定站 李娜", "13917735208", 14, 2, true),
    ("永辉超市 陈建国", "021-58812345", 10, 1, false),
    ("山姆会员店 周敏", "13621908876", 2, 7, false),
    ("瑞金医院药剂科 赵磊", "13701652293", 1, 14, false),
    ("美菜网 孙涛", "18621447730", 0, 5, false),
];

async fn shares(pool: &PgPool, actor: &Actor, now: DateTime<Utc>) -> anyhow::Result<usize> {
    let mut tx = db::begin_tenant(pool, actor.enterprise_id).await?;
    if exists(&mut tx, "temperature_share", demo_id("temperature-share:0")).await? {
        return Ok(0);
    }
    // The refrigerated vans: those with a band.
    let vans: Vec<Uuid> = sqlx::query_scalar(
        "select v.id from vehicle v where v.enterprise_id = $1 and exists (select 1 from \
         temperature_threshold t where t.vehicle_id = v.id) order by v.plate_number limit 4",
    )
    .bind(actor.enterprise_id)
    .fetch_all(&mut *tx)
    .await?;
    if vans.is_empty() {
        return Ok(0);
    }
    for (i, (name, phone, days, valid, revoked)) in SHARES.iter().enumerate() {
        // Today's link an hour ago, older ones in the morning of their day.
        let created = if *days == 0 {
            now - Duration::hours(1)
        } else {
            local(now, *days, 8, 30 + i as u32)
        };
        let draft = ShareDraft::parse(name, phone, Some(created + Duration::days(*valid)), created)
            .map_err(|e| anyhow::anyhow!("demo share {name}: {e:?}"))?;
        let id = demo_id(&format!("temperature-share:{i}"));
        let (_token, hash) = share::new_token();
        temperatures::insert_share(&mut tx, actor, id, vans[i % vans.len()], &draft, &hash).await?;
        if *revoked {
            temperatures::revoke(&mut tx, actor, id).await?;
        }
        sqlx::query(
            "update temperature_share set created_at = $2, \
             revoked_at = case when revoked_at is not null then $3 end where id = $1",
        )
        .bind(id)
        .bind(created)
        .bind(created + Duration::hours(5))
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(SHARES.len())
}

// --- Remote lock ---

/// Past commands: (action, reason, final state, failure, days ago, hour).
const LOCKS: [(LockAction, &str, CommandState, &str, i64, u32); 12] = [
    (
        LockAction::Lock,
        "租期已满未续租，暂停用车",
        CommandState::Succeeded,
        "",
        26,
        9,
    ),
    (
        LockAction::Unlock,
        "客户已续租，恢复用车",
        CommandState::Succeeded,
        "",
        25,
        15,
    ),
    (
        LockAction::Lock,
        "司机离职未交车，锁车待收回",
        CommandState::Succeeded,
        "",
        21,
        18,
    ),
    (
        LockAction::Lock,
        "月供逾期两期，按合同锁车",
        CommandState::Failed,
        "终端拒绝执行：车辆未熄火",
        18,
        11,
    ),
    (
        LockAction::Lock,
        "月供逾期两期，按合同锁车",
        CommandState::Succeeded,
        "",
        18,
        20,
    ),
    (
        LockAction::Unlock,
        "欠款已结清，解除锁车",
        CommandState::Succeeded,
        "",
        16,
        10,
    ),
    (
        LockAction::Lock,
        "车辆被盗报警，协助警方锁车",
        CommandState::Expired,
        "车辆不在线，指令已过期",
        13,
        2,
    ),
    (
        LockAction::Unlock,
        "车辆已找回，恢复使用",
        CommandState::Succeeded,
        "",
        11,
        14,
    ),
    (
        LockAction::Lock,
        "夜间非运营时段禁止用车",
        CommandState::Failed,
        "终端拒绝执行：车门未关闭",
        8,
        22,
    ),
    (
        LockAction::Lock,
        "夜间非运营时段禁止用车",
        CommandState::Succeeded,
        "",
        8,
        23,
    ),
    (
        LockAction::Unlock,
        "早班出车，解除夜间锁车",
        CommandState::Expired,
        "车辆不在线，指令已过期",
        7,
        6,
    ),
    (
        LockAction::Unlock,
        "早班出车，解除夜间锁车",
        CommandState::Succeeded,
        "",
        7,
        7,
    ),
];

async fn lock_commands(pool: &PgPool, actor: &Actor, now: DateTime<Utc>) -> anyhow::Result<usize> {
    let mut tx = db::begin_tenant(pool, actor.enterprise_id).await?;
    if exists(&mut tx, "lock_command", demo_id("lock-command:0")).await? {
        return Ok(0);
    }
    // Vehicles with a terminal, a couple of commands each (lock, then unlock).
    let vehicles: Vec<(Uuid, Uuid, String, String, String)> = sqlx::query_as(
        "select id, org_id, plate_number, vin, terminal_sim from vehicle \
         where enterprise_id = $1 and coalesce(terminal_sim, '') <> '' \
         order by plate_number limit 5",
    )
    .bind(actor.enterprise_id)
    .fetch_all(&mut *tx)
    .await?;
    if vehicles.is_empty() {
        return Ok(0);
    }
    for (i, (action, reason, state, failure, days, hour)) in LOCKS.iter().enumerate() {
        let (vehicle_id, org_id, plate, vin, sim) = &vehicles[(i / 2) % vehicles.len()];
        let id = demo_id(&format!("lock-command:{i}"));
        let asked = local(now, *days, *hour, 7 + 3 * i as u32);
        let phone = fleetdesk_telemetry::directory::domain::phone(sim);
        lock::insert(
            &mut tx,
            actor,
            &lock::NewCommand {
                id,
                org_id: *org_id,
                vehicle_id: *vehicle_id,
                plate_number: plate,
                vin,
                phone: &phone,
                action: *action,
                reason,
                expire_at: asked + fleetdesk_telemetry::lock::domain::QUEUE_FOR,
            },
        )
        .await?;
        if *state != CommandState::Expired {
            lock::answer(
                &mut tx,
                id,
                actor.enterprise_id,
                *vehicle_id,
                *state,
                failure,
            )
            .await?;
        }
        // The expired ones never reached their terminal; the others were
        // sent at once and answered within seconds.
        let (sent, completed) = if *state == CommandState::Expired {
            (None, asked + fleetdesk_telemetry::lock::domain::QUEUE_FOR)
        } else {
            (
                Some(asked + Duration::seconds(2)),
                asked + Duration::seconds(9),
            )
        };
        sqlx::query(
            "update lock_command set state = $2, failure_reason = $3, sent_at = $4, \
             completed_at = $5, created_at = $6, next_attempt_at = $6, \
             attempts = case when $4::timestamptz is null then 0 else 1 end \
             where id = $1",
        )
        .bind(id)
        .bind(i16::from(*state))
        .bind(failure)
        .bind(sent)
        .bind(completed)
        .bind(asked)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(LOCKS.len())
}

// --- Customer-service records ---

/// Calls about alarms: (caller, phone, channel, category, summary, resolution, status).
const ALARM_CALLS: [(&str, &str, Channel, Category, &str, &str, RecordStatus); 4] = [
    (
        "刘洋",
        "13764218830",
        Channel::Phone,
        Category::Consultation,
        "司机来电询问超速报警原因，称当时在高架匝道",
        "已调取轨迹核实，提醒司机匝道限速 40 公里",
        RecordStatus::Closed,
    ),
    (
        "车队长 吴强",
        "13512093376",
        Channel::Wecom,
        Category::Complaint,
        "车队长反馈疲劳驾驶报警过多，影响排班",
        "已说明规则为连续驾驶 4 小时，建议调整中途休息点",
        RecordStatus::Resolved,
    ),
    (
        "黄丽",
        "13661872045",
        Channel::DriverApp,
        Category::Consultation,
        "司机通过 App 反馈低电量报警，询问最近的充电站",
        "已推送附近 3 公里内两座充电站位置",
        RecordStatus::InProgress,
    ),
    (
        "郑伟",
        "13918560274",
        Channel::Phone,
        Category::RoadsideAssistance,
        "终端紧急报警后联系司机，司机称车辆故障停在路边",
        "",
        RecordStatus::Open,
    ),
];

/// Calls about a vehicle: (caller, phone, channel, category, summary,
/// resolution, status, days ago, hour).
type Call = (
    &'static str,
    &'static str,
    Channel,
    Category,
    &'static str,
    &'static str,
    RecordStatus,
    i64,
    u32,
);

const VEHICLE_CALLS: [Call; 5] = [
    (
        "马军",
        "13482017765",
        Channel::Phone,
        Category::FaultReport,
        "仪表盘提示胎压异常，右后轮胎压偏低",
        "已安排就近维修站补胎，车辆恢复运营",
        RecordStatus::Closed,
        30,
        9,
    ),
    (
        "胡静",
        "13585520914",
        Channel::OnlineChat,
        Category::Consultation,
        "询问车辆年检到期时间及办理流程",
        "已告知年检到期日，并发送预约链接",
        RecordStatus::Resolved,
        17,
        14,
    ),
    (
        "林峰",
        "13817736602",
        Channel::Phone,
        Category::AccidentReport,
        "在园区内倒车时刮碰护栏，车尾保险杠受损",
        "已指导拍照取证并登记事故，等待定损",
        RecordStatus::InProgress,
        9,
        16,
    ),
    (
        "何敏",
        "13621185539",
        Channel::Wecom,
        Category::Complaint,
        "客户投诉冷藏车到货温度偏高",
        "",
        RecordStatus::Open,
        2,
        11,
    ),
    (
        "唐亮",
        "13761409928",
        Channel::DriverApp,
        Category::Other,
        "司机申请更换车载终端 SIM 卡",
        "",
        RecordStatus::Open,
        1,
        10,
    ),
];

/// The ticket number's prefix, as the handler's (客服).
const TICKET_PREFIX: &str = "KF";

async fn service_record_rows(
    pool: &PgPool,
    actor: &Actor,
    now: DateTime<Utc>,
) -> anyhow::Result<usize> {
    let mut tx = db::begin_tenant(pool, actor.enterprise_id).await?;
    if exists(
        &mut tx,
        "customer_service_record",
        demo_id("service-record:vehicle:0"),
    )
    .await?
    {
        return Ok(0);
    }
    // Alarms a day old or more, the most serious first.
    let alarms: Vec<(Uuid, DateTime<Utc>)> = sqlx::query_as(
        "select id, started_at from risk_alarm where enterprise_id = $1 and started_at < $2 \
         order by level desc, started_at desc, id limit $3",
    )
    .bind(actor.enterprise_id)
    .bind(now - Duration::days(1))
    .bind(ALARM_CALLS.len() as i64)
    .fetch_all(&mut *tx)
    .await?;
    let vehicles: Vec<Uuid> = sqlx::query_scalar(
        "select id from vehicle where enterprise_id = $1 order by plate_number offset 10 limit $2",
    )
    .bind(actor.enterprise_id)
    .bind(VEHICLE_CALLS.len() as i64)
    .fetch_all(&mut *tx)
    .await?;
    let mut calls = Vec::new();
    for (i, ((alarm, started), call)) in alarms.iter().zip(&ALARM_CALLS).enumerate() {
        let (caller, phone, channel, category, summary, resolution, status) = *call;
        let fields = RecordFields {
            alarm_id: alarm.to_string(),
            ..fields(caller, phone, channel, category, summary, resolution)
        };
        let at = *started + Duration::minutes(12);
        calls.push((format!("alarm:{i}"), fields, at, status));
    }
    for (i, (vehicle, call)) in vehicles.iter().zip(&VEHICLE_CALLS).enumerate() {
        let (caller, phone, channel, category, summary, resolution, status, days, hour) = *call;
        let fields = RecordFields {
            vehicle_id: vehicle.to_string(),
            ..fields(caller, phone, channel, category, summary, resolution)
        };
        calls.push((
            format!("vehicle:{i}"),
            fields,
            local(now, days, hour, 20 + i as u32),
            status,
        ));
    }
    // Oldest first, so the day's ticket numbers follow the calls.
    calls.sort_by_key(|c| c.2);
    for (key, mut fields, at, status) in calls {
        fields.start_time = Some(at);
        fields.duration_seconds = 90 + (at.timestamp() % 400) as i32;
        fields.status = status.pb();
        if status.is_done() {
            fields.follow_up_time = Some(at + Duration::days(1));
            fields.satisfaction = if fields.category == Category::Complaint.pb() {
                3
            } else {
                5
            };
        }
        let draft = RecordDraft::parse(&fields, now)
            .map_err(|e| anyhow::anyhow!("demo service record {key}: {e:?}"))?;
        // The vehicle as the handler finds it: the one named, else the alarm's.
        let vehicle_id = match (draft.vehicle_id, draft.alarm_id) {
            (Some(v), _) => v,
            (None, Some(a)) => service_records::alarm_vehicle(&mut tx, actor, a)
                .await?
                .ok_or_else(|| anyhow::anyhow!("demo alarm {a} has no vehicle"))?,
            (None, None) => unreachable!("every demo call names one"),
        };
        let vehicle = lookup::vehicle(&mut tx, actor, "vehicleId", vehicle_id).await?;
        let driver = lookup::driver_at(&mut tx, actor.enterprise_id, vehicle.id, at).await?;
        let id = demo_id(&format!("service-record:{key}"));
        let ticket_no =
            lookup::next_number(&mut tx, actor.enterprise_id, TICKET_PREFIX, at).await?;
        let placement = service_records::Placement {
            vehicle_id: vehicle.id,
            org_id: vehicle.org_id,
            driver: driver.as_ref(),
            status,
        };
        service_records::insert(&mut tx, actor, id, &ticket_no, &placement, &draft).await?;
        date(&mut tx, "customer_service_record", id, at).await?;
        sqlx::query(
            "update customer_service_record set close_time = $2 \
             where id = $1 and close_time is not null",
        )
        .bind(id)
        .bind(at + Duration::hours(3))
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(alarms.len().min(ALARM_CALLS.len()) + vehicles.len().min(VEHICLE_CALLS.len()))
}

fn fields(
    caller: &str,
    phone: &str,
    channel: Channel,
    category: Category,
    summary: &str,
    resolution: &str,
) -> RecordFields {
    RecordFields {
        caller_name: caller.to_owned(),
        caller_phone: phone.to_owned(),
        channel: channel.pb(),
        category: category.pb(),
        summary: summary.to_owned(),
        resolution: resolution.to_owned(),
        ..RecordFields::default()
    }
}

// --- Accidents ---

/// An accident: (days ago, hour, address, (lng, lat), description, severity,
/// liability, injured, estimated fen, assessed fen, claim paid fen, status).
type Case = (
    i64,
    u32,
    &'static str,
    (f64, f64),
    &'static str,
    Severity,
    Liability,
    i32,
    i64,
    i64,
    i64,
    Status,
);

const ACCIDENTS: [Case; 7] = [
    (
        56,
        8,
        "上海市浦东新区张江路与科苑路交叉口",
        (121.5901, 31.2053),
        "早高峰跟车过近追尾前车，前车后保险杠受损",
        Severity::PropertyOnly,
        Liability::Full,
        0,
        350_000,
        286_000,
        286_000,
        Status::Closed,
    ),
    (
        47,
        17,
        "上海市闵行区沪闵路 7866 号附近",
        (121.4046, 31.1126),
        "变道时与右侧电动自行车刮擦，骑车人手臂擦伤",
        Severity::MinorInjury,
        Liability::Main,
        1,
        800_000,
        652_000,
        520_000,
        Status::Closed,
    ),
    (
        38,
        14,
        "苏州市工业园区星湖街 328 号",
        (120.7335, 31.2644),
        "停车场倒车撞到立柱，车尾灯碎裂",
        Severity::PropertyOnly,
        Liability::Full,
        0,
        120_000,
        98_000,
        0,
        Status::Claiming,
    ),
    (
        29,
        21,
        "杭州市余杭区文一西路 969 号",
        (120.0265, 30.2795),
        "路口等红灯时被后车追尾，后车全责",
        Severity::PropertyOnly,
        Liability::None,
        0,
        450_000,
        0,
        0,
        Status::Repairing,
    ),
    (
        18,
        6,
        "上海市嘉定区曹安公路 4800 号",
        (121.2543, 31.2869),
        "雨天路滑制动不及撞上隔离护栏，司机轻微受伤",
        Severity::MinorInjury,
        Liability::Full,
        1,
        1_500_000,
        0,
        0,
        Status::LossAssessment,
    ),
    (
        9,
        19,
        "南京市江宁区双龙大道 1688 号",
        (118.8209, 31.9535),
        "转弯时与对向车辆发生碰撞，双方车辆前部受损",
        Severity::PropertyOnly,
        Liability::Equal,
        0,
        600_000,
        0,
        0,
        Status::Reported,
    ),
    (
        3,
        11,
        "上海市青浦区华新镇华志路 1288 号",
        (121.1804, 31.2402),
        "卸货时车辆溜车撞到仓库卷帘门",
        Severity::PropertyOnly,
        Liability::Undetermined,
        0,
        200_000,
        0,
        0,
        Status::Reported,
    ),
];

/// The case number's prefix, as the handler's (事故).
const CASE_PREFIX: &str = "SG";

async fn accident_rows(pool: &PgPool, actor: &Actor, now: DateTime<Utc>) -> anyhow::Result<usize> {
    let mut tx = db::begin_tenant(pool, actor.enterprise_id).await?;
    if exists(&mut tx, "accident", demo_id("accident:0")).await? {
        return Ok(0);
    }
    // Vehicles with a driver bound, so the accident names who drove.
    let vehicles: Vec<Uuid> = sqlx::query_scalar(
        "select v.id from vehicle v where v.enterprise_id = $1 and exists (select 1 from \
         vehicle_binding b where b.vehicle_id = v.id and b.kind = 1) \
         order by v.plate_number limit $2",
    )
    .bind(actor.enterprise_id)
    .bind(ACCIDENTS.len() as i64)
    .fetch_all(&mut *tx)
    .await?;
    for (i, (case, vehicle_id)) in ACCIDENTS.iter().zip(&vehicles).enumerate() {
        let (days, hour, address, point, description, severity, liability, injured) = (
            case.0, case.1, case.2, case.3, case.4, case.5, case.6, case.7,
        );
        let (estimated, assessed, paid, status) = (case.8, case.9, case.10, case.11);
        let at = local(now, days, hour, 10 + 4 * i as u32);
        let reported = at + Duration::minutes(40);
        let assessed_yet = assessed > 0;
        let draft = AccidentDraft::parse(
            AccidentFields {
                vehicle_id: vehicle_id.to_string(),
                accident_time: Some(at),
                address: address.to_owned(),
                point: Some(point),
                description: description.to_owned(),
                severity: severity.pb(),
                liability: liability.pb(),
                injured_count: injured,
                estimated_loss_fen: estimated,
                assessed_loss_fen: assessed,
                fixed_loss_code: if assessed_yet {
                    format!("DS{}{:03}", at.format("%Y%m%d"), i + 1)
                } else {
                    String::new()
                },
                insurance_policy_id: format!("PDAA2026310000{:06}", 418_200 + i * 37),
                claim_no: if paid > 0 {
                    format!("LP{}{:04}", at.format("%Y%m%d"), 30 + i)
                } else {
                    String::new()
                },
                claim_paid_fen: paid,
                repair_order_id: if assessed_yet {
                    format!("WX{}{:03}", at.format("%Y%m%d"), 7 + i)
                } else {
                    String::new()
                },
                images: serde_json::json!([]),
                documents: serde_json::json!([]),
                ..AccidentFields::default()
            },
            now,
        )
        .map_err(|e| anyhow::anyhow!("demo accident {i}: {e:?}"))?;
        let vehicle = lookup::vehicle(&mut tx, actor, "vehicleId", draft.vehicle_id).await?;
        // The driver as the handler finds one none is named: bound at the time.
        let driver = lookup::driver_at(
            &mut tx,
            actor.enterprise_id,
            vehicle.id,
            draft.accident_time,
        )
        .await?;
        let id = demo_id(&format!("accident:{i}"));
        let case_no =
            lookup::next_number(&mut tx, actor.enterprise_id, CASE_PREFIX, reported).await?;
        let placement = accidents::Placement {
            org_id: vehicle.org_id,
            driver: driver.as_ref(),
            status,
        };
        accidents::save(&mut tx, actor, id, &case_no, &placement, &draft).await?;
        accidents::log(
            &mut tx,
            actor,
            id,
            &fleetdesk_risk::accidents::domain::created(&case_no, &vehicle.plate_number),
        )
        .await?;
        date(&mut tx, "accident", id, reported).await?;
        sqlx::query("update accident set close_time = $2 where id = $1 and close_time is not null")
            .bind(id)
            .bind(at + Duration::days(21))
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "update operation_log set created_at = $2 where business_id = $1 and enterprise_id = $3",
        )
        .bind(id)
        .bind(reported)
        .bind(actor.enterprise_id)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(vehicles.len().min(ACCIDENTS.len()))
}

// --- Warnings ---

/// One round of the daily warnings job when the enterprise has none yet
/// (licences about to expire, overdue instalments).
async fn warnings(pool: &PgPool, actor: &Actor, now: DateTime<Utc>) -> anyhow::Result<u64> {
    let mut tx = db::begin_tenant(pool, actor.enterprise_id).await?;
    let any: bool = sqlx::query_scalar("select exists(select 1 from risk_warning)")
        .fetch_one(&mut *tx)
        .await?;
    tx.commit().await?;
    if any {
        return Ok(0);
    }
    let round = fleetdesk_risk::warnings::job::run_once(pool, now)
        .await
        .map_err(|e| anyhow::anyhow!("warnings job: {e:?}"))?;
    Ok(round.raised)
}

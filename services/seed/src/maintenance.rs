//! Demo maintenance (carMaintenance): two service plans of enterprise A —
//! a routine service every 10,000 km or 6 months over the whole tree, and
//! the refrigeration unit of the cold-chain model every 12 months — with a
//! year of services per vehicle behind them, spread so the list shows
//! reminders overdue, due soon and fine. Plans are saved through
//! fleetdesk-maintenance's store and their dues computed by its rules
//! (`due_after`, `next_due`); the reminders and the history are written
//! as completing would have left them, then judged (`reminders::judge`)
//! so the list reads their states from the start.
//! Deterministic and idempotent: a second run finds the first plan and
//! changes nothing.

use chrono::{DateTime, Days, Duration, Utc};
use fleetdesk_kit::{db, demo_id};
use fleetdesk_maintenance::odometer::{beijing_day, day_start};
use fleetdesk_maintenance::plans::domain::{Base, Interval, Kind, PlanDraft, Window, due_after};
use fleetdesk_maintenance::plans::store as plans;
use fleetdesk_maintenance::reminders::domain::{Schedule, next_due};
use fleetdesk_maintenance::reminders::judge::{self, Refresh};
use sqlx_postgres::PgPool;
use uuid::Uuid;

/// What the run wrote.
#[derive(Debug, Clone, Copy, Default)]
pub struct Report {
    pub plans: usize,
    pub reminders: usize,
    pub services: usize,
}

const KM: i64 = 1000;

fn drafts(root: Uuid) -> [(Uuid, PlanDraft); 2] {
    [
        (
            demo_id("maintenance-plan:a:routine"),
            PlanDraft {
                org_id: root,
                name: "常规保养".to_owned(),
                kind: Kind::RoutineService,
                vehicle_model: String::new(),
                interval: Interval {
                    m: 10_000 * KM,
                    months: 6,
                },
                window: Window {
                    m: 1_000 * KM,
                    days: 15,
                },
                items: ["更换齿轮油", "检查制动系统", "检查轮胎", "检查高压线束"]
                    .map(str::to_owned)
                    .to_vec(),
                remark: "新能源物流车厂家保养手册".to_owned(),
            },
        ),
        (
            demo_id("maintenance-plan:a:reefer"),
            PlanDraft {
                org_id: root,
                name: "冷机年度保养".to_owned(),
                kind: Kind::RefrigerationUnit,
                vehicle_model: "比亚迪T5冷藏车".to_owned(),
                interval: Interval { m: 0, months: 12 },
                window: Window { m: 0, days: 30 },
                items: ["清洗冷凝器", "检查制冷剂", "校准温度探头"]
                    .map(str::to_owned)
                    .to_vec(),
                remark: String::new(),
            },
        ),
    ]
}

/// A vehicle a demo plan covers.
#[derive(Debug, sqlx::FromRow)]
struct Covered {
    id: Uuid,
    org_id: Uuid,
    model: String,
    odometer_m: Option<i64>,
}

const SUPPLIERS: [&str; 4] = [
    "上汽通用五菱授权服务站",
    "比亚迪商用车服务中心",
    "途虎养车工场店",
    "顺捷汽修厂",
];

pub async fn run(pool: &PgPool, now: DateTime<Utc>) -> anyhow::Result<Report> {
    let actor = crate::demo_admin();
    let mut tx = db::begin_tenant(pool, actor.enterprise_id).await?;
    let first = demo_id("maintenance-plan:a:routine");
    let exists: bool =
        sqlx::query_scalar("select exists(select 1 from maintenance_plan where id = $1)")
            .bind(first)
            .fetch_one(&mut *tx)
            .await?;
    if exists {
        return Ok(Report::default());
    }
    // The organisation replica fills only once the service runs: the plans
    // name the demo tree's root by its seeded id, and their reminders are
    // written here for the vehicles they cover (a later save of a plan
    // finds them open and keeps them).
    let root = demo_id("org:a-root");
    let vehicles: Vec<Covered> = sqlx::query_as(
        "select v.id, v.org_id, v.model, lp.mileage_m as odometer_m from vehicle v \
         left join latest_position lp on lp.vehicle_id = v.id \
         where v.enterprise_id = $1 order by v.id",
    )
    .bind(actor.enterprise_id)
    .fetch_all(&mut *tx)
    .await?;
    let today = beijing_day(now);
    let mut report = Report::default();
    for (plan_id, draft) in drafts(root) {
        plans::save(&mut tx, &actor, plan_id, &draft).await?;
        report.plans += 1;
        let open = vehicles
            .iter()
            .filter(|v| draft.vehicle_model.is_empty() || v.model == draft.vehicle_model);
        for (i, o) in open.enumerate() {
            report.reminders += 1;
            // 40 to 160 km a day; the last service 120 to 200 days ago, so
            // some are past six months or 10,000 km, some within the window.
            let daily_km = 40 + (i as i64 * 37) % 121;
            let last_days = 120 + (i as u64 * 13) % 81;
            // What its terminal reported, else where the simulated one starts.
            let odometer = o.odometer_m.filter(|m| *m > 0).unwrap_or_else(|| {
                i64::try_from(fleetdesk_simulator::demo_odometer_m(o.id)).unwrap_or(i64::MAX)
            });
            let mut services = Vec::new();
            // A year of services: the last one, and the one before it a cycle earlier.
            for back in [last_days + 182, last_days] {
                let at = day_start(today.checked_sub_days(Days::new(back)).unwrap_or(today))
                    + Duration::hours(10);
                let km = (odometer - back as i64 * daily_km * KM).max(1_000 * KM);
                services.push((at, km));
            }
            let mut previous_due = due_after(
                draft.interval,
                Base {
                    date: beijing_day(services[0].0) - Duration::days(182),
                    odometer_m: (services[0].1 - 10_000 * KM).max(0),
                },
            );
            let (mut base, mut due) = (
                Base {
                    date: today,
                    odometer_m: odometer,
                },
                previous_due,
            );
            for (n, (at, km)) in services.iter().enumerate() {
                let schedule = if (i + n) % 3 == 0 {
                    Schedule::Keep
                } else {
                    Schedule::Reset
                };
                let closed = demo_id(&format!("maintenance-reminder:{plan_id}:{}:{n}", o.id));
                let record = demo_id(&format!("maintenance-record:{plan_id}:{}:{n}", o.id));
                let (done, urgency) = judge::place(None, Some(*at));
                sqlx::query(
                    "insert into maintenance_reminder (id, enterprise_id, org_id, vehicle_id, \
                       plan_id, base_date, base_odometer_m, due_odometer_m, due_date, \
                       completed_at, record_id, created_by_name, updated_by_name, created_at, \
                       due_state, urgency) \
                     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12, $10, $13, \
                       $14)",
                )
                .bind(closed)
                .bind(actor.enterprise_id)
                .bind(o.org_id)
                .bind(o.id)
                .bind(plan_id)
                .bind(base.date)
                .bind(base.odometer_m)
                .bind(due.odometer_m)
                .bind(due.date)
                .bind(*at)
                .bind(record)
                .bind(&actor.name)
                .bind(done)
                .bind(urgency)
                .execute(&mut *tx)
                .await?;
                sqlx::query(
                    "insert into maintenance_record (id, enterprise_id, org_id, created_by, \
                       reminder_id, plan_id, plan_name, vehicle_id, service_time, \
                       service_odometer_m, supplier, cost_fen, items, remark, schedule, \
                       created_by_name, created_at) \
                     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, '', $14, \
                       $15, $9)",
                )
                .bind(record)
                .bind(actor.enterprise_id)
                .bind(o.org_id)
                .bind(actor.user_id)
                .bind(closed)
                .bind(plan_id)
                .bind(&draft.name)
                .bind(o.id)
                .bind(*at)
                .bind(*km)
                .bind(SUPPLIERS[(i + n) % SUPPLIERS.len()])
                .bind(38_000 + ((i * 7 + n * 11) % 40) as i64 * 1_000)
                .bind(serde_json::json!(draft.items))
                .bind(i16::from(schedule))
                .bind(&actor.name)
                .execute(&mut *tx)
                .await?;
                report.services += 1;
                (base, due) = next_due(
                    schedule,
                    draft.interval,
                    previous_due,
                    Base {
                        date: beijing_day(*at),
                        odometer_m: *km,
                    },
                );
                previous_due = due;
            }
            let (last_at, last_km) = services[services.len() - 1];
            sqlx::query(
                "insert into maintenance_reminder (id, enterprise_id, org_id, vehicle_id, \
                   plan_id, last_service_time, last_service_odometer_m, base_date, \
                   base_odometer_m, due_odometer_m, due_date, created_by_name, updated_by_name, \
                   created_at) \
                 values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12, $6)",
            )
            .bind(demo_id(&format!(
                "maintenance-reminder:{plan_id}:{}:open",
                o.id
            )))
            .bind(actor.enterprise_id)
            .bind(o.org_id)
            .bind(o.id)
            .bind(plan_id)
            .bind(last_at)
            .bind(last_km)
            .bind(base.date)
            .bind(base.odometer_m)
            .bind(due.odometer_m)
            .bind(due.date)
            .bind(&actor.name)
            .execute(&mut *tx)
            .await?;
        }
    }
    judge::refresh_in(&mut tx, actor.enterprise_id, Refresh::Unjudged, today).await?;
    tx.commit().await?;
    tracing::info!(?report, "Demo maintenance loaded.");
    Ok(report)
}

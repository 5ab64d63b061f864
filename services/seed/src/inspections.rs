//! Demo annual inspections (drivingLicense): a year of inspections for
//! enterprise A's fleet, recorded through fleetdesk-maintenance's store as
//! `RecordAnnualInspection` records them. Each vehicle's state is opened as
//! it stood a year ago (the schedule from its registration), then every
//! inspection that fell due since is recorded a few days early, a few
//! failing first and passing on the retest; about a third of those due in
//! the last six weeks are not inspected yet (overdue), and those due within
//! 30 days are due soon by the schedule itself. Picked by the plate, so deterministic; idempotent: a
//! second run finds records and changes nothing.

use chrono::{DateTime, Days, NaiveDate, Utc};
use fleetdesk_kit::codes::known;
use fleetdesk_kit::db;
use fleetdesk_maintenance::inspections::domain::{Class, Inspection, Outcome};
use fleetdesk_maintenance::inspections::store;
use fleetdesk_maintenance::odometer::beijing_day;
use sqlx_postgres::PgPool;
use uuid::Uuid;

/// What the run wrote.
#[derive(Debug, Clone, Copy, Default)]
pub struct Report {
    pub records: usize,
    pub failed: usize,
    pub lapsed: usize,
}

const STATIONS: [&str; 4] = [
    "深圳市安车机动车检测站",
    "深圳市华测机动车检测有限公司",
    "广州市车检通检测站",
    "东莞市通利机动车检测站",
];

/// 0..100 from `text` and `salt`.
fn dice(text: &str, salt: u32) -> u32 {
    text.bytes().fold(salt.wrapping_add(7), |acc, b| {
        acc.wrapping_mul(31).wrapping_add(u32::from(b))
    }) % 100
}

pub async fn run(pool: &PgPool, now: DateTime<Utc>) -> anyhow::Result<Report> {
    let actor = crate::demo_admin();
    let mut tx = db::begin_tenant(pool, actor.enterprise_id).await?;
    let exists: bool = sqlx::query_scalar(
        "select exists(select 1 from annual_inspection_record where enterprise_id = $1)",
    )
    .bind(actor.enterprise_id)
    .fetch_one(&mut *tx)
    .await?;
    if exists {
        return Ok(Report::default());
    }
    let today = beijing_day(now);
    let year_ago = today - Days::new(365);
    store::open(&mut tx, actor.enterprise_id, None, year_ago).await?;
    let vehicles: Vec<(Uuid, String)> = sqlx::query_as(
        "select id, plate_number from vehicle where enterprise_id = $1 order by plate_number",
    )
    .bind(actor.enterprise_id)
    .fetch_all(&mut *tx)
    .await?;
    let mut report = Report::default();
    for (vehicle, plate) in vehicles {
        // Each round moves the due date at least five months on: a year takes a few.
        for round in 0..8 {
            let row = store::get(&mut tx, &actor, vehicle, true).await?;
            let Some(due) = row.due_date.filter(|d| *d <= today) else {
                break;
            };
            // About a third of those due in the last six weeks are not inspected yet.
            if (today - due).num_days() < 45 && dice(&plate, 1) < 30 {
                report.lapsed += 1;
                break;
            }
            let early = u64::from(dice(&plate, round + 2) % 20);
            let registered = row.registered().unwrap_or(year_ago);
            let inspected: NaiveDate = (due - Days::new(early)).max(registered).min(today);
            // About one in twelve fails first and passes the retest a week on.
            let fails = round == 0 && dice(&plate, 3) < 8;
            let mut attempts = vec![(inspected, Outcome::Passed)];
            if fails {
                attempts.insert(0, (inspected, Outcome::Failed));
                attempts[1].0 = (inspected + Days::new(7)).min(today);
            }
            let class: Class = known(row.inspection_class)?;
            let mut state = row;
            for (day, outcome) in attempts {
                let age_days = (day - state.registered().unwrap_or(day)).num_days().max(0);
                let inspection = Inspection {
                    inspected: day,
                    outcome,
                    station: STATIONS[dice(&plate, 4) as usize % STATIONS.len()].to_owned(),
                    odometer_m: age_days * 180_000,
                    cost_fen: if outcome == Outcome::Failed {
                        39_000
                    } else {
                        39_000 + i64::from(dice(&plate, 5) % 3) * 5_000
                    },
                    stamp: None,
                    remark: if outcome == Outcome::Failed {
                        "制动不合格，已送修复检".to_owned()
                    } else {
                        String::new()
                    },
                }
                .check(today, state.registered())?;
                let next = inspection.due_after(class, state.registered(), state.due_date);
                store::record(
                    &mut tx,
                    &actor,
                    &state,
                    &inspection,
                    class,
                    next,
                    &serde_json::json!([]),
                )
                .await?;
                report.records += 1;
                if outcome == Outcome::Failed {
                    report.failed += 1;
                }
                state = store::get(&mut tx, &actor, vehicle, true).await?;
            }
        }
    }
    tx.commit().await?;
    tracing::info!(
        records = report.records,
        failed = report.failed,
        lapsed = report.lapsed,
        "Demo annual inspections loaded."
    );
    Ok(report)
}

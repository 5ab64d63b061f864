//! Due items to warnings (risk's warnRecord): once a day, every open
//! maintenance reminder that is due soon, due or overdue, every annual
//! inspection due within [`DUE_SOON_DAYS`](crate::inspections::domain::DUE_SOON_DAYS)
//! or overdue, and every insurance policy ending within
//! [`EXPIRING_DAYS`](crate::insurance::domain::EXPIRING_DAYS) (or ended as
//! long ago) with no later policy of its kind for the vehicle, asks risk
//! for a warning through the outbox (`vehicle.v1.WarningRequested`).
//!
//! The period of a warning is the item's due date (a reminder due by the
//! odometer only: its due reading), so a renewed or completed item that
//! falls due again is a new warning. `warning_request` remembers what was
//! asked: each (kind, subject, period) is asked once, and risk raises it
//! once too. Every replica runs the job; an advisory lock keeps two rounds
//! from interleaving.

use std::time::Duration as StdDuration;

use chrono::{DateTime, Duration, FixedOffset, NaiveDate, Utc};
use fleetdesk_kit::{ServiceError, Shutdown, db, events, subjects};
use fleetdesk_proto::vehicle::v1 as pb;
use sqlx_postgres::{PgConnection, PgPool};
use uuid::Uuid;

use crate::inspections::domain::DUE_SOON_DAYS;
use crate::insurance::domain::{EXPIRING_DAYS, Kind};

/// The domain of the requests' subject.
const DOMAIN: &str = "vehicle";
const EVERY: StdDuration = StdDuration::from_secs(24 * 3600);
/// The job's transaction-scoped advisory lock.
pub const JOB_LOCK: i64 = 0x6475_6577_6172_6e73; // "duewarns"
/// An item this close to its due day (or past it) is a high-level warning.
const URGENT_DAYS: i64 = 7;

/// One item falling due, as the warning names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DueItem {
    pub enterprise_id: Uuid,
    pub org_id: Uuid,
    pub vehicle_id: Uuid,
    pub subject_id: Uuid,
    pub kind: pb::WarningType,
    pub level: pb::RiskLevel,
    pub period: String,
    pub title: String,
    pub content: String,
}

fn beijing() -> FixedOffset {
    FixedOffset::east_opt(8 * 3600).expect("UTC+8 is a valid offset")
}

fn today(now: DateTime<Utc>) -> NaiveDate {
    now.with_timezone(&beijing()).date_naive()
}

fn level(days_left: i64) -> pb::RiskLevel {
    if days_left <= URGENT_DAYS {
        pb::RiskLevel::High
    } else {
        pb::RiskLevel::Medium
    }
}

#[derive(sqlx::FromRow)]
struct ReminderRow {
    id: Uuid,
    enterprise_id: Uuid,
    org_id: Uuid,
    vehicle_id: Uuid,
    plate_number: String,
    plan_name: String,
    due_state: i16,
    due_date: Option<NaiveDate>,
    due_odometer_m: Option<i64>,
}

/// A reminder's warning; `due_state` as stored (0 overdue, 1 due, 2 due soon).
fn reminder(r: &ReminderRow) -> DueItem {
    let when = match (r.due_date, r.due_odometer_m) {
        (Some(date), Some(m)) => format!("{date} 或里程 {} km", m / 1000),
        (Some(date), None) => date.to_string(),
        (None, Some(m)) => format!("里程 {} km", m / 1000),
        (None, None) => String::new(),
    };
    let (title, state, level) = match r.due_state {
        0 => ("保养已逾期", "已逾期", pb::RiskLevel::High),
        1 => ("保养已到期", "已到期", pb::RiskLevel::High),
        _ => ("保养即将到期", "即将到期", pb::RiskLevel::Medium),
    };
    DueItem {
        enterprise_id: r.enterprise_id,
        org_id: r.org_id,
        vehicle_id: r.vehicle_id,
        subject_id: r.id,
        kind: pb::WarningType::MaintenanceDue,
        level,
        period: match (r.due_date, r.due_odometer_m) {
            (Some(date), _) => date.to_string(),
            (None, Some(m)) => format!("{m}m"),
            (None, None) => String::new(),
        },
        title: title.to_owned(),
        content: format!(
            "车辆{}的「{}」{state}（到期：{when}），请安排保养",
            r.plate_number, r.plan_name
        ),
    }
}

#[derive(sqlx::FromRow)]
struct InspectionRow {
    id: Uuid,
    enterprise_id: Uuid,
    org_id: Uuid,
    vehicle_id: Uuid,
    plate_number: String,
    due_date: NaiveDate,
}

fn inspection(r: &InspectionRow, today: NaiveDate) -> DueItem {
    let left = (r.due_date - today).num_days();
    let (title, content) = if left < 0 {
        (
            "年检已逾期",
            format!(
                "车辆{}的年检已于 {} 到期，逾期未检的车辆不得上路，请尽快检验",
                r.plate_number, r.due_date
            ),
        )
    } else {
        (
            "年检即将到期",
            format!(
                "车辆{}的年检将于 {} 到期（剩余 {left} 天），请及时预约检验",
                r.plate_number, r.due_date
            ),
        )
    };
    DueItem {
        enterprise_id: r.enterprise_id,
        org_id: r.org_id,
        vehicle_id: r.vehicle_id,
        subject_id: r.id,
        kind: pb::WarningType::InspectionDue,
        level: level(left),
        period: r.due_date.to_string(),
        title: title.to_owned(),
        content,
    }
}

#[derive(sqlx::FromRow)]
struct PolicyRow {
    id: Uuid,
    enterprise_id: Uuid,
    org_id: Uuid,
    vehicle_id: Uuid,
    plate_number: String,
    kind: i16,
    insurer: String,
    policy_no: String,
    end_time: DateTime<Utc>,
}

fn policy(r: &PolicyRow, today: NaiveDate) -> DueItem {
    let last_day = (r.end_time - Duration::seconds(1))
        .with_timezone(&beijing())
        .date_naive();
    let left = (last_day - today).num_days();
    let kind = Kind::try_from(r.kind).map_or("保险", Kind::label);
    let (title, content) = if left < 0 {
        (
            "保险已过期",
            format!(
                "车辆{}的{kind}（{} {}）已于 {last_day} 到期且未续保，请尽快续保",
                r.plate_number, r.insurer, r.policy_no
            ),
        )
    } else {
        (
            "保险即将到期",
            format!(
                "车辆{}的{kind}（{} {}）将于 {last_day} 到期（剩余 {left} 天），请及时续保",
                r.plate_number, r.insurer, r.policy_no
            ),
        )
    };
    DueItem {
        enterprise_id: r.enterprise_id,
        org_id: r.org_id,
        vehicle_id: r.vehicle_id,
        subject_id: r.id,
        kind: pb::WarningType::InsuranceExpiring,
        level: level(left),
        period: last_day.to_string(),
        title: title.to_owned(),
        content,
    }
}

/// Every item falling due at `now`, across the enterprises.
pub async fn due_items(
    conn: &mut PgConnection,
    now: DateTime<Utc>,
) -> Result<Vec<DueItem>, ServiceError> {
    let day = today(now);
    let reminders: Vec<ReminderRow> = sqlx::query_as(
        "select r.id, r.enterprise_id, r.org_id, r.vehicle_id, v.plate_number, \
           p.name as plan_name, r.due_state, r.due_date, r.due_odometer_m \
         from maintenance_reminder r \
         join vehicle v on v.id = r.vehicle_id \
         join maintenance_plan p on p.id = r.plan_id \
         where r.completed_at is null and r.due_state in (0, 1, 2)",
    )
    .fetch_all(&mut *conn)
    .await?;
    // A vehicle's inspection row opens when first needed: here, for those
    // no page has opened yet.
    let unopened: Vec<Uuid> = sqlx::query_scalar(
        "select distinct v.enterprise_id from vehicle v where not exists \
           (select 1 from annual_inspection a where a.vehicle_id = v.id)",
    )
    .fetch_all(&mut *conn)
    .await?;
    for enterprise in unopened {
        crate::inspections::store::open(conn, enterprise, None, day).await?;
    }
    let inspections: Vec<InspectionRow> = sqlx::query_as(
        "select i.id, i.enterprise_id, i.org_id, i.vehicle_id, v.plate_number, i.due_date \
         from annual_inspection i join vehicle v on v.id = i.vehicle_id \
         where i.due_date <= $1",
    )
    .bind(day + Duration::days(DUE_SOON_DAYS))
    .fetch_all(&mut *conn)
    .await?;
    // A policy followed by a later one of its kind was renewed.
    let policies: Vec<PolicyRow> = sqlx::query_as(
        "select p.id, p.enterprise_id, p.org_id, p.vehicle_id, p.plate_number, p.kind, \
           p.insurer, p.policy_no, p.end_time \
         from insurance_policy p \
         where p.end_time > $1 and p.end_time <= $2 \
           and not exists (select 1 from insurance_policy n \
             where n.enterprise_id = p.enterprise_id and n.vehicle_id = p.vehicle_id \
               and n.kind = p.kind and n.end_time > p.end_time)",
    )
    .bind(now - Duration::days(EXPIRING_DAYS))
    .bind(now + Duration::days(EXPIRING_DAYS))
    .fetch_all(&mut *conn)
    .await?;
    Ok(reminders
        .iter()
        .map(reminder)
        .chain(inspections.iter().map(|r| inspection(r, day)))
        .chain(policies.iter().map(|r| policy(r, day)))
        .collect())
}

/// One round at `now`: asks risk for each item not asked for before;
/// answers how many were asked now.
pub async fn run_once(pool: &PgPool, now: DateTime<Utc>) -> Result<usize, ServiceError> {
    let mut tx = db::begin_service(pool).await?;
    sqlx::query("select pg_advisory_xact_lock($1)")
        .bind(JOB_LOCK)
        .execute(&mut *tx)
        .await?;
    let mut asked = 0;
    for item in due_items(&mut tx, now).await? {
        let new = sqlx::query(
            "insert into warning_request (enterprise_id, kind, subject_id, period) \
             values ($1, $2, $3, $4) on conflict do nothing",
        )
        .bind(item.enterprise_id)
        .bind(item.kind as i16)
        .bind(item.subject_id)
        .bind(&item.period)
        .execute(&mut *tx)
        .await?
        .rows_affected()
            == 1;
        if !new {
            continue;
        }
        let request = pb::WarningRequested {
            enterprise_id: item.enterprise_id.to_string(),
            org_id: item.org_id.to_string(),
            vehicle_id: item.vehicle_id.to_string(),
            driver_id: String::new(),
            subject_id: item.subject_id.to_string(),
            kind: item.kind as i32,
            level: item.level as i32,
            period: item.period,
            title: item.title,
            content: item.content,
        };
        events::enqueue(&mut tx, &subjects::warning_requested(DOMAIN), &request).await?;
        asked += 1;
    }
    tx.commit().await?;
    if asked > 0 {
        tracing::info!(asked, "Due-item warnings requested.");
    }
    Ok(asked)
}

/// Runs [`run_once`] now and every day until shutdown.
pub async fn run(pool: PgPool, shutdown: Shutdown) {
    loop {
        if let Err(err) = run_once(&pool, Utc::now()).await {
            tracing::warn!(error = %err, "Due-item warnings round failed.");
        }
        tokio::select! {
            () = tokio::time::sleep(EVERY) => {}
            () = shutdown.wait() => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(text: &str) -> NaiveDate {
        NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
    }

    fn row(due: &str) -> InspectionRow {
        InspectionRow {
            id: Uuid::nil(),
            enterprise_id: Uuid::nil(),
            org_id: Uuid::nil(),
            vehicle_id: Uuid::nil(),
            plate_number: "粤B12345".into(),
            due_date: day(due),
        }
    }

    #[test]
    fn an_inspection_is_urgent_in_its_last_week_and_overdue_after_its_day() {
        let today = day("2026-11-29");
        let soon = inspection(&row("2026-12-20"), today);
        assert_eq!(
            (soon.title.as_str(), soon.level),
            ("年检即将到期", pb::RiskLevel::Medium)
        );
        assert_eq!(soon.period, "2026-12-20");
        assert_eq!(
            inspection(&row("2026-12-06"), today).level,
            pb::RiskLevel::High
        );
        let over = inspection(&row("2026-11-28"), today);
        assert_eq!(
            (over.title.as_str(), over.level),
            ("年检已逾期", pb::RiskLevel::High)
        );
    }

    #[test]
    fn a_policy_warns_of_its_last_beijing_day() {
        // Ends at 16:00 UTC: midnight in Beijing, so its last day is the 15th.
        let end = DateTime::parse_from_rfc3339("2026-12-15T16:00:00Z")
            .unwrap()
            .to_utc();
        let item = policy(
            &PolicyRow {
                id: Uuid::nil(),
                enterprise_id: Uuid::nil(),
                org_id: Uuid::nil(),
                vehicle_id: Uuid::nil(),
                plate_number: "粤B12345".into(),
                kind: 1,
                insurer: "人保财险".into(),
                policy_no: "P1".into(),
                end_time: end,
            },
            day("2026-11-29"),
        );
        assert_eq!(item.period, "2026-12-15");
        assert!(
            item.content.contains("交强险") && item.content.contains("剩余 16 天"),
            "{}",
            item.content
        );
    }

    #[test]
    fn a_reminder_due_by_the_odometer_only_is_one_period_per_reading() {
        let item = reminder(&ReminderRow {
            id: Uuid::nil(),
            enterprise_id: Uuid::nil(),
            org_id: Uuid::nil(),
            vehicle_id: Uuid::nil(),
            plate_number: "粤B12345".into(),
            plan_name: "常规保养".into(),
            due_state: 0,
            due_date: None,
            due_odometer_m: Some(20_000_000),
        });
        assert_eq!(item.period, "20000000m");
        assert_eq!(
            (item.title.as_str(), item.level),
            ("保养已逾期", pb::RiskLevel::High)
        );
        assert!(item.content.contains("里程 20000 km"), "{}", item.content);
    }
}

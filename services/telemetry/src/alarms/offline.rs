//! Terminal-offline alarms: a timer, not a fix. [`run_once`] (every
//! [`EVERY`], in each replica, one round at a time under an advisory lock)
//! opens an alarm for each vehicle whose newest fix is older than an
//! enabled offline rule's N hours; ingest ([`on_fixes`]) ends it at the
//! vehicle's next fix.
//!
//! The alarm runs from the moment the vehicle had been silent N hours (its
//! last fix + N hours: the rule's condition became true then, whenever the
//! job noticed) to the first fix after the silence (the reconnecting fix,
//! or a backfilled one that falls in the silence). When that fix shows the
//! silence was shorter than N hours (a backfill), the alarm is removed if
//! untreated and untouched, otherwise ended at its start. Its key is
//! (vehicle, rule, -1, last fix + N hours): a round run twice, or by two
//! replicas, opens one alarm.
//!
//! The job finds the silent vehicles through `alarm_offline_watch`'s index
//! (enterprise, hour of the newest fix), a range per rule, confirmed against
//! `latest_position` by key: an index on latest_position's fix time would
//! end its HOT updates. Ingest moves a vehicle's hour only when it changes,
//! and only for enterprises with an offline rule; each process seeds an
//! enterprise's watch from latest_position once, the first time it sees
//! that enterprise's rule (so vehicles silent since before the rule count).
//! A vehicle silent long past the rule stays in its range (it matches its
//! existing alarm's key and writes nothing).

use std::collections::{BTreeMap, HashSet};
use std::time::Duration as StdDuration;

use chrono::{DateTime, Utc};
use fleetdesk_kit::{ServiceError, Shutdown, db};
use sqlx_postgres::{PgConnection, PgPool};
use uuid::Uuid;

use super::domain::{AlarmKind, Rule, RuleKind};
use super::engine::Sample;

/// How often the job looks.
pub const EVERY: StdDuration = StdDuration::from_secs(5 * 60);
/// Rounds take turns on this transaction-scoped advisory lock.
pub const JOB_LOCK: i64 = 0x616c_726d_6f66_666c; // "alrmoffl"

/// The enterprises whose watch this process has seeded.
#[derive(Debug, Default)]
pub struct Seeded(HashSet<Uuid>);

#[derive(sqlx::FromRow)]
struct OfflineRule {
    id: Uuid,
    enterprise_id: Uuid,
    level: i16,
    params: sqlx::types::Json<RuleKind>,
    org_path: Option<String>,
}

/// One round at `now`; answers how many alarms it opened.
pub async fn run_once(
    pool: &PgPool,
    now: DateTime<Utc>,
    seeded: &mut Seeded,
) -> Result<u64, ServiceError> {
    let mut tx = db::begin_service(pool).await?;
    sqlx::query("select pg_advisory_xact_lock($1)")
        .bind(JOB_LOCK)
        .execute(&mut *tx)
        .await?;
    let rules: Vec<OfflineRule> = sqlx::query_as(
        "select r.id, r.enterprise_id, r.level, r.params, \
           case when r.org_id is null then null else coalesce(o.path, '!') end as org_path \
         from alarm_rule r left join org_unit o on o.id = r.org_id \
         where r.kind = 8 and r.enabled and not r.deleted order by r.enterprise_id, r.id",
    )
    .fetch_all(&mut *tx)
    .await?;
    let mut opened = 0;
    let mut newly_seeded = Vec::new();
    for rule in &rules {
        let RuleKind::Offline { hours } = rule.params.0 else {
            continue;
        };
        if !seeded.0.contains(&rule.enterprise_id) && !newly_seeded.contains(&rule.enterprise_id) {
            sqlx::query(
                "insert into alarm_offline_watch (vehicle_id, enterprise_id, seen_hour) \
                 select vehicle_id, enterprise_id, date_trunc('hour', fix_time) \
                 from latest_position where enterprise_id = $1 \
                 on conflict (vehicle_id) do nothing",
            )
            .bind(rule.enterprise_id)
            .execute(&mut *tx)
            .await?;
            newly_seeded.push(rule.enterprise_id);
        }
        let cutoff = now - chrono::Duration::hours(i64::from(hours));
        let new: Vec<(Uuid, DateTime<Utc>)> = sqlx::query_as(
            "insert into risk_alarm (enterprise_id, vehicle_id, org_id, rule_id, condition, kind, \
               level, started_at, ended_at, last_seen_at, lat, lng, peak_speed_dkmh) \
             select l.enterprise_id, l.vehicle_id, v.org_id, $2, -1, $3, $4, \
               l.fix_time + make_interval(hours => $5), null, \
               l.fix_time + make_interval(hours => $5), l.lat, l.lng, 0 \
             from alarm_offline_watch w \
             join latest_position l on l.vehicle_id = w.vehicle_id \
             join vehicle v on v.id = w.vehicle_id \
             left join org_unit o on o.id = v.org_id \
             where w.enterprise_id = $1 and w.seen_hour <= $6 and l.fix_time <= $6 \
               and ($7::text is null or starts_with(coalesce(o.path, ''), $7)) \
             on conflict (vehicle_id, rule_id, condition, started_at) do nothing \
             returning vehicle_id, started_at",
        )
        .bind(rule.enterprise_id)
        .bind(rule.id)
        .bind(i16::from(AlarmKind::Offline))
        .bind(rule.level)
        .bind(hours)
        .bind(cutoff)
        .bind(rule.org_path.as_deref())
        .fetch_all(&mut *tx)
        .await?;
        opened += new.len() as u64;
        if rule.level == super::notify::NOTIFY_LEVEL {
            let keys: Vec<super::notify::Opened> = new
                .into_iter()
                .map(|(vehicle_id, started_at)| super::notify::Opened {
                    vehicle_id,
                    rule_id: rule.id,
                    condition: -1,
                    started_at,
                })
                .collect();
            super::notify::opened(&mut tx, &keys).await?;
        }
    }
    tx.commit().await?;
    seeded.0.extend(newly_seeded);
    if opened > 0 {
        tracing::info!(opened, "Offline alarms opened.");
    }
    Ok(opened)
}

/// Runs [`run_once`] every [`EVERY`] until shutdown.
pub async fn run(pool: PgPool, shutdown: Shutdown) {
    let mut seeded = Seeded::default();
    loop {
        if let Err(err) = run_once(&pool, Utc::now(), &mut seeded).await {
            tracing::warn!(error = %err, "Offline alarm job failed.");
        }
        tokio::select! {
            () = tokio::time::sleep(EVERY) => {}
            () = shutdown.wait() => return,
        }
    }
}

/// In ingest's transaction (scoped to the enterprise), for the batch's
/// vehicles under an offline rule: moves their watch hour and ends their
/// open offline alarms at the first fix after the silence.
pub async fn on_fixes(
    conn: &mut PgConnection,
    enterprise: Uuid,
    rules: &[Rule],
    vehicles: &[(Uuid, Option<Uuid>, &str)],
    fixes: &BTreeMap<Uuid, Vec<Sample>>,
) -> Result<(), ServiceError> {
    let offline: Vec<(&Rule, i32)> = rules
        .iter()
        .filter_map(|r| match r.kind {
            RuleKind::Offline { hours } => Some((r, hours)),
            _ => None,
        })
        .collect();
    let mut watched: Vec<(Uuid, DateTime<Utc>)> = Vec::new();
    for (vehicle, _, path) in vehicles {
        let newest = fixes.get(vehicle).and_then(|f| f.last());
        if let Some(newest) = newest
            && offline.iter().any(|(r, _)| r.applies_to(path))
        {
            watched.push((*vehicle, newest.time));
        }
    }
    if watched.is_empty() {
        return Ok(());
    }
    let ids: Vec<Uuid> = watched.iter().map(|w| w.0).collect();
    sqlx::query(
        // Most batches move no vehicle into a new hour: those rows are left
        // out before the upsert, which would lock each one it meets.
        "insert into alarm_offline_watch as w (vehicle_id, enterprise_id, seen_hour) \
         select v, $2, date_trunc('hour', t) from unnest($1::uuid[], $3::timestamptz[]) x(v, t) \
         where not exists (select 1 from alarm_offline_watch o \
           where o.vehicle_id = x.v and o.seen_hour >= date_trunc('hour', x.t)) \
         on conflict (vehicle_id) do update set seen_hour = excluded.seen_hour \
         where w.seen_hour < excluded.seen_hour",
    )
    .bind(&ids)
    .bind(enterprise)
    .bind(watched.iter().map(|w| w.1).collect::<Vec<_>>())
    .execute(&mut *conn)
    .await?;
    // The first stored fix after each open alarm's silence began (the
    // batch's fixes are in the history already).
    sqlx::query(
        "with open as ( \
           select a.id, a.started_at, a.status, \
             (select min(p.fix_time) from position p where p.vehicle_id = a.vehicle_id \
                and p.fix_time > a.started_at - make_interval(hours => r.hours)) as back \
           from risk_alarm a join unnest($2::uuid[], $3::int4[]) r(id, hours) on r.id = a.rule_id \
           where a.vehicle_id = any($1) and a.ended_at is null \
         ), gone as ( \
           delete from risk_alarm a using open o \
           where a.id = o.id and o.back < o.started_at and o.status = 1 \
             and not exists (select 1 from risk_alarm_activity x where x.alarm_id = a.id) \
           returning a.id \
         ) \
         update risk_alarm a set ended_at = greatest(o.back, o.started_at), \
           last_seen_at = greatest(o.back, o.started_at) \
         from open o where a.id = o.id and o.back is not null \
           and a.id not in (select id from gone)",
    )
    .bind(&ids)
    .bind(offline.iter().map(|(r, _)| r.id).collect::<Vec<_>>())
    .bind(offline.iter().map(|(_, h)| *h).collect::<Vec<_>>())
    .execute(conn)
    .await?;
    Ok(())
}

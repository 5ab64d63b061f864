//! Demo traffic violations (trafficViolations): a year of what the traffic
//! authority holds for enterprise A's fleet — the very records its
//! stand-in answers (`fleetdesk_traffic_standin::records`), so the fetch
//! job later finds them already stored (one row each) — written through
//! fleetdesk-maintenance's store in one statement (`insert_many`), which
//! finds each one's responsible driver from the seeded usage records and
//! bindings. Older ones are mostly dealt
//! with (handled, many of them paid), recent ones mostly not, picked by the
//! decision number. The day is recorded as fetched, so the first look needs
//! no fetch. Deterministic and idempotent: a second run finds violations
//! and changes nothing.

use chrono::{DateTime, Days, Duration, Utc};
use fleetdesk_assets::oplog::domain::yuan;
use fleetdesk_kit::db;
use fleetdesk_maintenance::odometer::beijing_day;
use fleetdesk_maintenance::violations::domain::{Incoming, Source};
use fleetdesk_maintenance::violations::store;
use fleetdesk_traffic_standin::records;
use sqlx_postgres::PgPool;
use uuid::Uuid;

/// What the run wrote.
#[derive(Debug, Clone, Copy, Default)]
pub struct Report {
    pub violations: usize,
    pub handled: usize,
    pub paid: usize,
}

fn incoming(r: records::Record) -> anyhow::Result<Incoming> {
    let time = DateTime::parse_from_rfc3339(&r.time)?.with_timezone(&Utc);
    Ok(Incoming {
        decision_no: r.decision_no,
        plate: r.plate,
        time,
        address: r.address,
        point: Some((r.lng, r.lat)),
        city_code: r.city_code,
        offence_code: r.act_code,
        description: r.act_text,
        fine_fen: r.fine_fen,
        points: r.points,
        authority: r.authority,
    })
}

/// 0..100 from the decision number's digits.
fn dice(decision_no: &str) -> u32 {
    decision_no.bytes().fold(7u32, |acc, b| {
        acc.wrapping_mul(31).wrapping_add(u32::from(b))
    }) % 100
}

pub async fn run(pool: &PgPool, now: DateTime<Utc>) -> anyhow::Result<Report> {
    let actor = crate::demo_admin();
    let mut tx = db::begin_tenant(pool, actor.enterprise_id).await?;
    let exists: bool = sqlx::query_scalar(
        "select exists(select 1 from traffic_violation where enterprise_id = $1)",
    )
    .bind(actor.enterprise_id)
    .fetch_one(&mut *tx)
    .await?;
    if exists {
        return Ok(Report::default());
    }
    let vehicles: Vec<(String, Uuid, Uuid)> = sqlx::query_as(
        "select plate_number, id, org_id from vehicle where enterprise_id = $1 \
         order by plate_number",
    )
    .bind(actor.enterprise_id)
    .fetch_all(&mut *tx)
    .await?;
    let today = beijing_day(now);
    let from = today - Days::new(365);
    let mut rows = Vec::new();
    for (plate, vehicle, org) in vehicles {
        for record in records::between(&plate, from, today, now) {
            rows.push((vehicle, org, incoming(record)?.check(now)?));
        }
    }
    let mut report = Report {
        violations: usize::try_from(
            store::insert_many(&mut tx, &actor, &rows, Source::Fetched).await?,
        )?,
        ..Report::default()
    };
    // Dealt with by the demo administrator some days after each act: older
    // ones mostly handled and many paid, recent ones mostly not.
    // (ids, handled at, paid at): the update's columns.
    type Handled = (Vec<Uuid>, Vec<DateTime<Utc>>, Vec<Option<DateTime<Utc>>>);
    let mut handled: Handled = (Vec::new(), Vec::new(), Vec::new());
    let mut paid: (Vec<Uuid>, Vec<DateTime<Utc>>, Vec<String>) =
        (Vec::new(), Vec::new(), Vec::new());
    let stored: Vec<(Uuid, String, DateTime<Utc>, i64)> = sqlx::query_as(
        "select id, decision_no, violation_time, fine_fen from traffic_violation \
         where enterprise_id = $1",
    )
    .bind(actor.enterprise_id)
    .fetch_all(&mut *tx)
    .await?;
    for (id, decision_no, at, fine_fen) in stored {
        let roll = dice(&decision_no);
        let (handle, pay) = if now - at < Duration::days(30) {
            (roll < 30, roll < 10)
        } else {
            (roll < 80, roll < 55)
        };
        if !handle {
            continue;
        }
        let handled_at = (at + Duration::days(i64::from(roll % 5) + 1)).min(now);
        let paid_at = pay.then(|| (handled_at + Duration::days(2)).min(now));
        handled.0.push(id);
        handled.1.push(handled_at);
        handled.2.push(paid_at);
        if let Some(paid_at) = paid_at {
            paid.0.push(id);
            paid.1.push(paid_at);
            paid.2
                .push(format!("状态：已处理 → 已缴款（罚款{}）", yuan(fine_fen)));
        }
    }
    report.handled = handled.0.len();
    report.paid = paid.0.len();
    sqlx::query(
        "update traffic_violation t set state = case when h.paid_at is null then 3 else 4 end, \
           handled_by = $2, handled_by_name = $3, handled_at = h.at, \
           paid_by = case when h.paid_at is null then null else $2 end, \
           paid_by_name = case when h.paid_at is null then '' else $3 end, \
           paid_at = h.paid_at, remark = '驾驶员已在交管12123处理' \
         from unnest($1::uuid[], $4::timestamptz[], $5::timestamptz[]) as h(id, at, paid_at) \
         where t.id = h.id",
    )
    .bind(&handled.0)
    .bind(actor.user_id)
    .bind(&actor.name)
    .bind(&handled.1)
    .bind(&handled.2)
    .execute(&mut *tx)
    .await?;
    // Their log rows, as the moves write them, at the moves' times.
    sqlx::query(
        "insert into operation_log (id, enterprise_id, business_type, business_id, remark, \
           operator_id, operator_name, created_at) \
         select gen_random_uuid(), $1, $2, m.id, m.remark, $3, $4, m.at \
         from unnest($5::uuid[], $6::text[], $7::timestamptz[]) as m(id, remark, at)",
    )
    .bind(actor.enterprise_id)
    .bind(store::BUSINESS_TYPE)
    .bind(actor.user_id)
    .bind(&actor.name)
    .bind(handled.0.iter().chain(&paid.0).copied().collect::<Vec<_>>())
    .bind(
        std::iter::repeat_n(
            "状态：未处理 → 已处理；备注：驾驶员已在交管12123处理".to_owned(),
            handled.0.len(),
        )
        .chain(paid.2)
        .collect::<Vec<_>>(),
    )
    .bind(handled.1.iter().chain(&paid.1).copied().collect::<Vec<_>>())
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "insert into traffic_violation_sync (enterprise_id, synced_on, fetched) \
         values ($1, $2, $3) on conflict (enterprise_id) do nothing",
    )
    .bind(actor.enterprise_id)
    .bind(today)
    .bind(i32::try_from(report.violations).unwrap_or(i32::MAX))
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    tracing::info!(
        violations = report.violations,
        handled = report.handled,
        paid = report.paid,
        "Demo traffic violations loaded."
    );
    Ok(report)
}

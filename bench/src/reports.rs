//! (k) The monthly operation log of the 100,000-vehicle enterprise — one
//! month, a page of 20 with the totals row — through the edge, against its
//! Postgres-only ceiling (see [`ceiling`]): the page and the totals in the
//! service's read transaction.
//!
//! The months are written once (12 per vehicle, deterministic figures) and
//! kept; the demo fleet's rows that ingest keeps are left as they are.

use std::time::Instant;

use anyhow::Context as _;
use chrono::{Datelike as _, Months, NaiveDate, Utc};
use sqlx_postgres::PgPool;
use uuid::Uuid;

use crate::ceiling::{self, Ceiling};
use crate::fleet;

/// Months of operation kept per vehicle.
const MONTHS: u32 = 12;
const PAGE: i64 = 20;

/// The statements `operation::store::months` runs for a caller who reaches
/// the whole enterprise, with no filter but the month range. The run checks
/// that they answer what the edge answers (total, the page's vehicles and
/// every sum of the totals row).
const PAGE_SQL: &str = "select d.vehicle_id, v.plate_number, v.vin, v.org_id, o.name as org_name, \
       d.month, d.mileage_m, d.driving_s, d.idle_s, d.operating_days, \
       (select count(*) from risk_alarm a where a.vehicle_id = d.vehicle_id \
         and a.started_at >= (d.month::timestamp at time zone 'Asia/Shanghai') \
         and a.started_at < ((d.month + interval '1 month')::timestamp \
         at time zone 'Asia/Shanghai')) as alarm_count, \
       (case when v.battery_capacity_wh > 0 then \
         d.soc_drop_pct::int8 * v.battery_capacity_wh / 100 end) as energy_consumed_wh, \
       d.energy_charged_wh, d.charge_count \
     from operation_month d join vehicle v on v.id = d.vehicle_id \
     left join org_unit o on o.id = v.org_id \
     where d.enterprise_id = :enterprise and v.enterprise_id = d.enterprise_id and (true) \
       and d.month between :month and :month \
     order by d.month desc, d.vehicle_id limit :size offset :offset";
const TOTALS_SQL: &str = "select count(*) as rows, sum(d.mileage_m)::int8 as mileage_m, \
       sum(d.driving_s)::int8 as driving_s, \
       sum((case when v.battery_capacity_wh > 0 then \
         d.soc_drop_pct::int8 * v.battery_capacity_wh / 100 end))::int8 as energy_consumed_wh, \
       sum(d.energy_charged_wh)::int8 as energy_charged_wh, \
       sum(d.charge_count)::int8 as charge_count \
     from operation_month d join vehicle v on v.id = d.vehicle_id \
     where d.enterprise_id = :enterprise and v.enterprise_id = d.enterprise_id and (true) \
       and d.month between :month and :month";

/// The totals row: count, then the sums of mileage, driving, energy used,
/// energy charged and charges.
type Totals = (
    i64,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    Option<i64>,
);

pub async fn run(args: ceiling::Args) -> anyhow::Result<()> {
    let pool = fleet::owner_pool(&args.database_url, 2).await?;
    let enterprise = fleet::enterprise(&pool).await?;
    let month = ensure_months(&pool, enterprise).await?;
    let month_text = month.format("%Y-%m").to_string();

    // The edge's answer and the bare statements' must agree.
    let url = format!(
        "{}/api/v1/reports/monthly-logs?startMonth={month_text}&endMonth={month_text}&page=1&size={PAGE}",
        args.base_url
    );
    let (first, edge_total, edge_ids) = ceiling::edge_page(&args, &url, "vehicleId").await?;
    let bare_page: Vec<(Uuid,)> = sqlx::query_as(&numbered(PAGE_SQL))
        .bind(enterprise)
        .bind(month)
        .bind(PAGE)
        .bind(0i64)
        .fetch_all(&pool)
        .await?;
    let bare: Totals = sqlx::query_as(&numbered(TOTALS_SQL))
        .bind(enterprise)
        .bind(month)
        .fetch_one(&pool)
        .await?;
    let bare_total = bare.0;
    let bare_sums = [bare.1, bare.2, bare.3, bare.4, bare.5].map(|s| s.unwrap_or(0));
    let totals = &first["data"]["totals"];
    let edge_sums = [
        "mileageM",
        "drivingSeconds",
        "energyConsumedWh",
        "energyChargedWh",
        "chargeCount",
    ]
    .map(|k| totals[k].as_i64().unwrap_or(-1));
    let bare_ids: Vec<String> = bare_page.iter().map(|r| r.0.to_string()).collect();
    anyhow::ensure!(
        edge_sums == bare_sums,
        "the edge's totals {edge_sums:?}, the statements' {bare_sums:?}: the bench's statements \
         no longer match operation::store::months"
    );
    anyhow::ensure!(
        edge_total == bare_total && edge_ids == bare_ids,
        "the edge answered {edge_total} rows ({} on the page), the statements {bare_total} \
         ({}): the bench's statements no longer match operation::store::months ({})",
        edge_ids.len(),
        bare_ids.len(),
        first["msg"]
    );

    let ceiling = Ceiling {
        script: Ceiling::list_transaction(
            &[PAGE_SQL, TOTALS_SQL],
            // What `operation::store` sets for a report page.
            "select set_config('plan_cache_mode', 'force_custom_plan', true), \
             set_config('max_parallel_workers_per_gather', '0', true)",
        ),
        defines: vec![
            ("enterprise", enterprise.to_string()),
            ("month", month.to_string()),
            ("size", PAGE.to_string()),
            ("offset", "0".to_owned()),
        ],
        search_path: "vehicle",
    };
    ceiling::measure(&args, &url, &ceiling).await?.print(
        &args,
        &format!("figure ({bare_total} rows in {month_text})"),
        "(k) monthly log, page of 20 + totals, 100k-vehicle tenant",
        "",
    );
    Ok(())
}

/// `:enterprise`, `:month`, `:size`, `:offset` as `$1` to `$4` for sqlx.
fn numbered(sql: &str) -> String {
    sql.replace(":enterprise", "$1")
        .replace(":month", "$2")
        .replace(":size", "$3")
        .replace(":offset", "$4")
}

/// The last whole Beijing month; writes the enterprise's vehicles' 12
/// months up to it unless every row is there.
async fn ensure_months(pool: &PgPool, enterprise: Uuid) -> anyhow::Result<NaiveDate> {
    let today = (Utc::now() + chrono::Duration::hours(8)).date_naive();
    let this_month = NaiveDate::from_ymd_opt(today.year(), today.month(), 1).context("month")?;
    let last = this_month - Months::new(1);
    let first = last - Months::new(MONTHS - 1);
    let vehicles: i64 = sqlx::query_scalar("select count(*) from vehicle where enterprise_id = $1")
        .bind(enterprise)
        .fetch_one(pool)
        .await?;
    let have: i64 = sqlx::query_scalar(
        "select count(*) from operation_month where enterprise_id = $1 and month between $2 and $3",
    )
    .bind(enterprise)
    .bind(first)
    .bind(last)
    .fetch_one(pool)
    .await?;
    if have < vehicles * i64::from(MONTHS) {
        let started = Instant::now();
        // Figures from a hash of vehicle and month: 1,500-6,000 km, 20-26
        // operating days, about 30 km/h on average when driving.
        sqlx::query(
            "insert into operation_month (vehicle_id, month, enterprise_id, mileage_m, driving_s, \
               idle_s, operating_days, soc_drop_pct, energy_charged_wh, charge_count) \
             select v.id, m::date, v.enterprise_id, 1500000 + h % 4500000, \
               (1500000 + h % 4500000) / 8, (h / 7) % 200000, 20 + (h / 13) % 7, \
               400 + (h / 17) % 800, 1000 * (300 + (h / 19) % 600), 20 + (h / 23) % 30 \
             from vehicle v \
             cross join generate_series($2::date, $3::date, interval '1 month') m \
             cross join lateral (select abs(hashtextextended(v.id::text || m::text, 0)) as h) x \
             where v.enterprise_id = $1 \
             on conflict (vehicle_id, month) do nothing",
        )
        .bind(enterprise)
        .bind(first)
        .bind(last)
        .execute(pool)
        .await?;
        // Vacuumed, not only analysed: the first reads of fresh rows would
        // otherwise pay for setting their hint bits in the timed window.
        sqlx::query("vacuum (analyze) operation_month")
            .execute(pool)
            .await?;
        eprintln!(
            "(k) wrote {MONTHS} months of operation for {vehicles} vehicles in {:.0} s",
            started.elapsed().as_secs_f64()
        );
    }
    Ok(last)
}

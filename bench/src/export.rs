//! (c) at a million rows: one export job of 1,000,000 rows, shaped like the
//! vehicle files' (texts, labels, numbers, dates), run by the kit's export
//! worker in this process, against `COPY (select …) TO STDOUT` of the same
//! rows in the same run; and this process's peak resident memory while it
//! exports (the worker streams: pages in, the workbook written into its
//! zip as they come, the file stored in parts).
//!
//! The rows live in a schema of their own (`bench_export`), kept between
//! runs: the bench database's tenants top out at 100,000 vehicles.

use std::time::{Duration, Instant};

use anyhow::Context as _;
use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::db;
use fleetdesk_kit::export::scope::{ListExport, PageKey, day, moment, text};
use fleetdesk_kit::export::{
    self, Cell, ExportWorker, JobScope, NewExport, Outcome, WorkerOptions,
};
use fleetdesk_kit::files::FileStore;
use futures::StreamExt as _;
use sqlx::migrate::Migrator;
use sqlx_postgres::{PgConnection, PgPool};
use uuid::Uuid;

const SCHEMA: &str = "bench_export";
const KIND: &str = "bench-rows";
/// The one tenant of the table.
const TENANT: Uuid = Uuid::from_u128(0x6265_6e63_685f_6578_706f_7274_0000_0001);

/// The columns the export reads, in its order; COPY reads the same.
const COLUMNS: &str = "id, plate_number, vin, org_name, brand, model, category, energy_type, \
     battery_wh, range_km, status, register_time, driver_name, terminal_no, sim_no, \
     lease_start, lease_end, remark, created_at";

const HEADER: [&str; 19] = [
    "编号",
    "车牌号",
    "车架号(VIN)",
    "所属组织",
    "品牌",
    "车型",
    "车辆类型",
    "能源类型",
    "电池容量(kWh)",
    "续航里程(km)",
    "车辆状态",
    "登记日期",
    "司机",
    "终端号",
    "SIM卡号",
    "租期开始",
    "租期结束",
    "备注",
    "创建时间",
];

const CATEGORIES: [&str; 4] = ["轻型厢式货车", "中型厢式货车", "冷藏车", "微型面包车"];
const ENERGY: [&str; 3] = ["纯电动", "插电混动", "燃料电池"];
const STATUSES: [&str; 3] = ["正常", "维修中", "已停用"];

pub struct Args {
    pub database_url: String,
    pub rows: i64,
    pub rounds: usize,
}

/// Seeds the rows when missing, then per round: COPY, then the export.
pub async fn run(args: Args) -> anyhow::Result<()> {
    let owner = db::connect_owner(&args.database_url, SCHEMA, 2).await?;
    prepare(&owner, args.rows).await?;
    let app = db::connect(&args.database_url, SCHEMA, 4).await?;
    let scratch = std::env::temp_dir().join(format!(
        "fleetdesk-bench-export-{}",
        Uuid::new_v4().simple()
    ));
    let files = FileStore::local(&scratch.join("objects"))?;
    let worker = ExportWorker::new(app.clone(), files.clone(), "bench")
        .kind(KIND, Rows)
        .options(WorkerOptions {
            temp_dir: scratch.clone(),
            ..WorkerOptions::default()
        });

    let (mut copy_total, mut export_total, mut peak_mb) = (Duration::ZERO, Duration::ZERO, 0.0f64);
    let mut file_mb = 0.0;
    for round in 1..=args.rounds.max(1) {
        let copy = copy_out(&owner).await?;
        start(&app).await?;
        reset_peak_rss();
        let started = Instant::now();
        let (_, outcome) = worker
            .run_once()
            .await?
            .context("the export job was not claimed")?;
        let took = started.elapsed();
        let peak = peak_rss_mb()?;
        let Outcome::Succeeded { rows, file_key } = outcome else {
            anyhow::bail!("the export ended {outcome:?}");
        };
        anyhow::ensure!(
            rows == args.rows,
            "the export wrote {rows} rows of {}",
            args.rows
        );
        file_mb = files.get(&file_key).await?.meta.size as f64 / 1e6;
        files.delete(&file_key).await?;
        eprintln!(
            "(c) {} rows, round {round}: COPY {:.2} s, export {:.2} s, peak RSS {peak:.1} MB",
            args.rows,
            copy.as_secs_f64(),
            took.as_secs_f64()
        );
        copy_total += copy;
        export_total += took;
        peak_mb = peak_mb.max(peak);
    }
    std::fs::remove_dir_all(&scratch).ok();
    let rows = args.rows as f64;
    let rate = |d: Duration| rows * args.rounds.max(1) as f64 / d.as_secs_f64();
    println!(
        "{:<58} {:>8.0} rows/s",
        format!("COPY (select …) TO STDOUT, {} rows", args.rows),
        rate(copy_total)
    );
    println!(
        "{:<58} {:>8.0} rows/s  ratio {:.3} (target >= 0.4; file {file_mb:.1} MB)",
        format!("(c) export to xlsx, {} rows (job, object store)", args.rows),
        rate(export_total),
        copy_total.as_secs_f64() / export_total.as_secs_f64()
    );
    println!(
        "{:<58} {:>8.1} MB (target <= 100)",
        format!("(c) exporting process peak RSS, {} rows", args.rows),
        peak_mb
    );
    Ok(())
}

/// The table, its tenant policy and the kit's tables (the export jobs), and
/// `rows` rows when it holds a different number.
async fn prepare(owner: &PgPool, rows: i64) -> anyhow::Result<()> {
    sqlx::raw_sql(
        "create table if not exists export_row (id bigint primary key, enterprise_id uuid not null, \
           plate_number text not null, vin text not null, org_name text not null, brand text not null, \
           model text not null, category smallint not null, energy_type smallint not null, \
           battery_wh bigint not null, range_km integer not null, status smallint not null, \
           register_time timestamptz not null, driver_name text, terminal_no text, sim_no text, \
           lease_start timestamptz, lease_end timestamptz, remark text not null, created_at timestamptz not null); \
         create index if not exists export_row_tenant_idx on export_row (enterprise_id, id);",
    )
    .execute(owner)
    .await?;
    db::migrate(owner, &Migrator::DEFAULT).await?;
    sqlx::query("select enable_tenant_rls('export_row')")
        .execute(owner)
        .await?;
    let held: i64 = sqlx::query_scalar("select count(*) from export_row")
        .fetch_one(owner)
        .await?;
    if held == rows {
        return Ok(());
    }
    let started = Instant::now();
    sqlx::query("truncate export_row").execute(owner).await?;
    // Every fourth vehicle without a driver, every third without a lease.
    sqlx::query(
        "insert into export_row \
         select g, $1, '沪' || chr((65 + g % 26)::int) || lpad((g % 100000)::text, 5, '0'), \
           'LGW' || lpad(g::text, 14, '0'), '华东大区/上海分公司/第' || (g % 40 + 1) || '车队', \
           (array['比亚迪','上汽大通','吉利远程','东风'])[g % 4 + 1], 'T' || (g % 9 + 3) || ' 厢式', \
           (g % 4)::smallint, (g % 3)::smallint, 50000 + g % 40 * 1000, 200 + g % 150, \
           (g % 3)::smallint, timestamptz '2020-01-01 00:00+08' + (g % 2000) * interval '1 day', \
           case when g % 4 = 0 then null else '司机' || g % 5000 end, \
           '0138' || lpad(g::text, 8, '0'), '1440' || lpad(g::text, 9, '0'), \
           case when g % 3 = 0 then null else timestamptz '2024-01-01 00:00+08' + (g % 700) * interval '1 day' end, \
           case when g % 3 = 0 then null else timestamptz '2026-01-01 00:00+08' + (g % 700) * interval '1 day' end, \
           '', timestamptz '2024-01-01 08:00+08' + g * interval '37 seconds' \
         from generate_series(1, $2) g",
    )
    .bind(TENANT)
    .bind(rows)
    .execute(owner)
    .await?;
    sqlx::query("analyze export_row").execute(owner).await?;
    eprintln!(
        "(c) seeded {rows} rows in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The same rows, in the same order, through COPY: the floor.
async fn copy_out(owner: &PgPool) -> anyhow::Result<Duration> {
    let mut conn = owner.acquire().await?;
    let started = Instant::now();
    let mut stream = conn
        .copy_out_raw(&format!(
            "copy (select {COLUMNS} from export_row where enterprise_id = '{TENANT}' order by id) to stdout"
        ))
        .await?;
    let mut bytes = 0usize;
    while let Some(chunk) = stream.next().await {
        bytes += chunk?.len();
    }
    anyhow::ensure!(bytes > 0, "COPY sent nothing");
    Ok(started.elapsed())
}

/// Queues the job as a user of the tenant with the whole tenant in reach.
async fn start(app: &PgPool) -> anyhow::Result<()> {
    let mut tx = db::begin_tenant(app, TENANT).await?;
    export::start(
        &mut tx,
        "bench",
        TENANT,
        Some(Uuid::new_v4()),
        NewExport {
            kind: KIND,
            name: "百万行导出".to_owned(),
            module: "bench".to_owned(),
            filter: Vec::new(),
            filters_json: "{}".to_owned(),
            reach: serde_json::json!({ "all": true }),
        },
    )
    .await
    .map_err(|e| anyhow::anyhow!("queue the export: {e:?}"))?;
    tx.commit().await?;
    Ok(())
}

/// Starts the peak (VmHWM) over from the current resident set.
fn reset_peak_rss() {
    // "5" resets the peak; without the right, the peak is the process's own.
    std::fs::write("/proc/self/clear_refs", "5").ok();
}

fn peak_rss_mb() -> anyhow::Result<f64> {
    let status = std::fs::read_to_string("/proc/self/status")?;
    let kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .context("VmHWM in /proc/self/status")?;
    Ok(kb / 1024.0)
}

/// The table as an export kind: keyset pages by id.
struct Rows;

#[derive(sqlx::FromRow)]
struct Row {
    id: i64,
    plate_number: String,
    vin: String,
    org_name: String,
    brand: String,
    model: String,
    category: i16,
    energy_type: i16,
    battery_wh: i64,
    range_km: i32,
    status: i16,
    register_time: DateTime<Utc>,
    driver_name: Option<String>,
    terminal_no: Option<String>,
    sim_no: Option<String>,
    lease_start: Option<DateTime<Utc>>,
    lease_end: Option<DateTime<Utc>>,
    remark: String,
    created_at: DateTime<Utc>,
}

fn label(labels: &[&'static str], code: i16) -> Cell {
    usize::try_from(code)
        .ok()
        .and_then(|i| labels.get(i))
        .map_or(Cell::Empty, |l| Cell::Label(l))
}

/// The row as the vehicle files' export writes one: the same cell helpers.
fn cells(row: Row) -> Vec<Cell> {
    let optional = |t: Option<String>| t.map_or(Cell::Empty, text);
    vec![
        Cell::from(row.id),
        text(row.plate_number),
        text(row.vin),
        text(row.org_name),
        text(row.brand),
        text(row.model),
        label(&CATEGORIES, row.category),
        label(&ENERGY, row.energy_type),
        Cell::Number(row.battery_wh as f64 / 1000.0),
        Cell::from(row.range_km),
        label(&STATUSES, row.status),
        day(Some(row.register_time)),
        optional(row.driver_name),
        optional(row.terminal_no),
        optional(row.sim_no),
        day(row.lease_start),
        day(row.lease_end),
        text(row.remark),
        moment(Some(row.created_at)),
    ]
}

/// Where a page starts: the last row's id.
struct After(i64);

impl PageKey for After {
    fn encode(&self) -> String {
        self.0.to_string()
    }

    fn decode(text: &str) -> Result<Self, ServiceError> {
        text.parse()
            .map(After)
            .map_err(|_| ServiceError::invalid("after", "导出位置无效"))
    }
}

/// Through [`ListExport`], as the domains' kinds go: the scope is read
/// again for every page.
impl ListExport for Rows {
    type Scope = Uuid;
    type Row = Row;
    type Key = After;

    fn header(&self) -> Vec<String> {
        HEADER.iter().map(|h| (*h).to_owned()).collect()
    }

    async fn scope(&self, _conn: &mut PgConnection, job: &JobScope) -> Result<Uuid, ServiceError> {
        Ok(job.enterprise_id)
    }

    async fn count(&self, conn: &mut PgConnection, tenant: &Uuid) -> Result<i64, ServiceError> {
        Ok(
            sqlx::query_scalar("select count(*) from export_row where enterprise_id = $1")
                .bind(tenant)
                .fetch_one(conn)
                .await?,
        )
    }

    async fn page(
        &self,
        conn: &mut PgConnection,
        tenant: &Uuid,
        after: Option<After>,
        limit: i64,
    ) -> Result<Vec<Row>, ServiceError> {
        Ok(sqlx::query_as(&format!(
            "select {COLUMNS} from export_row where enterprise_id = $1 and id > $2 \
             order by id limit $3"
        ))
        .bind(tenant)
        .bind(after.map_or(0, |a| a.0))
        .bind(limit)
        .fetch_all(conn)
        .await?)
    }

    fn key(row: &Row) -> After {
        After(row.id)
    }

    fn cells(&self, row: Row) -> Vec<Cell> {
        cells(row)
    }
}

//! One million rows through an export job: the file opens with calamine and
//! holds every row; prints the rows/s and the process's peak RSS while
//! exporting. Too slow for the default run:
//!
//! ```sh
//! cargo nextest run -p fleetdesk-kit --test export_scale --run-ignored only --no-capture
//! ```

use crate::export_support;

use std::time::Instant;

use calamine::Reader as _;
use export_support::*;
use fleetdesk_kit::export::{Outcome, WorkerOptions};
use fleetdesk_testkit::TestDb;
use uuid::Uuid;

/// The process's peak resident set so far (VmHWM), in MB.
fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    kb / 1024.0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a million rows: run on demand (see the module docs)"]
async fn a_million_row_export_opens_with_every_row_in_constant_memory() {
    const ROWS: i64 = 1_000_000;
    let db = TestDb::new().await;
    let env = Env::new(&db).await;
    let tenant = Uuid::new_v4();
    env.seed(tenant, ROWS).await;
    sqlx::query("analyze export_thing")
        .execute(&env.owner)
        .await
        .unwrap();
    let worker = env.worker(Things::default()).options(WorkerOptions {
        temp_dir: env.dir.path().to_owned(),
        ..WorkerOptions::default()
    });
    env.start(tenant, "百万").await;
    let before = peak_rss_mb();
    let started = Instant::now();
    let (_, outcome) = worker.run_once().await.unwrap().unwrap();
    let elapsed = started.elapsed();
    let peak = peak_rss_mb();
    let Outcome::Succeeded { rows, file_key } = outcome else {
        panic!("{outcome:?}");
    };
    assert_eq!(rows, ROWS);
    let size = env.files.get(&file_key).await.unwrap().meta.size;
    println!(
        "export: {ROWS} rows in {:.1} s = {:.0} rows/s; file {:.1} MB; peak RSS {peak:.1} MB (before {before:.1} MB)",
        elapsed.as_secs_f64(),
        ROWS as f64 / elapsed.as_secs_f64(),
        size as f64 / 1e6
    );
    assert!(peak <= 100.0, "peak RSS {peak:.1} MB");

    // Read back (this reader holds the whole sheet; measured above, not here).
    let bytes = env.files.get_bytes(&file_key).await.unwrap();
    let mut book =
        calamine::open_workbook_auto_from_rs(std::io::Cursor::new(bytes.to_vec())).unwrap();
    let range = book.worksheet_range_at(0).unwrap().unwrap();
    assert_eq!(book.sheet_names().len(), 1);
    assert_eq!(range.height() as i64, ROWS + 1, "header and every row");
    let last = range.rows().next_back().unwrap();
    assert_eq!(last[0].to_string(), ROWS.to_string());
}

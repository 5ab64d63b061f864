//! Export jobs against real PostgreSQL and a real object store directory:
//! a test table stands in for a domain list.

use crate::export_support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use calamine::Reader as _;
use export_support::*;
use fleetdesk_kit::ErrorCode;
use fleetdesk_kit::Shutdown;
use fleetdesk_kit::export::{self, Outcome, WorkerOptions};
use fleetdesk_proto::common::v1 as pb;
use fleetdesk_testkit::TestDb;
use pb::export_job_event::Change;
use prost::Message as _;

fn decode(payload: &[u8]) -> pb::ExportJobEvent {
    pb::ExportJobEvent::decode(payload).unwrap()
}
use uuid::Uuid;

#[tokio::test]
async fn an_export_streams_every_row_into_sheets_of_the_limit_and_announces_it() {
    let db = TestDb::new().await;
    let env = Env::new(&db).await;
    let tenant = Uuid::new_v4();
    let other = Uuid::new_v4();
    env.seed(tenant, 2_500).await;
    env.seed(other, 10).await;
    let worker = env.worker(Things::default()).options(WorkerOptions {
        page_rows: 300,
        sheet_rows: 1_000,
        progress_every: Duration::ZERO,
        ..WorkerOptions::default()
    });
    let job = env.start(tenant, "一").await;
    assert_eq!(job.status, pb::ExportJobStatus::Queued as i32);
    assert_eq!(job.run, 1);

    let (id, outcome) = worker.run_once().await.unwrap().expect("a job");
    let Outcome::Succeeded { rows, file_key } = outcome else {
        panic!("{outcome:?}");
    };
    assert_eq!(id.to_string(), job.id);
    assert_eq!(rows, 2_500, "only the tenant's rows");
    assert!(
        file_key.starts_with(&format!("{tenant}/export/")),
        "{file_key}"
    );

    // Three sheets: 1,000 + 1,000 + 500 data rows, each under the header.
    let bytes = env.files.get_bytes(&file_key).await.unwrap();
    let mut book =
        calamine::open_workbook_auto_from_rs(std::io::Cursor::new(bytes.to_vec())).unwrap();
    let names = book.sheet_names();
    assert_eq!(names, ["Sheet1", "Sheet2", "Sheet3"]);
    let mut numbers = Vec::new();
    for (i, expected) in [1_000usize, 1_000, 500].into_iter().enumerate() {
        let range = book.worksheet_range_at(i).unwrap().unwrap();
        assert_eq!(range.height(), expected + 1, "sheet {i}");
        let header: Vec<String> = range
            .rows()
            .next()
            .unwrap()
            .iter()
            .map(|c| c.to_string())
            .collect();
        assert_eq!(header, ["编号", "名称", "金额"]);
        for row in range.rows().skip(1) {
            numbers.push(row[0].to_string().parse::<i64>().unwrap());
        }
    }
    assert_eq!(
        numbers,
        (1..=2_500).collect::<Vec<_>>(),
        "every row once, in order"
    );

    let events = env.events().await;
    let verbs: Vec<&str> = events
        .iter()
        .map(|(s, _)| s.rsplit('.').next().unwrap())
        .collect();
    assert_eq!(verbs.first(), Some(&"requested"));
    assert_eq!(verbs.last(), Some(&"finished"));
    assert!(verbs.contains(&"progressed"), "{verbs:?}");
    let first = decode(&events[0].1);
    assert_eq!(first.domain, "test");
    assert_eq!(first.job_id, job.id);
    assert_eq!(first.enterprise_id, tenant.to_string());
    let Some(Change::Requested(requested)) = first.change else {
        panic!("{first:?}");
    };
    assert_eq!(requested.name, "一");
    let Some(Change::Finished(finished)) = decode(&events.last().unwrap().1).change else {
        panic!("not finished");
    };
    assert_eq!(finished.rows, 2_500);
    assert_eq!(finished.file_key, file_key);
    assert_eq!(finished.file_size, bytes.len() as i64);
    let progress: Vec<(i64, i64)> = events
        .iter()
        .filter_map(|(_, p)| match decode(p).change {
            Some(Change::Progressed(p)) => Some((p.rows_done, p.rows_total)),
            _ => None,
        })
        .collect();
    assert!(progress.windows(2).all(|w| w[0].0 < w[1].0), "{progress:?}");
    assert!(
        progress.iter().all(|(_, total)| *total == 2_500),
        "{progress:?}"
    );
    assert_eq!(env.job_status(id).await, (3, 2_500));
    assert!(worker.run_once().await.unwrap().is_none(), "nothing left");
}

#[tokio::test]
async fn an_empty_export_is_a_file_with_its_header() {
    let db = TestDb::new().await;
    let env = Env::new(&db).await;
    let tenant = Uuid::new_v4();
    env.start(tenant, "空").await;
    let (_, outcome) = env
        .worker(Things::default())
        .run_once()
        .await
        .unwrap()
        .unwrap();
    let Outcome::Succeeded { rows, file_key } = outcome else {
        panic!("{outcome:?}");
    };
    assert_eq!(rows, 0);
    let bytes = env.files.get_bytes(&file_key).await.unwrap();
    let mut book =
        calamine::open_workbook_auto_from_rs(std::io::Cursor::new(bytes.to_vec())).unwrap();
    assert_eq!(book.worksheet_range_at(0).unwrap().unwrap().height(), 1);
}

#[tokio::test]
async fn cancel_stops_a_running_job_and_a_queued_one_at_once() {
    let db = TestDb::new().await;
    let env = Env::new(&db).await;
    let tenant = Uuid::new_v4();
    env.seed(tenant, 5_000).await;
    let slow = Things {
        delay: Duration::from_millis(100),
        ..Things::default()
    };
    let worker = env.worker(slow).options(WorkerOptions {
        page_rows: 100,
        ..WorkerOptions::default()
    });
    let job = env.start(tenant, "慢").await;
    let id = Uuid::parse_str(&job.id).unwrap();
    let running = tokio::spawn(async move { worker.run_once().await.unwrap() });
    // Wait until it is well under way.
    for _ in 0..100 {
        if env.job_status(id).await.1 >= 300 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(env.job_status(id).await.0, 2, "running");
    let answer = export::cancel(&env.app, "test", tenant, id).await.unwrap();
    assert_eq!(
        answer.status,
        pb::ExportJobStatus::Running as i32,
        "stops after its page"
    );
    let (_, outcome) = tokio::time::timeout(Duration::from_secs(10), running)
        .await
        .expect("the job stops soon")
        .unwrap()
        .unwrap();
    assert_eq!(outcome, Outcome::Cancelled);
    let (status, done) = env.job_status(id).await;
    assert_eq!(status, 5);
    assert!(done < 5_000, "stopped early at {done}");
    assert!(
        env.stored_files(tenant).is_empty(),
        "no file for a cancelled job"
    );
    let events = env.events().await;
    assert!(events.last().unwrap().0.ends_with(".cancelled"));
    assert!(!events.iter().any(|(s, _)| s.ends_with(".finished")));

    // A queued job is cancelled at once and never runs.
    let queued = env.start(tenant, "排队").await;
    let queued_id = Uuid::parse_str(&queued.id).unwrap();
    let answer = export::cancel(&env.app, "test", tenant, queued_id)
        .await
        .unwrap();
    assert_eq!(answer.status, pb::ExportJobStatus::Cancelled as i32);
    assert!(
        env.worker(Things::default())
            .run_once()
            .await
            .unwrap()
            .is_none()
    );
    // An ended job cannot be cancelled; another tenant's is not found.
    let err = export::cancel(&env.app, "test", tenant, queued_id)
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Conflict);
    let err = export::cancel(&env.app, "test", Uuid::new_v4(), queued_id)
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
}

#[tokio::test]
async fn a_failed_job_is_announced_and_a_retry_runs_it_again_into_a_file() {
    let db = TestDb::new().await;
    let env = Env::new(&db).await;
    let tenant = Uuid::new_v4();
    env.seed(tenant, 700).await;
    let broken = Arc::new(AtomicBool::new(true));
    let worker = env
        .worker(Things {
            broken: Arc::clone(&broken),
            ..Things::default()
        })
        .options(WorkerOptions {
            page_rows: 200,
            ..WorkerOptions::default()
        });
    let job = env.start(tenant, "重试").await;
    let id = Uuid::parse_str(&job.id).unwrap();
    let (_, outcome) = worker.run_once().await.unwrap().unwrap();
    assert_eq!(outcome, Outcome::Failed("测试：数据读取失败".to_owned()));
    assert_eq!(env.job_status(id).await.0, 4);
    let events = env.events().await;
    assert!(events.last().unwrap().0.ends_with(".failed"));
    let last = decode(&events.last().unwrap().1);
    assert_eq!(last.run, 1);
    let Some(Change::Failed(failed)) = last.change else {
        panic!("{last:?}");
    };
    assert_eq!(failed.reason, "测试：数据读取失败");
    // Retrying a running job is refused; another tenant's is not found.
    let err = export::retry(&env.app, &env.files, "test", Uuid::new_v4(), id)
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);

    broken.store(false, Ordering::SeqCst);
    let again = export::retry(&env.app, &env.files, "test", tenant, id)
        .await
        .unwrap();
    assert_eq!(again.status, pb::ExportJobStatus::Queued as i32);
    assert_eq!(again.run, 2);
    let err = export::retry(&env.app, &env.files, "test", tenant, id)
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Conflict, "already queued");
    let (_, outcome) = worker.run_once().await.unwrap().unwrap();
    let Outcome::Succeeded { rows, file_key } = outcome else {
        panic!("{outcome:?}");
    };
    assert_eq!(rows, 700);
    assert!(env.files.exists(&file_key).await.unwrap());
    let events = env.events().await;
    let requested: Vec<i32> = events
        .iter()
        .filter(|(s, _)| s.ends_with(".requested"))
        .map(|(_, p)| decode(p).run)
        .collect();
    assert_eq!(requested, [1, 2]);
    let last = decode(&events.last().unwrap().1);
    assert!(matches!(last.change, Some(Change::Finished(_))), "{last:?}");
    assert_eq!(last.run, 2);
}

#[tokio::test]
async fn a_job_whose_worker_died_is_resumed_and_fails_after_too_many_attempts() {
    let db = TestDb::new().await;
    let env = Env::new(&db).await;
    let tenant = Uuid::new_v4();
    env.seed(tenant, 50).await;
    let worker = env.worker(Things::default());
    // A claim whose worker vanished: running, lease run out.
    let job = env.start(tenant, "中断").await;
    let id = Uuid::parse_str(&job.id).unwrap();
    env.orphan(id, 1).await;
    let (_, outcome) = worker.run_once().await.unwrap().unwrap();
    assert!(
        matches!(outcome, Outcome::Succeeded { rows: 50, .. }),
        "{outcome:?}"
    );

    // A lease still held is left alone.
    let held = env.start(tenant, "持有").await;
    let held_id = Uuid::parse_str(&held.id).unwrap();
    sqlx::query(
        "update export_job set status = 2, lease_until = now() + interval '1 minute' where id = $1",
    )
    .bind(held_id)
    .execute(&env.owner)
    .await
    .unwrap();
    assert!(worker.run_once().await.unwrap().is_none());

    // Died on every attempt: the next claim fails it cleanly.
    let doomed = env.start(tenant, "多次中断").await;
    let doomed_id = Uuid::parse_str(&doomed.id).unwrap();
    env.orphan(doomed_id, WorkerOptions::default().max_attempts)
        .await;
    let (_, outcome) = worker.run_once().await.unwrap().unwrap();
    assert_eq!(outcome, Outcome::Failed(export::INTERRUPTED.to_owned()));
    assert_eq!(env.job_status(doomed_id).await.0, 4);
}

#[tokio::test]
async fn the_worker_picks_up_a_queued_job_on_its_own_and_stops_with_shutdown() {
    let db = TestDb::new().await;
    let env = Env::new(&db).await;
    let tenant = Uuid::new_v4();
    env.seed(tenant, 20).await;
    let shutdown = Shutdown::new();
    let worker = env.worker(Things::default());
    let running = tokio::spawn(worker.run(shutdown.clone()));
    let job = env.start(tenant, "后台").await;
    let id = Uuid::parse_str(&job.id).unwrap();
    let mut status = 0;
    for _ in 0..100 {
        status = env.job_status(id).await.0;
        if status == 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(status, 3);
    shutdown.trigger();
    tokio::time::timeout(Duration::from_secs(10), running)
        .await
        .expect("the worker stops")
        .unwrap();
}

/// Replicas' workers woken at once race for the same queue: each job is
/// claimed, run and stored once (the claim's row lock; without it two
/// workers read the same oldest job and both take it).
#[tokio::test]
async fn workers_racing_for_the_queue_claim_and_run_each_job_once() {
    let db = TestDb::new().await;
    let env = Env::new(&db).await;
    let tenant = Uuid::new_v4();
    env.seed(tenant, 5).await;
    let mut queued = std::collections::BTreeSet::new();
    for n in 0..24 {
        let job = env.start(tenant, &format!("竞争{n}")).await;
        queued.insert(Uuid::parse_str(&job.id).unwrap());
    }
    let mut racers = tokio::task::JoinSet::new();
    for _ in 0..4 {
        let worker = env.worker(Things::default());
        racers.spawn(async move {
            let mut claimed = Vec::new();
            while let Some((id, outcome)) = worker.run_once().await.expect("a claim and its run") {
                assert!(
                    matches!(outcome, Outcome::Succeeded { rows: 5, .. }),
                    "{outcome:?}"
                );
                claimed.push(id);
            }
            claimed
        });
    }
    let mut claimed = Vec::new();
    while let Some(racer) = racers.join_next().await {
        claimed.extend(racer.expect("racer"));
    }
    claimed.sort();
    let mut once = claimed.clone();
    once.dedup();
    assert_eq!(
        claimed.len(),
        once.len(),
        "jobs claimed more than once: {claimed:?}"
    );
    assert_eq!(
        once.into_iter().collect::<std::collections::BTreeSet<_>>(),
        queued
    );
    let attempts: Vec<i32> = sqlx::query_scalar("select attempts from export_job")
        .fetch_all(&env.owner)
        .await
        .unwrap();
    assert!(
        attempts.iter().all(|a| *a == 1),
        "claims per job: {attempts:?}"
    );
    assert_eq!(env.stored_files(tenant).len(), queued.len());
}

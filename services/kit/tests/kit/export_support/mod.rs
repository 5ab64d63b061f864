//! A stand-in domain list for the export tests: `export_thing` rows of
//! several tenants, exported by id.

#![allow(dead_code)]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::db;
use fleetdesk_kit::export::{self, Cell, ExportKind, ExportWorker, JobScope, NewExport, Page};
use fleetdesk_kit::files::FileStore;
use fleetdesk_proto::common::v1 as pb;
use fleetdesk_testkit::TestDb;
use futures::future::BoxFuture;
use sqlx::migrate::Migrator;
use sqlx_postgres::{PgConnection, PgPool};
use uuid::Uuid;

pub const SCHEMA: &str = "kit_export_test";

/// A database with the kit tables and `export_thing`, an owner pool for
/// setup and an app pool (row-level security applies) for the code under test.
pub struct Env {
    pub owner: PgPool,
    pub app: PgPool,
    pub files: FileStore,
    pub dir: tempfile::TempDir,
}

impl Env {
    pub async fn new(db: &TestDb) -> Env {
        let owner = db::connect_owner(&db.url, SCHEMA, 4).await.unwrap();
        sqlx::raw_sql(
            "create table export_thing (id bigint primary key, enterprise_id uuid not null, \
             name text not null, amount bigint not null); \
             create index export_thing_tenant_idx on export_thing (enterprise_id, id);",
        )
        .execute(&owner)
        .await
        .unwrap();
        db::migrate(&owner, &Migrator::DEFAULT).await.unwrap();
        sqlx::query("select enable_tenant_rls('export_thing')")
            .execute(&owner)
            .await
            .unwrap();
        let app = db::connect(&db.url, SCHEMA, 8).await.unwrap();
        let dir = tempfile::tempdir().unwrap();
        let files = FileStore::local(&dir.path().join("objects")).unwrap();
        Env {
            owner,
            app,
            files,
            dir,
        }
    }

    /// `n` rows of `tenant`, numbered after the existing ones.
    pub async fn seed(&self, tenant: Uuid, n: i64) {
        sqlx::query(
            "insert into export_thing (id, enterprise_id, name, amount) \
             select coalesce((select max(id) from export_thing), 0) + g, $1, \
                    '车辆' || g || '号', g * 100 \
             from generate_series(1, $2) g",
        )
        .bind(tenant)
        .bind(n)
        .execute(&self.owner)
        .await
        .unwrap();
    }

    pub fn worker(&self, kind: Things) -> ExportWorker {
        ExportWorker::new(self.app.clone(), self.files.clone(), "test").kind("things", kind)
    }

    pub async fn start(&self, tenant: Uuid, name: &str) -> pb::ExportJob {
        let mut tx = db::begin_tenant(&self.app, tenant).await.unwrap();
        let job = export::start(
            &mut tx,
            "test",
            tenant,
            Some(Uuid::new_v4()),
            NewExport {
                kind: "things",
                name: name.to_owned(),
                module: "things".to_owned(),
                filter: Vec::new(),
                filters_json: "{}".to_owned(),
                reach: serde_json::json!({ "all": true }),
            },
        )
        .await
        .unwrap();
        tx.commit().await.unwrap();
        job
    }

    /// (status, rows_done) of a job.
    pub async fn job_status(&self, id: Uuid) -> (i16, i64) {
        sqlx::query_as("select status, rows_done from export_job where id = $1")
            .bind(id)
            .fetch_one(&self.owner)
            .await
            .unwrap()
    }

    /// Makes a job look claimed `attempts` times by a worker that died.
    pub async fn orphan(&self, id: Uuid, attempts: i32) {
        sqlx::query(
            "update export_job set status = 2, attempts = $2, \
             lease_until = now() - interval '1 second' where id = $1",
        )
        .bind(id)
        .bind(attempts)
        .execute(&self.owner)
        .await
        .unwrap();
    }

    /// Every event in the outbox, oldest first: (subject, payload).
    pub async fn events(&self) -> Vec<(String, Vec<u8>)> {
        sqlx::query_as("select subject, payload from outbox order by created_at, id")
            .fetch_all(&self.owner)
            .await
            .unwrap()
    }

    /// Files stored for `tenant`.
    pub fn stored_files(&self, tenant: Uuid) -> Vec<std::path::PathBuf> {
        let root = self.dir.path().join("objects").join(tenant.to_string());
        let mut found = Vec::new();
        let mut stack = vec![root];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else {
                    found.push(path);
                }
            }
        }
        found
    }
}

/// The `export_thing` list as an export kind; optionally slow (a pause per
/// page) or broken (every page fails).
#[derive(Clone, Default)]
pub struct Things {
    pub delay: Duration,
    pub broken: Arc<AtomicBool>,
}

impl ExportKind for Things {
    fn header(&self) -> Vec<String> {
        vec!["编号".into(), "名称".into(), "金额".into()]
    }

    fn count<'a>(
        &'a self,
        conn: &'a mut PgConnection,
        job: &'a JobScope,
    ) -> BoxFuture<'a, Result<i64, ServiceError>> {
        Box::pin(async move {
            Ok(
                sqlx::query_scalar("select count(*) from export_thing where enterprise_id = $1")
                    .bind(job.enterprise_id)
                    .fetch_one(conn)
                    .await?,
            )
        })
    }

    fn page<'a>(
        &'a self,
        conn: &'a mut PgConnection,
        job: &'a JobScope,
        after: Option<&'a str>,
        limit: i64,
    ) -> BoxFuture<'a, Result<Page, ServiceError>> {
        Box::pin(async move {
            if self.broken.load(Ordering::SeqCst) {
                return Err(ServiceError::invalid("x", "测试：数据读取失败"));
            }
            tokio::time::sleep(self.delay).await;
            let after: i64 = after.map_or(0, |a| a.parse().unwrap());
            // RLS alone would do; the explicit tenant keeps the index in use.
            let rows: Vec<(i64, String, i64)> = sqlx::query_as(
                "select id, name, amount from export_thing where enterprise_id = $1 and id > $2 \
                 order by id limit $3",
            )
            .bind(job.enterprise_id)
            .bind(after)
            .bind(limit)
            .fetch_all(conn)
            .await?;
            let next = rows.last().map(|(id, _, _)| id.to_string());
            Ok(Page {
                rows: rows
                    .into_iter()
                    .map(|(id, name, amount)| {
                        vec![Cell::from(id), Cell::from(name), Cell::from(amount)]
                    })
                    .collect(),
                next,
            })
        })
    }
}

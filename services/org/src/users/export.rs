//! Export of the users list (系统设置 › 用户管理) through kit::export: the
//! request takes the list's filters and the caller's reach, both stored with
//! the job; the worker reads the members in the list's order
//! (`created_at, id`) by keyset pages.

use chrono::{DateTime, Utc};
use fleetdesk_kit::export::{Cell, ExportKind, JobScope, Page};
use fleetdesk_kit::{ServiceError, mask};
use fleetdesk_proto::common::v1 as common;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use crate::codes::Status;
use crate::context::Actor;
use crate::exports::kinds::{self, Named, StoredReach, shanghai};
use crate::scope::domain::Reach;
use crate::sql::like_pattern;

/// The kind's name in `export_job.kind`.
pub const KIND: &str = "users";

/// The users list's filter as the job keeps it (organisations already
/// expanded to their subtrees, as the list does at request time).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct UsersFilter {
    pub name_contains: String,
    pub orgs: Option<Vec<Uuid>>,
    pub role: Option<Uuid>,
    pub status: Option<i16>,
}

/// Queues the export of `filter` under the actor's (resolved) reach.
pub async fn start(
    tx: &mut PgConnection,
    actor: &Actor,
    filter: UsersFilter,
    filters_json: serde_json::Value,
) -> Result<common::ExportJob, ServiceError> {
    let named = Named {
        kind: KIND,
        name: "用户列表",
        module: "userManagement",
    };
    kinds::start(tx, actor, named, &filter, filters_json).await
}

/// The users list as an export kind.
#[derive(Debug, Clone, Copy)]
pub struct UsersExport;

#[derive(Debug, FromRow)]
struct Row {
    id: Uuid,
    user_name: String,
    name: String,
    phone: String,
    org_name: String,
    role_names: Vec<String>,
    status: i16,
    created_at: DateTime<Utc>,
}

/// The list's conditions, binding $1..$9 (see [`bind`]).
fn conditions() -> String {
    format!(
        "m.enterprise_id = $1 and ($2 = '' or m.name like $3 or m.user_name like $3) \
         and ($4::uuid[] is null or m.org_id = any($4)) \
         and ($5::uuid is null or exists(select 1 from member_role x where x.member_id = m.id and x.role_id = $5)) \
         and ($6::smallint is null or m.status = $6) and {}",
        Reach::condition("m.org_id", "m.id", 7)
    )
}

fn bind<'q, O>(
    query: sqlx::query::QueryAs<'q, sqlx_postgres::Postgres, O, sqlx_postgres::PgArguments>,
    job: &JobScope,
    filter: &'q UsersFilter,
    reach: &StoredReach,
) -> sqlx::query::QueryAs<'q, sqlx_postgres::Postgres, O, sqlx_postgres::PgArguments> {
    query
        .bind(job.enterprise_id)
        .bind(&filter.name_contains)
        .bind(like_pattern(&filter.name_contains))
        .bind(&filter.orgs)
        .bind(filter.role)
        .bind(filter.status)
        .bind(reach.all)
        .bind(reach.orgs.clone())
        .bind(reach.own)
}

fn cells(row: Row) -> Vec<Cell> {
    let Row {
        id: _,
        user_name,
        name,
        phone,
        org_name,
        role_names,
        status,
        created_at,
    } = row;
    vec![
        Cell::from(user_name),
        Cell::from(name),
        Cell::from(mask::centre(&phone)),
        Cell::from(org_name),
        Cell::from(role_names.join("、")),
        Cell::from(match Status::of_column(status) {
            Status::Enabled => "启用",
            Status::Disabled => "停用",
        }),
        Cell::from(shanghai(created_at)),
    ]
}

impl ExportKind for UsersExport {
    fn header(&self) -> Vec<String> {
        [
            "用户名",
            "姓名",
            "手机号",
            "所属机构",
            "角色",
            "状态",
            "创建时间",
        ]
        .into_iter()
        .map(str::to_owned)
        .collect()
    }

    fn count<'a>(
        &'a self,
        conn: &'a mut PgConnection,
        job: &'a JobScope,
    ) -> BoxFuture<'a, Result<i64, ServiceError>> {
        Box::pin(async move {
            let (filter, reach): (UsersFilter, StoredReach) = kinds::decode(job)?;
            let sql = format!("select count(*) from member m where {}", conditions());
            let (count,): (i64,) = bind(sqlx::query_as(&sql), job, &filter, &reach)
                .fetch_one(conn)
                .await?;
            Ok(count)
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
            let (filter, reach): (UsersFilter, StoredReach) = kinds::decode(job)?;
            let (after_at, after_id) = kinds::parse_cursor(after)?;
            let sql = format!(
                "select m.id, m.user_name, m.name, m.phone, coalesce((select o.name from org_unit o where o.id = m.org_id), '') as org_name, \
                 coalesce((select array_agg(r.name order by r.name, r.id) from member_role mr \
                   join role r on r.id = mr.role_id where mr.member_id = m.id), '{{}}') as role_names, \
                 m.status, m.created_at \
                 from member m \
                 where {} and ($10::timestamptz is null or (m.created_at, m.id) > ($10, $11)) \
                 order by m.created_at, m.id limit $12",
                conditions()
            );
            let rows: Vec<Row> = bind(sqlx::query_as(&sql), job, &filter, &reach)
                .bind(after_at)
                .bind(after_id)
                .bind(limit)
                .fetch_all(conn)
                .await?;
            let next = rows.last().map(|r| kinds::cursor(r.created_at, r.id));
            Ok(Page {
                rows: rows.into_iter().map(cells).collect(),
                next,
            })
        })
    }
}

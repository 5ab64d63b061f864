//! Export of the users list (系统设置 › 用户管理) through kit::export: the
//! request takes the list's filters and the caller's reach, both stored with
//! the job; the worker reads the members in the list's order
//! (`created_at, id`) by keyset pages.

use chrono::{DateTime, FixedOffset, Utc};
use fleetdesk_kit::export::{self, Cell, ExportKind, JobScope, NewExport, Page};
use fleetdesk_kit::reach::ResolvedReach;
use fleetdesk_kit::{ServiceError, mask};
use fleetdesk_proto::common::v1 as common;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use sqlx::{FromRow, PgConnection};
use uuid::Uuid;

use crate::codes::Status;
use crate::context::Actor;
use crate::exports::DOMAIN;
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

/// The requester's reach as the job keeps it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct StoredReach {
    all: bool,
    orgs: Vec<Uuid>,
    own: Option<Uuid>,
}

/// Queues the export of `filter` under the actor's (resolved) reach.
pub async fn start(
    tx: &mut PgConnection,
    actor: &Actor,
    filter: UsersFilter,
    filters_json: serde_json::Value,
) -> Result<common::ExportJob, ServiceError> {
    let ResolvedReach { all, org_ids, own } = &actor.reach;
    let stored = StoredReach {
        all: *all,
        orgs: org_ids.clone(),
        own: *own,
    };
    export::start(
        tx,
        DOMAIN,
        actor.enterprise_id,
        actor.user_id,
        NewExport {
            kind: KIND,
            name: "用户列表".to_owned(),
            module: "userManagement".to_owned(),
            filter: serde_json::to_vec(&filter).map_err(|e| ServiceError::internal(&e))?,
            filters_json: filters_json.to_string(),
            reach: serde_json::to_value(&stored).map_err(|e| ServiceError::internal(&e))?,
        },
    )
    .await
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

fn decode(job: &JobScope) -> Result<(UsersFilter, StoredReach), ServiceError> {
    let filter: UsersFilter =
        serde_json::from_slice(&job.filter).map_err(|e| ServiceError::internal(&e))?;
    let mut stored: StoredReach =
        serde_json::from_value(job.reach.clone()).map_err(|e| ServiceError::internal(&e))?;
    // Kept sorted and unique, as a reach's organisations are.
    stored.orgs.sort_unstable();
    stored.orgs.dedup();
    Ok((filter, stored))
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
    query: sqlx::query::QueryAs<'q, sqlx::Postgres, O, sqlx::postgres::PgArguments>,
    job: &JobScope,
    filter: &'q UsersFilter,
    reach: &StoredReach,
) -> sqlx::query::QueryAs<'q, sqlx::Postgres, O, sqlx::postgres::PgArguments> {
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

/// `<microseconds since the epoch>,<id>`: the last row's sort key.
fn cursor(row: &Row) -> String {
    format!("{},{}", row.created_at.timestamp_micros(), row.id)
}

fn parse_cursor(after: &str) -> Result<(DateTime<Utc>, Uuid), ServiceError> {
    let bad = || ServiceError::invalid("after", "分页位置无效");
    let (micros, id) = after.split_once(',').ok_or_else(bad)?;
    let at = micros
        .parse::<i64>()
        .ok()
        .and_then(DateTime::from_timestamp_micros)
        .ok_or_else(bad)?;
    Ok((at, Uuid::parse_str(id).map_err(|_| bad())?))
}

fn shanghai(at: DateTime<Utc>) -> String {
    let offset = FixedOffset::east_opt(8 * 3600).expect("a valid offset");
    at.with_timezone(&offset)
        .format("%Y-%m-%d %H:%M:%S")
        .to_string()
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
            let (filter, reach) = decode(job)?;
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
            let (filter, reach) = decode(job)?;
            let (after_at, after_id) = match after {
                Some(after) => {
                    let (at, id) = parse_cursor(after)?;
                    (Some(at), Some(id))
                }
                None => (None, None),
            };
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
            let next = rows.last().map(cursor);
            Ok(Page {
                rows: rows.into_iter().map(cells).collect(),
                next,
            })
        })
    }
}

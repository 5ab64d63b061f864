//! Cameras' reads and the viewing audit's rows: `vehicle_camera` (written
//! by the device edge) joined to vehicles (plate, organisation, reach) and
//! their latest fix; `video_view` written and listed here.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::{Filters, Paging, Sort, TimeRange};
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::ViewKind;
use crate::context::Actor;

// --- Camera vehicles ---

#[derive(Debug, Clone, FromRow)]
pub struct CameraRow {
    pub vehicle_id: Uuid,
    pub plate_number: String,
    pub org_id: Uuid,
    pub org_name: String,
    pub phone: String,
    pub video_channels: i16,
    pub fix_time: Option<DateTime<Utc>>,
}

/// A checked camera-list filter.
#[derive(Debug, Clone, Default)]
pub struct CameraQuery {
    pub plate_search: String,
    /// Expanded to subtrees.
    pub org_ids: Vec<Uuid>,
}

const CAMERAS_FROM: &str = "from vehicle_camera c join vehicle v on v.id = c.vehicle_id \
     left join latest_position l on l.vehicle_id = c.vehicle_id";

fn cameras_select() -> String {
    format!(
        "select v.id as vehicle_id, v.plate_number, v.org_id, \
         coalesce((select o.name from org_unit o where o.id = v.org_id), '') as org_name, \
         c.phone, c.video_channels, l.fix_time {CAMERAS_FROM}"
    )
}

struct ByPlate;

impl Sort for ByPlate {
    fn order_by(&self) -> &'static str {
        "v.plate_number asc, v.id asc"
    }
}

/// The tenant's vehicles in the caller's reach whose terminal reports
/// video: the list, the count and the detail share it.
fn cameras_filtered<'a>(select: &str, actor: &Actor, q: &CameraQuery) -> Filters<'a> {
    let mut f = Filters::new(select, "c.enterprise_id", actor.enterprise_id);
    f.scope().push("v.enterprise_id = c.enterprise_id");
    actor
        .reach
        .push_condition(f.scope(), "v.org_id", "v.created_by");
    f.scope().push("c.video_channels > 0");
    f.any_of("v.org_id", q.org_ids.clone())
        .contains("v.plate_number", &q.plate_search);
    f
}

pub async fn cameras(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &CameraQuery,
    paging: Paging,
) -> Result<(Vec<CameraRow>, i64), ServiceError> {
    let mut qb = cameras_filtered(&cameras_select(), actor, q).page(&ByPlate, paging);
    let rows = qb.build_query_as().fetch_all(&mut *conn).await?;
    let mut qb = cameras_filtered(&format!("select count(*) {CAMERAS_FROM}"), actor, q).finish();
    let total = qb.build_query_scalar().fetch_one(conn).await?;
    Ok((rows, total))
}

/// One vehicle's camera as the caller may see it; `None` when the vehicle
/// (seen by the caller: the handler checked it) reports no video.
pub async fn camera(
    conn: &mut PgConnection,
    actor: &Actor,
    vehicle_id: Uuid,
) -> Result<Option<CameraRow>, ServiceError> {
    let mut f = cameras_filtered(&cameras_select(), actor, &CameraQuery::default());
    f.and().push("c.vehicle_id = ").push_bind(vehicle_id);
    let mut qb = f.finish();
    Ok(qb.build_query_as().fetch_optional(conn).await?)
}

// --- Viewings ---

/// A viewing to record: the vehicle's organisation now keeps it in reach.
#[derive(Debug, Clone)]
pub struct NewView {
    pub id: Uuid,
    pub org_id: Uuid,
    pub vehicle_id: Uuid,
    pub channel: i16,
    pub kind: ViewKind,
}

pub async fn insert_view(
    conn: &mut PgConnection,
    actor: &Actor,
    view: &NewView,
) -> Result<(), ServiceError> {
    sqlx::query(
        "insert into video_view (id, enterprise_id, org_id, vehicle_id, channel, kind, \
         created_by, viewer_name) values ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(view.id)
    .bind(actor.enterprise_id)
    .bind(view.org_id)
    .bind(view.vehicle_id)
    .bind(view.channel)
    .bind(i16::from(view.kind))
    .bind(actor.user_id)
    .bind(&actor.name)
    .execute(conn)
    .await?;
    Ok(())
}

/// Ends a viewing of the tenant once; a user ends only their own (a
/// service any). False when there is no such viewing.
pub async fn end_view(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
) -> Result<bool, ServiceError> {
    let found: Option<Option<DateTime<Utc>>> = sqlx::query_scalar(
        "select ended_at from video_view where id = $1 and enterprise_id = $2 \
         and ($3::uuid is null or created_by = $3) for update",
    )
    .bind(id)
    .bind(actor.enterprise_id)
    .bind(actor.user_id)
    .fetch_optional(&mut *conn)
    .await?;
    match found {
        None => Ok(false),
        Some(Some(_)) => Ok(true),
        Some(None) => {
            sqlx::query(
                "update video_view set ended_at = greatest(now(), started_at) where id = $1",
            )
            .bind(id)
            .execute(conn)
            .await?;
            Ok(true)
        }
    }
}

#[derive(Debug, Clone, FromRow)]
pub struct ViewRow {
    pub id: Uuid,
    pub vehicle_id: Uuid,
    pub plate_number: String,
    pub channel: i16,
    pub kind: i16,
    pub created_by: Option<Uuid>,
    pub viewer_name: String,
    pub started_at: DateTime<Utc>,
    pub ended_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Clone, Default)]
pub struct ViewQuery {
    pub vehicle_id: Option<Uuid>,
    pub plate_search: String,
    pub started: TimeRange,
}

const VIEWS_FROM: &str = "from video_view w join vehicle v on v.id = w.vehicle_id";

struct Newest;

impl Sort for Newest {
    fn order_by(&self) -> &'static str {
        "w.started_at desc, w.id desc"
    }
}

fn views_filtered<'a>(select: &str, actor: &Actor, q: &ViewQuery) -> Filters<'a> {
    let mut f = Filters::new(select, "w.enterprise_id", actor.enterprise_id);
    f.scope().push("v.enterprise_id = w.enterprise_id");
    actor
        .reach
        .push_condition(f.scope(), "w.org_id", "w.created_by");
    f.equals("w.vehicle_id", q.vehicle_id)
        .contains("v.plate_number", &q.plate_search)
        .within("w.started_at", q.started);
    f
}

pub async fn views(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &ViewQuery,
    paging: Paging,
) -> Result<(Vec<ViewRow>, i64), ServiceError> {
    let select = format!(
        "select w.id, w.vehicle_id, v.plate_number, w.channel, w.kind, w.created_by, \
         w.viewer_name, w.started_at, w.ended_at {VIEWS_FROM}"
    );
    let mut qb = views_filtered(&select, actor, q).page(&Newest, paging);
    let rows = qb.build_query_as().fetch_all(&mut *conn).await?;
    let mut qb = views_filtered(&format!("select count(*) {VIEWS_FROM}"), actor, q).finish();
    let total = qb.build_query_scalar().fetch_one(conn).await?;
    Ok((rows, total))
}

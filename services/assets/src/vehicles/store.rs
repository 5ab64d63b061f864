//! The vehicle table: list, count, read, insert, update. Every query names
//! the tenant and applies the caller's reach; row-level security is the
//! second line.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::{Cursor, Filters, Paging, Sort, TimeRange};
use sqlx::{FromRow, QueryBuilder, Row as _};
use sqlx_postgres::PgRow;
use sqlx_postgres::{PgConnection, Postgres};
use uuid::Uuid;

use super::domain::{self, VehicleDraft};
use crate::context::Actor;

/// Columns of a vehicle row as the list and detail read it; the
/// organisation name comes from the org_unit replica, so renames show at
/// once. A subquery, not a join: one key lookup per returned row, where a
/// generic plan of the join scanned every tenant's units on each page.
macro_rules! row_columns {
    () => {
        "v.id, v.org_id, v.created_by, v.updated_by, \
         v.plate_number, v.plate_color, v.vin, v.engine_number, v.brand, v.model, v.category, \
         v.energy_type, v.body_color, v.seat_count, v.rated_load_kg, v.curb_weight_kg, \
         v.battery_capacity_wh, v.rated_range_km, v.ownership_type, v.status, v.register_time, \
         v.licence_owner, v.licence_issue_time, v.inspection_expire_time, v.insurance_expire_time, \
         v.terminal_id, v.terminal_sim, v.terminal_bound_at, v.driver_id, v.driver_name, \
         v.usage_kind, v.usage_status, v.lease_start_time, v.lease_end_time, v.tags, \
         v.licence_images, v.remark, v.created_at, v.updated_at"
    };
}
macro_rules! org_name {
    () => {
        "coalesce((select o.name from org_unit o where o.id = v.org_id), '') as org_name"
    };
}
const SELECT: &str = concat!(
    "select ",
    row_columns!(),
    ", ",
    org_name!(),
    " from vehicle v"
);
/// The columns with the list's total after them (see [`page`]).
const SELECT_COUNTED: &str = concat!("select ", row_columns!(), ", ", org_name!(), ", ");
/// A page of a batch filter (see [`page`]) after its matches `m`: the page's
/// ids taken from `m`, then only those rows read whole; the total is `m`'s size.
const SELECT_BATCH_PAGE: &str = concat!(
    "select ",
    row_columns!(),
    ", ",
    org_name!(),
    ", (select count(*) from m) as total from (select v.id from m v order by "
);

#[derive(Debug, Clone)]
pub struct VehicleRow {
    pub id: Uuid,
    pub org_id: Uuid,
    pub org_name: String,
    pub created_by: Option<Uuid>,
    pub updated_by: Option<Uuid>,
    pub plate_number: String,
    pub plate_color: i16,
    pub vin: String,
    pub engine_number: String,
    pub brand: String,
    pub model: String,
    pub category: i16,
    pub energy_type: i16,
    pub body_color: String,
    pub seat_count: i32,
    pub rated_load_kg: i32,
    pub curb_weight_kg: i32,
    pub battery_capacity_wh: i64,
    pub rated_range_km: i32,
    pub ownership_type: i16,
    pub status: i16,
    pub register_time: Option<DateTime<Utc>>,
    pub licence_owner: String,
    pub licence_issue_time: Option<DateTime<Utc>>,
    pub inspection_expire_time: Option<DateTime<Utc>>,
    pub insurance_expire_time: Option<DateTime<Utc>>,
    pub terminal_id: Option<String>,
    pub terminal_sim: Option<String>,
    pub terminal_bound_at: Option<DateTime<Utc>>,
    pub driver_id: Option<Uuid>,
    pub driver_name: Option<String>,
    pub usage_kind: Option<i16>,
    pub usage_status: Option<i16>,
    pub lease_start_time: Option<DateTime<Utc>>,
    pub lease_end_time: Option<DateTime<Utc>>,
    pub tags: Vec<String>,
    pub licence_images: serde_json::Value,
    pub remark: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// Read by position, in the order every vehicle select writes its columns
/// (`row_columns!`, then `org_name!`): by name, sqlx hashed each of the 40
/// column names of each row, which was most of the list's decoding cost.
/// Types are still checked.
impl<'r> FromRow<'r, PgRow> for VehicleRow {
    fn from_row(row: &'r PgRow) -> sqlx::Result<Self> {
        let mut at = 0usize..;
        let mut next = || at.next().unwrap_or_default();
        Ok(VehicleRow {
            id: row.try_get(next())?,
            org_id: row.try_get(next())?,
            created_by: row.try_get(next())?,
            updated_by: row.try_get(next())?,
            plate_number: row.try_get(next())?,
            plate_color: row.try_get(next())?,
            vin: row.try_get(next())?,
            engine_number: row.try_get(next())?,
            brand: row.try_get(next())?,
            model: row.try_get(next())?,
            category: row.try_get(next())?,
            energy_type: row.try_get(next())?,
            body_color: row.try_get(next())?,
            seat_count: row.try_get(next())?,
            rated_load_kg: row.try_get(next())?,
            curb_weight_kg: row.try_get(next())?,
            battery_capacity_wh: row.try_get(next())?,
            rated_range_km: row.try_get(next())?,
            ownership_type: row.try_get(next())?,
            status: row.try_get(next())?,
            register_time: row.try_get(next())?,
            licence_owner: row.try_get(next())?,
            licence_issue_time: row.try_get(next())?,
            inspection_expire_time: row.try_get(next())?,
            insurance_expire_time: row.try_get(next())?,
            terminal_id: row.try_get(next())?,
            terminal_sim: row.try_get(next())?,
            terminal_bound_at: row.try_get(next())?,
            driver_id: row.try_get(next())?,
            driver_name: row.try_get(next())?,
            usage_kind: row.try_get(next())?,
            usage_status: row.try_get(next())?,
            lease_start_time: row.try_get(next())?,
            lease_end_time: row.try_get(next())?,
            tags: row.try_get(next())?,
            licence_images: row.try_get(next())?,
            remark: row.try_get(next())?,
            created_at: row.try_get(next())?,
            updated_at: row.try_get(next())?,
            org_name: row.try_get(next())?,
        })
    }
}

/// A checked list filter (from `VehicleFilter`).
#[derive(Debug, Clone, Default)]
pub struct VehicleQuery {
    pub plates: Vec<String>,
    pub vins: Vec<String>,
    pub terminal_ids: Vec<String>,
    pub org_ids: Vec<Uuid>,
    pub keyword: String,
    pub brand: String,
    pub model: String,
    pub statuses: Vec<i16>,
    pub usage_kinds: Vec<i16>,
    pub ownership_types: Vec<i16>,
    pub energy_types: Vec<i16>,
    pub has_driver: Option<bool>,
    pub has_terminal: Option<bool>,
    pub register_time: TimeRange,
    pub create_time: TimeRange,
    pub lease_end_time: TimeRange,
}

/// The orders a vehicle list offers; each is served by an index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum VehicleOrder {
    #[default]
    Newest,
    Oldest,
    Plate,
    Registered,
    LeaseEnding,
}

impl Sort for VehicleOrder {
    fn order_by(&self) -> &'static str {
        match self {
            VehicleOrder::Newest => "v.created_at desc, v.id desc",
            VehicleOrder::Oldest => "v.created_at asc, v.id asc",
            VehicleOrder::Plate => "v.plate_number asc, v.id asc",
            VehicleOrder::Registered => "v.register_time desc nulls last, v.id desc",
            VehicleOrder::LeaseEnding => "v.lease_end_time asc nulls last, v.id asc",
        }
    }
}

/// The `where` clause of a list, count or export under the caller's reach.
fn filtered<'a>(select: &str, actor: &Actor, query: &VehicleQuery) -> Filters<'a> {
    let mut f = Filters::new(select, "v.enterprise_id", actor.enterprise_id);
    actor
        .reach
        .push_condition(f.scope(), "v.org_id", "v.created_by");
    // `org_ids` arrive expanded to their subtrees (see `with_subtrees`).
    f.any_of("v.org_id", query.org_ids.clone())
        .any_of("v.plate_number", query.plates.clone())
        .any_of("v.vin", query.vins.clone())
        .any_of("v.terminal_id", query.terminal_ids.clone())
        .contains_any(&["v.plate_number", "v.vin"], &query.keyword)
        .contains("v.brand", &query.brand)
        .contains("v.model", &query.model)
        .any_of("v.status", query.statuses.clone())
        .any_of("v.usage_kind", query.usage_kinds.clone())
        .any_of("v.ownership_type", query.ownership_types.clone())
        .any_of("v.energy_type", query.energy_types.clone())
        .present("v.driver_id", query.has_driver)
        .present("v.terminal_id", query.has_terminal)
        .within("v.register_time", query.register_time)
        .within("v.created_at", query.create_time)
        .within("v.lease_end_time", query.lease_end_time);
    f
}

/// A page row and the list's total (the same on every row).
#[derive(FromRow)]
struct CountedRow {
    #[sqlx(flatten)]
    row: VehicleRow,
    total: i64,
}

/// One page of vehicles and the list's exact total, in one statement: each
/// row carries the total, so a page costs one round trip rather than two.
/// A batch of plates, VINs or terminals (unique keys, at most 250 values)
/// matches at most 250 rows: they are gathered once (see [`batch_matches`]),
/// then counted and paged from there. Otherwise a scalar subquery (run once)
/// counts under the page's own conditions (their text repeated, binding the
/// same values), or, unfiltered, sums the per-organisation counters as
/// [`count`] does. An empty page has no row to
/// carry the total and asks [`count`].
pub async fn page(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &VehicleQuery,
    order: VehicleOrder,
    paging: Paging,
) -> Result<(Vec<VehicleRow>, i64), ServiceError> {
    let batch =
        !query.plates.is_empty() || !query.vins.is_empty() || !query.terminal_ids.is_empty();
    let mut qb = if batch {
        let mut qb = filtered(&batch_matches(order), actor, query).finish();
        qb.push(") ")
            .push(SELECT_BATCH_PAGE)
            .push(order.order_by())
            .push(" limit ")
            .push_bind(paging.size)
            .push(" offset ")
            .push_bind(paging.offset())
            .push(") p join vehicle v on v.id = p.id order by ")
            .push(order.order_by());
        qb
    } else {
        let conditions = filtered("", actor, query);
        let total = if conditions.narrows() {
            format!(
                "(select count(*) from vehicle v{})",
                conditions.where_clause()
            )
        } else {
            counter_total(actor).to_owned()
        };
        let select = format!("{SELECT_COUNTED}{total} as total from vehicle v");
        filtered(&select, actor, query).page(&order, paging)
    };
    let rows: Vec<CountedRow> = qb.build_query_as().fetch_all(&mut *conn).await?;
    let Some(total) = rows.first().map(|r| r.total) else {
        return Ok((Vec::new(), count(conn, actor, query).await?));
    };
    Ok((rows.into_iter().map(|r| r.row).collect(), total))
}

/// The matches of a batch filter as the CTE `m`: each match's id and the
/// order's key, no more. For the newest-first and plate orders the covering
/// unique keys on plate, VIN and terminal hold both, so the up to 250 probes
/// never visit the table; only the page's rows are read whole.
fn batch_matches(order: VehicleOrder) -> String {
    let key = match order {
        VehicleOrder::Newest | VehicleOrder::Oldest => "v.created_at",
        VehicleOrder::Plate => "v.plate_number",
        VehicleOrder::Registered => "v.register_time",
        VehicleOrder::LeaseEnding => "v.lease_end_time",
    };
    format!("with m as materialized (select v.id, {key} from vehicle v")
}

/// [`counted`] as a scalar subquery of a statement [`filtered`] binds: $1
/// is the tenant, then the reach's organisations ($2) and person ($3).
fn counter_total(actor: &Actor) -> &'static str {
    match (actor.reach.all, actor.reach.own) {
        (true, _) => {
            "(select coalesce(sum(c.vehicles), 0)::bigint from vehicle_org_count c \
             where c.enterprise_id = $1)"
        }
        (false, None) => {
            "(select coalesce(sum(c.vehicles), 0)::bigint from vehicle_org_count c \
             where c.enterprise_id = $1 and c.org_id = any($2))"
        }
        (false, Some(_)) => {
            "((select coalesce(sum(c.vehicles), 0)::bigint from vehicle_org_count c \
             where c.enterprise_id = $1 and c.org_id = any($2)) \
             + (select count(*) from vehicle o where o.enterprise_id = $1 \
             and o.created_by = $3 and not (o.org_id = any($2))))"
        }
    }
}

/// One export page under the same filter and reach as the list: newest
/// first after `cursor` (keyset on the list's index, never OFFSET; 1,000 rows
/// 90,000 deep into 100,000 take about 6 ms). The next cursor is the last
/// row's (`created_at`, `id`).
pub async fn export_page(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &VehicleQuery,
    cursor: Option<Cursor>,
    limit: i64,
) -> Result<Vec<VehicleRow>, ServiceError> {
    let mut qb = filtered(SELECT, actor, query).keyset("v.created_at", "v.id", cursor, limit);
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

/// The exact number of vehicles the list matches. Unfiltered, it sums the
/// per-organisation counters instead of counting rows.
pub async fn count(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &VehicleQuery,
) -> Result<i64, ServiceError> {
    let filters = filtered("select count(*) from vehicle v", actor, query);
    if !filters.narrows() {
        return counted(conn, actor).await;
    }
    let mut qb = filters.finish();
    Ok(qb.build_query_scalar().fetch_one(conn).await?)
}

/// The unfiltered total under the caller's reach from the per-organisation
/// counters: the whole enterprise, or the reached organisations plus the
/// caller's own vehicles elsewhere (an index-served count).
async fn counted(conn: &mut PgConnection, actor: &Actor) -> Result<i64, ServiceError> {
    let reach = &actor.reach;
    let mut qb = QueryBuilder::<Postgres>::new(
        "select coalesce((select sum(vehicles) from vehicle_org_count where enterprise_id = ",
    );
    qb.push_bind(actor.enterprise_id);
    if !reach.all {
        qb.push(" and org_id = any(")
            .push_bind(&reach.org_ids)
            .push(")");
    }
    qb.push("), 0)::bigint");
    // The caller's own vehicles outside the reached organisations, in the
    // same statement (one round trip).
    if let (false, Some(own)) = (reach.all, reach.own) {
        qb.push(" + (select count(*) from vehicle where enterprise_id = ")
            .push_bind(actor.enterprise_id)
            .push(" and created_by = ")
            .push_bind(own)
            .push(" and not (org_id = any(")
            .push_bind(&reach.org_ids)
            .push(")))");
    }
    Ok(qb.build_query_scalar().fetch_one(conn).await?)
}

/// Expands a filter's organisations to their subtrees through the replica
/// ("this organisation and those below it"). Organisations the replica does
/// not know match nothing.
pub async fn org_subtrees(
    conn: &mut PgConnection,
    org_ids: Vec<Uuid>,
) -> Result<Vec<Uuid>, ServiceError> {
    if org_ids.is_empty() {
        return Ok(org_ids);
    }
    let expanded = fleetdesk_kit::reach::subtrees(conn, &org_ids).await?;
    // An empty expansion must still filter: keep an id nothing has.
    Ok(if expanded.is_empty() {
        vec![Uuid::nil()]
    } else {
        expanded
    })
}

/// Refuses an organisation that is not the tenant's (per the replica) or
/// not within the caller's reach, naming `orgId`.
pub async fn check_org(
    conn: &mut PgConnection,
    actor: &Actor,
    org_id: Uuid,
) -> Result<(), ServiceError> {
    let known: bool = sqlx::query_scalar(
        "select exists(select 1 from org_unit where id = $1 and enterprise_id = $2)",
    )
    .bind(org_id)
    .bind(actor.enterprise_id)
    .fetch_one(conn)
    .await?;
    if !known {
        return Err(ServiceError::invalid("orgId", "所选组织不存在"));
    }
    if !actor.reach.sees(Some(org_id), None) {
        return Err(ServiceError::invalid("orgId", "所选组织不在您的数据权限内"));
    }
    Ok(())
}

/// One vehicle the caller may see, locked for change when `for_update`.
pub async fn get(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    for_update: bool,
) -> Result<VehicleRow, ServiceError> {
    let mut qb = QueryBuilder::<Postgres>::new(SELECT);
    qb.push(" where v.id = ")
        .push_bind(id)
        .push(" and v.enterprise_id = ")
        .push_bind(actor.enterprise_id);
    if for_update {
        qb.push(" for update of v");
    }
    let row: Option<VehicleRow> = qb.build_query_as().fetch_optional(conn).await?;
    row.filter(|r| actor.reach.sees(Some(r.org_id), r.created_by))
        .ok_or_else(ServiceError::not_found)
}

/// Unique violations of the vehicle table as the user's field errors.
pub fn conflict(err: sqlx::Error) -> ServiceError {
    fleetdesk_kit::on_constraint(err, |name| match name {
        "vehicle_plate_key" | "private_car_plate_key" => Some(domain::plate_taken()),
        "vehicle_vin_key" => Some(domain::vin_taken()),
        "vehicle_terminal_key" | "vehicle_binding_active_terminal_key" => {
            Some(domain::terminal_taken())
        }
        _ => None,
    })
}

/// Stores a new vehicle (its terminal columns too, when one is bound at once).
pub async fn insert(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    draft: &VehicleDraft,
    bound_at: DateTime<Utc>,
) -> Result<(), ServiceError> {
    let (terminal_id, terminal_sim) = draft.terminal.clone().unzip();
    sqlx::query(
        "insert into vehicle (id, enterprise_id, org_id, created_by, updated_by, plate_number, \
         plate_color, vin, engine_number, brand, model, category, energy_type, body_color, \
         seat_count, rated_load_kg, curb_weight_kg, battery_capacity_wh, rated_range_km, \
         ownership_type, status, register_time, licence_owner, licence_issue_time, \
         inspection_expire_time, tags, licence_images, remark, terminal_id, terminal_sim, \
         terminal_bound_at) \
         values ($1, $2, $3, $4, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, \
         $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30)",
    )
    .bind(id)
    .bind(actor.enterprise_id)
    .bind(draft.org_id)
    .bind(actor.user_id)
    .bind(draft.plate.as_str())
    .bind(i16::from(draft.plate_color))
    .bind(draft.vin.as_str())
    .bind(&draft.engine_number)
    .bind(&draft.brand)
    .bind(&draft.model)
    .bind(i16::from(draft.category))
    .bind(i16::from(draft.energy_type))
    .bind(&draft.body_color)
    .bind(draft.seat_count)
    .bind(draft.rated_load_kg)
    .bind(draft.curb_weight_kg)
    .bind(draft.battery_capacity_wh)
    .bind(draft.rated_range_km)
    .bind(i16::from(draft.ownership_type))
    .bind(i16::from(draft.status))
    .bind(draft.register_time)
    .bind(&draft.licence_owner)
    .bind(draft.licence_issue_time)
    .bind(draft.inspection_expire_time)
    .bind(&draft.tags)
    .bind(&draft.licence_images)
    .bind(&draft.remark)
    .bind(terminal_id)
    .bind(terminal_sim)
    .bind(draft.terminal.as_ref().map(|_| bound_at))
    .execute(conn)
    .await
    .map_err(conflict)?;
    Ok(())
}

/// Stores many new vehicles (no terminals) in one statement: every column
/// one array, `unnest`ed, so 10,000 rows are one round trip. Returns how
/// many were written.
pub async fn insert_many(
    conn: &mut PgConnection,
    actor: &Actor,
    ids: &[Uuid],
    drafts: &[VehicleDraft],
) -> Result<i64, ServiceError> {
    fn column<T>(drafts: &[VehicleDraft], f: impl Fn(&VehicleDraft) -> T) -> Vec<T> {
        drafts.iter().map(f).collect()
    }
    let written = sqlx::query(
        "insert into vehicle (id, enterprise_id, org_id, created_by, updated_by, plate_number, \
         plate_color, vin, engine_number, brand, model, category, energy_type, body_color, \
         seat_count, rated_load_kg, curb_weight_kg, battery_capacity_wh, rated_range_km, \
         ownership_type, status, register_time, licence_owner, licence_issue_time, \
         inspection_expire_time, tags, remark) \
         select t.id, $1, t.org_id, $2, $2, t.plate, t.plate_color, t.vin, t.engine, t.brand, \
         t.model, t.category, t.energy, t.body_color, t.seats, t.rated_load, t.curb_weight, \
         t.battery, t.range_km, t.ownership, t.status, t.registered, t.licence_owner, \
         t.licence_issued, t.inspection, \
         case when t.tags = '' then '{}'::text[] else string_to_array(t.tags, chr(31)) end, \
         t.remark \
         from unnest($3::uuid[], $4::uuid[], $5::text[], $6::int2[], $7::text[], $8::text[], \
           $9::text[], $10::text[], $11::int2[], $12::int2[], $13::text[], $14::int4[], \
           $15::int4[], $16::int4[], $17::int8[], $18::int4[], $19::int2[], $20::int2[], \
           $21::timestamptz[], $22::text[], $23::timestamptz[], $24::timestamptz[], \
           $25::text[], $26::text[]) \
         as t(id, org_id, plate, plate_color, vin, engine, brand, model, category, energy, \
           body_color, seats, rated_load, curb_weight, battery, range_km, ownership, status, \
           registered, licence_owner, licence_issued, inspection, tags, remark)",
    )
    .bind(actor.enterprise_id)
    .bind(actor.user_id)
    .bind(ids)
    .bind(column(drafts, |d| d.org_id))
    .bind(column(drafts, |d| d.plate.as_str().to_owned()))
    .bind(column(drafts, |d| i16::from(d.plate_color)))
    .bind(column(drafts, |d| d.vin.as_str().to_owned()))
    .bind(column(drafts, |d| d.engine_number.clone()))
    .bind(column(drafts, |d| d.brand.clone()))
    .bind(column(drafts, |d| d.model.clone()))
    .bind(column(drafts, |d| i16::from(d.category)))
    .bind(column(drafts, |d| i16::from(d.energy_type)))
    .bind(column(drafts, |d| d.body_color.clone()))
    .bind(column(drafts, |d| d.seat_count))
    .bind(column(drafts, |d| d.rated_load_kg))
    .bind(column(drafts, |d| d.curb_weight_kg))
    .bind(column(drafts, |d| d.battery_capacity_wh))
    .bind(column(drafts, |d| d.rated_range_km))
    .bind(column(drafts, |d| i16::from(d.ownership_type)))
    .bind(column(drafts, |d| i16::from(d.status)))
    .bind(column(drafts, |d| d.register_time))
    .bind(column(drafts, |d| d.licence_owner.clone()))
    .bind(column(drafts, |d| d.licence_issue_time))
    .bind(column(drafts, |d| d.inspection_expire_time))
    // Tags travel as one text per row, joined by the unit separator (an
    // array of arrays must be rectangular).
    .bind(column(drafts, |d| d.tags.join("\u{1f}")))
    .bind(column(drafts, |d| d.remark.clone()))
    .execute(conn)
    .await
    .map_err(conflict)?;
    Ok(i64::try_from(written.rows_affected()).unwrap_or(i64::MAX))
}

/// Replaces a vehicle's editable fields (not its terminal).
pub async fn update(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    draft: &VehicleDraft,
) -> Result<(), ServiceError> {
    sqlx::query(
        "update vehicle set org_id = $3, updated_by = $4, plate_number = $5, plate_color = $6, \
         vin = $7, engine_number = $8, brand = $9, model = $10, category = $11, \
         energy_type = $12, body_color = $13, seat_count = $14, rated_load_kg = $15, \
         curb_weight_kg = $16, battery_capacity_wh = $17, rated_range_km = $18, \
         ownership_type = $19, status = $20, register_time = $21, licence_owner = $22, \
         licence_issue_time = $23, inspection_expire_time = $24, tags = $25, \
         licence_images = $26, remark = $27 \
         where id = $1 and enterprise_id = $2",
    )
    .bind(id)
    .bind(actor.enterprise_id)
    .bind(draft.org_id)
    .bind(actor.user_id)
    .bind(draft.plate.as_str())
    .bind(i16::from(draft.plate_color))
    .bind(draft.vin.as_str())
    .bind(&draft.engine_number)
    .bind(&draft.brand)
    .bind(&draft.model)
    .bind(i16::from(draft.category))
    .bind(i16::from(draft.energy_type))
    .bind(&draft.body_color)
    .bind(draft.seat_count)
    .bind(draft.rated_load_kg)
    .bind(draft.curb_weight_kg)
    .bind(draft.battery_capacity_wh)
    .bind(draft.rated_range_km)
    .bind(i16::from(draft.ownership_type))
    .bind(i16::from(draft.status))
    .bind(draft.register_time)
    .bind(&draft.licence_owner)
    .bind(draft.licence_issue_time)
    .bind(draft.inspection_expire_time)
    .bind(&draft.tags)
    .bind(&draft.licence_images)
    .bind(&draft.remark)
    .execute(conn)
    .await
    .map_err(conflict)?;
    Ok(())
}

/// Sets or clears the vehicle's current terminal (the binding log is the history).
pub async fn set_terminal(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    terminal: Option<(&str, &str, DateTime<Utc>)>,
) -> Result<(), ServiceError> {
    let (terminal_id, terminal_sim, bound_at) = match terminal {
        Some((t, s, at)) => (Some(t), Some(s), Some(at)),
        None => (None, None, None),
    };
    sqlx::query(
        "update vehicle set terminal_id = $3, terminal_sim = $4, terminal_bound_at = $5, \
         updated_by = $6 where id = $1 and enterprise_id = $2",
    )
    .bind(id)
    .bind(actor.enterprise_id)
    .bind(terminal_id)
    .bind(terminal_sim)
    .bind(bound_at)
    .bind(actor.user_id)
    .execute(conn)
    .await
    .map_err(conflict)?;
    Ok(())
}

/// The (brand, model) pairs of the vehicles the caller reaches, each once,
/// by brand then model; vehicles without a brand are left out.
pub async fn brand_types(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    reach: &fleetdesk_kit::reach::ResolvedReach,
) -> sqlx::Result<Vec<(String, String)>> {
    let mut qb: QueryBuilder<'_, Postgres> = QueryBuilder::new(
        "select distinct v.brand, v.model from vehicle v where v.enterprise_id = ",
    );
    qb.push_bind(enterprise_id);
    qb.push(" and v.brand <> '' and ");
    reach.push_condition(&mut qb, "v.org_id", "v.created_by");
    qb.push(" order by v.brand, v.model");
    qb.build_query_as().fetch_all(conn).await
}

//! (a) The vehicle list of the 100,000-vehicle enterprise — a page of 20
//! with its total, as the demo admin (who reaches the whole enterprise) asks
//! for it — and (b) the same list filtered by a batch of 250 plates, each
//! through the edge against its Postgres-only ceiling (see [`ceiling`]): the
//! page statement in the service's read transaction.

use uuid::Uuid;

use crate::ceiling::{self, Ceiling};
use crate::fleet;

const PAGE: i64 = 20;

/// The columns of a page (`row_columns!` and `org_name!` of the vehicle store).
macro_rules! columns {
    () => {
        "v.id, v.org_id, v.created_by, v.updated_by, \
       v.plate_number, v.plate_color, v.vin, v.engine_number, v.brand, v.model, v.category, \
       v.energy_type, v.body_color, v.seat_count, v.rated_load_kg, v.curb_weight_kg, \
       v.battery_capacity_wh, v.rated_range_km, v.ownership_type, v.status, v.register_time, \
       v.licence_owner, v.licence_issue_time, v.inspection_expire_time, v.insurance_expire_time, \
       v.terminal_id, v.terminal_sim, v.terminal_bound_at, v.driver_id, v.driver_name, \
       v.usage_kind, v.usage_status, v.lease_start_time, v.lease_end_time, v.tags, \
       v.licence_images, v.remark, v.created_at, v.updated_at, \
       coalesce((select o.name from org_unit o where o.id = v.org_id), '') as org_name"
    };
}

/// The statement `vehicles::store::page` runs for a caller who reaches the
/// whole enterprise, with no filter and the default order (newest first):
/// the rows, each organisation's name, and the total from the
/// per-organisation counters. The run checks that it answers what the edge
/// answers (total and the page's vehicles, in order).
const PAGE_SQL: &str = concat!(
    "select ",
    columns!(),
    ", (select coalesce(sum(c.vehicles), 0)::bigint from vehicle_org_count c \
       where c.enterprise_id = :enterprise) as total \
     from vehicle v where v.enterprise_id = :enterprise and (true) \
     order by v.created_at desc, v.id desc limit :size offset :offset"
);

/// Plates in (b)'s batch filter: the most a batch takes.
const BATCH: i64 = 250;

/// The statement `vehicles::store::page` runs for the same caller filtering
/// by a batch of plates: the matches' ids and creation times gathered once,
/// counted, the page's ids taken from them, and only those rows read whole.
const BATCH_SQL: &str = concat!(
    "with m as materialized (select v.id, v.created_at from vehicle v \
       where v.enterprise_id = :enterprise and (true) and v.plate_number = any(:plates)) \
     select ",
    columns!(),
    ", (select count(*) from m) as total \
     from (select v.id from m v order by v.created_at desc, v.id desc \
       limit :size offset :offset) p join vehicle v on v.id = p.id \
     order by v.created_at desc, v.id desc"
);

pub async fn run(args: ceiling::Args) -> anyhow::Result<()> {
    let pool = fleet::owner_pool(&args.database_url, 2).await?;
    let enterprise = fleet::enterprise(&pool).await?;
    let url = format!("{}/api/v1/vehicles?page=1&size={PAGE}", args.base_url);
    let page = Page {
        sql: PAGE_SQL,
        plates: None,
    };
    let total = page.check(&args, &pool, enterprise, &url).await?;
    ceiling::measure(&args, &url, &page.ceiling(enterprise))
        .await?
        .print(
            &args,
            &format!("figure ({total} vehicles)"),
            "(a) vehicle list, page of 20 + total, 100k-vehicle tenant",
            ">=0.85",
        );
    Ok(())
}

/// (b): the list of (a) filtered by 250 of the enterprise's plates, the same
/// ones every run (the first by their md5), as `bench.sh`'s wrk figure of
/// (b) takes them: a random draw made runs harder to compare.
pub async fn run_batch(args: ceiling::Args) -> anyhow::Result<()> {
    let pool = fleet::owner_pool(&args.database_url, 2).await?;
    let enterprise = fleet::enterprise(&pool).await?;
    let plates: Vec<String> = sqlx::query_scalar(
        "select plate_number from vehicle.vehicle where enterprise_id = $1 \
         order by md5(plate_number) limit $2",
    )
    .bind(enterprise)
    .bind(BATCH)
    .fetch_all(&pool)
    .await?;
    let url = reqwest::Url::parse_with_params(
        &format!("{}/api/v1/vehicles?page=1&size={PAGE}", args.base_url),
        plates.iter().map(|p| ("plate", p)),
    )?;
    let page = Page {
        sql: BATCH_SQL,
        plates: Some(plates),
    };
    let total = page.check(&args, &pool, enterprise, url.as_str()).await?;
    ceiling::measure(&args, url.as_str(), &page.ceiling(enterprise))
        .await?
        .print(
            &args,
            &format!("figure ({total} of {BATCH} plates)"),
            "(b) the same with a 250-plate batch filter",
            ">=0.85",
        );
    Ok(())
}

/// A page statement of the vehicle list and the plates it filters by.
struct Page {
    sql: &'static str,
    plates: Option<Vec<String>>,
}

impl Page {
    /// Checks that the edge's first page at `url` and the bare statement's
    /// agree (total and vehicles, in order); gives the total.
    async fn check(
        &self,
        args: &ceiling::Args,
        pool: &sqlx_postgres::PgPool,
        enterprise: Uuid,
        url: &str,
    ) -> anyhow::Result<i64> {
        let (first, edge_total, edge_ids) = ceiling::edge_page(args, url, "id").await?;
        let sql = format!(
            "select id, total from ({}) page",
            self.sql
                .replace(":enterprise", "$1")
                .replace(":size", "$2")
                .replace(":offset", "$3")
                .replace(":plates", "$4")
        );
        let mut bare = sqlx::query_as(&sql).bind(enterprise).bind(PAGE).bind(0i64);
        if let Some(plates) = &self.plates {
            bare = bare.bind(plates);
        }
        let bare: Vec<(Uuid, i64)> = bare.fetch_all(pool).await?;
        let bare_total = bare.first().map_or(0, |r| r.1);
        let bare_ids: Vec<String> = bare.iter().map(|r| r.0.to_string()).collect();
        anyhow::ensure!(
            edge_total == bare_total && edge_ids == bare_ids,
            "the edge answered {edge_total} vehicles ({} on the page), the statement {bare_total} \
             ({}): the bench's statement no longer matches vehicles::store::page ({})",
            edge_ids.len(),
            bare_ids.len(),
            first["msg"]
        );
        Ok(bare_total)
    }

    /// pgbench's side: the statement in the service's read transaction.
    fn ceiling(&self, enterprise: Uuid) -> Ceiling {
        let mut defines = vec![
            ("enterprise", enterprise.to_string()),
            ("size", PAGE.to_string()),
            ("offset", "0".to_owned()),
        ];
        if let Some(plates) = &self.plates {
            // An array literal: plates are letters and digits, never quoted.
            defines.push(("plates", format!("{{{}}}", plates.join(","))));
        }
        Ceiling {
            script: Ceiling::list_transaction(&[self.sql], ""),
            defines,
            search_path: "vehicle",
        }
    }
}

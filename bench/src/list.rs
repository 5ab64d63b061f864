//! (a) The vehicle list of the 100,000-vehicle enterprise — a page of 20
//! with its total, as the demo admin (who reaches the whole enterprise) asks
//! for it — through the edge, against its Postgres-only ceiling (see
//! [`ceiling`]): the page statement in the service's read transaction.

use uuid::Uuid;

use crate::ceiling::{self, Ceiling};
use crate::fleet;

const PAGE: i64 = 20;

/// The statement `vehicles::store::page` runs for a caller who reaches the
/// whole enterprise, with no filter and the default order (newest first):
/// the rows, each organisation's name, and the total from the
/// per-organisation counters. The run checks that it answers what the edge
/// answers (total and the page's vehicles, in order).
const PAGE_SQL: &str = "select v.id, v.org_id, v.created_by, v.updated_by, \
       v.plate_number, v.plate_color, v.vin, v.engine_number, v.brand, v.model, v.category, \
       v.energy_type, v.body_color, v.seat_count, v.rated_load_kg, v.curb_weight_kg, \
       v.battery_capacity_wh, v.rated_range_km, v.ownership_type, v.status, v.register_time, \
       v.licence_owner, v.licence_issue_time, v.inspection_expire_time, v.insurance_expire_time, \
       v.terminal_id, v.terminal_sim, v.terminal_bound_at, v.driver_id, v.driver_name, \
       v.usage_kind, v.usage_status, v.lease_start_time, v.lease_end_time, v.tags, \
       v.licence_images, v.remark, v.created_at, v.updated_at, \
       coalesce((select o.name from org_unit o where o.id = v.org_id), '') as org_name, \
       (select coalesce(sum(c.vehicles), 0)::bigint from vehicle_org_count c \
         where c.enterprise_id = :enterprise) as total \
     from vehicle v where v.enterprise_id = :enterprise and (true) \
     order by v.created_at desc, v.id desc limit :size offset :offset";

pub async fn run(args: ceiling::Args) -> anyhow::Result<()> {
    let pool = fleet::owner_pool(&args.database_url, 2).await?;
    let enterprise = fleet::enterprise(&pool).await?;
    let url = format!("{}/api/v1/vehicles?page=1&size={PAGE}", args.base_url);

    // The edge's answer and the bare statement's must agree.
    let (first, edge_total, edge_ids) = ceiling::edge_page(&args, &url, "id").await?;
    let bare: Vec<(Uuid, i64)> = sqlx::query_as(&format!(
        "select id, total from ({}) page",
        PAGE_SQL
            .replace(":enterprise", "$1")
            .replace(":size", "$2")
            .replace(":offset", "$3")
    ))
    .bind(enterprise)
    .bind(PAGE)
    .bind(0i64)
    .fetch_all(&pool)
    .await?;
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

    let ceiling = Ceiling {
        script: Ceiling::list_transaction(&[PAGE_SQL], ""),
        defines: vec![
            ("enterprise", enterprise.to_string()),
            ("size", PAGE.to_string()),
            ("offset", "0".to_owned()),
        ],
        search_path: "vehicle",
    };
    ceiling::measure(&args, &url, &ceiling).await?.print(
        &args,
        &format!("figure ({bare_total} vehicles)"),
        "(a) vehicle list, page of 20 + total, 100k-vehicle tenant",
        ">=0.85",
    );
    Ok(())
}

//! The organisations of the scale data (`fleetdesk seed --vehicles N`):
//! 199 enterprises beside demo enterprise A, each with a root and three
//! regional organisations, an administrator role and one member, so the
//! vehicle service's rows belong to real tenants and organisations.
//! Idempotent: fixed ids and `on conflict do nothing`.

use fleetdesk_kit::{db, demo_id};
use sqlx_postgres::PgPool;
use uuid::Uuid;

use fleetdesk_org::catalogue;

/// Enterprises of the scale data, the demo enterprise A included.
pub const SCALE_ENTERPRISES: usize = 200;

/// Regions under each scale enterprise's root.
const REGIONS: [&str; 3] = ["华东大区", "华南大区", "华北大区"];

/// One tenant of the scale data as the vehicle seed needs it.
#[derive(Debug, Clone)]
pub struct ScaleTenant {
    pub enterprise_id: Uuid,
    pub name: String,
    /// Root first, then the regions.
    pub org_ids: Vec<Uuid>,
    /// The member its rows are created by.
    pub creator: Uuid,
}

/// Demo enterprise A (from [`super`]) and the scale enterprises.
pub async fn run(pool: &PgPool) -> anyhow::Result<Vec<ScaleTenant>> {
    let a = demo_id("enterprise:a");
    let mut tenants = vec![ScaleTenant {
        enterprise_id: a,
        name: super::DEMO_ENTERPRISE.to_owned(),
        org_ids: [
            "a-root",
            "a-east",
            "a-south",
            "a-shanghai",
            "a-hangzhou",
            "a-guangzhou",
            "a-shenzhen",
        ]
        .iter()
        .map(|k| demo_id(&format!("org:{k}")))
        .collect(),
        creator: demo_id(&format!("member:{a}:demo")),
    }];
    let every_permission: Vec<String> = catalogue::entries().into_iter().map(|e| e.value).collect();
    let mut tx = db::begin_service(pool).await?;
    for k in 1..SCALE_ENTERPRISES {
        let eid = demo_id(&format!("enterprise:scale-{k}"));
        let name = format!("规模测试物流{k:03}有限公司");
        sqlx::query(
            "insert into enterprise (id, name, code, contact_name, contact_phone) \
             values ($1, $2, $3, '测试联系人', '13900000000') on conflict (id) do nothing",
        )
        .bind(eid)
        .bind(&name)
        .bind(format!("SCALE-{k:03}"))
        .execute(&mut *tx)
        .await?;
        let root = demo_id(&format!("org:scale-{k}-root"));
        let mut org_ids = vec![root];
        let mut units = vec![(root, None, format!("S{k:03}"), name.clone(), 1)];
        for (j, region) in REGIONS.iter().enumerate() {
            let id = demo_id(&format!("org:scale-{k}-{j}"));
            org_ids.push(id);
            units.push((
                id,
                Some(root),
                format!("S{k:03}{j:02}"),
                (*region).to_owned(),
                2,
            ));
        }
        for (id, parent, code, unit_name, level) in units {
            sqlx::query(
                "insert into org_unit (id, enterprise_id, parent_id, org_code, name, level) \
                 values ($1, $2, $3, $4, $5, $6) on conflict (id) do nothing",
            )
            .bind(id)
            .bind(eid)
            .bind(parent)
            .bind(code)
            .bind(unit_name)
            .bind(level)
            .execute(&mut *tx)
            .await?;
        }
        let role = demo_id(&format!("role:scale-{k}-admin"));
        sqlx::query(
            "insert into role (id, enterprise_id, name, description, builtin) \
             values ($1, $2, '超级管理员', '拥有全部功能权限', true) on conflict (id) do nothing",
        )
        .bind(role)
        .bind(eid)
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "insert into role_permission (enterprise_id, role_id, permission_value) \
             select $1, $2, unnest($3::text[]) on conflict do nothing",
        )
        .bind(eid)
        .bind(role)
        .bind(&every_permission)
        .execute(&mut *tx)
        .await?;
        let member = demo_id(&format!("member:{eid}:scale-{k}"));
        sqlx::query(
            "insert into member (id, enterprise_id, account_id, name, user_name, phone, org_id) \
             values ($1, $2, $3, '规模测试管理员', $4, $5, $6) on conflict (id) do nothing",
        )
        .bind(member)
        .bind(eid)
        .bind(demo_id(&format!("account:scale-{k}")))
        .bind(format!("scale{k:03}"))
        .bind(format!("170{:08}", k))
        .bind(root)
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "insert into member_role (enterprise_id, member_id, role_id) values ($1, $2, $3) \
             on conflict do nothing",
        )
        .bind(eid)
        .bind(member)
        .bind(role)
        .execute(&mut *tx)
        .await?;
        tenants.push(ScaleTenant {
            enterprise_id: eid,
            name,
            org_ids,
            creator: member,
        });
    }
    tx.commit().await?;
    Ok(tenants)
}

//! Demo data: two enterprises for isolation tests. Idempotent: fixed ids and
//! upserts, so running it again changes nothing.

mod lookups;
pub mod scale;
pub mod shared;

use fleetdesk_kit::db;
use fleetdesk_kit::demo_id;
use sqlx_postgres::{PgConnection, PgPool};
use uuid::Uuid;

use fleetdesk_org::catalogue;
use fleetdesk_org::lists::domain::ListType;

/// Demo enterprise A and its sign-ins.
pub const DEMO_ENTERPRISE: &str = "演示物流有限公司";
/// Demo enterprise B, for tenant-isolation tests.
pub const DEMO_ENTERPRISE_B: &str = "示例冷链科技有限公司";

/// WeCom corp ids of demo enterprises A and B.
pub const DEMO_CORP_A: &str = "wwdemo0000000001";
pub const DEMO_CORP_B: &str = "wwdemo0000000002";

/// WeCom identities of the demo members: (corp id, WeCom user id, username,
/// display name). The same list feeds the local WeCom stand-in's directory.
pub const DEMO_WECOM_USERS: [(&str, &str, &str, &str); 5] = [
    (DEMO_CORP_A, "zhangsan", "demo", "演示管理员"),
    (DEMO_CORP_A, "lisi", "demo_ops", "运营专员"),
    (DEMO_CORP_A, "zhaoliu", "demo_multi", "跨企业专员"),
    (DEMO_CORP_B, "wangwu", "demo2", "冷链管理员"),
    (DEMO_CORP_B, "zhaoliu", "demo_multi", "跨企业专员"),
];

/// Permissions of the demo operations role: vehicles and the home page, no system settings.
const OPERATIONS_PERMISSIONS: [&str; 8] = [
    "oss:pc:vehicle:management",
    "as:sys:car",
    "as:sys:driver",
    "as:fence",
    "as:mancar",
    "as:alarm",
    "as:message:pageInfo",
    "as:approval:pageInfo",
];

struct OrgNode {
    key: &'static str,
    code: &'static str,
    name: &'static str,
    parent: Option<&'static str>,
    level: i32,
}

fn id(kind: &str, key: &str) -> Uuid {
    demo_id(&format!("{kind}:{key}"))
}

async fn enterprise(
    conn: &mut PgConnection,
    key: &str,
    name: &str,
    code: &str,
    corp_id: &str,
) -> sqlx::Result<Uuid> {
    let eid = id("enterprise", key);
    sqlx::query(
        "insert into enterprise (id, name, code, contact_name, contact_phone, wecom_corp_id) \
         values ($1, $2, $3, '王经理', '13900000000', $4) on conflict (id) do nothing",
    )
    .bind(eid)
    .bind(name)
    .bind(code)
    .bind(corp_id)
    .execute(&mut *conn)
    .await?;
    Ok(eid)
}

async fn org_tree(conn: &mut PgConnection, eid: Uuid, nodes: &[OrgNode]) -> sqlx::Result<()> {
    for n in nodes {
        sqlx::query(
            "insert into org_unit (id, enterprise_id, parent_id, org_code, name, level) \
             values ($1, $2, $3, $4, $5, $6) on conflict (id) do nothing",
        )
        .bind(id("org", n.key))
        .bind(eid)
        .bind(n.parent.map(|p| id("org", p)))
        .bind(n.code)
        .bind(n.name)
        .bind(n.level)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

/// A role; `builtin` for the enterprise's administrator role, which the
/// API never lets the enterprise delete, disable or empty.
async fn role(
    conn: &mut PgConnection,
    eid: Uuid,
    key: &str,
    name: &str,
    description: &str,
    permissions: &[String],
    builtin: bool,
) -> sqlx::Result<Uuid> {
    let rid = id("role", key);
    sqlx::query(
        "insert into role (id, enterprise_id, name, description) values ($1, $2, $3, $4) on conflict (id) do nothing",
    )
    .bind(rid)
    .bind(eid)
    .bind(name)
    .bind(description)
    .execute(&mut *conn)
    .await?;
    if builtin {
        // Unless the enterprise has one already (one per enterprise).
        sqlx::query(
            "update role set builtin = true where id = $1 \
             and not exists (select 1 from role o where o.enterprise_id = $2 and o.builtin)",
        )
        .bind(rid)
        .bind(eid)
        .execute(&mut *conn)
        .await?;
    }
    sqlx::query(
        "insert into role_permission (enterprise_id, role_id, permission_value) \
         select $1, $2, unnest($3::text[]) on conflict do nothing",
    )
    .bind(eid)
    .bind(rid)
    .bind(permissions)
    .execute(&mut *conn)
    .await?;
    Ok(rid)
}

async fn member(
    conn: &mut PgConnection,
    eid: Uuid,
    username: &str,
    name: &str,
    phone: &str,
    org_key: &str,
    role_id: Uuid,
) -> sqlx::Result<()> {
    let mid = id("member", &format!("{eid}:{username}"));
    sqlx::query(
        "insert into member (id, enterprise_id, account_id, name, user_name, phone, org_id) \
         values ($1, $2, $3, $4, $5, $6, $7) on conflict (id) do nothing",
    )
    .bind(mid)
    .bind(eid)
    .bind(demo_id(&format!("account:{username}")))
    .bind(name)
    .bind(username)
    .bind(phone)
    .bind(id("org", org_key))
    .execute(&mut *conn)
    .await?;
    sqlx::query("insert into member_role (enterprise_id, member_id, role_id) values ($1, $2, $3) on conflict do nothing")
        .bind(eid)
        .bind(mid)
        .bind(role_id)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

pub async fn run(pool: &PgPool) -> anyhow::Result<()> {
    catalogue::sync(pool).await?;
    // Tenant tables are under row-level security even for their owner.
    let mut tx = db::begin_service(pool).await?;
    let every_permission: Vec<String> = catalogue::entries().into_iter().map(|e| e.value).collect();
    let operations: Vec<String> = OPERATIONS_PERMISSIONS
        .iter()
        .map(|p| (*p).to_owned())
        .collect();

    let a = enterprise(&mut tx, "a", DEMO_ENTERPRISE, "DEMO-LOGISTICS", DEMO_CORP_A).await?;
    org_tree(
        &mut tx,
        a,
        &[
            OrgNode {
                key: "a-root",
                code: "A00",
                name: DEMO_ENTERPRISE,
                parent: None,
                level: 1,
            },
            OrgNode {
                key: "a-east",
                code: "A01",
                name: "华东大区",
                parent: Some("a-root"),
                level: 2,
            },
            OrgNode {
                key: "a-south",
                code: "A02",
                name: "华南大区",
                parent: Some("a-root"),
                level: 2,
            },
            OrgNode {
                key: "a-shanghai",
                code: "A0101",
                name: "上海运营中心",
                parent: Some("a-east"),
                level: 3,
            },
            OrgNode {
                key: "a-hangzhou",
                code: "A0102",
                name: "杭州运营中心",
                parent: Some("a-east"),
                level: 3,
            },
            OrgNode {
                key: "a-guangzhou",
                code: "A0201",
                name: "广州运营中心",
                parent: Some("a-south"),
                level: 3,
            },
            OrgNode {
                key: "a-shenzhen",
                code: "A0202",
                name: "深圳运营中心",
                parent: Some("a-south"),
                level: 3,
            },
        ],
    )
    .await?;
    let admin_a = role(
        &mut tx,
        a,
        "a-admin",
        "超级管理员",
        "拥有全部功能权限",
        &every_permission,
        true,
    )
    .await?;
    let ops_a = role(
        &mut tx,
        a,
        "a-ops",
        "车辆运营",
        "车辆资产与监控，无系统设置",
        &operations,
        false,
    )
    .await?;
    member(
        &mut tx,
        a,
        "demo",
        "演示管理员",
        "13800000001",
        "a-root",
        admin_a,
    )
    .await?;
    member(
        &mut tx,
        a,
        "demo_ops",
        "运营专员",
        "13800000002",
        "a-shanghai",
        ops_a,
    )
    .await?;

    let b = enterprise(
        &mut tx,
        "b",
        DEMO_ENTERPRISE_B,
        "DEMO-COLDCHAIN",
        DEMO_CORP_B,
    )
    .await?;
    org_tree(
        &mut tx,
        b,
        &[
            OrgNode {
                key: "b-root",
                code: "B00",
                name: DEMO_ENTERPRISE_B,
                parent: None,
                level: 1,
            },
            OrgNode {
                key: "b-cold",
                code: "B01",
                name: "冷链事业部",
                parent: Some("b-root"),
                level: 2,
            },
            OrgNode {
                key: "b-beijing",
                code: "B0101",
                name: "北京冷链站",
                parent: Some("b-cold"),
                level: 3,
            },
        ],
    )
    .await?;
    let admin_b = role(
        &mut tx,
        b,
        "b-admin",
        "超级管理员",
        "拥有全部功能权限",
        &every_permission,
        true,
    )
    .await?;
    member(
        &mut tx,
        b,
        "demo2",
        "冷链管理员",
        "13800000003",
        "b-root",
        admin_b,
    )
    .await?;

    // One person in both enterprises: operations in A, administrator in B.
    member(
        &mut tx,
        a,
        "demo_multi",
        "跨企业专员",
        "13800000004",
        "a-hangzhou",
        ops_a,
    )
    .await?;
    member(
        &mut tx,
        b,
        "demo_multi",
        "跨企业专员",
        "13800000004",
        "b-beijing",
        admin_b,
    )
    .await?;
    wecom_user_ids(&mut tx).await?;
    lists(&mut tx, a).await?;
    lookups::run(&mut tx).await?;
    tx.commit().await?;
    shared::run(pool).await?;
    Ok(())
}

/// Puts demo enterprise A on the operator lists its built features need:
/// charging behaviour analysis (`as:charge:behavior`) and the order centre
/// (`as:order:center`) are granted only to enterprises on their lists,
/// whatever their roles say.
async fn lists(conn: &mut PgConnection, a: Uuid) -> sqlx::Result<()> {
    for list in [ListType::BehaviorAnalysis, ListType::OrderCenter] {
        sqlx::query(
            "insert into enterprise_list_entry (list_type, enterprise_id) values ($1, $2) \
             on conflict do nothing",
        )
        .bind(i16::from(list))
        .bind(a)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

/// Gives the demo members their WeCom user ids (only where none is set yet).
async fn wecom_user_ids(conn: &mut PgConnection) -> sqlx::Result<()> {
    for (corp_id, wecom_user_id, username, _) in DEMO_WECOM_USERS {
        sqlx::query(
            "update member m set wecom_user_id = $3, updated_at = now() from enterprise e \
             where e.id = m.enterprise_id and e.wecom_corp_id = $1 and m.user_name = $2 \
             and m.wecom_user_id is null",
        )
        .bind(corp_id)
        .bind(username)
        .bind(wecom_user_id)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

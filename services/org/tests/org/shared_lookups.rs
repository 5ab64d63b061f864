//! The shared lookups of console spec §7 through a real org service (gRPC
//! on port 0, its own PostgreSQL database, a private JetStream server):
//! serve organisations by level and as a tree, the caller's serve areas,
//! companies, virtual organisations and portal apps, each within the
//! caller's data scope and never across tenants.

use crate::support;

use fleetdesk_kit::db;
use fleetdesk_proto::org::v1 as pb;
use support::{Stack, stack};
use uuid::Uuid;

/// One enterprise: 总部 ─┬─ 华南 (广州, 深圳) ── 深圳分部 (深圳; a company)
///                      ├─ 华东 (上海)
///                      └─ 西北 (西安; disabled)
struct Tenant {
    enterprise: Uuid,
    root: Uuid,
    south: Uuid,
    shenzhen: Uuid,
    east: Uuid,
}

async fn exec(s: &Stack, sql: &str, binds: &[&dyn ToBind]) {
    let mut q = sqlx::query(sql);
    for b in binds {
        q = b.bind_to(q);
    }
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    q.execute(&mut *tx).await.unwrap();
    tx.commit().await.unwrap();
}

/// A value a fixture statement binds.
trait ToBind: Sync {
    fn bind_to<'q>(
        &self,
        q: sqlx::query::Query<'q, sqlx_postgres::Postgres, sqlx_postgres::PgArguments>,
    ) -> sqlx::query::Query<'q, sqlx_postgres::Postgres, sqlx_postgres::PgArguments>;
}

macro_rules! to_bind {
    ($($t:ty),*) => {$(
        impl ToBind for $t {
            fn bind_to<'q>(
                &self,
                q: sqlx::query::Query<'q, sqlx_postgres::Postgres, sqlx_postgres::PgArguments>,
            ) -> sqlx::query::Query<'q, sqlx_postgres::Postgres, sqlx_postgres::PgArguments> {
                q.bind(self.clone())
            }
        }
    )*};
}
to_bind!(Uuid, Option<Uuid>, i16, i32, bool, String, Vec<Uuid>);

async fn tenant(s: &Stack, name: &str) -> Tenant {
    let t = Tenant {
        enterprise: Uuid::new_v4(),
        root: Uuid::new_v4(),
        south: Uuid::new_v4(),
        shenzhen: Uuid::new_v4(),
        east: Uuid::new_v4(),
    };
    let west = Uuid::new_v4();
    exec(
        s,
        "insert into enterprise (id, name, code) values ($1, $2, $3)",
        &[&t.enterprise, &name.to_owned(), &t.enterprise.to_string()],
    )
    .await;
    for (id, parent, code, unit, level, status, company) in [
        (t.root, None, "A01", "总部", 1, 1i16, false),
        (t.south, Some(t.root), "A0101", "华南", 2, 1, false),
        (t.shenzhen, Some(t.south), "A010101", "深圳分部", 3, 1, true),
        (t.east, Some(t.root), "A0102", "华东", 2, 1, false),
        (west, Some(t.root), "A0103", "西北", 2, 2, true),
    ] {
        exec(
            s,
            "insert into org_unit (id, enterprise_id, parent_id, org_code, name, level, status, is_company) \
             values ($1, $2, $3, $4, $5, $6, $7, $8)",
            &[
                &id,
                &t.enterprise,
                &parent,
                &code.to_owned(),
                &unit.to_owned(),
                &level,
                &status,
                &company,
            ],
        )
        .await;
    }
    for (org, city) in [
        (t.south, "440100"),
        (t.south, "440300"),
        (t.shenzhen, "440300"),
        (t.east, "310000"),
        (west, "610100"),
    ] {
        exec(
            s,
            "insert into org_unit_area (enterprise_id, org_id, city_code) values ($1, $2, $3)",
            &[&t.enterprise, &org, &city.to_owned()],
        )
        .await;
    }
    t
}

/// A member of `org` whose own data scope is `kind` (1 self, 3 org subtree, 5 enterprise).
async fn member(s: &Stack, t: &Tenant, org: Uuid, kind: i16) -> Uuid {
    let id = Uuid::new_v4();
    exec(
        s,
        "insert into member (id, enterprise_id, account_id, name, user_name, org_id, data_scope_kind) \
         values ($1, $2, $3, '成员', $4, $5, $6)",
        &[
            &id,
            &t.enterprise,
            &Uuid::new_v4(),
            &format!("u{}", &id.to_string()[..8]),
            &Some(org),
            &kind,
        ],
    )
    .await;
    id
}

/// A virtual organisation of `t` grouping `orgs`.
async fn virtual_org(s: &Stack, t: &Tenant, code: &str, name: &str, orgs: &[Uuid]) -> Uuid {
    let id = Uuid::new_v4();
    exec(
        s,
        "insert into virtual_org (id, enterprise_id, code, name) values ($1, $2, $3, $4)",
        &[&id, &t.enterprise, &code.to_owned(), &name.to_owned()],
    )
    .await;
    for (i, org) in orgs.iter().enumerate() {
        exec(
            s,
            "insert into virtual_org_unit (enterprise_id, virtual_org_id, org_id, sort) values ($1, $2, $3, $4)",
            &[&t.enterprise, &id, org, &i32::try_from(i).unwrap()],
        )
        .await;
    }
    id
}

impl Stack {
    async fn serve_orgs(&self, t: &Tenant, member: Uuid, level: i32) -> Vec<String> {
        self.org
            .clone()
            .list_serve_org_units(self.req(
                t.enterprise,
                member,
                &[],
                pb::ListServeOrgUnitsRequest { level },
            ))
            .await
            .unwrap()
            .into_inner()
            .orgs
            .into_iter()
            .map(|o| {
                let cities: Vec<String> = o.areas.into_iter().map(|a| a.city_name).collect();
                format!("{} {}", o.name, cities.join(","))
            })
            .collect()
    }

    async fn tree(&self, t: &Tenant, member: Uuid) -> Vec<String> {
        fn walk(nodes: &[pb::ServeOrgUnit], depth: usize, out: &mut Vec<String>) {
            for n in nodes {
                out.push(format!("{}{}", "-".repeat(depth), n.name));
                walk(&n.children, depth + 1, out);
            }
        }
        let roots = self
            .org
            .clone()
            .get_serve_org_tree(self.req(t.enterprise, member, &[], pb::GetServeOrgTreeRequest {}))
            .await
            .unwrap()
            .into_inner()
            .roots;
        let mut out = Vec::new();
        walk(&roots, 0, &mut out);
        out
    }

    async fn areas(&self, t: &Tenant, member: Uuid) -> Vec<String> {
        self.org
            .clone()
            .list_serve_areas(self.req(t.enterprise, member, &[], pb::ListServeAreasRequest {}))
            .await
            .unwrap()
            .into_inner()
            .areas
            .into_iter()
            .map(|a| format!("{}/{} {}", a.province_name, a.city_name, a.city_code))
            .collect()
    }

    async fn companies(&self, t: &Tenant, member: Uuid) -> Vec<String> {
        self.org
            .clone()
            .list_simple_companies(self.req(
                t.enterprise,
                member,
                &[],
                pb::ListSimpleCompaniesRequest {},
            ))
            .await
            .unwrap()
            .into_inner()
            .companies
            .into_iter()
            .map(|c| c.name)
            .collect()
    }

    async fn virtual_orgs(&self, t: &Tenant, member: Uuid) -> Vec<pb::VirtualOrg> {
        self.org
            .clone()
            .list_virtual_orgs(self.req(t.enterprise, member, &[], pb::ListVirtualOrgsRequest {}))
            .await
            .unwrap()
            .into_inner()
            .virtual_orgs
    }
}

#[tokio::test]
async fn serve_organisations_and_their_cities_follow_the_callers_data_scope() {
    let s = stack().await;
    let t = tenant(&s, "顺达物流").await;
    let everything = member(&s, &t, t.root, 5).await;
    let south = member(&s, &t, t.south, 3).await;
    let own_only = member(&s, &t, t.east, 1).await;

    // The whole enterprise: every enabled serving unit; the disabled 西北 never.
    assert_eq!(
        s.serve_orgs(&t, everything, 0).await,
        ["华南 广州市,深圳市", "华东 上海市", "深圳分部 深圳市"]
    );
    assert_eq!(
        s.serve_orgs(&t, everything, 2).await,
        ["华南 广州市,深圳市", "华东 上海市"]
    );
    assert!(
        s.serve_orgs(&t, everything, 1).await.is_empty(),
        "总部 serves no city itself"
    );
    assert_eq!(
        s.tree(&t, everything).await,
        ["总部", "-华南", "--深圳分部", "-华东"]
    );
    assert_eq!(
        s.areas(&t, everything).await,
        [
            "上海市/上海市 310000",
            "广东省/广州市 440100",
            "广东省/深圳市 440300"
        ]
    );

    // 华南's subtree: its units only; the tree starts at 华南.
    assert_eq!(
        s.serve_orgs(&t, south, 0).await,
        ["华南 广州市,深圳市", "深圳分部 深圳市"]
    );
    assert_eq!(s.tree(&t, south).await, ["华南", "-深圳分部"]);
    assert_eq!(
        s.areas(&t, south).await,
        ["广东省/广州市 440100", "广东省/深圳市 440300"]
    );

    // Own rows only: no organisation, so nothing to serve.
    assert!(s.serve_orgs(&t, own_only, 0).await.is_empty());
    assert!(s.tree(&t, own_only).await.is_empty());
    assert!(s.areas(&t, own_only).await.is_empty());

    let refused = s
        .org
        .clone()
        .list_serve_org_units(s.req(
            t.enterprise,
            everything,
            &[],
            pb::ListServeOrgUnitsRequest { level: -1 },
        ))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), tonic::Code::InvalidArgument);
}

#[tokio::test]
async fn another_tenants_units_cities_and_groupings_never_show() {
    let s = stack().await;
    let a = tenant(&s, "顺达物流").await;
    let b = tenant(&s, "远航运输").await;
    let in_a = member(&s, &a, a.root, 5).await;
    let in_b = member(&s, &b, b.root, 5).await;
    // B serves 成都 besides; A must not see it, nor B's units.
    exec(
        &s,
        "insert into org_unit_area (enterprise_id, org_id, city_code) values ($1, $2, '510100')",
        &[&b.enterprise, &b.east],
    )
    .await;
    // A grouping of A that names B's unit (the foreign key cannot tell tenants apart).
    virtual_org(&s, &a, "V9", "跨租户", &[b.south]).await;
    virtual_org(&s, &a, "V1", "华南客户经理", &[a.south, a.east]).await;

    let a_areas = s.areas(&a, in_a).await;
    assert!(!a_areas.iter().any(|c| c.contains("成都")), "{a_areas:?}");
    assert!(s.areas(&b, in_b).await.iter().any(|c| c.contains("成都")));
    let a_tree = s.tree(&a, in_a).await;
    assert_eq!(a_tree.len(), 4, "{a_tree:?}");
    let a_ids: Vec<String> = s
        .org
        .clone()
        .list_serve_org_units(s.req(
            a.enterprise,
            in_a,
            &[],
            pb::ListServeOrgUnitsRequest { level: 0 },
        ))
        .await
        .unwrap()
        .into_inner()
        .orgs
        .into_iter()
        .map(|o| o.id)
        .collect();
    for unit in [b.root, b.south, b.shenzhen, b.east] {
        assert!(!a_ids.contains(&unit.to_string()));
    }
    let names: Vec<String> = s
        .virtual_orgs(&a, in_a)
        .await
        .into_iter()
        .map(|v| v.name)
        .collect();
    assert_eq!(
        names,
        ["华南客户经理"],
        "the grouping of B's unit is empty for A"
    );
    assert!(s.virtual_orgs(&b, in_b).await.is_empty());
    assert_eq!(s.companies(&b, in_b).await, ["总部", "深圳分部"]);
}

#[tokio::test]
async fn companies_and_virtual_organisations_are_cut_to_the_reach() {
    let s = stack().await;
    let t = tenant(&s, "顺达物流").await;
    let everything = member(&s, &t, t.root, 5).await;
    let south = member(&s, &t, t.south, 3).await;
    let own_only = member(&s, &t, t.east, 1).await;
    let manager = virtual_org(&s, &t, "V1", "客户经理甲", &[t.east, t.south]).await;
    virtual_org(&s, &t, "V2", "华东专组", &[t.east]).await;

    // The root is the enterprise itself; the disabled 西北 is not listed.
    assert_eq!(s.companies(&t, everything).await, ["总部", "深圳分部"]);
    assert_eq!(s.companies(&t, south).await, ["深圳分部"]);
    assert!(s.companies(&t, own_only).await.is_empty());

    let all = s.virtual_orgs(&t, everything).await;
    assert_eq!(all.len(), 2);
    assert_eq!(all[0].id, manager.to_string());
    let grouped: Vec<&str> = all[0].orgs.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(grouped, ["华东", "华南"], "in grouping order");
    assert_eq!(
        all[0].down_org_ids,
        [t.south, t.east, t.shenzhen].map(|u| u.to_string()),
        "in the tree's order, the units below included"
    );

    let seen = s.virtual_orgs(&t, south).await;
    assert_eq!(
        seen.len(),
        1,
        "华东专组 groups nothing 华南's member reaches"
    );
    let grouped: Vec<&str> = seen[0].orgs.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(grouped, ["华南"]);
    assert_eq!(
        seen[0].down_org_ids,
        [t.south, t.shenzhen].map(|u| u.to_string())
    );
    assert!(s.virtual_orgs(&t, own_only).await.is_empty());
}

#[tokio::test]
async fn the_portal_apps_are_the_groups_the_caller_holds() {
    let s = stack().await;
    let t = tenant(&s, "顺达物流").await;
    let someone = member(&s, &t, t.root, 5).await;
    let apps = |perms: &'static [&'static str]| {
        let mut org = s.org.clone();
        let req = s.req(t.enterprise, someone, perms, pb::ListPortalAppsRequest {});
        async move { org.list_portal_apps(req).await.unwrap().into_inner().apps }
    };
    let held = apps(&[
        "oss:pc:system:settings",
        "as:sys:car",
        "oss:pc:vehicle:management",
    ])
    .await;
    let shown: Vec<(&str, &str)> = held
        .iter()
        .map(|a| (a.label_zh.as_str(), a.path.as_str()))
        .collect();
    assert_eq!(
        shown,
        [
            ("车辆管理", "/carManagement"),
            ("系统设置", "/systemSetting")
        ]
    );
    assert!(apps(&["as:sys:car"]).await.is_empty());
}

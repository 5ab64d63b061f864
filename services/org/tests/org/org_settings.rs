//! What an administrator maintains on an organisation in organisation
//! settings, through a real org service: the company flag (set when added,
//! changed or kept when edited, never taken from the root) and the cities it
//! serves (replaced as a whole, checked against GB/T 2260, within the
//! caller's reach, never across tenants), as the shared lookups then show
//! them.

use crate::support;

use fleetdesk_kit::{ErrorCode, ServiceError, db};
use fleetdesk_proto::org::v1 as pb;
use support::{Stack, stack};
use uuid::Uuid;

const LIST: &str = "as:sys:org:getList";
const EDIT: &str = "as:sys:org:edit";

/// 总部 ─┬─ 华南
///       └─ 华北
struct Tenant {
    enterprise: Uuid,
    root: Uuid,
    south: Uuid,
    north: Uuid,
    /// Whole enterprise.
    admin: Uuid,
    /// 华北 and below only.
    north_admin: Uuid,
}

async fn exec(s: &Stack, sql: &str, id: Uuid, enterprise: Uuid, more: (Option<Uuid>, &str, i32)) {
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query(sql)
        .bind(id)
        .bind(enterprise)
        .bind(more.0)
        .bind(more.1)
        .bind(more.2)
        .execute(&mut *tx)
        .await
        .unwrap();
    tx.commit().await.unwrap();
}

async fn tenant(s: &Stack, name: &str) -> Tenant {
    let enterprise = Uuid::new_v4();
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query("insert into enterprise (id, name, code) values ($1, $2, $3)")
        .bind(enterprise)
        .bind(name)
        .bind(enterprise.to_string())
        .execute(&mut *tx)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    let (root, south, north) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
    let unit = "insert into org_unit (id, enterprise_id, parent_id, org_code, name, level) \
                values ($1, $2, $3, $4, $4, $5)";
    exec(s, unit, root, enterprise, (None, "总部", 1)).await;
    exec(s, unit, south, enterprise, (Some(root), "华南", 2)).await;
    exec(s, unit, north, enterprise, (Some(root), "华北", 2)).await;
    let member = "insert into member (id, enterprise_id, account_id, name, user_name, org_id, data_scope_kind) \
                  values ($1, $2, gen_random_uuid(), '管理员', $4, $3, ($5::int)::smallint)";
    let (admin, north_admin) = (Uuid::new_v4(), Uuid::new_v4());
    exec(
        s,
        member,
        admin,
        enterprise,
        (Some(root), &format!("a{}", &admin.to_string()[..8]), 5),
    )
    .await;
    exec(
        s,
        member,
        north_admin,
        enterprise,
        (
            Some(north),
            &format!("n{}", &north_admin.to_string()[..8]),
            3,
        ),
    )
    .await;
    Tenant {
        enterprise,
        root,
        south,
        north,
        admin,
        north_admin,
    }
}

fn refusal<T: std::fmt::Debug>(result: Result<T, tonic::Status>) -> ServiceError {
    ServiceError::from_status(&result.expect_err("refused"))
}

impl Stack {
    async fn set_areas(
        &self,
        t: &Tenant,
        caller: Uuid,
        org: Uuid,
        codes: &[&str],
    ) -> Result<Vec<String>, tonic::Status> {
        let request = pb::SetOrgUnitServeAreasRequest {
            org_id: org.to_string(),
            city_codes: codes.iter().map(|c| (*c).to_owned()).collect(),
        };
        let answer = self
            .org
            .clone()
            .set_org_unit_serve_areas(self.req(t.enterprise, caller, &[EDIT], request))
            .await?;
        Ok(names(answer.into_inner().areas))
    }

    async fn areas_of(&self, t: &Tenant, org: Uuid) -> Vec<String> {
        let request = pb::GetOrgUnitServeAreasRequest {
            org_id: org.to_string(),
        };
        names(
            self.org
                .clone()
                .get_org_unit_serve_areas(self.req(t.enterprise, t.admin, &[LIST], request))
                .await
                .unwrap()
                .into_inner()
                .areas,
        )
    }

    /// The serve organisations any member of the whole enterprise sees, with their cities.
    async fn enterprise_serve_orgs(&self, t: &Tenant) -> Vec<String> {
        let request = pb::ListServeOrgUnitsRequest { level: 0 };
        self.org
            .clone()
            .list_serve_org_units(self.req(t.enterprise, t.admin, &[], request))
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

    async fn enterprise_companies(&self, t: &Tenant) -> Vec<String> {
        self.org
            .clone()
            .list_simple_companies(self.req(
                t.enterprise,
                t.admin,
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

    async fn update(
        &self,
        t: &Tenant,
        org: Uuid,
        name: &str,
        is_company: Option<bool>,
    ) -> pb::OrgUnit {
        let request = pb::UpdateOrgUnitRequest {
            id: org.to_string(),
            name: name.to_owned(),
            org_code: format!("U{}", &org.simple().to_string()[..8]),
            sort: 0,
            is_company,
        };
        self.org
            .clone()
            .update_org_unit(self.req(t.enterprise, t.admin, &[EDIT], request))
            .await
            .unwrap()
            .into_inner()
            .org_unit
            .unwrap()
    }
}

fn names(areas: Vec<pb::ServeArea>) -> Vec<String> {
    areas
        .into_iter()
        .map(|a| format!("{}/{}", a.province_name, a.city_name))
        .collect()
}

#[tokio::test]
async fn an_organisation_is_marked_a_company_when_added_or_edited_and_the_root_always_is_one() {
    let s = stack().await;
    let t = tenant(&s, "演示物流").await;
    assert_eq!(s.enterprise_companies(&t).await, ["总部"]);

    let request = pb::CreateOrgUnitRequest {
        parent_id: t.south.to_string(),
        org_code: "SZ01".into(),
        name: "深圳子公司".into(),
        sort: 0,
        is_company: true,
    };
    let created = s
        .org
        .clone()
        .create_org_unit(s.req(t.enterprise, t.admin, &[EDIT], request))
        .await
        .unwrap()
        .into_inner()
        .org_unit
        .unwrap();
    assert!(created.is_company);
    assert_eq!(s.enterprise_companies(&t).await, ["总部", "深圳子公司"]);

    let north = s.update(&t, t.north, "华北", Some(true)).await;
    assert!(north.is_company);
    // An edit that does not send the flag keeps it.
    assert!(s.update(&t, t.north, "华北大区", None).await.is_company);
    assert_eq!(
        s.enterprise_companies(&t).await,
        ["总部", "华北大区", "深圳子公司"]
    );
    assert!(
        !s.update(&t, t.north, "华北大区", Some(false))
            .await
            .is_company
    );
    assert_eq!(s.enterprise_companies(&t).await, ["总部", "深圳子公司"]);

    let root = s.update(&t, t.root, "总部", Some(false)).await;
    assert!(root.is_company, "the root is the enterprise itself");
    assert_eq!(s.enterprise_companies(&t).await, ["总部", "深圳子公司"]);

    // The tree shows the flag.
    let tree = s
        .org
        .clone()
        .list_org_units(s.req(
            t.enterprise,
            t.admin,
            &[LIST],
            pb::ListOrgUnitsRequest {
                include_disabled: true,
                name_contains: String::new(),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .roots;
    let south = tree[0].children.iter().find(|u| u.name == "华南").unwrap();
    assert!(!south.is_company);
    assert!(south.children[0].is_company);
}

#[tokio::test]
async fn the_cities_an_organisation_serves_are_replaced_as_a_whole_and_the_lookups_follow() {
    let s = stack().await;
    let t = tenant(&s, "演示物流").await;
    assert!(s.enterprise_serve_orgs(&t).await.is_empty());

    let set = s
        .set_areas(
            &t,
            t.admin,
            t.south,
            &["440300", "440100", "440300", "110000"],
        )
        .await
        .unwrap();
    assert_eq!(set, ["广东省/深圳市", "广东省/广州市", "北京市/北京市"]);
    assert_eq!(
        s.areas_of(&t, t.south).await,
        set,
        "read back in the order set"
    );
    assert_eq!(
        s.enterprise_serve_orgs(&t).await,
        ["华南 深圳市,广州市,北京市"]
    );

    s.set_areas(&t, t.admin, t.south, &["310000"])
        .await
        .unwrap();
    assert_eq!(s.areas_of(&t, t.south).await, ["上海市/上海市"]);
    s.set_areas(&t, t.admin, t.north, &["120000"])
        .await
        .unwrap();
    assert_eq!(
        s.enterprise_serve_orgs(&t).await,
        ["华北 天津市", "华南 上海市"]
    );

    // None: it serves nothing and is no serve organisation any more.
    assert!(
        s.set_areas(&t, t.admin, t.south, &[])
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(s.enterprise_serve_orgs(&t).await, ["华北 天津市"]);
}

#[tokio::test]
async fn serve_areas_take_known_cities_only_within_the_reach_and_the_permission() {
    let s = stack().await;
    let t = tenant(&s, "演示物流").await;
    let other = tenant(&s, "别家物流").await;
    s.set_areas(&t, t.admin, t.south, &["440300"])
        .await
        .unwrap();

    // A district is not a city, nor is an unknown code: nothing changes.
    for bad in ["440305", "990100"] {
        let err = refusal(s.set_areas(&t, t.admin, t.south, &["440100", bad]).await);
        assert_eq!(err.code, ErrorCode::BadRequest);
        assert_eq!(err.fields[0].field, "cityCodes");
        assert!(
            err.fields[0].message.contains(bad),
            "{}",
            err.fields[0].message
        );
    }
    assert_eq!(s.areas_of(&t, t.south).await, ["广东省/深圳市"]);

    // 华南 is outside the 华北 administrator's reach; 华北 is within it.
    let err = refusal(s.set_areas(&t, t.north_admin, t.south, &["440100"]).await);
    assert_eq!(err.code, ErrorCode::NotFound);
    s.set_areas(&t, t.north_admin, t.north, &["120000"])
        .await
        .unwrap();

    // Another tenant's organisation is not found.
    let err = refusal(s.set_areas(&other, other.admin, t.south, &["440100"]).await);
    assert_eq!(err.code, ErrorCode::NotFound);
    let err = refusal(
        s.org
            .clone()
            .get_org_unit_serve_areas(s.req(
                other.enterprise,
                other.admin,
                &[LIST],
                pb::GetOrgUnitServeAreasRequest {
                    org_id: t.south.to_string(),
                },
            ))
            .await,
    );
    assert_eq!(err.code, ErrorCode::NotFound);

    // Without the edit permission nothing is written.
    let request = pb::SetOrgUnitServeAreasRequest {
        org_id: t.south.to_string(),
        city_codes: vec!["440100".into()],
    };
    let err = refusal(
        s.org
            .clone()
            .set_org_unit_serve_areas(s.req(t.enterprise, t.admin, &[LIST], request))
            .await,
    );
    assert_eq!(err.code, ErrorCode::Forbidden);
    assert_eq!(s.areas_of(&t, t.south).await, ["广东省/深圳市"]);
}

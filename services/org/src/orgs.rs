//! The organisation tree: list (within the caller's data scope), create,
//! update, move (never under itself or a descendant), enable/disable and delete.
//!
//! An enterprise has one root organisation: the enterprise itself, the first
//! top node. New or moved organisations without a parent go under it.
//!
//! What 停用 means: the root cannot be disabled;
//! disabling a node disables its whole subtree, and members of a disabled
//! organisation cannot use the enterprise (the principal is refused) until they
//! are moved or the organisation is enabled again. Enabling needs an enabled
//! parent and re-enables the subtree. Names are unique under one parent; only
//! an empty organisation (no children, no members) can be deleted.

use std::collections::{HashMap, HashSet};

use fleetdesk_kit::convert::{self, timestamp};
use fleetdesk_kit::{ErrorCode, ServiceError, db, grpc};
use fleetdesk_proto::org::v1 as pb;
use sqlx::{PgConnection, PgPool};
use tonic::Request;
use uuid::Uuid;

use crate::changes;
use crate::roles::{at_most, caller, conflict, status_from_pb, status_pb};
use crate::scope::{self, Reach};
use crate::store::{self, DISABLED, ENABLED, OrgUnitRow};
use crate::unit_events;

pub const PERM_ORG_LIST: &str = "as:sys:org:getList";
pub const PERM_ORG_EDIT: &str = "as:sys:org:edit";

const SELECT: &str = "select id, enterprise_id, parent_id, org_code, name, level, sort, status, created_at from org_unit";

fn node_pb(row: &OrgUnitRow, children: Vec<pb::OrgUnit>) -> pb::OrgUnit {
    pb::OrgUnit {
        id: row.id.to_string(),
        enterprise_id: row.enterprise_id.to_string(),
        parent_id: row.parent_id.map(|p| p.to_string()).unwrap_or_default(),
        org_code: row.org_code.clone(),
        name: row.name.clone(),
        level: row.level,
        sort: row.sort,
        status: status_pb(row.status),
        children,
        create_time: Some(timestamp(row.created_at)),
    }
}

/// Nests flat rows (ordered parents first) into trees.
pub fn org_tree(rows: Vec<OrgUnitRow>) -> Vec<pb::OrgUnit> {
    let mut children: HashMap<Option<Uuid>, Vec<OrgUnitRow>> = HashMap::new();
    let ids: HashSet<Uuid> = rows.iter().map(|r| r.id).collect();
    for row in rows {
        // A node whose parent is filtered out (disabled, out of scope) becomes a root.
        let parent = row.parent_id.filter(|p| ids.contains(p));
        children.entry(parent).or_default().push(row);
    }
    fn build(
        parent: Option<Uuid>,
        children: &mut HashMap<Option<Uuid>, Vec<OrgUnitRow>>,
    ) -> Vec<pb::OrgUnit> {
        let rows = children.remove(&parent).unwrap_or_default();
        rows.into_iter()
            .map(|row| {
                let kids = build(Some(row.id), children);
                node_pb(&row, kids)
            })
            .collect()
    }
    build(None, &mut children)
}

/// Nodes whose name contains `needle`, with their ancestors so the tree stays whole.
pub fn keep_matches_with_ancestors(rows: Vec<OrgUnitRow>, needle: &str) -> Vec<OrgUnitRow> {
    let parent: HashMap<Uuid, Option<Uuid>> = rows.iter().map(|r| (r.id, r.parent_id)).collect();
    let mut keep = HashSet::new();
    for row in rows.iter().filter(|r| r.name.contains(needle)) {
        let mut at = Some(row.id);
        while let Some(id) = at {
            if !keep.insert(id) {
                break;
            }
            at = parent.get(&id).copied().flatten();
        }
    }
    rows.into_iter().filter(|r| keep.contains(&r.id)).collect()
}

pub async fn list(
    pool: &PgPool,
    request: Request<pb::ListOrgUnitsRequest>,
) -> Result<pb::ListOrgUnitsResponse, ServiceError> {
    grpc::require_permission(&request, PERM_ORG_LIST)?;
    let (tenant, member) = caller(&request)?;
    let req = request.into_inner();
    let mut tx = db::begin_tenant(pool, tenant).await?;
    let reach = scope::of_caller(&mut tx, member).await?;
    let rows = store::org_units(&mut tx, tenant, req.include_disabled).await?;
    let rows: Vec<OrgUnitRow> = rows
        .into_iter()
        .filter(|r| reach.sees_org(Some(r.id)))
        .collect();
    let needle = req.name_contains.trim();
    let rows = if needle.is_empty() {
        rows
    } else {
        keep_matches_with_ancestors(rows, needle)
    };
    Ok(pb::ListOrgUnitsResponse {
        roots: org_tree(rows),
    })
}

/// The enabled organisations the caller reaches, flat, for pickers
/// (getSimpleCurrentOrgs). Any member may ask: it shows no more than their
/// data scope already lets them filter by.
pub async fn list_simple(
    pool: &PgPool,
    request: Request<pb::ListSimpleOrgUnitsRequest>,
) -> Result<pb::ListSimpleOrgUnitsResponse, ServiceError> {
    let (tenant, member) = caller(&request)?;
    let mut tx = db::begin_tenant(pool, tenant).await?;
    let reach = scope::of_caller(&mut tx, member).await?;
    let rows = store::org_units(&mut tx, tenant, false).await?;
    tx.commit().await?;
    Ok(pb::ListSimpleOrgUnitsResponse {
        orgs: rows
            .iter()
            .filter(|r| reach.sees_org(Some(r.id)))
            .map(|r| node_pb(r, Vec::new()))
            .collect(),
    })
}

/// One node of the tenant within the caller's reach, else 4004.
async fn visible(
    conn: &mut PgConnection,
    reach: &Reach,
    id: Uuid,
) -> Result<OrgUnitRow, ServiceError> {
    let row: Option<OrgUnitRow> = sqlx::query_as(&format!("{SELECT} where id = $1"))
        .bind(id)
        .fetch_optional(conn)
        .await?;
    row.filter(|r| reach.sees_org(Some(r.id)))
        .ok_or_else(ServiceError::not_found)
}

fn check_name_code(name: &str, code: &str) -> Result<(), ServiceError> {
    if name.is_empty() {
        return Err(ServiceError::invalid("name", "请输入组织名称"));
    }
    at_most("name", name, 50, "组织名称")?;
    if code.is_empty() {
        return Err(ServiceError::invalid("orgCode", "请输入组织编码"));
    }
    let valid = code.chars().count() <= 32
        && code
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !valid {
        return Err(ServiceError::invalid(
            "orgCode",
            "组织编码为 1 到 32 位字母、数字、- 或 _",
        ));
    }
    Ok(())
}

/// Unique violations of the code or of the name among siblings, as 4009 naming the field.
fn code_taken(err: sqlx::Error) -> ServiceError {
    fleetdesk_kit::on_constraint(err, |name| match name {
        "org_unit_code_key" => Some(conflict("orgCode", "组织编码已存在")),
        "org_unit_sibling_name_key" => Some(conflict("name", "同一上级组织下已有同名组织")),
        _ => None,
    })
}

/// The enterprise's root organisation (its first top node), if it has one yet.
async fn root_of(conn: &mut PgConnection, tenant: Uuid) -> sqlx::Result<Option<OrgUnitRow>> {
    sqlx::query_as(&format!(
        "{SELECT} where enterprise_id = $1 and parent_id is null order by created_at, id limit 1"
    ))
    .bind(tenant)
    .fetch_optional(conn)
    .await
}

/// An optional parent id field: empty means the top of the tree.
fn parent_field(value: &str) -> Result<Option<Uuid>, ServiceError> {
    match value.trim() {
        "" => Ok(None),
        v => convert::id(v).map(Some),
    }
}

pub async fn create(
    pool: &PgPool,
    request: Request<pb::CreateOrgUnitRequest>,
) -> Result<pb::CreateOrgUnitResponse, ServiceError> {
    grpc::require_permission(&request, PERM_ORG_EDIT)?;
    let (tenant, member) = caller(&request)?;
    let req = request.into_inner();
    let (name, code) = (req.name.trim(), req.org_code.trim());
    check_name_code(name, code)?;
    let parent_id = parent_field(&req.parent_id)?;
    let mut tx = db::begin_tenant(pool, tenant).await?;
    let reach = scope::of_caller(&mut tx, member).await?;
    // Without a parent it goes under the root; only a fresh enterprise gets a new root.
    let parent_id = match parent_id {
        Some(p) => Some(p),
        None => root_of(&mut tx, tenant).await?.map(|r| r.id),
    };
    let level = match parent_id {
        Some(p) => {
            let parent = visible(&mut tx, &reach, p).await?;
            if parent.status != ENABLED {
                return Err(ServiceError::new(ErrorCode::Conflict, "上级组织已停用"));
            }
            parent.level + 1
        }
        // Only a member who reaches the whole enterprise may add the root.
        None if reach.all => 1,
        None => return Err(ServiceError::invalid("parentId", "请选择上级组织")),
    };
    let id = Uuid::new_v4();
    let row: OrgUnitRow = sqlx::query_as(
        "insert into org_unit (id, enterprise_id, parent_id, org_code, name, level, sort) \
         values ($1, $2, $3, $4, $5, $6, $7) \
         returning id, enterprise_id, parent_id, org_code, name, level, sort, status, created_at",
    )
    .bind(id)
    .bind(tenant)
    .bind(parent_id)
    .bind(code)
    .bind(name)
    .bind(level)
    .bind(req.sort)
    .fetch_one(&mut *tx)
    .await
    .map_err(code_taken)?;
    unit_events::announce(&mut tx, &[id]).await?;
    tx.commit().await?;
    tracing::info!(org_id = %id, "Organisation created.");
    Ok(pb::CreateOrgUnitResponse {
        org_unit: Some(node_pb(&row, Vec::new())),
    })
}

pub async fn update(
    pool: &PgPool,
    request: Request<pb::UpdateOrgUnitRequest>,
) -> Result<pb::UpdateOrgUnitResponse, ServiceError> {
    grpc::require_permission(&request, PERM_ORG_EDIT)?;
    let (tenant, member) = caller(&request)?;
    let req = request.into_inner();
    let id = convert::id(&req.id)?;
    let mut tx = db::begin_tenant(pool, tenant).await?;
    let reach = scope::of_caller(&mut tx, member).await?;
    visible(&mut tx, &reach, id).await?;
    let (name, code) = (req.name.trim(), req.org_code.trim());
    check_name_code(name, code)?;
    let row: OrgUnitRow = sqlx::query_as(
        "update org_unit set name = $3, org_code = $4, sort = $5, updated_at = now() \
         where enterprise_id = $1 and id = $2 \
         returning id, enterprise_id, parent_id, org_code, name, level, sort, status, created_at",
    )
    .bind(tenant)
    .bind(id)
    .bind(name)
    .bind(code)
    .bind(req.sort)
    .fetch_one(&mut *tx)
    .await
    .map_err(code_taken)?;
    unit_events::announce(&mut tx, &[id]).await?;
    tx.commit().await?;
    Ok(pb::UpdateOrgUnitResponse {
        org_unit: Some(node_pb(&row, Vec::new())),
    })
}

/// Ids of `id` and everything below it.
async fn subtree_ids(conn: &mut PgConnection, id: Uuid) -> sqlx::Result<Vec<Uuid>> {
    sqlx::query_scalar(
        "with recursive sub as (select id from org_unit where id = $1 \
         union all select c.id from org_unit c join sub s on c.parent_id = s.id) select id from sub",
    )
    .bind(id)
    .fetch_all(conn)
    .await
}

pub async fn move_unit(
    pool: &PgPool,
    request: Request<pb::MoveOrgUnitRequest>,
) -> Result<pb::MoveOrgUnitResponse, ServiceError> {
    grpc::require_permission(&request, PERM_ORG_EDIT)?;
    let (tenant, member) = caller(&request)?;
    let req = request.into_inner();
    let id = convert::id(&req.id)?;
    let new_parent = parent_field(&req.new_parent_id)?;
    let mut tx = db::begin_tenant(pool, tenant).await?;
    let reach = scope::of_caller(&mut tx, member).await?;
    let row = visible(&mut tx, &reach, id).await?;
    if row.parent_id.is_none() {
        return Err(ServiceError::invalid("id", "根组织即企业本身，不能移动"));
    }
    // Moving to the top means under the root.
    let new_parent = match new_parent {
        Some(p) => Some(p),
        None => root_of(&mut tx, tenant).await?.map(|r| r.id),
    };
    // Serialise moves of one tenant, so two concurrent moves cannot make a cycle.
    sqlx::query("select pg_advisory_xact_lock(hashtext($1::text))")
        .bind(tenant)
        .execute(&mut *tx)
        .await?;
    let level = match new_parent {
        Some(p) => {
            let parent = visible(&mut tx, &reach, p).await?;
            if subtree_ids(&mut tx, id).await?.contains(&p) {
                return Err(ServiceError::invalid(
                    "newParentId",
                    "不能移动到自身或下级组织",
                ));
            }
            parent.level + 1
        }
        None if reach.all => 1,
        None => return Err(ServiceError::invalid("newParentId", "请选择上级组织")),
    };
    sqlx::query("update org_unit set parent_id = $2, updated_at = now() where id = $1")
        .bind(id)
        .bind(new_parent)
        .execute(&mut *tx)
        .await
        .map_err(code_taken)?;
    sqlx::query(
        "with recursive sub as (select id, $2::int as lvl from org_unit where id = $1 \
         union all select c.id, s.lvl + 1 from org_unit c join sub s on c.parent_id = s.id) \
         update org_unit o set level = sub.lvl from sub where o.id = sub.id",
    )
    .bind(id)
    .bind(level)
    .execute(&mut *tx)
    .await?;
    let row: OrgUnitRow = sqlx::query_as(&format!("{SELECT} where id = $1"))
        .bind(id)
        .fetch_one(&mut *tx)
        .await?;
    // Every unit below the moved one has a new path too.
    let moved = subtree_ids(&mut tx, id).await?;
    unit_events::announce(&mut tx, &moved).await?;
    tx.commit().await?;
    tracing::info!(org_id = %id, "Organisation moved.");
    Ok(pb::MoveOrgUnitResponse {
        org_unit: Some(node_pb(&row, Vec::new())),
    })
}

/// Members whose organisation is one of `org_ids`.
async fn members_of(conn: &mut PgConnection, org_ids: &[Uuid]) -> sqlx::Result<Vec<Uuid>> {
    sqlx::query_scalar("select id from member where org_id = any($1)")
        .bind(org_ids)
        .fetch_all(conn)
        .await
}

pub async fn set_status(
    pool: &PgPool,
    request: Request<pb::SetOrgUnitStatusRequest>,
) -> Result<pb::SetOrgUnitStatusResponse, ServiceError> {
    grpc::require_permission(&request, PERM_ORG_EDIT)?;
    let (tenant, member) = caller(&request)?;
    let req = request.into_inner();
    let id = convert::id(&req.id)?;
    let status =
        status_from_pb(req.status)?.ok_or_else(|| ServiceError::invalid("status", "请选择状态"))?;
    let mut tx = db::begin_tenant(pool, tenant).await?;
    let reach = scope::of_caller(&mut tx, member).await?;
    let row = visible(&mut tx, &reach, id).await?;
    if status == DISABLED {
        if row.parent_id.is_none() {
            return Err(ServiceError::new(
                ErrorCode::Conflict,
                "根组织即企业本身，不能停用",
            ));
        }
    } else if let Some(p) = row.parent_id {
        let parent_status: i16 = sqlx::query_scalar("select status from org_unit where id = $1")
            .bind(p)
            .fetch_one(&mut *tx)
            .await?;
        if parent_status != ENABLED {
            return Err(ServiceError::new(
                ErrorCode::Conflict,
                "上级组织已停用，请先启用上级组织",
            ));
        }
    }
    // The subtree follows: disabled together, enabled together.
    let ids = subtree_ids(&mut tx, id).await?;
    sqlx::query("update org_unit set status = $2, updated_at = now() where id = any($1)")
        .bind(&ids)
        .bind(status)
        .execute(&mut *tx)
        .await?;
    unit_events::announce(&mut tx, &ids).await?;
    // Their members' sessions are re-resolved: refused while disabled.
    let members = members_of(&mut tx, &ids).await?;
    changes::principals_changed(&mut tx, Some(tenant), &members).await?;
    let row: OrgUnitRow = sqlx::query_as(&format!("{SELECT} where id = $1"))
        .bind(id)
        .fetch_one(&mut *tx)
        .await?;
    tx.commit().await?;
    tracing::info!(org_id = %id, status, units = ids.len(), members = members.len(), "Organisation status changed.");
    Ok(pb::SetOrgUnitStatusResponse {
        org_unit: Some(node_pb(&row, Vec::new())),
    })
}

/// Deletes an empty organisation: not the root, no children, no members.
pub async fn delete(
    pool: &PgPool,
    request: Request<pb::DeleteOrgUnitRequest>,
) -> Result<pb::DeleteOrgUnitResponse, ServiceError> {
    grpc::require_permission(&request, PERM_ORG_EDIT)?;
    let (tenant, member) = caller(&request)?;
    let id = convert::id(&request.get_ref().id)?;
    let mut tx = db::begin_tenant(pool, tenant).await?;
    let reach = scope::of_caller(&mut tx, member).await?;
    let row = visible(&mut tx, &reach, id).await?;
    if row.parent_id.is_none() {
        return Err(ServiceError::new(
            ErrorCode::Conflict,
            "根组织即企业本身，不能删除",
        ));
    }
    let children: i64 = sqlx::query_scalar("select count(*) from org_unit where parent_id = $1")
        .bind(id)
        .fetch_one(&mut *tx)
        .await?;
    if children > 0 {
        return Err(ServiceError::new(
            ErrorCode::Conflict,
            "该组织下还有下级组织，请先删除或移走下级组织",
        ));
    }
    let members = members_of(&mut tx, &[id]).await?;
    if !members.is_empty() {
        return Err(ServiceError::new(
            ErrorCode::Conflict,
            format!(
                "该组织下还有 {} 名成员，请先调整成员的所属组织",
                members.len()
            ),
        ));
    }
    sqlx::query("delete from org_unit where id = $1")
        .bind(id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    tracing::info!(org_id = %id, "Organisation deleted.");
    Ok(pb::DeleteOrgUnitResponse {})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(id: u128, parent: Option<u128>, name: &str, level: i32) -> OrgUnitRow {
        OrgUnitRow {
            id: Uuid::from_u128(id),
            enterprise_id: Uuid::nil(),
            parent_id: parent.map(Uuid::from_u128),
            org_code: format!("C{id}"),
            name: name.into(),
            level,
            sort: 0,
            status: ENABLED,
            created_at: chrono::Utc::now(),
        }
    }

    fn names(tree: &[pb::OrgUnit]) -> Vec<String> {
        tree.iter()
            .flat_map(|n| std::iter::once(n.name.clone()).chain(names(&n.children)))
            .collect()
    }

    #[test]
    fn flat_rows_nest_into_a_tree() {
        let tree = org_tree(vec![
            unit(1, None, "总部", 1),
            unit(2, Some(1), "华东", 2),
            unit(3, Some(2), "上海", 3),
        ]);
        assert_eq!(tree.len(), 1);
        assert_eq!(tree[0].children[0].children[0].name, "上海");
    }

    #[test]
    fn a_name_search_keeps_the_path_to_each_match() {
        let rows = vec![
            unit(1, None, "总部", 1),
            unit(2, Some(1), "华东", 2),
            unit(3, Some(2), "上海", 3),
            unit(4, Some(1), "华南", 2),
        ];
        let tree = org_tree(keep_matches_with_ancestors(rows, "上海"));
        assert_eq!(names(&tree), vec!["总部", "华东", "上海"]);
    }

    #[test]
    fn names_and_codes_are_checked_with_field_names() {
        let field = |n: &str, c: &str| check_name_code(n, c).unwrap_err().fields[0].field.clone();
        assert_eq!(field("", "A1"), "name");
        assert_eq!(field("华东", ""), "orgCode");
        assert_eq!(field("华东", "A 1"), "orgCode");
        assert_eq!(field(&"长".repeat(51), "A1"), "name");
        assert!(check_name_code("华东", "A-01_x").is_ok());
    }
}

//! The enterprise's built-in administrator role and its last enabled holder
//! through the real gRPC server and PostgreSQL (issue 26: an enterprise
//! locked itself out through the API). Each refusal answers 4009 with the
//! reason and leaves roles, grants, members and memberships as they were.

use crate::support;

use fleetdesk_kit::{ErrorCode, ServiceError, db};
use fleetdesk_org::roles::{PERM_ROLE_EDIT, PERM_ROLE_LIST};
use fleetdesk_org::users::{PERM_USER_EDIT, PERM_USER_LIST};
use fleetdesk_proto::org::v1 as pb;
use support::{Stack, stack};
use uuid::Uuid;

const PERMS: [&str; 4] = [
    PERM_ROLE_LIST,
    PERM_ROLE_EDIT,
    PERM_USER_LIST,
    PERM_USER_EDIT,
];

struct Tenant {
    enterprise: Uuid,
    root: Uuid,
    /// The built-in administrator role: every permission of the catalogue.
    admin: Uuid,
    /// An ordinary role.
    ops: Uuid,
    /// Two enabled administrators and an operator holding `ops`.
    admin1: Uuid,
    admin2: Uuid,
    operator: Uuid,
}

async fn tenant(s: &Stack) -> Tenant {
    let enterprise = Uuid::new_v4();
    let root = Uuid::new_v4();
    sqlx::query("insert into enterprise (id, name, code) values ($1, '顺达物流', $2)")
        .bind(enterprise)
        .bind(enterprise.to_string())
        .execute(&s.owner)
        .await
        .unwrap();
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query(
        "insert into org_unit (id, enterprise_id, org_code, name, level) values ($1, $2, 'A01', '总部', 1)",
    )
    .bind(root)
    .bind(enterprise)
    .execute(&mut *tx)
    .await
    .unwrap();
    let (admin, ops) = (Uuid::new_v4(), Uuid::new_v4());
    for (id, name, builtin, perms) in [
        (admin, "超级管理员", true, "select value from permission"),
        (
            ops,
            "车辆运营",
            false,
            "select value from permission order by value limit 3",
        ),
    ] {
        sqlx::query("insert into role (id, enterprise_id, name, builtin) values ($1, $2, $3, $4)")
            .bind(id)
            .bind(enterprise)
            .bind(name)
            .bind(builtin)
            .execute(&mut *tx)
            .await
            .unwrap();
        sqlx::query(&format!(
            "insert into role_permission (enterprise_id, role_id, permission_value) \
             select $1, $2, value from ({perms}) p"
        ))
        .bind(enterprise)
        .bind(id)
        .execute(&mut *tx)
        .await
        .unwrap();
    }
    let mut members = Vec::new();
    for (name, role) in [("管理员一", admin), ("管理员二", admin), ("运营专员", ops)] {
        let id = Uuid::new_v4();
        sqlx::query(
            "insert into member (id, enterprise_id, account_id, name, user_name, phone, org_id) \
             values ($1, $2, $3, $4, $5, '13800138000', $6)",
        )
        .bind(id)
        .bind(enterprise)
        .bind(Uuid::new_v4())
        .bind(name)
        .bind(id.to_string())
        .bind(root)
        .execute(&mut *tx)
        .await
        .unwrap();
        sqlx::query(
            "insert into member_role (enterprise_id, member_id, role_id) values ($1, $2, $3)",
        )
        .bind(enterprise)
        .bind(id)
        .bind(role)
        .execute(&mut *tx)
        .await
        .unwrap();
        members.push(id);
    }
    tx.commit().await.unwrap();
    Tenant {
        enterprise,
        root,
        admin,
        ops,
        admin1: members[0],
        admin2: members[1],
        operator: members[2],
    }
}

/// Every row the rules protect, in a stable order.
async fn snapshot(s: &Stack, t: &Tenant) -> Vec<String> {
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    let mut rows: Vec<String> = sqlx::query_scalar(
        "select concat_ws('|', 'role', id, name, status, builtin, data_scope_kind) from role \
         where enterprise_id = $1 \
         union all select concat_ws('|', 'grant', role_id, permission_value) from role_permission \
         where enterprise_id = $1 \
         union all select concat_ws('|', 'member', id, status, org_id) from member where enterprise_id = $1 \
         union all select concat_ws('|', 'holds', member_id, role_id) from member_role \
         where enterprise_id = $1",
    )
    .bind(t.enterprise)
    .fetch_all(&mut *tx)
    .await
    .unwrap();
    rows.sort();
    rows
}

fn refused(result: Result<impl std::fmt::Debug, tonic::Status>, message: &str) {
    let err = ServiceError::from_status(&result.expect_err(message));
    assert_eq!(err.code, ErrorCode::Conflict, "{}", err.message);
    assert_eq!(err.message, message);
}

async fn role_of(s: &mut Stack, t: &Tenant, caller: Uuid, id: Uuid) -> pb::Role {
    let req = s.req(
        t.enterprise,
        caller,
        &PERMS,
        pb::GetRoleRequest { id: id.to_string() },
    );
    s.org
        .get_role(req)
        .await
        .unwrap()
        .into_inner()
        .role
        .unwrap()
}

fn edit(role: &pb::Role) -> pb::UpdateRoleRequest {
    pb::UpdateRoleRequest {
        id: role.id.clone(),
        name: role.name.clone(),
        description: role.description.clone(),
        permission_values: role.permission_values.clone(),
        data_scope: role.data_scope.clone(),
        status: 0,
    }
}

#[tokio::test]
async fn the_builtin_role_cannot_be_deleted_disabled_or_reduced() {
    let mut s = stack().await;
    let t = tenant(&s).await;
    let me = t.admin1;
    let before = snapshot(&s, &t).await;
    let admin = role_of(&mut s, &t, me, t.admin).await;
    assert!(admin.permission_values.len() > 3, "{admin:?}");

    let req = s.req(
        t.enterprise,
        me,
        &PERMS,
        pb::DeleteRoleRequest {
            id: t.admin.to_string(),
        },
    );
    refused(s.org.delete_role(req).await, "系统内置的管理员角色不能删除");

    let disable = pb::UpdateRoleRequest {
        status: pb::EnabledStatus::Disabled.into(),
        ..edit(&admin)
    };
    let req = s.req(t.enterprise, me, &PERMS, disable);
    refused(s.org.update_role(req).await, "系统内置的管理员角色不能停用");

    let mut fewer = edit(&admin);
    fewer.permission_values.pop();
    let req = s.req(t.enterprise, me, &PERMS, fewer);
    refused(
        s.org.update_role(req).await,
        "系统内置的管理员角色不能减少功能权限",
    );

    let narrower = pb::UpdateRoleRequest {
        data_scope: Some(pb::DataScope {
            kind: pb::DataScopeKind::Self_.into(),
            org_ids: Vec::new(),
        }),
        ..edit(&admin)
    };
    let req = s.req(t.enterprise, me, &PERMS, narrower);
    refused(
        s.org.update_role(req).await,
        "系统内置的管理员角色的数据权限须为全部数据",
    );

    // Emptied: the form itself is refused before the role is looked at.
    let empty = pb::UpdateRoleRequest {
        permission_values: Vec::new(),
        ..edit(&admin)
    };
    let req = s.req(t.enterprise, me, &PERMS, empty);
    let err = ServiceError::from_status(&s.org.update_role(req).await.unwrap_err());
    assert_eq!(err.code, ErrorCode::BadRequest, "{}", err.message);

    assert_eq!(snapshot(&s, &t).await, before, "nothing changed");

    // Renaming it, and enabling it again, are edits like any other.
    let rename = pb::UpdateRoleRequest {
        name: "企业管理员".into(),
        status: pb::EnabledStatus::Enabled.into(),
        ..edit(&admin)
    };
    let req = s.req(t.enterprise, me, &PERMS, rename);
    let renamed = s
        .org
        .update_role(req)
        .await
        .unwrap()
        .into_inner()
        .role
        .unwrap();
    assert_eq!(renamed.name, "企业管理员");
    assert_eq!(renamed.permission_values, admin.permission_values);
}

#[tokio::test]
async fn a_role_members_hold_is_not_deleted_and_an_unused_one_is() {
    let mut s = stack().await;
    let t = tenant(&s).await;
    let me = t.admin1;
    let before = snapshot(&s, &t).await;
    let req = s.req(
        t.enterprise,
        me,
        &PERMS,
        pb::DeleteRoleRequest {
            id: t.ops.to_string(),
        },
    );
    refused(
        s.org.delete_role(req).await,
        "该角色已分配给1名用户，请先为他们更换角色再删除",
    );
    assert_eq!(snapshot(&s, &t).await, before, "nothing changed");

    // The operator moves to the administrators; the role is then unused.
    let req = s.req(
        t.enterprise,
        me,
        &PERMS,
        pb::UpdateUserRequest {
            id: t.operator.to_string(),
            name: "运营专员".into(),
            phone: String::new(),
            org_id: t.root.to_string(),
            role_ids: vec![t.admin.to_string()],
            data_scope: None,
        },
    );
    s.org.update_user(req).await.unwrap();
    let req = s.req(
        t.enterprise,
        me,
        &PERMS,
        pb::DeleteRoleRequest {
            id: t.ops.to_string(),
        },
    );
    s.org.delete_role(req).await.unwrap();
    let req = s.req(
        t.enterprise,
        me,
        &PERMS,
        pb::GetRoleRequest {
            id: t.ops.to_string(),
        },
    );
    let err = ServiceError::from_status(&s.org.get_role(req).await.unwrap_err());
    assert_eq!(err.code, ErrorCode::NotFound);
}

/// `who`'s status set by the operator (whose claims carry the permissions).
async fn set_status(
    s: &mut Stack,
    t: &Tenant,
    who: Uuid,
    status: pb::EnabledStatus,
) -> Result<pb::User, tonic::Status> {
    let message = pb::SetUserStatusRequest {
        id: who.to_string(),
        status: status.into(),
    };
    let req = s.req(t.enterprise, t.operator, &PERMS, message);
    Ok(s.org.set_user_status(req).await?.into_inner().user.unwrap())
}

/// `who`'s roles set by the operator.
async fn set_roles(
    s: &mut Stack,
    t: &Tenant,
    who: Uuid,
    roles: &[Uuid],
) -> Result<pb::User, tonic::Status> {
    let message = pb::UpdateUserRequest {
        id: who.to_string(),
        name: "管理员".into(),
        phone: String::new(),
        org_id: t.root.to_string(),
        role_ids: roles.iter().map(Uuid::to_string).collect(),
        data_scope: None,
    };
    let req = s.req(t.enterprise, t.operator, &PERMS, message);
    Ok(s.org.update_user(req).await?.into_inner().user.unwrap())
}

#[tokio::test]
async fn the_last_enabled_administrator_keeps_the_role_and_stays_enabled() {
    use pb::EnabledStatus::{Disabled, Enabled};
    let mut s = stack().await;
    let t = tenant(&s).await;
    let last = "该用户是企业最后一位启用的管理员，不能停用";
    // With two administrators, one may be disabled.
    set_status(&mut s, &t, t.admin2, Disabled).await.unwrap();

    let before = snapshot(&s, &t).await;
    refused(set_status(&mut s, &t, t.admin1, Disabled).await, last);
    refused(
        set_roles(&mut s, &t, t.admin1, &[t.ops]).await,
        "该用户是企业最后一位启用的管理员，不能移除其管理员角色",
    );
    assert_eq!(snapshot(&s, &t).await, before, "nothing changed");

    // A disabled holder does not count, and may lose the role.
    set_roles(&mut s, &t, t.admin2, &[t.ops]).await.unwrap();
    // Another enabled holder again: then the first may lose it.
    set_roles(&mut s, &t, t.admin2, &[t.admin]).await.unwrap();
    set_status(&mut s, &t, t.admin2, Enabled).await.unwrap();
    let user = set_roles(&mut s, &t, t.admin1, &[t.ops]).await.unwrap();
    assert_eq!(user.role_ids, vec![t.ops.to_string()]);
    refused(set_status(&mut s, &t, t.admin2, Disabled).await, last);
}

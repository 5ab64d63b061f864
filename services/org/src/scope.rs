//! Data permissions: how far a member's data reaches. A scope is self, one
//! organisation, an organisation subtree, a custom set of organisations or the
//! whole enterprise; a member's scope is their own when set, else the union of
//! their enabled roles' scopes. [`Reach`] is what every list filters by: rows
//! of the reached organisations plus the member's own rows.

use std::collections::{BTreeSet, HashMap};

use fleetdesk_kit::ServiceError;
use fleetdesk_proto::org::v1 as pb;
use sqlx::PgConnection;
use uuid::Uuid;

pub const SELF: i16 = 1;
pub const ORG: i16 = 2;
pub const ORG_SUBTREE: i16 = 3;
pub const CUSTOM: i16 = 4;
pub const ENTERPRISE: i16 = 5;

/// One data scope as stored on a role or a member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataScope {
    pub kind: i16,
    /// The org for ORG/ORG_SUBTREE (empty: the member's own); the set for CUSTOM.
    pub org_ids: Vec<Uuid>,
}

impl DataScope {
    /// Reads a scope from a request; `None` when absent or unspecified.
    pub fn from_pb(scope: Option<&pb::DataScope>) -> Result<Option<DataScope>, ServiceError> {
        let Some(scope) = scope else { return Ok(None) };
        let kind = match pb::DataScopeKind::try_from(scope.kind) {
            Ok(pb::DataScopeKind::Unspecified) => return Ok(None),
            Ok(k) => k as i16,
            Err(_) => return Err(ServiceError::invalid("dataScope", "数据权限无效")),
        };
        let mut org_ids = Vec::with_capacity(scope.org_ids.len());
        for id in &scope.org_ids {
            org_ids.push(
                Uuid::parse_str(id.trim())
                    .map_err(|_| ServiceError::invalid("dataScopeOrgIds", "组织不存在"))?,
            );
        }
        org_ids.sort_unstable();
        org_ids.dedup();
        match kind {
            CUSTOM if org_ids.is_empty() => Err(ServiceError::invalid(
                "dataScopeOrgIds",
                "自定义数据权限请至少选择一个组织",
            )),
            ORG | ORG_SUBTREE if org_ids.len() > 1 => Err(ServiceError::invalid(
                "dataScopeOrgIds",
                "本组织数据权限只能选择一个组织",
            )),
            SELF | ENTERPRISE => Ok(Some(DataScope {
                kind,
                org_ids: Vec::new(),
            })),
            _ => Ok(Some(DataScope { kind, org_ids })),
        }
    }

    pub fn to_pb(&self) -> pb::DataScope {
        pb::DataScope {
            kind: i32::from(self.kind),
            org_ids: self.org_ids.iter().map(Uuid::to_string).collect(),
        }
    }

    /// How much a kind reaches, to name the broadest of several.
    pub fn breadth(&self) -> u8 {
        match self.kind {
            ENTERPRISE => 5,
            ORG_SUBTREE => 4,
            CUSTOM => 3,
            ORG => 2,
            SELF => 1,
            _ => 0,
        }
    }
}

/// What a member may see: every row (`all`), or rows of `orgs` and their own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reach {
    pub all: bool,
    pub orgs: BTreeSet<Uuid>,
    /// The member whose own rows are always visible; `None` for services.
    pub own: Option<Uuid>,
}

impl Reach {
    /// A service acting for the tenant sees everything.
    pub fn everything() -> Reach {
        Reach {
            all: true,
            orgs: BTreeSet::new(),
            own: None,
        }
    }

    pub fn sees_org(&self, org: Option<Uuid>) -> bool {
        self.all || org.is_some_and(|o| self.orgs.contains(&o))
    }

    pub fn sees(&self, org: Option<Uuid>, owner: Uuid) -> bool {
        self.sees_org(org) || self.own == Some(owner)
    }

    pub fn org_list(&self) -> Vec<Uuid> {
        self.orgs.iter().copied().collect()
    }

    /// Appends the reach as a condition over `org_column`/`owner_column`:
    /// `(true)` for everything, else the organisations or the owner, bound
    /// as parameters (a whole-enterprise reach adds nothing for the planner).
    pub fn push_condition(
        &self,
        query: &mut sqlx::QueryBuilder<'_, sqlx::Postgres>,
        org_column: &str,
        owner_column: &str,
    ) {
        if self.all {
            query.push("(true)");
            return;
        }
        query.push("(");
        query.push(org_column);
        query.push(" = any(");
        query.push_bind(self.org_list());
        query.push(")");
        if let Some(own) = self.own {
            query.push(" or ");
            query.push(owner_column);
            query.push(" = ");
            query.push_bind(own);
        }
        query.push(")");
    }

    /// The SQL condition of a list over rows with `org_column` and
    /// `owner_column`, taking three parameters from `$first`: bind
    /// `reach.all`, `reach.org_list()` and `reach.own`, in that order.
    pub fn condition(org_column: &str, owner_column: &str, first: usize) -> String {
        format!(
            "(${a}::boolean or {org_column} = any(${b}::uuid[]) or {owner_column} = ${c}::uuid)",
            a = first,
            b = first + 1,
            c = first + 2
        )
    }
}

/// Every organisation at or below `roots` in `tree` ((id, parent) pairs).
pub fn subtree(tree: &[(Uuid, Option<Uuid>)], roots: &[Uuid]) -> BTreeSet<Uuid> {
    let mut children: HashMap<Uuid, Vec<Uuid>> = HashMap::new();
    for (id, parent) in tree {
        if let Some(p) = parent {
            children.entry(*p).or_default().push(*id);
        }
    }
    let known: BTreeSet<Uuid> = tree.iter().map(|(id, _)| *id).collect();
    let mut out = BTreeSet::new();
    let mut stack: Vec<Uuid> = roots
        .iter()
        .copied()
        .filter(|r| known.contains(r))
        .collect();
    while let Some(id) = stack.pop() {
        if out.insert(id) {
            stack.extend(children.get(&id).into_iter().flatten().copied());
        }
    }
    out
}

/// The reach of a member with `scopes` (their own, or their roles'), who
/// belongs to `member_org`, in an enterprise whose tree is `tree`.
pub fn reach(
    scopes: &[DataScope],
    member_id: Uuid,
    member_org: Option<Uuid>,
    tree: &[(Uuid, Option<Uuid>)],
) -> Reach {
    let known: BTreeSet<Uuid> = tree.iter().map(|(id, _)| *id).collect();
    let mut out = Reach {
        all: false,
        orgs: BTreeSet::new(),
        own: Some(member_id),
    };
    for scope in scopes {
        let targets: Vec<Uuid> = if scope.org_ids.is_empty() {
            member_org.into_iter().collect()
        } else {
            scope.org_ids.clone()
        };
        match scope.kind {
            ENTERPRISE => out.all = true,
            ORG => out
                .orgs
                .extend(targets.into_iter().filter(|o| known.contains(o))),
            ORG_SUBTREE => out.orgs.extend(subtree(tree, &targets)),
            CUSTOM => out
                .orgs
                .extend(scope.org_ids.iter().copied().filter(|o| known.contains(o))),
            // SELF (and anything unknown) adds nothing beyond the own rows.
            _ => {}
        }
    }
    if out.all {
        out.orgs.clear();
    }
    out
}

/// The reach as org hands it out (GetPrincipal → the internal token):
/// subtree roots and single organisations, unexpanded, so each domain service
/// expands the subtrees through its own org_unit replica and a moved unit
/// takes its subtree along. Expanded through the same tree it equals
/// [`reach`] (the property test in tests/reach_replica.rs checks it).
pub fn reach_claim(scopes: &[DataScope], member_org: Option<Uuid>) -> pb::Reach {
    let mut all = false;
    let mut subtrees = BTreeSet::new();
    let mut orgs = BTreeSet::new();
    for scope in scopes {
        let targets: Vec<Uuid> = if scope.org_ids.is_empty() {
            member_org.into_iter().collect()
        } else {
            scope.org_ids.clone()
        };
        match scope.kind {
            ENTERPRISE => all = true,
            ORG => orgs.extend(targets),
            ORG_SUBTREE => subtrees.extend(targets),
            CUSTOM => orgs.extend(scope.org_ids.iter().copied()),
            // SELF (and anything unknown) adds nothing beyond the own rows.
            _ => {}
        }
    }
    if all {
        subtrees.clear();
        orgs.clear();
    }
    pb::Reach {
        all,
        subtree_org_ids: subtrees.iter().map(Uuid::to_string).collect(),
        org_ids: orgs.iter().map(Uuid::to_string).collect(),
    }
}

/// (id, parent) of every organisation of the transaction's tenant.
pub async fn tree(conn: &mut PgConnection) -> sqlx::Result<Vec<(Uuid, Option<Uuid>)>> {
    sqlx::query_as("select id, parent_id from org_unit")
        .fetch_all(conn)
        .await
}

/// The scopes a member acts with: their own when set, else their enabled roles'.
pub async fn scopes_of_member(
    conn: &mut PgConnection,
    member_id: Uuid,
) -> sqlx::Result<(Option<Uuid>, Vec<DataScope>)> {
    let member: Option<(Option<Uuid>, Option<i16>, Vec<Uuid>)> = sqlx::query_as(
        "select org_id, data_scope_kind, data_scope_org_ids from member where id = $1",
    )
    .bind(member_id)
    .fetch_optional(&mut *conn)
    .await?;
    let Some((org, own_kind, own_orgs)) = member else {
        return Ok((None, Vec::new()));
    };
    if let Some(kind) = own_kind {
        return Ok((
            org,
            vec![DataScope {
                kind,
                org_ids: own_orgs,
            }],
        ));
    }
    let roles: Vec<(i16, Vec<Uuid>)> = sqlx::query_as(
        "select r.data_scope_kind, r.data_scope_org_ids from role r \
         join member_role mr on mr.role_id = r.id where mr.member_id = $1 and r.status = 1",
    )
    .bind(member_id)
    .fetch_all(&mut *conn)
    .await?;
    Ok((
        org,
        roles
            .into_iter()
            .map(|(kind, org_ids)| DataScope { kind, org_ids })
            .collect(),
    ))
}

/// The reach of a member of the transaction's tenant.
pub async fn of_member(conn: &mut PgConnection, member_id: Uuid) -> sqlx::Result<Reach> {
    let (org, scopes) = scopes_of_member(conn, member_id).await?;
    let tree = tree(conn).await?;
    Ok(reach(&scopes, member_id, org, &tree))
}

/// The reach of a caller: a person's from their scopes, a service's everything.
pub async fn of_caller(conn: &mut PgConnection, member_id: Option<Uuid>) -> sqlx::Result<Reach> {
    match member_id {
        Some(id) => of_member(conn, id).await,
        None => Ok(Reach::everything()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(n: u128) -> Uuid {
        Uuid::from_u128(n)
    }

    /// 1 ─┬─ 2 ── 4
    ///    └─ 3 ── 5 ── 6
    fn tree() -> Vec<(Uuid, Option<Uuid>)> {
        vec![
            (u(1), None),
            (u(2), Some(u(1))),
            (u(3), Some(u(1))),
            (u(4), Some(u(2))),
            (u(5), Some(u(3))),
            (u(6), Some(u(5))),
        ]
    }

    fn scope(kind: i16, orgs: &[u128]) -> DataScope {
        DataScope {
            kind,
            org_ids: orgs.iter().map(|o| u(*o)).collect(),
        }
    }

    fn orgs(r: &Reach) -> Vec<u128> {
        r.orgs.iter().map(|o| o.as_u128()).collect()
    }

    #[test]
    fn each_kind_reaches_what_its_name_says() {
        let me = u(99);
        let t = tree();
        assert!(reach(&[scope(ENTERPRISE, &[])], me, Some(u(3)), &t).all);
        assert_eq!(
            orgs(&reach(&[scope(SELF, &[])], me, Some(u(3)), &t)),
            Vec::<u128>::new()
        );
        assert_eq!(
            orgs(&reach(&[scope(ORG, &[])], me, Some(u(3)), &t)),
            vec![3]
        );
        assert_eq!(
            orgs(&reach(&[scope(ORG_SUBTREE, &[])], me, Some(u(3)), &t)),
            vec![3, 5, 6]
        );
        assert_eq!(
            orgs(&reach(&[scope(ORG_SUBTREE, &[2])], me, Some(u(3)), &t)),
            vec![2, 4]
        );
        assert_eq!(
            orgs(&reach(&[scope(CUSTOM, &[4, 6, 77])], me, None, &t)),
            vec![4, 6]
        );
    }

    #[test]
    fn several_roles_reach_the_union_and_own_rows_stay_visible() {
        let me = u(99);
        let r = reach(&[scope(ORG, &[2]), scope(CUSTOM, &[6])], me, None, &tree());
        assert_eq!(orgs(&r), vec![2, 6]);
        assert!(r.sees(Some(u(5)), me));
        assert!(!r.sees(Some(u(5)), u(98)));
        assert!(r.sees(None, me));
        assert!(!reach(&[], me, Some(u(1)), &tree()).sees_org(Some(u(1))));
    }

    #[test]
    fn the_claim_names_roots_and_single_orgs_unexpanded() {
        let claim = reach_claim(
            &[
                scope(ORG_SUBTREE, &[]),
                scope(ORG, &[2]),
                scope(CUSTOM, &[4, 6]),
            ],
            Some(u(3)),
        );
        assert!(!claim.all);
        assert_eq!(claim.subtree_org_ids, [u(3).to_string()]);
        assert_eq!(
            claim.org_ids,
            [u(2).to_string(), u(4).to_string(), u(6).to_string()]
        );
        let all = reach_claim(&[scope(ENTERPRISE, &[]), scope(ORG, &[2])], None);
        assert!(all.all && all.org_ids.is_empty());
        assert_eq!(
            reach_claim(&[scope(SELF, &[])], Some(u(3))),
            pb::Reach::default()
        );
    }

    #[test]
    fn request_scopes_are_checked_and_normalised() {
        let parse = |kind: pb::DataScopeKind, orgs: &[&str]| {
            DataScope::from_pb(Some(&pb::DataScope {
                kind: kind as i32,
                org_ids: orgs.iter().map(|s| (*s).to_owned()).collect(),
            }))
        };
        assert_eq!(parse(pb::DataScopeKind::Unspecified, &[]).unwrap(), None);
        assert!(parse(pb::DataScopeKind::Custom, &[]).is_err());
        assert!(parse(pb::DataScopeKind::Custom, &["nope"]).is_err());
        let id = u(7).to_string();
        assert!(parse(pb::DataScopeKind::Org, &[&id, &u(8).to_string()]).is_err());
        assert_eq!(
            parse(pb::DataScopeKind::Enterprise, &[&id])
                .unwrap()
                .unwrap()
                .org_ids,
            Vec::<Uuid>::new()
        );
    }
}

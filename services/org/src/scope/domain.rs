//! The rules of data scopes: what each kind reaches over an organisation
//! tree, and how several scopes combine. Pure: the tree and the scopes come
//! from [`super::store`].

use std::collections::{BTreeSet, HashMap};

use fleetdesk_kit::reach::ResolvedReach;
use fleetdesk_proto::org::v1 as pb;
use uuid::Uuid;

use crate::codes::{optional, stored_code};

stored_code!(
    /// How far a data scope reaches (`data_scope_kind` of roles and members).
    ScopeKind => pb::DataScopeKind {
        /// The member's own rows only.
        Self_ = 1,
        /// One organisation (the member's own when none is named).
        Org = 2,
        /// An organisation and everything below it.
        OrgSubtree = 3,
        /// A chosen set of organisations.
        Custom = 4,
        /// The whole enterprise.
        Enterprise = 5,
    }
);

/// One data scope as stored on a role or a member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataScope {
    pub kind: ScopeKind,
    /// The org for ORG/ORG_SUBTREE (empty: the member's own); the set for CUSTOM.
    pub org_ids: Vec<Uuid>,
}

impl DataScope {
    /// A scope read from its columns; `None` (logged) for a kind this
    /// service does not know, which then reaches nothing beyond own rows.
    pub fn stored(kind: i16, org_ids: Vec<Uuid>) -> Option<DataScope> {
        optional(Some(kind)).map(|kind| DataScope { kind, org_ids })
    }

    /// How much a kind reaches, to name the broadest of several.
    pub fn breadth(&self) -> u8 {
        match self.kind {
            ScopeKind::Enterprise => 5,
            ScopeKind::OrgSubtree => 4,
            ScopeKind::Custom => 3,
            ScopeKind::Org => 2,
            ScopeKind::Self_ => 1,
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

    /// The SQL condition of a list over rows with `org_column` and
    /// `owner_column`, taking three parameters from `$first`: bind the
    /// reach's `all`, its organisations and `own`, in that order.
    pub fn condition(org_column: &str, owner_column: &str, first: usize) -> String {
        format!(
            "(${a}::boolean or {org_column} = any(${b}::uuid[]) or {owner_column} = ${c}::uuid)",
            a = first,
            b = first + 1,
            c = first + 2
        )
    }
}

/// Org's reach as the caller's: kit's form, sorted organisations.
impl From<Reach> for ResolvedReach {
    fn from(reach: Reach) -> ResolvedReach {
        let Reach { all, orgs, own } = reach;
        ResolvedReach {
            all,
            org_ids: orgs.into_iter().collect(),
            own,
        }
    }
}

/// Whether a resolved reach takes in the organisation `org` (without the
/// caller's own rows, which have no organisation of their own here).
pub fn sees_org(reach: &ResolvedReach, org: Option<Uuid>) -> bool {
    reach.all || org.is_some_and(|o| reach.org_ids.binary_search(&o).is_ok())
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

/// The organisations a scope names: its own, or the member's for ORG and
/// ORG_SUBTREE without one.
fn targets(scope: &DataScope, member_org: Option<Uuid>) -> Vec<Uuid> {
    if scope.org_ids.is_empty() {
        member_org.into_iter().collect()
    } else {
        scope.org_ids.clone()
    }
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
        match scope.kind {
            ScopeKind::Enterprise => out.all = true,
            ScopeKind::Org => out.orgs.extend(
                targets(scope, member_org)
                    .into_iter()
                    .filter(|o| known.contains(o)),
            ),
            ScopeKind::OrgSubtree => out.orgs.extend(subtree(tree, &targets(scope, member_org))),
            ScopeKind::Custom => out
                .orgs
                .extend(scope.org_ids.iter().copied().filter(|o| known.contains(o))),
            // Nothing beyond the own rows.
            ScopeKind::Self_ => {}
        }
    }
    if out.all {
        out.orgs.clear();
    }
    out
}

/// The reach as org hands it out (GetPrincipal → the internal token):
/// subtree roots and single organisations, unexpanded, so each domain
/// service expands the subtrees through its own org_unit replica and a
/// moved unit takes its subtree along. Expanded through the same tree it
/// equals [`reach`] (the property test in tests/org/reach_replica.rs checks it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Claim {
    pub all: bool,
    pub subtrees: BTreeSet<Uuid>,
    pub orgs: BTreeSet<Uuid>,
}

/// The claim of a member with `scopes` who belongs to `member_org`.
pub fn claim(scopes: &[DataScope], member_org: Option<Uuid>) -> Claim {
    let mut out = Claim::default();
    for scope in scopes {
        match scope.kind {
            ScopeKind::Enterprise => out.all = true,
            ScopeKind::Org => out.orgs.extend(targets(scope, member_org)),
            ScopeKind::OrgSubtree => out.subtrees.extend(targets(scope, member_org)),
            ScopeKind::Custom => out.orgs.extend(scope.org_ids.iter().copied()),
            // Nothing beyond the own rows.
            ScopeKind::Self_ => {}
        }
    }
    if out.all {
        out.subtrees.clear();
        out.orgs.clear();
    }
    out
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

    fn scope(kind: ScopeKind, orgs: &[u128]) -> DataScope {
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
        use ScopeKind::*;
        let me = u(99);
        let t = tree();
        assert!(reach(&[scope(Enterprise, &[])], me, Some(u(3)), &t).all);
        assert_eq!(
            orgs(&reach(&[scope(Self_, &[])], me, Some(u(3)), &t)),
            Vec::<u128>::new()
        );
        assert_eq!(
            orgs(&reach(&[scope(Org, &[])], me, Some(u(3)), &t)),
            vec![3]
        );
        assert_eq!(
            orgs(&reach(&[scope(OrgSubtree, &[])], me, Some(u(3)), &t)),
            vec![3, 5, 6]
        );
        assert_eq!(
            orgs(&reach(&[scope(OrgSubtree, &[2])], me, Some(u(3)), &t)),
            vec![2, 4]
        );
        assert_eq!(
            orgs(&reach(&[scope(Custom, &[4, 6, 77])], me, None, &t)),
            vec![4, 6]
        );
    }

    #[test]
    fn several_roles_reach_the_union_and_own_rows_stay_visible() {
        let me = u(99);
        let r = reach(
            &[scope(ScopeKind::Org, &[2]), scope(ScopeKind::Custom, &[6])],
            me,
            None,
            &tree(),
        );
        assert_eq!(orgs(&r), vec![2, 6]);
        assert!(r.sees(Some(u(5)), me));
        assert!(!r.sees(Some(u(5)), u(98)));
        assert!(r.sees(None, me));
        assert!(!reach(&[], me, Some(u(1)), &tree()).sees_org(Some(u(1))));
    }

    #[test]
    fn the_claim_names_roots_and_single_orgs_unexpanded() {
        use ScopeKind::*;
        let c = claim(
            &[
                scope(OrgSubtree, &[]),
                scope(Org, &[2]),
                scope(Custom, &[4, 6]),
            ],
            Some(u(3)),
        );
        assert!(!c.all);
        assert_eq!(c.subtrees.into_iter().collect::<Vec<_>>(), [u(3)]);
        assert_eq!(c.orgs.into_iter().collect::<Vec<_>>(), [u(2), u(4), u(6)]);
        let all = claim(&[scope(Enterprise, &[]), scope(Org, &[2])], None);
        assert!(all.all && all.orgs.is_empty());
        assert_eq!(claim(&[scope(Self_, &[])], Some(u(3))), Claim::default());
    }

    #[test]
    fn a_resolved_reach_sees_the_same_organisations() {
        let r = reach(&[scope(ScopeKind::Org, &[2])], u(99), None, &tree());
        let resolved = ResolvedReach::from(r);
        assert!(sees_org(&resolved, Some(u(2))));
        assert!(!sees_org(&resolved, Some(u(3))));
        assert!(!sees_org(&resolved, None));
        assert!(sees_org(&ResolvedReach::from(Reach::everything()), None));
    }
}

//! Proto ↔ domain for data scopes: a scope off the wire (checked and
//! normalised), a scope and the reach claim onto it.

use fleetdesk_kit::ServiceError;
use fleetdesk_proto::org::v1 as pb;
use uuid::Uuid;

use super::domain::{self, DataScope, ScopeKind};

/// Reads a scope from a request; `None` when absent or unspecified.
pub fn data_scope(scope: Option<&pb::DataScope>) -> Result<Option<DataScope>, ServiceError> {
    let Some(pb::DataScope { kind, org_ids }) = scope else {
        return Ok(None);
    };
    if *kind == pb::DataScopeKind::Unspecified as i32 {
        return Ok(None);
    }
    let kind = ScopeKind::from_pb(*kind)
        .ok_or_else(|| ServiceError::invalid("dataScope", "数据权限无效"))?;
    let mut ids = Vec::with_capacity(org_ids.len());
    for id in org_ids {
        ids.push(
            Uuid::parse_str(id.trim())
                .map_err(|_| ServiceError::invalid("dataScopeOrgIds", "组织不存在"))?,
        );
    }
    ids.sort_unstable();
    ids.dedup();
    match kind {
        ScopeKind::Custom if ids.is_empty() => Err(ServiceError::invalid(
            "dataScopeOrgIds",
            "自定义数据权限请至少选择一个组织",
        )),
        ScopeKind::Org | ScopeKind::OrgSubtree if ids.len() > 1 => Err(ServiceError::invalid(
            "dataScopeOrgIds",
            "本组织数据权限只能选择一个组织",
        )),
        ScopeKind::Self_ | ScopeKind::Enterprise => Ok(Some(DataScope {
            kind,
            org_ids: Vec::new(),
        })),
        ScopeKind::Org | ScopeKind::OrgSubtree | ScopeKind::Custom => {
            Ok(Some(DataScope { kind, org_ids: ids }))
        }
    }
}

pub fn data_scope_pb(scope: &DataScope) -> pb::DataScope {
    let DataScope { kind, org_ids } = scope;
    pb::DataScope {
        kind: kind.pb(),
        org_ids: org_ids.iter().map(Uuid::to_string).collect(),
    }
}

/// The reach claim of a member (see [`domain::claim`]) as the principal carries it.
pub fn reach_claim(scopes: &[DataScope], member_org: Option<Uuid>) -> pb::Reach {
    let domain::Claim {
        all,
        subtrees,
        orgs,
    } = domain::claim(scopes, member_org);
    pb::Reach {
        all,
        subtree_org_ids: subtrees.iter().map(Uuid::to_string).collect(),
        org_ids: orgs.iter().map(Uuid::to_string).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_scopes_are_checked_and_normalised() {
        let parse = |kind: pb::DataScopeKind, orgs: &[&str]| {
            data_scope(Some(&pb::DataScope {
                kind: kind as i32,
                org_ids: orgs.iter().map(|s| (*s).to_owned()).collect(),
            }))
        };
        assert_eq!(parse(pb::DataScopeKind::Unspecified, &[]).unwrap(), None);
        assert!(parse(pb::DataScopeKind::Custom, &[]).is_err());
        assert!(parse(pb::DataScopeKind::Custom, &["nope"]).is_err());
        let id = Uuid::from_u128(7).to_string();
        assert!(
            parse(
                pb::DataScopeKind::Org,
                &[&id, &Uuid::from_u128(8).to_string()]
            )
            .is_err()
        );
        assert_eq!(
            parse(pb::DataScopeKind::Enterprise, &[&id])
                .unwrap()
                .unwrap()
                .org_ids,
            Vec::<Uuid>::new()
        );
        assert!(
            data_scope(Some(&pb::DataScope {
                kind: 9,
                org_ids: Vec::new()
            }))
            .is_err()
        );
    }

    #[test]
    fn the_claim_of_a_self_scope_is_empty() {
        let scope = DataScope {
            kind: ScopeKind::Self_,
            org_ids: Vec::new(),
        };
        assert_eq!(
            reach_claim(&[scope], Some(Uuid::from_u128(3))),
            pb::Reach::default()
        );
    }
}

//! Who a requested notice reaches: the members it names, and the holders
//! of its permission whose data scope reaches its organisation.
//!
//! A holder is an enabled member, in an enabled organisation (or none),
//! with an enabled role granting the permission, in an enterprise whose
//! lists leave the permission in place (`lists::rules`), as the principal
//! computes it. The data scope is the member's own when set, else the union
//! of their enabled roles' (`scope::domain::reach`); a self-only scope
//! reaches no organisation. Disabled members, named or not, get nothing.

use std::collections::{BTreeSet, HashMap};

use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::store::{self, Holder};
use crate::lists::{self, rules};
use crate::scope::{self, domain::DataScope};

/// Whom a request addresses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Audience {
    pub members: Vec<Uuid>,
    /// A permission value whose holders are addressed.
    pub permission: Option<String>,
    /// The organisation holders must reach (any holder when none).
    pub org: Option<Uuid>,
}

/// Who gets the notice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recipients {
    /// The request names nobody in particular: one notice for everyone.
    Everyone,
    /// These members, one notice each (possibly none).
    Members(BTreeSet<Uuid>),
}

/// The scopes a holder acts with: their own, else their roles'.
fn scopes_of(holder: &Holder, roles: &HashMap<Uuid, Vec<DataScope>>) -> Vec<DataScope> {
    match holder.own_kind {
        Some(kind) => DataScope::stored(kind, holder.own_org_ids.clone())
            .into_iter()
            .collect(),
        None => roles.get(&holder.id).cloned().unwrap_or_default(),
    }
}

/// Resolves `audience` in `enterprise_id`. The lists are read first (they
/// are operator data), then the transaction is entered into the tenant.
pub async fn resolve(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    audience: &Audience,
) -> anyhow::Result<Recipients> {
    if audience.members.is_empty() && audience.permission.is_none() {
        return Ok(Recipients::Everyone);
    }
    let survives = match &audience.permission {
        Some(permission) => {
            let lists = lists::store::of_enterprise(&mut *conn, enterprise_id).await?;
            !rules::effective_permissions([permission.as_str()], &lists.membership).is_empty()
        }
        None => false,
    };
    fleetdesk_kit::db::enter_tenant(&mut *conn, enterprise_id).await?;
    let mut out: BTreeSet<Uuid> = store::enabled_members(&mut *conn, &audience.members)
        .await?
        .into_iter()
        .collect();
    if let (true, Some(permission)) = (survives, &audience.permission) {
        let holders = store::holders(&mut *conn, permission).await?;
        let without_own: Vec<Uuid> = holders
            .iter()
            .filter(|h| h.own_kind.is_none())
            .map(|h| h.id)
            .collect();
        let mut roles: HashMap<Uuid, Vec<DataScope>> = HashMap::new();
        for (member, kind, orgs) in store::role_scopes(&mut *conn, &without_own).await? {
            roles
                .entry(member)
                .or_default()
                .extend(DataScope::stored(kind, orgs));
        }
        let tree = match audience.org {
            Some(_) => scope::store::tree(&mut *conn).await?,
            None => Vec::new(),
        };
        for holder in &holders {
            let reaches = match audience.org {
                None => true,
                Some(org) => scope::domain::reach(
                    &scopes_of(holder, &roles),
                    holder.id,
                    holder.org_id,
                    &tree,
                )
                .sees_org(Some(org)),
            };
            if reaches {
                out.insert(holder.id);
            }
        }
    }
    Ok(Recipients::Members(out))
}

//! Data scope in a domain service: how far a caller's data reaches.
//!
//! Org computes a person's reach once and the gateway signs it into the
//! internal token as a [`ReachClaim`]: the whole enterprise, or organisation
//! subtrees plus single organisations. A domain service expands the subtrees
//! through its own `org_unit` replica (kept by [`crate::org_replica`]), so a
//! moved organisation takes its subtree along at once, and filters every
//! list, detail, count and export through one [`ResolvedReach`]. A person's
//! own rows (created by them) are always visible; a service caller reaches
//! the whole tenant; a person without a claim reaches only their own rows.

use serde::{Deserialize, Serialize};
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use crate::internal_token::Claims;

/// What the gateway signs into the internal token ([`Claims::reach`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReachClaim {
    /// The whole enterprise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub all: bool,
    /// Organisations whose whole subtree is reached (expanded by each service
    /// through its org_unit replica, so a moved unit takes its subtree along).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subtrees: Vec<Uuid>,
    /// Single organisations reached without their children (scope ORG / CUSTOM).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub orgs: Vec<Uuid>,
}

/// A caller's reach as the token states it, before the replica expands it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reach {
    all: bool,
    subtrees: Vec<Uuid>,
    orgs: Vec<Uuid>,
    own: Option<Uuid>,
}

impl Reach {
    /// The reach of a verified caller. Fails closed: a person without a claim
    /// (or with an unreadable user id) reaches only their own rows, or none.
    pub fn of(claims: &Claims) -> Reach {
        if claims.is_service() {
            return Reach {
                all: true,
                subtrees: Vec::new(),
                orgs: Vec::new(),
                own: None,
            };
        }
        let own = claims.user_id().and_then(|u| Uuid::parse_str(u).ok());
        let claim = claims.reach.clone().unwrap_or_default();
        Reach {
            all: claim.all,
            subtrees: claim.subtrees,
            orgs: claim.orgs,
            own,
        }
    }

    /// Whether the caller reaches the whole tenant (no replica lookup needed).
    pub fn is_all(&self) -> bool {
        self.all
    }

    /// Expands subtrees through the tenant's org_unit replica (one indexed
    /// query, inside the caller's tenant transaction). Units the replica does
    /// not know are dropped, as org drops them.
    pub async fn resolve(&self, conn: &mut PgConnection) -> sqlx::Result<ResolvedReach> {
        if self.all {
            return Ok(ResolvedReach {
                all: true,
                org_ids: Vec::new(),
                own: self.own,
            });
        }
        let org_ids: Vec<Uuid> = if self.subtrees.is_empty() && self.orgs.is_empty() {
            Vec::new()
        } else {
            // `~>=~`/`~<~` compare bytewise like the text_pattern_ops index,
            // so each root's descendants are one index range ('~' sorts after
            // every character of a path).
            sqlx::query_scalar(
                "select id from ( \
                   select d.id from org_unit r join org_unit d \
                     on d.enterprise_id = r.enterprise_id \
                    and d.path ~>=~ r.path and d.path ~<~ (r.path || '~') \
                   where r.id = any($1) \
                   union select id from org_unit where id = any($2)) reached \
                 order by id",
            )
            .bind(&self.subtrees)
            .bind(&self.orgs)
            .fetch_all(conn)
            .await?
        };
        Ok(ResolvedReach {
            all: false,
            org_ids,
            own: self.own,
        })
    }
}

/// The organisations `roots` and every one below them, through the tenant's
/// replica: a list's organisation filter ("this unit and its children"),
/// one index range per root like [`Reach::resolve`]. Unknown ids drop out.
pub async fn subtrees(conn: &mut PgConnection, roots: &[Uuid]) -> sqlx::Result<Vec<Uuid>> {
    if roots.is_empty() {
        return Ok(Vec::new());
    }
    sqlx::query_scalar(
        "select distinct d.id from org_unit r join org_unit d \
           on d.enterprise_id = r.enterprise_id \
          and d.path ~>=~ r.path and d.path ~<~ (r.path || '~') \
         where r.id = any($1) order by d.id",
    )
    .bind(roots)
    .fetch_all(conn)
    .await
}

/// A reach with its subtrees expanded: what a query filters by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedReach {
    /// Every row of the tenant.
    pub all: bool,
    /// Organisations whose rows are visible (sorted, unique).
    pub org_ids: Vec<Uuid>,
    /// The person whose own rows are always visible; `None` for services.
    pub own: Option<Uuid>,
}

impl ResolvedReach {
    /// Appends `(true)` or `(<org_column> = any($n) or <creator_column> = $m)`.
    pub fn push_condition(
        &self,
        qb: &mut sqlx::QueryBuilder<'_, sqlx_postgres::Postgres>,
        org_column: &str,
        creator_column: &str,
    ) {
        if self.all {
            qb.push("(true)");
            return;
        }
        qb.push("(");
        qb.push(org_column);
        qb.push(" = any(");
        qb.push_bind(self.org_ids.clone());
        qb.push(")");
        if let Some(own) = self.own {
            qb.push(" or ");
            qb.push(creator_column);
            qb.push(" = ");
            qb.push_bind(own);
        }
        qb.push(")");
    }

    /// For details and writes: may this caller see a row of `org`/`creator`?
    pub fn sees(&self, org: Option<Uuid>, creator: Option<Uuid>) -> bool {
        self.all
            || org.is_some_and(|o| self.org_ids.binary_search(&o).is_ok())
            || (self.own.is_some() && creator == self.own)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn person(reach: Option<ReachClaim>) -> Claims {
        let mut claims = Claims::service("gateway");
        claims.sub = format!("user:{}", Uuid::from_u128(7));
        claims.ent = Some(Uuid::from_u128(1).to_string());
        claims.reach = reach;
        claims
    }

    fn sql(reach: &ResolvedReach) -> String {
        let mut qb = sqlx::QueryBuilder::new("select 1 from t where ");
        reach.push_condition(&mut qb, "t.org_id", "t.created_by");
        qb.into_sql()
    }

    #[test]
    fn a_service_reaches_everything_and_owns_nothing() {
        let reach = Reach::of(&Claims::service("vehicle"));
        assert!(reach.is_all());
        assert_eq!(reach.own, None);
    }

    #[test]
    fn a_person_without_a_claim_reaches_only_their_own_rows() {
        let reach = Reach::of(&person(None));
        assert!(!reach.all && reach.subtrees.is_empty() && reach.orgs.is_empty());
        assert_eq!(reach.own, Some(Uuid::from_u128(7)));
    }

    #[test]
    fn a_claim_carries_into_the_reach() {
        let claim = ReachClaim {
            all: false,
            subtrees: vec![Uuid::from_u128(2)],
            orgs: vec![Uuid::from_u128(3)],
        };
        let reach = Reach::of(&person(Some(claim)));
        assert_eq!(reach.subtrees, [Uuid::from_u128(2)]);
        assert_eq!(reach.orgs, [Uuid::from_u128(3)]);
    }

    #[test]
    fn the_condition_is_true_for_all_and_binds_orgs_and_owner_otherwise() {
        let all = ResolvedReach {
            all: true,
            org_ids: Vec::new(),
            own: Some(Uuid::from_u128(7)),
        };
        assert_eq!(sql(&all), "select 1 from t where (true)");
        let some = ResolvedReach {
            all: false,
            org_ids: vec![Uuid::from_u128(2)],
            own: Some(Uuid::from_u128(7)),
        };
        assert_eq!(
            sql(&some),
            "select 1 from t where (t.org_id = any($1) or t.created_by = $2)"
        );
        let service_none = ResolvedReach {
            all: false,
            org_ids: Vec::new(),
            own: None,
        };
        assert_eq!(
            sql(&service_none),
            "select 1 from t where (t.org_id = any($1))"
        );
    }

    #[test]
    fn sees_checks_the_org_set_and_the_creator() {
        let (o1, o2, me, other) = (
            Uuid::from_u128(1),
            Uuid::from_u128(2),
            Uuid::from_u128(7),
            Uuid::from_u128(8),
        );
        let reach = ResolvedReach {
            all: false,
            org_ids: vec![o1],
            own: Some(me),
        };
        assert!(reach.sees(Some(o1), Some(other)));
        assert!(!reach.sees(Some(o2), Some(other)));
        assert!(reach.sees(Some(o2), Some(me)));
        assert!(reach.sees(None, Some(me)));
        assert!(!reach.sees(None, None));
        let nobody = ResolvedReach {
            all: false,
            org_ids: Vec::new(),
            own: None,
        };
        assert!(!nobody.sees(None, None));
    }

    #[test]
    fn the_claim_serialises_compactly_and_reads_back() {
        let claim = ReachClaim {
            all: false,
            subtrees: vec![Uuid::from_u128(2)],
            orgs: Vec::new(),
        };
        let json = serde_json::to_string(&claim).unwrap();
        assert_eq!(
            json,
            format!(r#"{{"subtrees":["{}"]}}"#, Uuid::from_u128(2))
        );
        assert_eq!(serde_json::from_str::<ReachClaim>(&json).unwrap(), claim);
        assert_eq!(
            serde_json::from_str::<ReachClaim>(r#"{"all":true}"#).unwrap(),
            ReachClaim {
                all: true,
                ..ReachClaim::default()
            }
        );
    }
}

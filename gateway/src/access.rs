//! Who may call which route. Each handler declares its access in its
//! `#[utoipa::path(security(..))]`, right next to the route:
//!
//! - `security(())` — public;
//! - `security(("personal" = []))` — any live session, personal or
//!   enterprise: routes about the person rather than an enterprise (listing
//!   and choosing enterprises, logout, own password). The handler takes a
//!   [`Person`];
//! - `security(("token" = []))` — a signed-in user in an enterprise (an
//!   enterprise session; a personal one answers 1001 "请先选择企业");
//! - `security(("token" = ["a", "b"]))` — such a user holding any of the values.
//!
//! `personal` and `token` are two security schemes on the same `token`
//! header: the scheme names the kind of session a route accepts, and the
//! scopes of `token` stay purely permission values.
//!
//! A route that only some enterprises may call (console spec §6) says so in
//! `extensions(("x-enterprise" = json!("mustB2B")))` beside its security:
//! `mustB2B` (B2B enterprises only), `noB2B` (never B2B ones) or
//! `orderCenter` (the order-centre list or the SF group). Others answer 9999
//! as a missing permission does; see [`EnterpriseRule`].
//!
//! At start-up the OpenAPI document is read into an [`AccessTable`]; the
//! `crate::guard::enforce` middleware looks every request up by its matched route. A route
//! with no declaration is refused (fail closed) and fails the tests.

use std::collections::BTreeMap;

use axum::extract::FromRequestParts;
use axum::http::Method;
use axum::http::request::Parts;
use fleetdesk_kit::ServiceError;
use fleetdesk_proto::org::v1::EnterpriseFlags;

use crate::envelope::ApiError;
use crate::session::cache::{Person, Principal};

/// The security scheme of routes that need an enterprise session.
pub const SCHEME: &str = "token";
/// The security scheme of routes that accept any live session.
pub const PERSONAL_SCHEME: &str = "personal";

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Access {
    Public,
    /// Any live session; the handler sees the [`Person`].
    Personal,
    /// An enterprise session; the handler sees the [`Principal`].
    SignedIn,
    /// An enterprise session holding any of the permission values.
    AnyOf(Vec<String>),
}

/// Which enterprises may call a route, beyond the caller's permissions
/// (the route meta flags `mustB2B`/`noB2B` and the order-centre list of
/// console spec §6), read from the operation's `x-enterprise` extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnterpriseRule {
    MustB2b,
    NoB2b,
    OrderCenter,
}

/// The OpenAPI extension naming a route's [`EnterpriseRule`].
pub const ENTERPRISE_EXTENSION: &str = "x-enterprise";

impl EnterpriseRule {
    fn from_name(name: &str) -> Option<EnterpriseRule> {
        match name {
            "mustB2B" => Some(EnterpriseRule::MustB2b),
            "noB2B" => Some(EnterpriseRule::NoB2b),
            "orderCenter" => Some(EnterpriseRule::OrderCenter),
            _ => None,
        }
    }

    /// Whether an enterprise with these list flags may call the route.
    pub fn admits(self, flags: &EnterpriseFlags) -> bool {
        match self {
            EnterpriseRule::MustB2b => flags.b2b,
            EnterpriseRule::NoB2b => !flags.b2b,
            EnterpriseRule::OrderCenter => flags.order_center || flags.sf,
        }
    }
}

#[derive(Debug, Default)]
pub struct AccessTable {
    routes: BTreeMap<(String, String), Access>,
    enterprise_rules: BTreeMap<(String, String), EnterpriseRule>,
}

const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

impl AccessTable {
    /// Reads every operation's security; errors name operations without one.
    pub fn from_openapi(doc: &utoipa::openapi::OpenApi) -> Result<AccessTable, String> {
        let json = serde_json::to_value(doc).map_err(|e| e.to_string())?;
        let mut table = AccessTable::default();
        let mut undeclared = Vec::new();
        let mut unknown_rules = Vec::new();
        let paths = json
            .get("paths")
            .and_then(|p| p.as_object())
            .cloned()
            .unwrap_or_default();
        for (path, item) in paths {
            for method in METHODS {
                let Some(op) = item.get(method) else { continue };
                if let Some(rule) = op.get(ENTERPRISE_EXTENSION) {
                    match rule.as_str().and_then(EnterpriseRule::from_name) {
                        Some(rule) => {
                            table
                                .enterprise_rules
                                .insert((method.to_uppercase(), path.clone()), rule);
                        }
                        None => unknown_rules.push(format!("{} {path}", method.to_uppercase())),
                    }
                }
                match op.get("security").and_then(|s| s.as_array()) {
                    Some(requirements) => {
                        table.routes.insert(
                            (method.to_uppercase(), path.clone()),
                            access_of(requirements),
                        );
                    }
                    None => undeclared.push(format!("{} {path}", method.to_uppercase())),
                }
            }
        }
        if !unknown_rules.is_empty() {
            return Err(format!(
                "routes with an unknown {ENTERPRISE_EXTENSION}: {}",
                unknown_rules.join(", ")
            ));
        }
        if undeclared.is_empty() {
            Ok(table)
        } else {
            Err(format!(
                "routes without an access decision: {}",
                undeclared.join(", ")
            ))
        }
    }

    /// The enterprise rule of a route, if it has one (HEAD as GET).
    pub fn enterprise_rule(&self, method: &Method, path: &str) -> Option<EnterpriseRule> {
        let method = if method == Method::HEAD {
            Method::GET
        } else {
            method.clone()
        };
        self.enterprise_rules
            .get(&(method.as_str().to_owned(), path.to_owned()))
            .copied()
    }

    /// The access of a route; HEAD is served by GET and shares its decision.
    pub fn get(&self, method: &Method, path: &str) -> Option<&Access> {
        let method = if method == Method::HEAD {
            Method::GET
        } else {
            method.clone()
        };
        self.routes
            .get(&(method.as_str().to_owned(), path.to_owned()))
    }

    /// The methods a declared path answers (empty for an unknown path).
    pub fn methods_of(&self, path: &str) -> Vec<&str> {
        self.routes
            .keys()
            .filter(|(_, p)| p == path)
            .map(|(m, _)| m.as_str())
            .collect()
    }

    /// Every (method, path, access), for tests and the catalogue.
    pub fn entries(&self) -> impl Iterator<Item = (&str, &str, &Access)> {
        self.routes
            .iter()
            .map(|((m, p), a)| (m.as_str(), p.as_str(), a))
    }
}

pub fn access_of(requirements: &[serde_json::Value]) -> Access {
    let mut scopes = Vec::new();
    for requirement in requirements {
        let Some(map) = requirement.as_object() else {
            continue;
        };
        if map.is_empty() {
            return Access::Public;
        }
        if map.contains_key(PERSONAL_SCHEME) {
            return Access::Personal;
        }
        if let Some(values) = map.get(SCHEME).and_then(|v| v.as_array()) {
            scopes.extend(values.iter().filter_map(|v| v.as_str().map(str::to_owned)));
        }
    }
    if scopes.is_empty() {
        Access::SignedIn
    } else {
        Access::AnyOf(scopes)
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Principal {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        parts
            .extensions
            .get::<Principal>()
            .cloned()
            .ok_or_else(|| ApiError(ServiceError::unauthenticated()))
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Person {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        parts
            .extensions
            .get::<Person>()
            .cloned()
            .ok_or_else(|| ApiError(ServiceError::unauthenticated()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn security_requirements_read_as_access() {
        assert_eq!(access_of(&[serde_json::json!({})]), Access::Public);
        assert_eq!(
            access_of(&[serde_json::json!({ "token": [] })]),
            Access::SignedIn
        );
        assert_eq!(
            access_of(&[serde_json::json!({ "token": ["a", "b"] })]),
            Access::AnyOf(vec!["a".into(), "b".into()])
        );
        assert_eq!(
            access_of(&[serde_json::json!({ "personal": [] })]),
            Access::Personal
        );
    }

    fn table_of(rule: &str) -> Result<AccessTable, String> {
        let doc = serde_json::json!({
            "openapi": "3.1.0",
            "info": { "title": "t", "version": "1" },
            "paths": { "/api/v1/x": { "post": {
                "responses": {},
                "security": [{ "token": ["v"] }],
                "x-enterprise": rule,
            } } }
        });
        AccessTable::from_openapi(&serde_json::from_value(doc).map_err(|e| e.to_string())?)
    }

    #[test]
    fn enterprise_rules_are_read_from_the_extension_and_unknown_ones_refused() {
        let table = table_of("mustB2B").unwrap();
        assert_eq!(
            table.enterprise_rule(&Method::POST, "/api/v1/x"),
            Some(EnterpriseRule::MustB2b)
        );
        assert_eq!(table.enterprise_rule(&Method::GET, "/api/v1/x"), None);
        assert!(table_of("b2b").is_err());
    }

    #[test]
    fn b2b_routes_admit_only_b2b_enterprises_and_the_order_centre_its_lists() {
        let b2b = EnterpriseFlags {
            b2b: true,
            ..Default::default()
        };
        let plain = EnterpriseFlags::default();
        let sf = EnterpriseFlags {
            sf: true,
            ..Default::default()
        };
        let listed = EnterpriseFlags {
            order_center: true,
            ..Default::default()
        };
        assert!(EnterpriseRule::MustB2b.admits(&b2b) && !EnterpriseRule::MustB2b.admits(&plain));
        assert!(EnterpriseRule::NoB2b.admits(&plain) && !EnterpriseRule::NoB2b.admits(&b2b));
        assert!(
            EnterpriseRule::OrderCenter.admits(&sf) && EnterpriseRule::OrderCenter.admits(&listed)
        );
        assert!(!EnterpriseRule::OrderCenter.admits(&b2b));
    }
}

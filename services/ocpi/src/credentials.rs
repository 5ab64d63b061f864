//! The configuration modules of OCPI 2.2.1 through which two parties meet:
//! versions (which OCPI versions a party speaks, each with the URL of its
//! details), version details (the modules of one version: identifier,
//! interface role, URL) and credentials (the tokens the parties present
//! to each other, exchanged in the registration handshake).
//!
//! The handshake as energy (the eMSP, receiver of the credentials POST)
//! and the platform (the CPO, its sender) run it:
//! 1. energy hands the platform its versions URL and a bootstrap token A,
//!    outside OCPI;
//! 2. the platform GETs energy's versions and version details with A, and
//!    POSTs its [`Credentials`]: its token B and its own versions URL;
//! 3. energy GETs the platform's versions and details with B, keeps the
//!    endpoints it needs and answers its own credentials with a fresh token
//!    C; from then on the platform presents C, energy presents B, and A is
//!    spent.

use serde::{Deserialize, Serialize};

use crate::BusinessDetails;

/// OCPI status codes of the registration (beside [`crate::status`]).
pub mod status {
    /// The server could not GET the client's versions or version details.
    pub const UNABLE_TO_USE_CLIENT_API: u32 = 3001;
    /// The client speaks no version the server does.
    pub const UNSUPPORTED_VERSION: u32 = 3002;
    /// The client's version lacks a module the server needs.
    pub const NO_MATCHING_ENDPOINTS: u32 = 3003;
}

/// Where both parties here serve their versions (each on its own host;
/// the standard leaves the paths to each party, only URLs are exchanged).
pub const VERSIONS_PATH: &str = "/ocpi/versions";
/// Where both parties here serve the details of [`crate::VERSION`].
pub const DETAILS_PATH: &str = "/ocpi/2.2.1";

/// Longest credentials token the standard allows.
pub const MAX_TOKEN_LEN: usize = 64;

/// One version a party speaks and where its details are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Version {
    /// A VersionNumber (`2.2.1`); kept as text, since a party may list
    /// versions newer than any this side knows.
    pub version: String,
    pub url: String,
}

/// The versions list: the one `version` wanted, if the party speaks it.
pub fn pick<'a>(versions: &'a [Version], version: &str) -> Option<&'a Version> {
    versions.iter().find(|v| v.version == version)
}

/// The modules of one version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VersionDetails {
    pub version: String,
    pub endpoints: Vec<Endpoint>,
}

impl VersionDetails {
    /// The URL of module `identifier` in interface role `role`. The role of
    /// a `credentials` endpoint is disregarded, as the standard advises.
    pub fn url(&self, identifier: &ModuleId, role: InterfaceRole) -> Option<&str> {
        self.endpoints
            .iter()
            .find(|e| {
                e.identifier == *identifier
                    && (e.role == role || *identifier == ModuleId::Credentials)
            })
            .map(|e| e.url.as_str())
    }
}

/// One module of a version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Endpoint {
    pub identifier: ModuleId,
    pub role: InterfaceRole,
    pub url: String,
}

/// Which side of a module an endpoint implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum InterfaceRole {
    /// The owner of the data: the other party pulls from it.
    Sender,
    /// The other party pushes to it.
    Receiver,
}

/// A module identifier: the standard's, or a custom one (the standard lets
/// parties extend the list; ours carry an `x-` prefix).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum ModuleId {
    Cdrs,
    ChargingProfiles,
    Commands,
    Credentials,
    HubClientInfo,
    Locations,
    Sessions,
    Tariffs,
    Tokens,
    Custom(String),
}

impl ModuleId {
    pub fn as_str(&self) -> &str {
        match self {
            ModuleId::Cdrs => "cdrs",
            ModuleId::ChargingProfiles => "chargingprofiles",
            ModuleId::Commands => "commands",
            ModuleId::Credentials => "credentials",
            ModuleId::HubClientInfo => "hubclientinfo",
            ModuleId::Locations => "locations",
            ModuleId::Sessions => "sessions",
            ModuleId::Tariffs => "tariffs",
            ModuleId::Tokens => "tokens",
            ModuleId::Custom(id) => id,
        }
    }
}

impl From<String> for ModuleId {
    fn from(id: String) -> ModuleId {
        match id.as_str() {
            "cdrs" => ModuleId::Cdrs,
            "chargingprofiles" => ModuleId::ChargingProfiles,
            "commands" => ModuleId::Commands,
            "credentials" => ModuleId::Credentials,
            "hubclientinfo" => ModuleId::HubClientInfo,
            "locations" => ModuleId::Locations,
            "sessions" => ModuleId::Sessions,
            "tariffs" => ModuleId::Tariffs,
            "tokens" => ModuleId::Tokens,
            _ => ModuleId::Custom(id),
        }
    }
}

impl From<ModuleId> for String {
    fn from(id: ModuleId) -> String {
        match id {
            ModuleId::Custom(id) => id,
            standard => standard.as_str().to_owned(),
        }
    }
}

impl std::fmt::Display for ModuleId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A party's credentials: the token the other party presents to it, its
/// versions URL and the roles it plays.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Credentials {
    pub token: String,
    pub url: String,
    pub roles: Vec<CredentialsRole>,
}

impl Credentials {
    /// The first role of kind `role` the party plays.
    pub fn role(&self, role: Role) -> Option<&CredentialsRole> {
        self.roles.iter().find(|r| r.role == role)
    }
}

/// One role of a party.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CredentialsRole {
    pub role: Role,
    pub business_details: BusinessDetails,
    /// CiString(3).
    pub party_id: String,
    /// ISO 3166 alpha-2, CiString(2).
    pub country_code: String,
}

/// The roles a party can play.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Role {
    Cpo,
    Emsp,
    Hub,
    Nap,
    Nsp,
    Other,
    Scsp,
}

/// Why a credentials token cannot be taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenError {
    Empty,
    /// Longer than [`MAX_TOKEN_LEN`].
    TooLong,
    /// A character outside printable, non-whitespace ASCII (U+0021–U+007E).
    NotPrintable,
}

impl std::fmt::Display for TokenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TokenError::Empty => "the token is empty",
            TokenError::TooLong => "the token is longer than 64 characters",
            TokenError::NotPrintable => {
                "the token has characters other than printable, non-whitespace ASCII"
            }
        })
    }
}

impl std::error::Error for TokenError {}

/// Checks a credentials token as the standard writes it: 1 to 64
/// characters, each printable non-whitespace ASCII.
pub fn check_token(token: &str) -> Result<(), TokenError> {
    if token.is_empty() {
        Err(TokenError::Empty)
    } else if token.len() > MAX_TOKEN_LEN {
        Err(TokenError::TooLong)
    } else if !token.bytes().all(|b| (0x21..=0x7e).contains(&b)) {
        Err(TokenError::NotPrintable)
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The standard's own examples (examples/*.json of OCPI 2.2.1).

    #[test]
    fn the_standards_minimal_cpo_credentials_read() {
        let c: Credentials = serde_json::from_str(
            r#"{
                "token": "ebf3b399-779f-4497-9b9d-ac6ad3cc44d2",
                "url": "https://example.com/ocpi/versions",
                "roles": [{
                    "role": "CPO",
                    "party_id": "EXA",
                    "country_code": "NL",
                    "business_details": { "name": "Example Operator" }
                }]
            }"#,
        )
        .unwrap();
        let cpo = c.role(Role::Cpo).unwrap();
        assert_eq!(cpo.party_id, "EXA");
        assert_eq!(cpo.country_code, "NL");
        assert_eq!(cpo.business_details.name, "Example Operator");
        assert!(c.role(Role::Emsp).is_none());
        assert_eq!(check_token(&c.token), Ok(()));
    }

    #[test]
    fn credentials_with_full_business_details_read_their_name() {
        let c: Credentials = serde_json::from_str(
            r#"{
                "token": "9e80ae10-28be-11e9-b210-d663bd873d93",
                "url": "https://example.com/ocpi/versions",
                "roles": [{
                    "role": "CPO",
                    "party_id": "EXA",
                    "country_code": "NL",
                    "business_details": {
                        "name": "Example Operator",
                        "logo": {
                            "url": "https://example.com/img/logo.jpg",
                            "thumbnail": "https://example.com/img/logo_thumb.jpg",
                            "category": "OPERATOR",
                            "type": "jpeg",
                            "width": 512,
                            "height": 512
                        },
                        "website": "http://example.com"
                    }
                }]
            }"#,
        )
        .unwrap();
        assert_eq!(c.roles[0].business_details.name, "Example Operator");
    }

    #[test]
    fn the_versions_list_yields_the_version_wanted() {
        let versions: Vec<Version> = serde_json::from_str(
            r#"[
                { "version": "2.1.1", "url": "https://www.server.com/ocpi/2.1.1" },
                { "version": "2.2.1", "url": "https://www.server.com/ocpi/2.2.1" }
            ]"#,
        )
        .unwrap();
        assert_eq!(
            pick(&versions, "2.2.1").map(|v| v.url.as_str()),
            Some("https://www.server.com/ocpi/2.2.1")
        );
        assert!(pick(&versions, "2.2").is_none());
    }

    #[test]
    fn version_details_find_a_module_by_identifier_and_role() {
        let details: VersionDetails = serde_json::from_str(
            r#"{
                "version": "2.2",
                "endpoints": [
                    { "identifier": "credentials", "role": "SENDER",
                      "url": "https://example.com/ocpi/2.2/credentials" },
                    { "identifier": "locations", "role": "SENDER",
                      "url": "https://example.com/ocpi/cpo/2.2/locations" }
                ]
            }"#,
        )
        .unwrap();
        assert_eq!(
            details.url(&ModuleId::Locations, InterfaceRole::Sender),
            Some("https://example.com/ocpi/cpo/2.2/locations")
        );
        assert_eq!(
            details.url(&ModuleId::Locations, InterfaceRole::Receiver),
            None
        );
        // The credentials endpoint's role carries no meaning.
        assert_eq!(
            details.url(&ModuleId::Credentials, InterfaceRole::Receiver),
            Some("https://example.com/ocpi/2.2/credentials")
        );
        assert_eq!(details.url(&ModuleId::Tariffs, InterfaceRole::Sender), None);
    }

    #[test]
    fn custom_module_ids_survive_a_round_trip() {
        let e: Endpoint = serde_json::from_str(
            r#"{ "identifier": "x-plate-scans", "role": "RECEIVER", "url": "https://e/x" }"#,
        )
        .unwrap();
        assert_eq!(e.identifier, ModuleId::Custom("x-plate-scans".to_owned()));
        let back = serde_json::to_value(&e).unwrap();
        assert_eq!(back["identifier"], "x-plate-scans");
        let standard = serde_json::to_value(ModuleId::ChargingProfiles).unwrap();
        assert_eq!(standard, "chargingprofiles");
        assert_eq!(
            ModuleId::from("hubclientinfo".to_owned()),
            ModuleId::HubClientInfo
        );
    }

    #[test]
    fn an_unknown_role_does_not_read() {
        let role = serde_json::from_str::<Role>(r#""DRIVER""#);
        assert!(role.is_err());
        assert_eq!(
            serde_json::from_str::<Role>(r#""EMSP""#).unwrap(),
            Role::Emsp
        );
    }

    #[test]
    fn tokens_must_be_short_printable_ascii_without_spaces() {
        assert_eq!(check_token(""), Err(TokenError::Empty));
        assert_eq!(check_token(&"a".repeat(65)), Err(TokenError::TooLong));
        assert_eq!(check_token(&"a".repeat(64)), Ok(()));
        assert_eq!(check_token("has space"), Err(TokenError::NotPrintable));
        assert_eq!(check_token("tab\there"), Err(TokenError::NotPrintable));
        assert_eq!(check_token("令牌"), Err(TokenError::NotPrintable));
    }
}

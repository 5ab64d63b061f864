//! Insurance policies (保险管理, carGuaranteeSlip and its hidden
//! insuranceOrder, the policy's documents): what covers each vehicle of the
//! enterprise and when it runs out.
//!
//! Rules (`domain`):
//! - A policy covers one vehicle: its kind (交强险 compulsory, 商业险
//!   commercial, carrier liability, cargo), insurer, policy number
//!   (**unique per insurer** within the enterprise), insured party, period
//!   (end after start), total premium in fen, coverage items (name, sum
//!   insured, premium and deductible in fen; names unique within the policy,
//!   a commercial policy needs at least one) and documents (PDF or images the
//!   enterprise uploaded, purpose `document`).
//! - Its expiry state is read from its period at the time of asking:
//!   PENDING (not started), ACTIVE (valid), EXPIRING (ends within 30 days),
//!   EXPIRED. Nothing stores it, so the expiring and expired lists are ranges
//!   of the end-time index (`insurance_policy_end_idx`).
//! - Recording and correcting a policy write an operation-log row in the same
//!   transaction (business type INSURANCE_POLICY, shown on the detail).
//! - The list filters by plates, VINs, organisation subtrees, kind, insurer,
//!   policy number, expiry state and end-time range under the caller's reach,
//!   latest end first; the export walks the same filter; the import takes an
//!   xlsx (all rows or none, plates within the caller's reach).
//! - A document is answered only for a policy the caller may see and only
//!   when it is one of that policy's documents; the gateway turns it into a
//!   short-lived signed link.
//!
//! The permission is `as:insurance`; enterprises on the insurance blacklist
//! lose it in org's effective permissions (console spec §6), so every RPC
//! here refuses them. Due policies reach the warnings through events built
//! elsewhere. Reads fleetdesk-assets' vehicles; writes only its own table and
//! the operation log.

pub mod convert;
pub mod domain;
pub mod export;
pub mod handlers;
pub mod import;
pub mod store;

/// The permission of the insurance pages.
pub const PERMISSION: &str = "as:insurance";

/// The permission of the policy documents' links (the file-link viewer's).
pub const FILE_PERMISSION: &str = "as:insurance:file";

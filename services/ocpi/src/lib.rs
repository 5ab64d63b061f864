//! OCPI 2.2.1 as the charging platform (the CPO) and energy (the eMSP)
//! speak it: the modules both sides use, their JSON objects, the response
//! envelope and the `Authorization: Token …` header. One definition for
//! both ends, like the JT/T 808 codec the device edge and the simulator
//! share.
//!
//! Who serves what (paths under [`CPO_BASE`] and [`EMSP_BASE`]):
//! - CPO, sender of Locations and Tariffs: `GET locations`, `GET tariffs`
//!   (offset/limit paging, `X-Total-Count`); receiver of Commands:
//!   `POST commands/STOP_SESSION`.
//! - eMSP, sender of Tokens: `GET tokens` (the CPO learns the cards and
//!   plates it may see) and real-time authorisation
//!   `POST tokens/{uid}/authorize?type=…`; receiver of Sessions
//!   (`PUT`/`PATCH sessions/{country}/{party}/{id}`), CDRs (`POST cdrs`),
//!   EVSE status (`PATCH locations/{country}/{party}/{location}/{evse}`) and
//!   command results (`POST commands/STOP_SESSION/{id}`, the `response_url`
//!   energy hands out).
//!
//! Vendor extensions (fields prefixed `x_`, one module prefixed `x-`):
//! - Chinese tariffs charge a service fee per kWh beside the electricity
//!   price: a [`TariffElement`] carries `x_service_fee` (CNY/kWh) and
//!   `x_period` (peak/flat/valley); sessions and CDRs carry
//!   `x_total_service_fee`, and a CDR's `total_energy_cost` is the
//!   electricity part alone.
//! - A [`Location`] carries its GB/T 2260 `x_city_code`, whether its
//!   cameras recognise plates (`x_plate_recognition`), `x_truck_friendly`
//!   and `x_parking_note`.
//! - Plate cameras push recognitions to the eMSP:
//!   `POST x-plate-scans` with a [`PlateScan`]. A session started by plate
//!   then authorises the plate as a token of type `OTHER` (uid = plate).
//!
//! Credentials are configured on both sides rather than exchanged through
//! the `credentials` module.

pub mod decimal;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

pub use decimal::Decimal;

/// Version spoken.
pub const VERSION: &str = "2.2.1";
/// Path prefix of the CPO's modules.
pub const CPO_BASE: &str = "/ocpi/cpo/2.2.1";
/// Path prefix of the eMSP's modules.
pub const EMSP_BASE: &str = "/ocpi/emsp/2.2.1";
/// The vendor module of plate recognitions, under [`EMSP_BASE`].
pub const PLATE_SCAN_MODULE: &str = "x-plate-scans";
/// Country code of every party here.
pub const COUNTRY: &str = "CN";
/// ISO 4217 currency of every price here.
pub const CURRENCY: &str = "CNY";
/// Most objects one page of a list answers.
pub const MAX_PAGE: usize = 100;
/// Paging header: how many objects the whole list holds.
pub const TOTAL_COUNT_HEADER: &str = "X-Total-Count";
/// Paging header: the page size the server used.
pub const LIMIT_HEADER: &str = "X-Limit";

// ---------------------------------------------------------------------------
// Transport
// ---------------------------------------------------------------------------

/// The `Authorization` header value for `token` (OCPI 2.2.1: base64 of the token).
pub fn authorization(token: &str) -> String {
    use base64::Engine as _;
    format!(
        "Token {}",
        base64::engine::general_purpose::STANDARD.encode(token)
    )
}

/// The token an `Authorization` header carries, if it is a well-formed one.
pub fn token_of(header: &str) -> Option<String> {
    use base64::Engine as _;
    let encoded = header.strip_prefix("Token ")?.trim();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .ok()?;
    String::from_utf8(bytes).ok().filter(|t| !t.is_empty())
}

/// OCPI status codes of the response envelope.
pub mod status {
    pub const SUCCESS: u32 = 1000;
    pub const CLIENT_ERROR: u32 = 2000;
    pub const INVALID_PARAMETERS: u32 = 2001;
    pub const NOT_ENOUGH_INFORMATION: u32 = 2002;
    pub const UNKNOWN_LOCATION: u32 = 2003;
    pub const UNKNOWN_TOKEN: u32 = 2004;
    pub const SERVER_ERROR: u32 = 3000;
}

/// Every OCPI answer's body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Envelope<T> {
    #[serde(default = "none", skip_serializing_if = "Option::is_none")]
    pub data: Option<T>,
    pub status_code: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    pub timestamp: DateTime<Utc>,
}

fn none<T>() -> Option<T> {
    None
}

impl<T> Envelope<T> {
    pub fn success(data: T) -> Envelope<T> {
        Envelope {
            data: Some(data),
            status_code: status::SUCCESS,
            status_message: Some("Success".to_owned()),
            timestamp: Utc::now(),
        }
    }

    /// A success without data (the answer to a push).
    pub fn acknowledged() -> Envelope<T> {
        Envelope {
            data: None,
            status_code: status::SUCCESS,
            status_message: Some("Success".to_owned()),
            timestamp: Utc::now(),
        }
    }

    pub fn error(status_code: u32, message: impl Into<String>) -> Envelope<T> {
        Envelope {
            data: None,
            status_code,
            status_message: Some(message.into()),
            timestamp: Utc::now(),
        }
    }

    pub fn is_success(&self) -> bool {
        self.status_code == status::SUCCESS
    }
}

/// An answer with no data.
pub type Empty = Envelope<serde_json::Value>;

/// Query of a paged GET (`date_from`/`date_to` on `last_updated`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PageQuery {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date_from: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date_to: Option<DateTime<Utc>>,
    #[serde(default)]
    pub offset: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
}

impl PageQuery {
    /// The page size to serve: the asked limit, at most [`MAX_PAGE`].
    pub fn limit(&self) -> usize {
        self.limit.unwrap_or(MAX_PAGE).clamp(1, MAX_PAGE)
    }
}

/// A short text shown to the driver.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DisplayText {
    pub language: String,
    pub text: String,
}

impl DisplayText {
    pub fn zh(text: impl Into<String>) -> DisplayText {
        DisplayText {
            language: "zh".to_owned(),
            text: text.into(),
        }
    }
}

/// An amount in [`CURRENCY`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Price {
    pub excl_vat: Decimal,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incl_vat: Option<Decimal>,
}

impl Price {
    /// A price of `fen` VAT included, at `vat_percent` (Chinese prices are
    /// quoted with VAT): `excl_vat` is `fen / (1 + rate)` to the nearest fen.
    pub fn fen_with_vat(fen: i64, vat_percent: u32) -> Price {
        let divisor = 100 + i128::from(vat_percent);
        // Half away from zero, so a credit is the exact negation of its charge.
        let magnitude = (i128::from(fen).abs() * 200 + divisor) / (divisor * 2);
        let excl = if fen < 0 { -magnitude } else { magnitude };
        Price {
            excl_vat: Decimal::from_scaled(excl as i64, decimal::FEN_PER_CNY),
            incl_vat: Some(Decimal::from_scaled(fen, decimal::FEN_PER_CNY)),
        }
    }

    /// The sum of two prices (None when either does not read as fen).
    pub fn plus(&self, other: &Price) -> Option<Price> {
        let excl = self.excl_vat_fen()? + other.excl_vat_fen()?;
        let incl = self.to_fen()? + other.to_fen()?;
        Some(Price {
            excl_vat: Decimal::from_scaled(excl, decimal::FEN_PER_CNY),
            incl_vat: Some(Decimal::from_scaled(incl, decimal::FEN_PER_CNY)),
        })
    }

    /// The amount in fen (VAT included when given).
    pub fn to_fen(&self) -> Option<i64> {
        self.incl_vat
            .as_ref()
            .unwrap_or(&self.excl_vat)
            .to_scaled(decimal::FEN_PER_CNY)
    }

    /// The amount without VAT, in fen.
    pub fn excl_vat_fen(&self) -> Option<i64> {
        self.excl_vat.to_scaled(decimal::FEN_PER_CNY)
    }
}

// ---------------------------------------------------------------------------
// Locations
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GeoLocation {
    /// Decimal degrees (WGS-84) as text, as OCPI has it.
    pub latitude: String,
    pub longitude: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BusinessDetails {
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hours {
    pub twentyfourseven: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum EvseStatus {
    Available,
    Blocked,
    Charging,
    Inoperative,
    Outoforder,
    Planned,
    Removed,
    Reserved,
    Unknown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ConnectorStandard {
    /// GB/T 20234.3 DC.
    GbtDc,
    /// GB/T 20234.2 AC.
    GbtAc,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ConnectorFormat {
    Socket,
    Cable,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum PowerType {
    Ac1Phase,
    Ac3Phase,
    Dc,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Connector {
    pub id: String,
    pub standard: ConnectorStandard,
    pub format: ConnectorFormat,
    pub power_type: PowerType,
    pub max_voltage: u32,
    pub max_amperage: u32,
    /// Watts.
    pub max_electric_power: u32,
    #[serde(default)]
    pub tariff_ids: Vec<String>,
    pub last_updated: DateTime<Utc>,
}

/// One charge point (pile) with its connectors.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evse {
    pub uid: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evse_id: Option<String>,
    pub status: EvseStatus,
    pub connectors: Vec<Connector>,
    /// The pile number painted on site.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub physical_reference: Option<String>,
    pub last_updated: DateTime<Utc>,
}

/// A charging station.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Location {
    pub country_code: String,
    pub party_id: String,
    pub id: String,
    pub publish: bool,
    pub name: String,
    pub address: String,
    pub city: String,
    pub country: String,
    pub coordinates: GeoLocation,
    #[serde(default)]
    pub evses: Vec<Evse>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operator: Option<BusinessDetails>,
    pub time_zone: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opening_times: Option<Hours>,
    pub last_updated: DateTime<Utc>,
    /// Vendor: GB/T 2260 code of the city (e.g. 440300).
    #[serde(default)]
    pub x_city_code: String,
    /// Vendor: the station's cameras recognise plates and start sessions.
    #[serde(default)]
    pub x_plate_recognition: bool,
    /// Vendor: room for trucks (height, turning space).
    #[serde(default)]
    pub x_truck_friendly: bool,
    /// Vendor: parking terms, e.g. 充电免费停车2小时.
    #[serde(default)]
    pub x_parking_note: String,
}

/// The EVSE fields a status push changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvsePatch {
    pub status: EvseStatus,
    pub last_updated: DateTime<Utc>,
}

// ---------------------------------------------------------------------------
// Tariffs
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum TariffDimensionType {
    Energy,
    Flat,
    ParkingTime,
    Time,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PriceComponent {
    #[serde(rename = "type")]
    pub kind: TariffDimensionType,
    /// CNY per unit (per kWh for ENERGY).
    pub price: Decimal,
    pub step_size: u32,
}

/// Time of day an element applies, local time `HH:MM`, end exclusive
/// (`00:00` as end means midnight).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TariffRestrictions {
    pub start_time: String,
    pub end_time: String,
}

impl TariffRestrictions {
    /// `[start, end)` in minutes after local midnight; an end of `00:00`
    /// (or `24:00`) is midnight at the end of the day. `None` when a time is
    /// malformed or the range is empty.
    pub fn minutes(&self) -> Option<(u16, u16)> {
        let start = minute_of(&self.start_time)?;
        let end = match minute_of(&self.end_time)? {
            0 => 24 * 60,
            end => end,
        };
        (start < end).then_some((start, end))
    }

    /// The restriction of `[start, end)` minutes after local midnight.
    pub fn of_minutes(start: u16, end: u16) -> TariffRestrictions {
        let text = |m: u16| format!("{:02}:{:02}", (m / 60) % 24, m % 60);
        TariffRestrictions {
            start_time: text(start),
            end_time: text(end),
        }
    }
}

/// Minutes after midnight of `HH:MM` (`24:00` allowed).
fn minute_of(text: &str) -> Option<u16> {
    let (h, m) = text.split_once(':')?;
    if h.len() != 2 || m.len() != 2 {
        return None;
    }
    let (h, m) = (h.parse::<u16>().ok()?, m.parse::<u16>().ok()?);
    (m < 60 && (h < 24 || (h == 24 && m == 0))).then_some(h * 60 + m)
}

/// The time-of-use band of a tariff element (vendor).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum TouPeriod {
    Peak,
    Flat,
    Valley,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TariffElement {
    /// ENERGY: the electricity price per kWh.
    pub price_components: Vec<PriceComponent>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restrictions: Option<TariffRestrictions>,
    /// Vendor: service fee, CNY per kWh.
    pub x_service_fee: Decimal,
    /// Vendor: the band this element prices.
    pub x_period: TouPeriod,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tariff {
    pub country_code: String,
    pub party_id: String,
    pub id: String,
    pub currency: String,
    pub elements: Vec<TariffElement>,
    pub last_updated: DateTime<Utc>,
}

// ---------------------------------------------------------------------------
// Tokens
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum TokenType {
    AdHocUser,
    AppUser,
    /// Here: a licence plate recognised by the station's cameras.
    Other,
    Rfid,
}

impl TokenType {
    /// The `type` query value of an authorisation request.
    pub fn as_query(self) -> &'static str {
        match self {
            TokenType::AdHocUser => "AD_HOC_USER",
            TokenType::AppUser => "APP_USER",
            TokenType::Other => "OTHER",
            TokenType::Rfid => "RFID",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum WhitelistType {
    Always,
    Allowed,
    AllowedOffline,
    Never,
}

/// A card (RFID) or a plate (OTHER) the eMSP answers for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Token {
    pub country_code: String,
    pub party_id: String,
    pub uid: String,
    #[serde(rename = "type")]
    pub kind: TokenType,
    pub contract_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visual_number: Option<String>,
    pub issuer: String,
    /// Tokens of one card share it (the card and its vehicle's plate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_id: Option<String>,
    pub valid: bool,
    pub whitelist: WhitelistType,
    pub last_updated: DateTime<Utc>,
}

/// Query of an authorisation request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuthorizeQuery {
    #[serde(rename = "type", default = "rfid")]
    pub kind: TokenType,
}

fn rfid() -> TokenType {
    TokenType::Rfid
}

/// Where the driver wants to charge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocationReferences {
    pub location_id: String,
    #[serde(default)]
    pub evse_uids: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum AllowedType {
    Allowed,
    Blocked,
    Expired,
    NoCredit,
    NotAllowed,
}

/// The eMSP's answer to an authorisation request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuthorizationInfo {
    pub allowed: AllowedType,
    pub token: Token,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<LocationReferences>,
    /// Set when allowed: the CPO repeats it in the session and the CDR.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_reference: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub info: Option<DisplayText>,
}

// ---------------------------------------------------------------------------
// Sessions and CDRs
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CdrToken {
    pub country_code: String,
    pub party_id: String,
    pub uid: String,
    #[serde(rename = "type")]
    pub kind: TokenType,
    pub contract_id: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum AuthMethod {
    AuthRequest,
    Command,
    Whitelist,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum SessionStatus {
    Active,
    Completed,
    Invalid,
    Pending,
    Reservation,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum CdrDimensionType {
    Current,
    Energy,
    EnergyExport,
    EnergyImport,
    MaxCurrent,
    MinCurrent,
    MaxPower,
    MinPower,
    ParkingTime,
    Power,
    ReservationTime,
    /// Battery state of charge, percent.
    StateOfCharge,
    Time,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CdrDimension {
    #[serde(rename = "type")]
    pub kind: CdrDimensionType,
    pub volume: Decimal,
}

/// One stretch of a session at one tariff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChargingPeriod {
    pub start_date_time: DateTime<Utc>,
    pub dimensions: Vec<CdrDimension>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tariff_id: Option<String>,
}

impl ChargingPeriod {
    /// The volume of a dimension, if the period has it.
    pub fn volume(&self, kind: CdrDimensionType) -> Option<&Decimal> {
        self.dimensions
            .iter()
            .find(|d| d.kind == kind)
            .map(|d| &d.volume)
    }
}

/// A session as the CPO PUTs it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Session {
    pub country_code: String,
    pub party_id: String,
    pub id: String,
    pub start_date_time: DateTime<Utc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_date_time: Option<DateTime<Utc>>,
    pub kwh: Decimal,
    pub cdr_token: CdrToken,
    pub auth_method: AuthMethod,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_reference: Option<String>,
    pub location_id: String,
    pub evse_uid: String,
    pub connector_id: String,
    pub currency: String,
    #[serde(default)]
    pub charging_periods: Vec<ChargingPeriod>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_cost: Option<Price>,
    /// Vendor: the service-fee part of `total_cost`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x_total_service_fee: Option<Price>,
    pub status: SessionStatus,
    pub last_updated: DateTime<Utc>,
}

/// The fields a session PATCH may carry; `last_updated` always.
/// `charging_periods` in a PATCH are new periods, appended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionPatch {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kwh: Option<Decimal>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_date_time: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub charging_periods: Vec<ChargingPeriod>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_cost: Option<Price>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x_total_service_fee: Option<Price>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<SessionStatus>,
    pub last_updated: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CdrLocation {
    pub id: String,
    pub name: String,
    pub address: String,
    pub city: String,
    pub country: String,
    pub coordinates: GeoLocation,
    pub evse_uid: String,
    pub evse_id: String,
    pub connector_id: String,
    pub connector_standard: ConnectorStandard,
    pub connector_format: ConnectorFormat,
    pub connector_power_type: PowerType,
}

/// The charge detail record: the final, billable account of a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cdr {
    pub country_code: String,
    pub party_id: String,
    pub id: String,
    pub start_date_time: DateTime<Utc>,
    pub end_date_time: DateTime<Utc>,
    /// Absent when the CPO has no Sessions module (or a reservation never
    /// became a session).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    pub cdr_token: CdrToken,
    pub auth_method: AuthMethod,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_reference: Option<String>,
    pub cdr_location: CdrLocation,
    pub currency: String,
    #[serde(default)]
    pub tariffs: Vec<Tariff>,
    pub charging_periods: Vec<ChargingPeriod>,
    /// Everything the session cost; negative only in a credit CDR.
    pub total_cost: Price,
    /// The part of `total_cost` for starting the session (FLAT components).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_fixed_cost: Option<Price>,
    /// kWh.
    pub total_energy: Decimal,
    /// The part of `total_cost` for energy (here the electricity alone: the
    /// service fee per kWh is `x_total_service_fee`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_energy_cost: Option<Price>,
    /// Hours.
    pub total_time: Decimal,
    /// The part of `total_cost` for charging time (TIME components).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_time_cost: Option<Price>,
    /// Hours of the session not charging.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_parking_time: Option<Decimal>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_parking_cost: Option<Price>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_reservation_cost: Option<Price>,
    /// Vendor: the service-fee part of `total_cost`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x_total_service_fee: Option<Price>,
    /// Why the session ended, e.g. `REMOTE` (a STOP_SESSION), `LOCAL`, `FULL`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remark: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invoice_reference_id: Option<String>,
    /// A credit CDR: it takes back the CDR `credit_reference_id` names,
    /// with that CDR's data and `total_cost` negated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credit: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credit_reference_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub home_charging_compensation: Option<bool>,
    pub last_updated: DateTime<Utc>,
}

impl Cdr {
    /// Whether this is a credit CDR.
    pub fn is_credit(&self) -> bool {
        self.credit == Some(true)
    }
}

// ---------------------------------------------------------------------------
// Commands
// ---------------------------------------------------------------------------

/// Body of `POST commands/STOP_SESSION` to the CPO.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StopSession {
    /// Where the CPO posts the [`CommandResult`].
    pub response_url: String,
    pub session_id: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum CommandResponseType {
    NotSupported,
    Rejected,
    Accepted,
    UnknownSession,
}

/// The CPO's immediate answer to a command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandResponse {
    pub result: CommandResponseType,
    /// Seconds within which the result follows.
    pub timeout: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<DisplayText>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum CommandResultType {
    Accepted,
    CanceledReservation,
    EvseOccupied,
    EvseInoperative,
    Failed,
    NotSupported,
    Rejected,
    Timeout,
    UnknownReservation,
}

/// What the charge point did with a command, posted to its `response_url`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandResult {
    pub result: CommandResultType,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<DisplayText>,
}

// ---------------------------------------------------------------------------
// Plate recognition (vendor module `x-plate-scans`)
// ---------------------------------------------------------------------------

/// A plate a station camera recognised at an EVSE.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlateScan {
    pub country_code: String,
    pub party_id: String,
    /// Unique per CPO: a repeated push is the same recognition.
    pub id: String,
    pub location_id: String,
    pub evse_uid: String,
    pub plate: String,
    pub scanned_at: DateTime<Utc>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_header_round_trips_and_refuses_other_schemes() {
        let header = authorization("secret-1");
        assert_eq!(header, "Token c2VjcmV0LTE=");
        assert_eq!(token_of(&header).as_deref(), Some("secret-1"));
        assert_eq!(token_of("Bearer c2VjcmV0LTE="), None);
        assert_eq!(token_of("Token !!"), None);
    }

    #[test]
    fn enums_travel_in_ocpi_spelling() {
        let json = serde_json::to_string(&[CdrDimensionType::StateOfCharge]).unwrap();
        assert_eq!(json, r#"["STATE_OF_CHARGE"]"#);
        let json = serde_json::to_string(&ConnectorStandard::GbtDc).unwrap();
        assert_eq!(json, r#""GBT_DC""#);
        let query: AuthorizeQuery = serde_json::from_str(r#"{"type":"OTHER"}"#).unwrap();
        assert_eq!(query.kind, TokenType::Other);
    }

    #[test]
    fn restrictions_read_as_minutes_with_midnight_at_the_end() {
        let r = TariffRestrictions::of_minutes(22 * 60, 24 * 60);
        assert_eq!(
            (r.start_time.as_str(), r.end_time.as_str()),
            ("22:00", "00:00")
        );
        assert_eq!(r.minutes(), Some((1320, 1440)));
        assert_eq!(
            TariffRestrictions::of_minutes(0, 480).minutes(),
            Some((0, 480))
        );
        for (start, end) in [("10:00", "09:00"), ("7:00", "08:00"), ("10:60", "11:00")] {
            let r = TariffRestrictions {
                start_time: start.into(),
                end_time: end.into(),
            };
            assert_eq!(r.minutes(), None, "{start}-{end}");
        }
    }

    #[test]
    fn an_error_envelope_has_no_data() {
        let e: Empty = Envelope::error(status::UNKNOWN_TOKEN, "unknown");
        let json = serde_json::to_value(&e).unwrap();
        assert!(json.get("data").is_none());
        assert_eq!(json["status_code"], 2004);
        let back: Empty = serde_json::from_value(json).unwrap();
        assert!(!back.is_success());
    }

    #[test]
    fn a_price_reads_vat_inclusive_fen_and_carries_its_vat() {
        let p = Price::fen_with_vat(11_300, 13);
        assert_eq!(p.to_fen(), Some(11_300));
        assert_eq!(p.excl_vat_fen(), Some(10_000));
        let json = serde_json::to_string(&p).unwrap();
        assert_eq!(json, r#"{"excl_vat":100,"incl_vat":113}"#);
        // To the nearest fen, both signs alike.
        assert_eq!(Price::fen_with_vat(1_000, 13).excl_vat_fen(), Some(885));
        assert_eq!(Price::fen_with_vat(-1_000, 13).excl_vat_fen(), Some(-885));
        assert_eq!(Price::fen_with_vat(500, 0).excl_vat_fen(), Some(500));
        // Without incl_vat the amount is excl_vat.
        let bare: Price = serde_json::from_str(r#"{"excl_vat":4.0}"#).unwrap();
        assert_eq!(bare.to_fen(), Some(400));
    }
}

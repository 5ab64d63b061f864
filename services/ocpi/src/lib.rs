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
//!   Locations (`GET`/`PUT`/`PATCH locations/{country}/{party}/{location}`
//!   `[/{evse}[/{connector}]]`, EVSE status pushes above all), Tariffs
//!   (`GET`/`PUT`/`DELETE tariffs/{country}/{party}/{id}`) and command
//!   results (`POST commands/STOP_SESSION/{id}`, the `response_url` energy
//!   hands out).
//!
//! Vendor extensions (fields prefixed `x_`, one module prefixed `x-`):
//! - Chinese tariffs charge a service fee per kWh beside the electricity
//!   price: a [`TariffElement`] may carry `x_service_fee` (CNY/kWh) and
//!   `x_period` (peak/flat/valley) — a tariff without them is a standard
//!   one and reads as well; sessions and CDRs carry
//!   `x_total_service_fee`, and a CDR's `total_energy_cost` is the
//!   electricity part alone.
//! - A [`Location`] carries its GB/T 2260 `x_city_code`, whether its
//!   cameras recognise plates (`x_plate_recognition`), `x_truck_friendly`
//!   and `x_parking_note`.
//! - Plate cameras push recognitions to the eMSP:
//!   `POST x-plate-scans` with a [`PlateScan`]. A session started by plate
//!   then authorises the plate's token of type `OTHER`: its uid is ASCII,
//!   as a CiString must be, and the plate its `visual_number` (the eMSP's
//!   token list says which uid carries which plate).
//!
//! Money: amounts are read exactly ([`Decimal`]) and booked in fen; a CDR's
//! `total_cost` is itemised by `total_energy_cost`, `total_time_cost`,
//! `total_parking_cost`, `total_fixed_cost`, `total_reservation_cost` and
//! our `x_total_service_fee`; a credit CDR (`credit`,
//! `credit_reference_id`) carries the negated `total_cost` of the CDR it
//! takes back. Both ends send `X-Request-ID`/`X-Correlation-ID` and page
//! lists with `Link` ([`next_link`], [`next_page`]).
//!
//! The objects follow OCPI 2.2.1 field for field: optional fields are
//! `Option`s (absent when `None`), lists default to empty, and timestamps
//! travel as OCPI DateTimes ([`datetime`]: written `2015-06-29T20:39:09Z`).
//!
//! The parties meet through the configuration modules ([`credentials`]):
//! the CPO registers with the eMSP by the credentials handshake (versions,
//! version details, then `POST credentials`), so each side learns the
//! other's endpoints and the token to present from the other, and neither
//! is configured with the other's tokens.

pub mod credentials;
pub mod datetime;
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
/// Every request carries a unique id, which its answer repeats.
pub const REQUEST_ID_HEADER: &str = "X-Request-ID";
/// Every request and answer of one exchange carries the same id.
pub const CORRELATION_ID_HEADER: &str = "X-Correlation-ID";

/// A `Link` header naming the next page of a list.
pub fn next_link(url: &str) -> String {
    format!("<{url}>; rel=\"next\"")
}

/// The next page a `Link` header names, if it names one.
pub fn next_page(link: &str) -> Option<String> {
    link.split(',').find_map(|part| {
        let (target, params) = part.trim().split_once(';')?;
        let next = params
            .split(';')
            .any(|p| p.trim().trim_start_matches("rel=").trim_matches('"') == "next");
        let url = target.trim().strip_prefix('<')?.strip_suffix('>')?;
        next.then(|| url.to_owned())
    })
}

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
    #[serde(with = "datetime")]
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
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "datetime::option"
    )]
    pub date_from: Option<DateTime<Utc>>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "datetime::option"
    )]
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

/// A point (WGS-84), decimal degrees as text as OCPI has it (`"51.047599"`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GeoLocation {
    pub latitude: String,
    pub longitude: String,
}

/// A point of interest near a location (a parking entrance, say).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdditionalGeoLocation {
    pub latitude: String,
    pub longitude: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<DisplayText>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BusinessDetails {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logo: Option<Image>,
}

impl BusinessDetails {
    /// A business known by its name alone.
    pub fn named(name: impl Into<String>) -> BusinessDetails {
        BusinessDetails {
            name: name.into(),
            website: None,
            logo: None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ImageCategory {
    Charger,
    Entrance,
    Location,
    Network,
    Operator,
    Other,
    Owner,
}

/// A photo or logo, by URL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Image {
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thumbnail: Option<String>,
    pub category: ImageCategory,
    /// gif, jpeg, png, svg.
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
}

/// Opening or access hours: around the clock, or by weekday, with exceptions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hours {
    pub twentyfourseven: bool,
    /// Only when not `twentyfourseven`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub regular_hours: Vec<RegularHours>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exceptional_openings: Vec<ExceptionalPeriod>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exceptional_closings: Vec<ExceptionalPeriod>,
}

impl Hours {
    /// Open 24 hours a day, 7 days a week, without exceptions.
    pub fn always() -> Hours {
        Hours {
            twentyfourseven: true,
            regular_hours: Vec::new(),
            exceptional_openings: Vec::new(),
            exceptional_closings: Vec::new(),
        }
    }
}

/// Hours of one weekday, local time `HH:MM`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegularHours {
    /// Monday 1 to Sunday 7.
    pub weekday: u8,
    pub period_begin: String,
    pub period_end: String,
}

/// An exception to the regular hours, UTC.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExceptionalPeriod {
    #[serde(with = "datetime")]
    pub period_begin: DateTime<Utc>,
    #[serde(with = "datetime")]
    pub period_end: DateTime<Utc>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum EnergySourceCategory {
    Nuclear,
    GeneralFossil,
    Coal,
    Gas,
    GeneralGreen,
    Solar,
    Wind,
    Water,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnergySource {
    pub source: EnergySourceCategory,
    /// 0–100.
    pub percentage: Decimal,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum EnvironmentalImpactCategory {
    NuclearWaste,
    CarbonDioxide,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnvironmentalImpact {
    pub category: EnvironmentalImpactCategory,
    /// g/kWh.
    pub amount: Decimal,
}

/// The energy supplied at a location or with a tariff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnergyMix {
    pub is_green_energy: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub energy_sources: Vec<EnergySource>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub environ_impact: Vec<EnvironmentalImpact>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supplier_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub energy_product_name: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Facility {
    Hotel,
    Restaurant,
    Cafe,
    Mall,
    Supermarket,
    Sport,
    RecreationArea,
    Nature,
    Museum,
    BikeSharing,
    BusStop,
    TaxiStand,
    TramStop,
    MetroStation,
    TrainStation,
    Airport,
    ParkingLot,
    CarpoolParking,
    FuelStation,
    Wifi,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ParkingType {
    AlongMotorway,
    ParkingGarage,
    ParkingLot,
    OnDriveway,
    OnStreet,
    UndergroundGarage,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ParkingRestriction {
    EvOnly,
    Plugged,
    Disabled,
    Customers,
    Motorcycles,
}

/// Tokens a location that is not published may still be shown to: every
/// field set must match.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublishTokenType {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<TokenType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visual_number: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_id: Option<String>,
}

/// The status of an EVSE (OCPI's `Status`).
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

/// A status planned for a period.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusSchedule {
    #[serde(with = "datetime")]
    pub period_begin: DateTime<Utc>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "datetime::option"
    )]
    pub period_end: Option<DateTime<Utc>>,
    pub status: EvseStatus,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Capability {
    ChargingProfileCapable,
    ChargingPreferencesCapable,
    ChipCardSupport,
    ContactlessCardSupport,
    CreditCardPayable,
    DebitCardPayable,
    PedTerminal,
    RemoteStartStopCapable,
    Reservable,
    RfidReader,
    StartSessionConnectorRequired,
    TokenGroupCapable,
    UnlockCapable,
}

/// The socket or plug standard of a connector (OCPI's `ConnectorType`;
/// the spellings are the standard's, some of them not upper case).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ConnectorType {
    #[serde(rename = "CHADEMO")]
    Chademo,
    /// The ChaoJi connector, harmonised between CHAdeMO and GB/T, DC.
    #[serde(rename = "CHAOJI")]
    Chaoji,
    #[serde(rename = "DOMESTIC_A")]
    DomesticA,
    #[serde(rename = "DOMESTIC_B")]
    DomesticB,
    #[serde(rename = "DOMESTIC_C")]
    DomesticC,
    #[serde(rename = "DOMESTIC_D")]
    DomesticD,
    #[serde(rename = "DOMESTIC_E")]
    DomesticE,
    #[serde(rename = "DOMESTIC_F")]
    DomesticF,
    #[serde(rename = "DOMESTIC_G")]
    DomesticG,
    #[serde(rename = "DOMESTIC_H")]
    DomesticH,
    #[serde(rename = "DOMESTIC_I")]
    DomesticI,
    #[serde(rename = "DOMESTIC_J")]
    DomesticJ,
    #[serde(rename = "DOMESTIC_K")]
    DomesticK,
    #[serde(rename = "DOMESTIC_L")]
    DomesticL,
    #[serde(rename = "DOMESTIC_M")]
    DomesticM,
    #[serde(rename = "DOMESTIC_N")]
    DomesticN,
    #[serde(rename = "DOMESTIC_O")]
    DomesticO,
    /// GB/T 20234.2 AC.
    #[serde(rename = "GBT_AC")]
    GbtAc,
    /// GB/T 20234.3 DC.
    #[serde(rename = "GBT_DC")]
    GbtDc,
    #[serde(rename = "IEC_60309_2_single_16")]
    Iec60309_2Single16,
    #[serde(rename = "IEC_60309_2_three_16")]
    Iec60309_2Three16,
    #[serde(rename = "IEC_60309_2_three_32")]
    Iec60309_2Three32,
    #[serde(rename = "IEC_60309_2_three_64")]
    Iec60309_2Three64,
    /// Type 1, SAE J1772.
    #[serde(rename = "IEC_62196_T1")]
    Iec62196T1,
    /// CCS Combo 1, DC.
    #[serde(rename = "IEC_62196_T1_COMBO")]
    Iec62196T1Combo,
    /// Type 2, Mennekes.
    #[serde(rename = "IEC_62196_T2")]
    Iec62196T2,
    /// CCS Combo 2, DC.
    #[serde(rename = "IEC_62196_T2_COMBO")]
    Iec62196T2Combo,
    #[serde(rename = "IEC_62196_T3A")]
    Iec62196T3a,
    #[serde(rename = "IEC_62196_T3C")]
    Iec62196T3c,
    #[serde(rename = "NEMA_5_20")]
    Nema5_20,
    #[serde(rename = "NEMA_6_30")]
    Nema6_30,
    #[serde(rename = "NEMA_6_50")]
    Nema6_50,
    #[serde(rename = "NEMA_10_30")]
    Nema10_30,
    #[serde(rename = "NEMA_10_50")]
    Nema10_50,
    #[serde(rename = "NEMA_14_30")]
    Nema14_30,
    #[serde(rename = "NEMA_14_50")]
    Nema14_50,
    #[serde(rename = "PANTOGRAPH_BOTTOM_UP")]
    PantographBottomUp,
    #[serde(rename = "PANTOGRAPH_TOP_DOWN")]
    PantographTopDown,
    #[serde(rename = "TESLA_R")]
    TeslaR,
    #[serde(rename = "TESLA_S")]
    TeslaS,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ConnectorFormat {
    Socket,
    Cable,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PowerType {
    #[serde(rename = "AC_1_PHASE")]
    Ac1Phase,
    /// Two of the three phases connected.
    #[serde(rename = "AC_2_PHASE")]
    Ac2Phase,
    /// Two phases of a split-phase system.
    #[serde(rename = "AC_2_PHASE_SPLIT")]
    Ac2PhaseSplit,
    #[serde(rename = "AC_3_PHASE")]
    Ac3Phase,
    #[serde(rename = "DC")]
    Dc,
}

impl PowerType {
    /// Phases (of `max_voltage` line to neutral) the power adds up over.
    fn phases(self) -> u64 {
        match self {
            PowerType::Ac1Phase | PowerType::Dc => 1,
            PowerType::Ac2Phase | PowerType::Ac2PhaseSplit => 2,
            PowerType::Ac3Phase => 3,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Connector {
    pub id: String,
    pub standard: ConnectorType,
    pub format: ConnectorFormat,
    pub power_type: PowerType,
    /// Volts (line to neutral for AC_3_PHASE).
    pub max_voltage: u32,
    /// Amperes.
    pub max_amperage: u32,
    /// Watts, when less than voltage and amperage make.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_electric_power: Option<u32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tariff_ids: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terms_and_conditions: Option<String>,
    #[serde(with = "datetime")]
    pub last_updated: DateTime<Utc>,
}

impl Connector {
    /// Most watts the connector delivers: `max_electric_power` when given,
    /// else voltage × amperage over its phases.
    pub fn max_power_w(&self) -> u64 {
        match self.max_electric_power {
            Some(w) => u64::from(w),
            None => {
                u64::from(self.max_voltage)
                    * u64::from(self.max_amperage)
                    * self.power_type.phases()
            }
        }
    }
}

/// One charge point (pile) with its connectors, one usable at a time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evse {
    pub uid: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evse_id: Option<String>,
    pub status: EvseStatus,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub status_schedule: Vec<StatusSchedule>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capabilities: Vec<Capability>,
    /// At least one.
    pub connectors: Vec<Connector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub floor_level: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coordinates: Option<GeoLocation>,
    /// The pile number painted on site.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub physical_reference: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub directions: Vec<DisplayText>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parking_restrictions: Vec<ParkingRestriction>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<Image>,
    #[serde(with = "datetime")]
    pub last_updated: DateTime<Utc>,
}

/// A charging station.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Location {
    pub country_code: String,
    pub party_id: String,
    pub id: String,
    /// Whether apps may show it; when not, only to `publish_allowed_to`.
    pub publish: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub publish_allowed_to: Vec<PublishTokenType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub address: String,
    pub city: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub postal_code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// ISO 3166-1 alpha-3.
    pub country: String,
    pub coordinates: GeoLocation,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub related_locations: Vec<AdditionalGeoLocation>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parking_type: Option<ParkingType>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evses: Vec<Evse>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub directions: Vec<DisplayText>,
    /// When absent, the business of the party's credentials.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operator: Option<BusinessDetails>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suboperator: Option<BusinessDetails>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<BusinessDetails>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub facilities: Vec<Facility>,
    /// IANA, e.g. Asia/Shanghai.
    pub time_zone: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opening_times: Option<Hours>,
    /// Whether EVs keep charging outside the opening hours (absent: true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub charging_when_closed: Option<bool>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<Image>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub energy_mix: Option<EnergyMix>,
    /// When it or one of its EVSEs or connectors last changed.
    #[serde(with = "datetime")]
    pub last_updated: DateTime<Utc>,
    /// Vendor: GB/T 2260 code of the city (e.g. 440300).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub x_city_code: String,
    /// Vendor: the station's cameras recognise plates and start sessions.
    #[serde(default, skip_serializing_if = "is_false")]
    pub x_plate_recognition: bool,
    /// Vendor: room for trucks (height, turning space).
    #[serde(default, skip_serializing_if = "is_false")]
    pub x_truck_friendly: bool,
    /// Vendor: parking terms, e.g. 充电免费停车2小时.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub x_parking_note: String,
}

fn is_false(value: &bool) -> bool {
    !*value
}

impl Location {
    pub fn evse(&self, uid: &str) -> Option<&Evse> {
        self.evses.iter().find(|e| e.uid == uid)
    }
}

impl Evse {
    pub fn connector(&self, id: &str) -> Option<&Connector> {
        self.connectors.iter().find(|c| c.id == id)
    }
}

impl ConnectorType {
    /// The power a connector of this standard delivers when the standard
    /// alone says so: DC for the DC-only plugs (CHAdeMO, ChaoJi, the CCS
    /// combos, GB/T DC, pantographs); AC for sockets and plugs built for
    /// alternating current, at `AC_1_PHASE` unless the standard names
    /// three phases (a Type 2 or GB/T AC point may be wired for one or
    /// three: the fewer is claimed). None where it does not say (Tesla's
    /// plugs carry either).
    pub fn implied_power_type(self) -> Option<PowerType> {
        use ConnectorType::*;
        match self {
            Chademo | Chaoji | GbtDc | Iec62196T1Combo | Iec62196T2Combo | PantographBottomUp
            | PantographTopDown => Some(PowerType::Dc),
            DomesticA | DomesticB | DomesticC | DomesticD | DomesticE | DomesticF | DomesticG
            | DomesticH | DomesticI | DomesticJ | DomesticK | DomesticL | DomesticM | DomesticN
            | DomesticO | GbtAc | Iec60309_2Single16 | Iec62196T1 | Iec62196T2 | Iec62196T3a
            | Iec62196T3c | Nema5_20 | Nema6_30 | Nema6_50 | Nema10_30 | Nema10_50 | Nema14_30
            | Nema14_50 => Some(PowerType::Ac1Phase),
            Iec60309_2Three16 | Iec60309_2Three32 | Iec60309_2Three64 => Some(PowerType::Ac3Phase),
            TeslaR | TeslaS => None,
        }
    }
}

/// What a receiver fills in a pushed Location, EVSE or Connector (a PUT
/// body, as JSON) before reading it, so that one sent as real platforms
/// (and the standard's own `location_put_example_add_evse.json`) send them
/// is taken rather than refused; what is sent (ours) stays complete:
/// - `last_updated` absent: `received` on the pushed object itself, and on
///   an EVSE or connector inside it its parent's (the time that covers it:
///   a parent's `last_updated` is never before its parts').
/// - A connector's `power_type` absent: what its `standard` implies
///   ([`ConnectorType::implied_power_type`]); left absent (the object is
///   refused) when the standard does not say.
/// - `max_voltage`/`max_amperage` absent: 0, which no real connector is
///   rated at, so it reads as "not known"; the connector's power is then
///   its `max_electric_power` when given, else 0 (unknown).
/// - An EVSE's `physical_reference` sent as a number: its text.
///
/// Fields the standard does not have (`floor` for `floor_level`, say) are
/// ignored when read, as every object here ignores them.
pub fn complete_location_push(
    level: PushedLevel,
    object: &mut serde_json::Value,
    received: DateTime<Utc>,
) {
    let at = stamp(object, received);
    match level {
        PushedLevel::Location => {
            for evse in children(object, "evses") {
                complete_evse(evse, at);
            }
        }
        PushedLevel::Evse => {
            complete_evse_fields(object);
            for connector in children(object, "connectors") {
                complete_connector(connector, at);
            }
        }
        PushedLevel::Connector => complete_connector_fields(object),
    }
}

/// Which object of the Locations module a push carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PushedLevel {
    Location,
    Evse,
    Connector,
}

/// `last_updated` as the object has it, or `at` written into it when
/// absent; `at` when the object's is unreadable (it is refused when read).
fn stamp(object: &mut serde_json::Value, at: DateTime<Utc>) -> DateTime<Utc> {
    let Some(fields) = object.as_object_mut() else {
        return at;
    };
    match fields.get("last_updated") {
        Some(serde_json::Value::String(text)) => datetime::parse(text).unwrap_or(at),
        Some(serde_json::Value::Null) | None => {
            fields.insert(
                "last_updated".to_owned(),
                serde_json::Value::String(datetime::format(&at)),
            );
            at
        }
        Some(_) => at,
    }
}

/// The objects of the list `field` of `object`, if it is one.
fn children<'a>(
    object: &'a mut serde_json::Value,
    field: &str,
) -> impl Iterator<Item = &'a mut serde_json::Value> {
    object
        .get_mut(field)
        .and_then(serde_json::Value::as_array_mut)
        .into_iter()
        .flatten()
}

fn complete_evse(evse: &mut serde_json::Value, parent: DateTime<Utc>) {
    let at = stamp(evse, parent);
    complete_evse_fields(evse);
    for connector in children(evse, "connectors") {
        complete_connector(connector, at);
    }
}

fn complete_evse_fields(evse: &mut serde_json::Value) {
    if let Some(reference) = evse.get_mut("physical_reference")
        && reference.is_number()
    {
        *reference = serde_json::Value::String(reference.to_string());
    }
}

fn complete_connector(connector: &mut serde_json::Value, parent: DateTime<Utc>) {
    stamp(connector, parent);
    complete_connector_fields(connector);
}

fn complete_connector_fields(connector: &mut serde_json::Value) {
    let implied = connector
        .get("standard")
        .and_then(|s| serde_json::from_value::<ConnectorType>(s.clone()).ok())
        .and_then(ConnectorType::implied_power_type);
    let Some(fields) = connector.as_object_mut() else {
        return;
    };
    if let Some(power) = implied
        && !fields.contains_key("power_type")
        && let Ok(power) = serde_json::to_value(power)
    {
        fields.insert("power_type".to_owned(), power);
    }
    for rating in ["max_voltage", "max_amperage"] {
        fields
            .entry(rating.to_owned())
            .or_insert(serde_json::Value::from(0));
    }
}

/// The fields a Location PATCH may carry; `last_updated` always.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocationPatch {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub publish: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub publish_allowed_to: Option<Vec<PublishTokenType>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub city: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub postal_code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub country: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coordinates: Option<GeoLocation>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub related_locations: Option<Vec<AdditionalGeoLocation>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parking_type: Option<ParkingType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evses: Option<Vec<Evse>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub directions: Option<Vec<DisplayText>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operator: Option<BusinessDetails>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suboperator: Option<BusinessDetails>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<BusinessDetails>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub facilities: Option<Vec<Facility>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_zone: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opening_times: Option<Hours>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub charging_when_closed: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub images: Option<Vec<Image>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub energy_mix: Option<EnergyMix>,
    #[serde(with = "datetime")]
    pub last_updated: DateTime<Utc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x_city_code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x_plate_recognition: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x_truck_friendly: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x_parking_note: Option<String>,
}

/// The fields an EVSE PATCH may carry (a status push carries `status`);
/// `last_updated` always.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvsePatch {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evse_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<EvseStatus>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_schedule: Option<Vec<StatusSchedule>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<Vec<Capability>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connectors: Option<Vec<Connector>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub floor_level: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coordinates: Option<GeoLocation>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub physical_reference: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub directions: Option<Vec<DisplayText>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parking_restrictions: Option<Vec<ParkingRestriction>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub images: Option<Vec<Image>>,
    #[serde(with = "datetime")]
    pub last_updated: DateTime<Utc>,
}

impl EvsePatch {
    /// A status push.
    pub fn status(status: EvseStatus, at: DateTime<Utc>) -> EvsePatch {
        EvsePatch {
            evse_id: None,
            status: Some(status),
            status_schedule: None,
            capabilities: None,
            connectors: None,
            floor_level: None,
            coordinates: None,
            physical_reference: None,
            directions: None,
            parking_restrictions: None,
            images: None,
            last_updated: at,
        }
    }
}

/// The fields a Connector PATCH may carry; `last_updated` always.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConnectorPatch {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub standard: Option<ConnectorType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<ConnectorFormat>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power_type: Option<PowerType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_voltage: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_amperage: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_electric_power: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tariff_ids: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terms_and_conditions: Option<String>,
    #[serde(with = "datetime")]
    pub last_updated: DateTime<Utc>,
}

impl LocationPatch {
    /// `location` with the fields this PATCH carries replaced.
    pub fn apply(self, location: &mut Location) {
        let LocationPatch {
            publish,
            publish_allowed_to,
            name,
            address,
            city,
            postal_code,
            state,
            country,
            coordinates,
            related_locations,
            parking_type,
            evses,
            directions,
            operator,
            suboperator,
            owner,
            facilities,
            time_zone,
            opening_times,
            charging_when_closed,
            images,
            energy_mix,
            last_updated,
            x_city_code,
            x_plate_recognition,
            x_truck_friendly,
            x_parking_note,
        } = self;
        set(&mut location.publish, publish);
        set(&mut location.publish_allowed_to, publish_allowed_to);
        set_some(&mut location.name, name);
        set(&mut location.address, address);
        set(&mut location.city, city);
        set_some(&mut location.postal_code, postal_code);
        set_some(&mut location.state, state);
        set(&mut location.country, country);
        set(&mut location.coordinates, coordinates);
        set(&mut location.related_locations, related_locations);
        set_some(&mut location.parking_type, parking_type);
        set(&mut location.evses, evses);
        set(&mut location.directions, directions);
        set_some(&mut location.operator, operator);
        set_some(&mut location.suboperator, suboperator);
        set_some(&mut location.owner, owner);
        set(&mut location.facilities, facilities);
        set(&mut location.time_zone, time_zone);
        set_some(&mut location.opening_times, opening_times);
        set_some(&mut location.charging_when_closed, charging_when_closed);
        set(&mut location.images, images);
        set_some(&mut location.energy_mix, energy_mix);
        set(&mut location.x_city_code, x_city_code);
        set(&mut location.x_plate_recognition, x_plate_recognition);
        set(&mut location.x_truck_friendly, x_truck_friendly);
        set(&mut location.x_parking_note, x_parking_note);
        location.last_updated = last_updated;
    }
}

impl EvsePatch {
    /// `evse` with the fields this PATCH carries replaced.
    pub fn apply(self, evse: &mut Evse) {
        let EvsePatch {
            evse_id,
            status,
            status_schedule,
            capabilities,
            connectors,
            floor_level,
            coordinates,
            physical_reference,
            directions,
            parking_restrictions,
            images,
            last_updated,
        } = self;
        set_some(&mut evse.evse_id, evse_id);
        set(&mut evse.status, status);
        set(&mut evse.status_schedule, status_schedule);
        set(&mut evse.capabilities, capabilities);
        set(&mut evse.connectors, connectors);
        set_some(&mut evse.floor_level, floor_level);
        set_some(&mut evse.coordinates, coordinates);
        set_some(&mut evse.physical_reference, physical_reference);
        set(&mut evse.directions, directions);
        set(&mut evse.parking_restrictions, parking_restrictions);
        set(&mut evse.images, images);
        evse.last_updated = last_updated;
    }

    /// Whether it changes the status alone (the common push).
    pub fn is_status_only(&self) -> bool {
        let EvsePatch {
            evse_id,
            status,
            status_schedule,
            capabilities,
            connectors,
            floor_level,
            coordinates,
            physical_reference,
            directions,
            parking_restrictions,
            images,
            last_updated: _,
        } = self;
        status.is_some()
            && evse_id.is_none()
            && status_schedule.is_none()
            && capabilities.is_none()
            && connectors.is_none()
            && floor_level.is_none()
            && coordinates.is_none()
            && physical_reference.is_none()
            && directions.is_none()
            && parking_restrictions.is_none()
            && images.is_none()
    }
}

impl ConnectorPatch {
    /// `connector` with the fields this PATCH carries replaced.
    pub fn apply(self, connector: &mut Connector) {
        let ConnectorPatch {
            standard,
            format,
            power_type,
            max_voltage,
            max_amperage,
            max_electric_power,
            tariff_ids,
            terms_and_conditions,
            last_updated,
        } = self;
        set(&mut connector.standard, standard);
        set(&mut connector.format, format);
        set(&mut connector.power_type, power_type);
        set(&mut connector.max_voltage, max_voltage);
        set(&mut connector.max_amperage, max_amperage);
        set_some(&mut connector.max_electric_power, max_electric_power);
        set(&mut connector.tariff_ids, tariff_ids);
        set_some(&mut connector.terms_and_conditions, terms_and_conditions);
        connector.last_updated = last_updated;
    }
}

/// A PATCH's value replaces the field when the PATCH carries it.
fn set<T>(field: &mut T, patched: Option<T>) {
    if let Some(value) = patched {
        *field = value;
    }
}

/// The same for an optional field (a PATCH cannot remove a value).
fn set_some<T>(field: &mut Option<T>, patched: Option<T>) {
    if patched.is_some() {
        *field = patched;
    }
}

// ---------------------------------------------------------------------------
// Tariffs
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum TariffDimensionType {
    /// Per kWh, `step_size` in Wh.
    Energy,
    /// Per session.
    Flat,
    /// Per hour not charging, `step_size` in seconds.
    ParkingTime,
    /// Per hour charging, `step_size` in seconds.
    Time,
}

/// How one dimension is priced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PriceComponent {
    #[serde(rename = "type")]
    pub kind: TariffDimensionType,
    /// Per unit, excluding VAT (here: CNY per kWh for ENERGY, quoted as
    /// Chinese prices are).
    pub price: Decimal,
    /// VAT percent; absent is no VAT, unlike 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vat: Option<Decimal>,
    /// Billed in blocks of this many units.
    pub step_size: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum DayOfWeek {
    Monday,
    Tuesday,
    Wednesday,
    Thursday,
    Friday,
    Saturday,
    Sunday,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ReservationRestrictionType {
    Reservation,
    ReservationExpires,
}

/// When an element applies; every field set must hold. Times of day are
/// local `HH:MM`, an end before the start wrapping past midnight and an
/// end of `00:00` meaning midnight at the end of the day.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TariffRestrictions {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_time: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_time: Option<String>,
    /// Local `YYYY-MM-DD`, inclusive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_date: Option<String>,
    /// Local `YYYY-MM-DD`, exclusive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_date: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_kwh: Option<Decimal>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_kwh: Option<Decimal>,
    /// Amperes over all phases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_current: Option<Decimal>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_current: Option<Decimal>,
    /// kW.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_power: Option<Decimal>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_power: Option<Decimal>,
    /// Seconds of the session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_duration: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_duration: Option<u32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub day_of_week: Vec<DayOfWeek>,
    /// The element prices a reservation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reservation: Option<ReservationRestrictionType>,
}

/// Minutes in a day.
const DAY: u16 = 24 * 60;

impl TariffRestrictions {
    /// `[start, end)` in minutes after local midnight; an end of `00:00`
    /// (or `24:00`) is midnight at the end of the day, a missing start the
    /// day's start and a missing end its end. `None` when a time is
    /// malformed or the range is empty or wraps past midnight
    /// ([`TariffRestrictions::windows`] has those).
    pub fn minutes(&self) -> Option<(u16, u16)> {
        let start = match &self.start_time {
            Some(text) => minute_of(text)?,
            None => 0,
        };
        let end = match &self.end_time {
            Some(text) => match minute_of(text)? {
                0 => DAY,
                end => end,
            },
            None => DAY,
        };
        (start < end).then_some((start, end))
    }

    /// The stretches of a day the time restriction allows, as `[start,
    /// end)` minutes, in order: one, or two when it wraps past midnight
    /// (`22:00`–`06:00`), none when start and end are the same. `None` when
    /// a time is malformed.
    pub fn windows(&self) -> Option<Vec<(u16, u16)>> {
        if let Some(window) = self.minutes() {
            return Some(vec![window]);
        }
        let start = minute_of(self.start_time.as_deref().unwrap_or("00:00"))?;
        let end = minute_of(self.end_time.as_deref().unwrap_or("00:00"))?;
        Some(if end < start {
            [(0, end), (start, DAY)]
                .into_iter()
                .filter(|(s, e)| s < e)
                .collect()
        } else {
            Vec::new()
        })
    }

    /// Whether only the time of day restricts (nothing about dates,
    /// weekdays, energy, current, power, duration or reservations): such
    /// an element applies the same every day.
    pub fn time_of_day_only(&self) -> bool {
        let TariffRestrictions {
            start_time: _,
            end_time: _,
            start_date,
            end_date,
            min_kwh,
            max_kwh,
            min_current,
            max_current,
            min_power,
            max_power,
            min_duration,
            max_duration,
            day_of_week,
            reservation,
        } = self;
        start_date.is_none()
            && end_date.is_none()
            && min_kwh.is_none()
            && max_kwh.is_none()
            && min_current.is_none()
            && max_current.is_none()
            && min_power.is_none()
            && max_power.is_none()
            && min_duration.is_none()
            && max_duration.is_none()
            && day_of_week.is_empty()
            && reservation.is_none()
    }

    /// The restriction of `[start, end)` minutes after local midnight.
    pub fn of_minutes(start: u16, end: u16) -> TariffRestrictions {
        let text = |m: u16| format!("{:02}:{:02}", (m / 60) % 24, m % 60);
        TariffRestrictions {
            start_time: Some(text(start)),
            end_time: Some(text(end)),
            ..TariffRestrictions::default()
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

/// Price components that apply under the same restrictions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TariffElement {
    /// At least one; here an ENERGY one is the electricity price per kWh.
    pub price_components: Vec<PriceComponent>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restrictions: Option<TariffRestrictions>,
    /// Vendor: service fee, CNY per kWh, beside the electricity price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x_service_fee: Option<Decimal>,
    /// Vendor: the time-of-use band this element prices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x_period: Option<TouPeriod>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum TariffType {
    AdHocPayment,
    ProfileCheap,
    ProfileFast,
    ProfileGreen,
    Regular,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tariff {
    pub country_code: String,
    pub party_id: String,
    pub id: String,
    /// ISO 4217.
    pub currency: String,
    /// Absent: valid for every session.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<TariffType>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tariff_alt_text: Vec<DisplayText>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tariff_alt_url: Option<String>,
    /// A session costs at least this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_price: Option<Price>,
    /// A session costs at most this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_price: Option<Price>,
    /// At least one; for a dimension, the first element whose restrictions
    /// hold prices it.
    pub elements: Vec<TariffElement>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "datetime::option"
    )]
    pub start_date_time: Option<DateTime<Utc>>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "datetime::option"
    )]
    pub end_date_time: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub energy_mix: Option<EnergyMix>,
    #[serde(with = "datetime")]
    pub last_updated: DateTime<Utc>,
}

/// What a receiver fills in a pushed Tariff (a PUT body, as JSON) before
/// reading it: `last_updated`, when absent (as in the standard's own
/// `tariff_put_example.json`), is `received`.
pub fn complete_tariff_push(object: &mut serde_json::Value, received: DateTime<Utc>) {
    stamp(object, received);
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

/// A charging preference (the Sessions module's `ProfileType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ProfileType {
    Cheap,
    Fast,
    Green,
    Regular,
}

/// The driver's own energy supplier, where a CPO can use it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnergyContract {
    pub supplier_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contract_id: Option<String>,
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
    /// ISO 639-1 language the driver prefers at the charge point.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_profile_type: Option<ProfileType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub energy_contract: Option<EnergyContract>,
    #[serde(with = "datetime")]
    pub last_updated: DateTime<Utc>,
}

/// The fields a Token PATCH may carry; `last_updated` always.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenPatch {
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<TokenType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contract_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visual_number: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub whitelist: Option<WhitelistType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_profile_type: Option<ProfileType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub energy_contract: Option<EnergyContract>,
    #[serde(with = "datetime")]
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
    #[serde(with = "datetime")]
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
    #[serde(with = "datetime")]
    pub start_date_time: DateTime<Utc>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "datetime::option"
    )]
    pub end_date_time: Option<DateTime<Utc>>,
    pub kwh: Decimal,
    pub cdr_token: CdrToken,
    pub auth_method: AuthMethod,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_reference: Option<String>,
    pub location_id: String,
    pub evse_uid: String,
    pub connector_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meter_id: Option<String>,
    pub currency: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub charging_periods: Vec<ChargingPeriod>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_cost: Option<Price>,
    /// Vendor: the service-fee part of `total_cost`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x_total_service_fee: Option<Price>,
    pub status: SessionStatus,
    #[serde(with = "datetime")]
    pub last_updated: DateTime<Utc>,
}

/// The fields a session PATCH may carry; `last_updated` always.
/// `charging_periods` in a PATCH are new periods, appended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionPatch {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kwh: Option<Decimal>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "datetime::option"
    )]
    pub end_date_time: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub charging_periods: Vec<ChargingPeriod>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_cost: Option<Price>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x_total_service_fee: Option<Price>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<SessionStatus>,
    #[serde(with = "datetime")]
    pub last_updated: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CdrLocation {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub address: String,
    pub city: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub postal_code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    pub country: String,
    pub coordinates: GeoLocation,
    pub evse_uid: String,
    pub evse_id: String,
    pub connector_id: String,
    pub connector_standard: ConnectorType,
    pub connector_format: ConnectorFormat,
    pub connector_power_type: PowerType,
}

/// The charge detail record: the final, billable account of a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cdr {
    pub country_code: String,
    pub party_id: String,
    pub id: String,
    #[serde(with = "datetime")]
    pub start_date_time: DateTime<Utc>,
    #[serde(with = "datetime")]
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meter_id: Option<String>,
    pub currency: String,
    #[serde(default)]
    pub tariffs: Vec<Tariff>,
    pub charging_periods: Vec<ChargingPeriod>,
    /// The meter's signed values (Eichrecht and the like), kept as sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signed_data: Option<serde_json::Value>,
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
    #[serde(with = "datetime")]
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
    #[serde(with = "datetime")]
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
        let json = serde_json::to_string(&ConnectorType::GbtDc).unwrap();
        assert_eq!(json, r#""GBT_DC""#);
        let json = serde_json::to_string(&[PowerType::Ac1Phase, PowerType::Ac2PhaseSplit]).unwrap();
        assert_eq!(json, r#"["AC_1_PHASE","AC_2_PHASE_SPLIT"]"#);
        let json = serde_json::to_string(&[
            ConnectorType::Iec62196T2Combo,
            ConnectorType::Iec60309_2Single16,
            ConnectorType::Nema14_50,
        ])
        .unwrap();
        assert_eq!(
            json,
            r#"["IEC_62196_T2_COMBO","IEC_60309_2_single_16","NEMA_14_50"]"#
        );
        let query: AuthorizeQuery = serde_json::from_str(r#"{"type":"OTHER"}"#).unwrap();
        assert_eq!(query.kind, TokenType::Other);
    }

    #[test]
    fn restrictions_read_as_minutes_with_midnight_at_the_end() {
        let r = TariffRestrictions::of_minutes(22 * 60, 24 * 60);
        assert_eq!(
            (r.start_time.as_deref(), r.end_time.as_deref()),
            (Some("22:00"), Some("00:00"))
        );
        assert_eq!(r.minutes(), Some((1320, 1440)));
        assert_eq!(
            TariffRestrictions::of_minutes(0, 480).minutes(),
            Some((0, 480))
        );
        for (start, end) in [("10:00", "09:00"), ("7:00", "08:00"), ("10:60", "11:00")] {
            let r = TariffRestrictions {
                start_time: Some(start.into()),
                end_time: Some(end.into()),
                ..TariffRestrictions::default()
            };
            assert_eq!(r.minutes(), None, "{start}-{end}");
        }
    }

    #[test]
    fn one_sided_and_wrapping_time_restrictions_read_as_windows_of_the_day() {
        let r = |start: Option<&str>, end: Option<&str>| TariffRestrictions {
            start_time: start.map(Into::into),
            end_time: end.map(Into::into),
            ..TariffRestrictions::default()
        };
        assert_eq!(r(Some("18:00"), None).minutes(), Some((1080, 1440)));
        assert_eq!(r(None, Some("07:30")).minutes(), Some((0, 450)));
        assert_eq!(r(None, None).minutes(), Some((0, 1440)));
        assert_eq!(r(Some("18:00"), None).windows(), Some(vec![(1080, 1440)]));
        assert_eq!(
            r(Some("22:00"), Some("06:00")).windows(),
            Some(vec![(0, 360), (1320, 1440)])
        );
        assert_eq!(r(Some("09:00"), Some("09:00")).windows(), Some(vec![]));
        assert_eq!(r(Some("9:00"), None).windows(), None);
        assert!(r(Some("09:00"), Some("18:00")).time_of_day_only());
        let weekdays = TariffRestrictions {
            day_of_week: vec![DayOfWeek::Monday],
            ..r(Some("09:00"), Some("18:00"))
        };
        assert!(!weekdays.time_of_day_only());
    }

    #[test]
    fn the_next_page_is_read_from_a_link_header() {
        let link = next_link("https://emsp/ocpi/emsp/2.2.1/tokens?offset=100&limit=100");
        assert_eq!(
            link,
            "<https://emsp/ocpi/emsp/2.2.1/tokens?offset=100&limit=100>; rel=\"next\""
        );
        assert_eq!(
            next_page(&link).as_deref(),
            Some("https://emsp/ocpi/emsp/2.2.1/tokens?offset=100&limit=100")
        );
        assert_eq!(next_page("<https://x/a>; rel=\"prev\""), None);
        assert_eq!(
            next_page("<https://x/a>; rel=prev, <https://x/b>; rel=next").as_deref(),
            Some("https://x/b")
        );
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

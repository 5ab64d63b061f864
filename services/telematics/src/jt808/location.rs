//! The location report (0x0200 body, also inside 0x0704, 0x0500 and 0x0801).
//!
//! ```text
//! alarm DWORD | status DWORD | latitude DWORD | longitude DWORD (1e-6 degree)
//! altitude WORD (m) | speed WORD (0.1 km/h) | heading WORD (0-359) | time BCD[6] (YYMMDDhhmmss, UTC+8)
//! then additional items: id BYTE | length BYTE | value
//! ```
//!
//! Additional items read here (others are skipped by their length):
//! - `0x01` mileage, DWORD, 0.1 km (standard);
//! - `0x30` mobile signal strength, BYTE; `0x31` satellites in view, BYTE (standard);
//! - `0xE1` battery state of charge, BYTE, percent (Fleetdesk terminal profile);
//! - `0xE2` refrigerated-box temperatures (Fleetdesk terminal profile):
//!   count BYTE, then per probe: probe number BYTE, temperature WORD as a
//!   signed 0.1 °C value (`0xFF9C` = -10.0 °C);
//! - vendor items (`0xE0`-`0xFF`) belong to the terminal's maker
//!   ([`VendorLayouts`]): `0xE1` and `0xE2` are read as above only for a
//!   Fleetdesk terminal, and only when their length fits (a GPS51 terminal
//!   sends a 21-byte firmware string as `0xE2`, others cell information as
//!   `0xE1`); another maker's are skipped and counted
//!   (`telematics_vendor_items_ignored_total`, reason `maker`), as is any
//!   other vendor item or one that does not fit, never refusing the fix;
//! - an item running past the body ends the items and one of the Jiangsu
//!   ids below that does not fit its layout is skipped (real terminals use
//!   0x64 for four bytes of their own, 0x66 for cell information: a wrong
//!   length, flag or time); both are counted
//!   (`telematics_items_ignored_total`) and the fix stands;
//! - `0x64` ADAS, `0x65` DMS, `0x66` tyre pressure, `0x67` blind spot: the
//!   active-safety alarms of the Jiangsu extension (苏标), read into
//!   [`SafetyAlarm`]s. Each names its evidence with an [`AlarmIdentifier`],
//!   which the platform sends back in 0x9208 to have the files uploaded:
//!
//! ```text
//! 0x64: alarm id DWORD | flag BYTE | event BYTE | level BYTE | front speed BYTE | headway BYTE
//!       | departure BYTE | road sign BYTE | road sign value BYTE | scene | identifier
//! 0x65: alarm id DWORD | flag BYTE | event BYTE | level BYTE | fatigue BYTE | reserved BYTE[4]
//!       | scene | identifier
//! 0x66: alarm id DWORD | flag BYTE | scene | identifier | count BYTE
//!       | per tyre: position BYTE | events WORD | pressure WORD | temperature WORD | battery WORD
//! 0x67: alarm id DWORD | flag BYTE | event BYTE | scene | identifier
//! scene: speed BYTE (km/h) | altitude WORD | latitude DWORD | longitude DWORD | time BCD[6]
//!        | vehicle status WORD
//! identifier: terminal id BYTE[7] | time BCD[6] | serial BYTE | attachment count BYTE | reserved BYTE
//! ```
//!
//! Latitude and longitude are WGS-84; the status bits 2 and 3 say south and west.

use chrono::{DateTime, Utc};

use super::Error;
use super::reader::{Reader, time_bcd, to_gbk_cut};

/// Length of the fixed part.
pub const BASIC_LEN: usize = 28;

pub mod item {
    pub const MILEAGE: u8 = 0x01;
    pub const SIGNAL: u8 = 0x30;
    pub const SATELLITES: u8 = 0x31;
    pub const SOC: u8 = 0xE1;
    pub const TEMPERATURES: u8 = 0xE2;
    pub const ADAS: u8 = 0x64;
    pub const DMS: u8 = 0x65;
    pub const TYRES: u8 = 0x66;
    pub const BLIND_SPOT: u8 = 0x67;
}

/// Status bits (Table 24) the platform acts on.
pub mod status {
    pub const ACC_ON: u32 = 1 << 0;
    pub const POSITIONED: u32 = 1 << 1;
    pub const SOUTH: u32 = 1 << 2;
    pub const WEST: u32 = 1 << 3;
    /// Doors locked (bit 13 in 2019; bit 12 in some 2013 profiles reads oil circuit).
    pub const DOOR_LOCKED: u32 = 1 << 13;
}

/// Alarm bits (Table 25) the platform acts on.
pub mod alarm {
    pub const EMERGENCY: u32 = 1 << 0;
    pub const OVERSPEED: u32 = 1 << 1;
    pub const FATIGUE: u32 = 1 << 2;
    pub const POWER_LOW: u32 = 1 << 7;
    pub const POWER_CUT: u32 = 1 << 8;
    pub const COLLISION: u32 = 1 << 29;
}

/// A temperature probe of a refrigerated box.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProbeTemperature {
    pub probe: u8,
    /// Tenths of a degree Celsius.
    pub deci_celsius: i16,
}

wire_code! {
    /// Whether an active-safety item opens or closes an alarm that lasts.
    AlarmFlag, "alarm flag" {
        /// The alarm has no duration (most events).
        Unavailable = 0,
        Start = 1,
        End = 2,
    }
}

/// Names an alarm's evidence files (苏标 Table 4-16): the platform sends it
/// back in 0x9208 and the terminal repeats it in 0x1210.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AlarmIdentifier {
    /// Seven letters and digits, the terminal's own id (not its phone number).
    pub terminal_id: String,
    pub time: DateTime<Utc>,
    /// Counts alarms within the same second.
    pub serial: u8,
    pub attachment_count: u8,
}

impl AlarmIdentifier {
    pub(crate) fn read(r: &mut Reader<'_>) -> Result<AlarmIdentifier, Error> {
        let identifier = AlarmIdentifier {
            terminal_id: r.fixed_text(7, "alarm terminal id")?,
            time: r.time("alarm time")?,
            serial: r.u8("alarm serial")?,
            attachment_count: r.u8("attachment count")?,
        };
        r.u8("identifier reserved")?;
        Ok(identifier)
    }

    /// The alarm's name across the platform (`SafetyAlarm.alarm_key`, and
    /// `MediaStored.alarm_key` of its evidence):
    /// `<terminal id>-<yyMMddHHmmss, UTC>-<serial>`.
    pub fn key(&self) -> String {
        format!(
            "{}-{}-{}",
            self.terminal_id,
            self.time.format("%y%m%d%H%M%S"),
            self.serial
        )
    }

    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        // Cut rather than refused: the location encoder cannot fail.
        let mut terminal_id = to_gbk_cut(&self.terminal_id, 7);
        terminal_id.resize(7, 0);
        out.extend(terminal_id);
        out.extend(time_bcd(self.time));
        out.extend([self.serial, self.attachment_count, 0]);
    }
}

/// Where and how the vehicle was when an active-safety alarm was raised.
#[derive(Debug, Clone, PartialEq)]
pub struct AlarmScene {
    pub speed_kmh: u8,
    pub altitude_m: u16,
    /// Degrees; the item has no hemisphere bits, so north.
    pub latitude: f64,
    /// Degrees; east.
    pub longitude: f64,
    pub time: DateTime<Utc>,
    /// 苏标 Table 4-18: bit 0 ACC, 1 left turn signal, 2 right turn signal,
    /// 3 wipers, 4 braking, 5 driver card inserted, 10 positioned.
    pub vehicle_status: u16,
}

/// One tyre's reading in a tyre-pressure alarm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TyreReading {
    /// Numbered from 0 zig-zag from the left front tyre.
    pub position: u8,
    /// Bit 0 periodic report, 1 pressure high, 2 pressure low, 3 temperature
    /// high, 4 sensor fault, 5 pressure unbalanced, 6 slow leak, 7 battery low.
    pub events: u16,
    pub pressure_kpa: u16,
    pub temperature_c: u16,
    pub battery_percent: u16,
}

/// What the active-safety alarm is, with the fields only its kind has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SafetyKind {
    /// 0x64, driver assistance.
    Adas {
        /// 1 forward collision, 2 lane departure, 3 headway too short,
        /// 4 pedestrian collision, 5 frequent lane changes, 6 road sign
        /// exceeded, 7 obstacle, 8 ADAS failure, 0x10 road sign seen, 0x11 capture.
        event: u8,
        /// 1 or 2; 2 is the more urgent.
        level: u8,
        /// Speed of the vehicle ahead (events 1 and 3), km/h.
        front_speed_kmh: u8,
        /// Time to the vehicle or pedestrian ahead (events 1, 2, 4), tenths of a second.
        headway_ds: u8,
        /// 1 left, 2 right (event 2).
        departure: u8,
        /// 1 speed limit, 2 height limit, 3 weight limit (events 6 and 0x10).
        road_sign: u8,
        road_sign_value: u8,
    },
    /// 0x65, driver monitoring.
    Dms {
        /// 1 fatigue, 2 phone call, 3 smoking, 4 distraction, 5 driver
        /// absent, 6 both hands off the wheel, 7 DMS failure, 0x10 capture,
        /// 0x11 driver changed.
        event: u8,
        level: u8,
        /// 1 to 10 for fatigue (event 1).
        fatigue: u8,
    },
    /// 0x66, tyre pressure monitoring.
    Tyres(Vec<TyreReading>),
    /// 0x67, blind spot: 1 rear, 2 left rear, 3 right rear approach.
    BlindSpot { event: u8 },
}

/// An active-safety alarm carried in a location report (items 0x64 to 0x67).
#[derive(Debug, Clone, PartialEq)]
pub struct SafetyAlarm {
    /// The terminal's running number of alarms, of every kind.
    pub alarm_id: u32,
    pub flag: AlarmFlag,
    pub kind: SafetyKind,
    pub scene: AlarmScene,
    pub identifier: AlarmIdentifier,
}

/// Tyres that fit in one item (its length is a byte).
const MAX_TYRES: usize = (255 - 41) / 9;

impl SafetyAlarm {
    fn read(id: u8, r: &mut Reader<'_>) -> Result<SafetyAlarm, Error> {
        let alarm_id = r.u32("alarm id")?;
        let flag = AlarmFlag::read(r)?;
        let kind = match id {
            item::ADAS => SafetyKind::Adas {
                event: r.u8("adas event")?,
                level: r.u8("adas level")?,
                front_speed_kmh: r.u8("front vehicle speed")?,
                headway_ds: r.u8("headway")?,
                departure: r.u8("departure")?,
                road_sign: r.u8("road sign")?,
                road_sign_value: r.u8("road sign value")?,
            },
            item::DMS => {
                let kind = SafetyKind::Dms {
                    event: r.u8("dms event")?,
                    level: r.u8("dms level")?,
                    fatigue: r.u8("fatigue")?,
                };
                r.take(4, "dms reserved")?;
                kind
            }
            item::BLIND_SPOT => SafetyKind::BlindSpot {
                event: r.u8("blind spot event")?,
            },
            // `item::TYRES`, whose list follows the scene.
            _ => SafetyKind::Tyres(Vec::new()),
        };
        let scene = AlarmScene {
            speed_kmh: r.u8("alarm speed")?,
            altitude_m: r.u16("alarm altitude")?,
            latitude: f64::from(r.u32("alarm latitude")?) / 1e6,
            longitude: f64::from(r.u32("alarm longitude")?) / 1e6,
            time: r.time("alarm scene time")?,
            vehicle_status: r.u16("vehicle status")?,
        };
        let identifier = AlarmIdentifier::read(r)?;
        let kind = match kind {
            SafetyKind::Tyres(mut tyres) => {
                for _ in 0..r.u8("tyre count")? {
                    tyres.push(TyreReading {
                        position: r.u8("tyre position")?,
                        events: r.u16("tyre events")?,
                        pressure_kpa: r.u16("tyre pressure")?,
                        temperature_c: r.u16("tyre temperature")?,
                        battery_percent: r.u16("tyre battery")?,
                    });
                }
                SafetyKind::Tyres(tyres)
            }
            other => other,
        };
        Ok(SafetyAlarm {
            alarm_id,
            flag,
            kind,
            scene,
            identifier,
        })
    }

    /// The item id and its value.
    fn write(&self) -> (u8, Vec<u8>) {
        let mut out = Vec::with_capacity(64);
        out.extend(self.alarm_id.to_be_bytes());
        out.push(self.flag as u8);
        let id = match &self.kind {
            SafetyKind::Adas {
                event,
                level,
                front_speed_kmh,
                headway_ds,
                departure,
                road_sign,
                road_sign_value,
            } => {
                out.extend([
                    *event,
                    *level,
                    *front_speed_kmh,
                    *headway_ds,
                    *departure,
                    *road_sign,
                    *road_sign_value,
                ]);
                item::ADAS
            }
            SafetyKind::Dms {
                event,
                level,
                fatigue,
            } => {
                out.extend([*event, *level, *fatigue, 0, 0, 0, 0]);
                item::DMS
            }
            SafetyKind::Tyres(_) => item::TYRES,
            SafetyKind::BlindSpot { event } => {
                out.push(*event);
                item::BLIND_SPOT
            }
        };
        let micro = |deg: f64| (deg.abs() * 1e6).round() as u32;
        let scene = &self.scene;
        out.push(scene.speed_kmh);
        out.extend(scene.altitude_m.to_be_bytes());
        out.extend(micro(scene.latitude).to_be_bytes());
        out.extend(micro(scene.longitude).to_be_bytes());
        out.extend(time_bcd(scene.time));
        out.extend(scene.vehicle_status.to_be_bytes());
        self.identifier.write(&mut out);
        if let SafetyKind::Tyres(tyres) = &self.kind {
            let tyres = &tyres[..tyres.len().min(MAX_TYRES)];
            out.push(tyres.len() as u8);
            for t in tyres {
                out.push(t.position);
                for word in [t.events, t.pressure_kpa, t.temperature_c, t.battery_percent] {
                    out.extend(word.to_be_bytes());
                }
            }
        }
        (id, out)
    }
}

/// Ids of the standard's range left to terminal makers.
fn is_vendor(id: u8) -> bool {
    id >= 0xE0
}

/// Makers whose terminals follow the Fleetdesk profile: the simulator's,
/// and `FLEET`, all a 2013 registration's five bytes can hold.
pub const FLEETDESK_MAKERS: [&str; 2] = ["FLEETSIM", "FLEET"];

/// Whose layouts a report's vendor items (0xE0-0xFF) are read with: the
/// same id means different things from different makers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VendorLayouts {
    /// A Fleetdesk terminal: 0xE1 and 0xE2 as in the module docs.
    Fleetdesk,
    /// Another maker's terminal: every vendor item is skipped and counted.
    Foreign,
    /// The maker is not known (the terminal registered before the
    /// directory kept makers, or with a blank one): ours where the length
    /// fits.
    Unreported,
}

impl VendorLayouts {
    /// The layouts for the maker id a terminal registered with.
    pub fn of_maker(maker: Option<&str>) -> VendorLayouts {
        match maker.map(str::trim) {
            None => VendorLayouts::Unreported,
            Some(maker) if FLEETDESK_MAKERS.contains(&maker) => VendorLayouts::Fleetdesk,
            Some(_) => VendorLayouts::Foreign,
        }
    }
}

/// A standard item skipped: `overrun` (longer than the body) or `layout`
/// (a Jiangsu active-safety id whose value does not fit).
fn item_ignored(id: u8, reason: &'static str) {
    metrics::counter!(
        "telematics_items_ignored_total",
        "item" => format!("{id:#04x}"),
        "reason" => reason
    )
    .increment(1);
}

/// A vendor item skipped: `reason` is `unknown` (not one we read), `layout`
/// (its length does not fit ours) or `overrun` (longer than the body).
fn vendor_ignored(id: u8, reason: &'static str) {
    metrics::counter!(
        "telematics_vendor_items_ignored_total",
        "item" => format!("{id:#04x}"),
        "reason" => reason
    )
    .increment(1);
}

#[derive(Debug, Clone, PartialEq)]
pub struct Location {
    pub alarm: u32,
    pub status: u32,
    /// Degrees, negative south.
    pub latitude: f64,
    /// Degrees, negative west.
    pub longitude: f64,
    pub altitude_m: u16,
    /// Tenths of km/h.
    pub speed_dkmh: u16,
    pub heading: u16,
    pub time: DateTime<Utc>,
    pub mileage_m: Option<u64>,
    pub signal: Option<u8>,
    pub satellites: Option<u8>,
    pub soc_percent: Option<u8>,
    pub temperatures: Vec<ProbeTemperature>,
    /// Active-safety alarms (items 0x64 to 0x67), in the order they came.
    pub safety_alarms: Vec<SafetyAlarm>,
}

impl Location {
    /// A report whose maker is not known ([`VendorLayouts::Unreported`]).
    pub fn parse(body: &[u8]) -> Result<Location, Error> {
        Location::parse_with(body, VendorLayouts::Unreported)
    }

    /// A report with its vendor items read as its maker's.
    pub fn parse_with(body: &[u8], vendor: VendorLayouts) -> Result<Location, Error> {
        let mut r = Reader::new(body);
        let mut location = Location::parse_basic(&mut r)?;
        while r.remaining() > 0 {
            let id = r.u8("item id")?;
            // A lone id byte at the end: padding, not an item.
            let Ok(len) = r.u8("item length") else {
                item_ignored(id, "overrun");
                break;
            };
            let value = match r.take(usize::from(len), "item value") {
                Ok(value) => value,
                // The terminal's length is wrong; what came before it stands.
                Err(_) => {
                    if is_vendor(id) {
                        vendor_ignored(id, "overrun");
                    } else {
                        item_ignored(id, "overrun");
                    }
                    break;
                }
            };
            location.read_item(id, value, vendor)?;
        }
        Ok(location)
    }

    pub(crate) fn parse_basic(r: &mut Reader<'_>) -> Result<Location, Error> {
        let alarm = r.u32("alarm")?;
        let status = r.u32("status")?;
        let lat = r.u32("latitude")?;
        let lon = r.u32("longitude")?;
        if lat > 90_000_000 || lon > 180_000_000 {
            return Err(Error::Invalid("coordinates"));
        }
        let sign = |bit: u32| if status & bit != 0 { -1.0 } else { 1.0 };
        let altitude_m = r.u16("altitude")?;
        let speed_dkmh = r.u16("speed")?;
        let heading = r.u16("heading")?;
        let time = r.time("time")?;
        Ok(Location {
            alarm,
            status,
            latitude: sign(status::SOUTH) * f64::from(lat) / 1e6,
            longitude: sign(status::WEST) * f64::from(lon) / 1e6,
            altitude_m,
            speed_dkmh,
            heading,
            time,
            mileage_m: None,
            signal: None,
            satellites: None,
            soc_percent: None,
            temperatures: Vec::new(),
            safety_alarms: Vec::new(),
        })
    }

    fn read_item(&mut self, id: u8, value: &[u8], vendor: VendorLayouts) -> Result<(), Error> {
        let mut r = Reader::new(value);
        match id {
            id if is_vendor(id) && vendor == VendorLayouts::Foreign => vendor_ignored(id, "maker"),
            item::MILEAGE => self.mileage_m = Some(u64::from(r.u32("mileage")?) * 100),
            item::SIGNAL => self.signal = Some(r.u8("signal")?),
            item::SATELLITES => self.satellites = Some(r.u8("satellites")?),
            item::SOC => match value {
                [soc @ 0..=100] => self.soc_percent = Some(*soc),
                _ => vendor_ignored(id, "layout"),
            },
            item::TEMPERATURES => {
                let count = match value {
                    [count, probes @ ..] if probes.len() == usize::from(*count) * 3 => *count,
                    _ => {
                        vendor_ignored(id, "layout");
                        return Ok(());
                    }
                };
                r.u8("probe count")?;
                for _ in 0..count {
                    let probe = r.u8("probe")?;
                    let raw = r.u16("temperature")?;
                    self.temperatures.push(ProbeTemperature {
                        probe,
                        deci_celsius: i16::from_be_bytes(raw.to_be_bytes()),
                    });
                }
            }
            item::ADAS | item::DMS | item::TYRES | item::BLIND_SPOT => {
                match SafetyAlarm::read(id, &mut r) {
                    Ok(alarm) => self.safety_alarms.push(alarm),
                    // Another extension's item under the same id (a real
                    // terminal's 0x66 is cell information).
                    Err(_) => item_ignored(id, "layout"),
                }
            }
            id if is_vendor(id) => vendor_ignored(id, "unknown"),
            // Items this platform does not use are skipped by their length.
            _ => {}
        }
        Ok(())
    }

    pub fn acc_on(&self) -> bool {
        self.status & status::ACC_ON != 0
    }

    pub fn positioned(&self) -> bool {
        self.status & status::POSITIONED != 0
    }

    pub fn door_locked(&self) -> bool {
        self.status & status::DOOR_LOCKED != 0
    }

    /// Speed in km/h.
    pub fn speed_kmh(&self) -> f64 {
        f64::from(self.speed_dkmh) / 10.0
    }

    /// The body as a terminal sends it (for test terminals and the simulator).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(BASIC_LEN + 32);
        let micro = |deg: f64| (deg.abs() * 1e6).round() as u32;
        let mut status = self.status & !(status::SOUTH | status::WEST);
        if self.latitude < 0.0 {
            status |= status::SOUTH;
        }
        if self.longitude < 0.0 {
            status |= status::WEST;
        }
        out.extend(self.alarm.to_be_bytes());
        out.extend(status.to_be_bytes());
        out.extend(micro(self.latitude).to_be_bytes());
        out.extend(micro(self.longitude).to_be_bytes());
        out.extend(self.altitude_m.to_be_bytes());
        out.extend(self.speed_dkmh.to_be_bytes());
        out.extend(self.heading.to_be_bytes());
        out.extend(time_bcd(self.time));
        if let Some(m) = self.mileage_m {
            let tenths = u32::try_from(m / 100).unwrap_or(u32::MAX);
            out.extend([item::MILEAGE, 4]);
            out.extend(tenths.to_be_bytes());
        }
        for (id, value) in [
            (item::SIGNAL, self.signal),
            (item::SATELLITES, self.satellites),
            (item::SOC, self.soc_percent),
        ] {
            if let Some(v) = value {
                out.extend([id, 1, v]);
            }
        }
        if !self.temperatures.is_empty() {
            let probes = &self.temperatures[..self.temperatures.len().min(84)];
            out.extend([
                item::TEMPERATURES,
                (1 + probes.len() * 3) as u8,
                probes.len() as u8,
            ]);
            for p in probes {
                out.push(p.probe);
                out.extend(p.deci_celsius.to_be_bytes());
            }
        }
        for alarm in &self.safety_alarms {
            let (id, value) = alarm.write();
            out.extend([id, value.len() as u8]);
            out.extend(value);
        }
        out
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use chrono::TimeZone as _;
    use proptest::prelude::*;

    use super::*;

    pub(crate) fn sample() -> Location {
        Location {
            alarm: alarm::OVERSPEED,
            status: status::ACC_ON | status::POSITIONED,
            latitude: 22.543_096,
            longitude: 114.057_865,
            altitude_m: 35,
            speed_dkmh: 452,
            heading: 271,
            time: Utc.with_ymd_and_hms(2026, 11, 23, 2, 3, 4).unwrap(),
            mileage_m: Some(1_234_500),
            signal: Some(25),
            satellites: Some(12),
            soc_percent: Some(67),
            temperatures: vec![
                ProbeTemperature {
                    probe: 1,
                    deci_celsius: -182,
                },
                ProbeTemperature {
                    probe: 2,
                    deci_celsius: 41,
                },
            ],
            safety_alarms: Vec::new(),
        }
    }

    /// speed 60 km/h | altitude 35 m | latitude 22.543096 | longitude 114.057865
    /// | 2026-11-23 10:03:04 Beijing | vehicle status: ACC on
    const SCENE: [u8; 19] = [
        0x3c, 0x00, 0x23, 0x01, 0x57, 0xfa, 0xf8, 0x06, 0xcc, 0x62, 0x89, 0x26, 0x11, 0x23, 0x10,
        0x03, 0x04, 0x00, 0x01,
    ];

    /// terminal id "TERM001" | 2026-11-23 10:03:04 Beijing | serial 0 | 2 attachments | reserved
    pub(crate) const IDENTIFIER: [u8; 16] = [
        b'T', b'E', b'R', b'M', b'0', b'0', b'1', 0x26, 0x11, 0x23, 0x10, 0x03, 0x04, 0x00, 0x02,
        0x00,
    ];

    pub(crate) fn identifier() -> AlarmIdentifier {
        AlarmIdentifier {
            terminal_id: "TERM001".into(),
            time: Utc.with_ymd_and_hms(2026, 11, 23, 2, 3, 4).unwrap(),
            serial: 0,
            attachment_count: 2,
        }
    }

    fn scene() -> AlarmScene {
        AlarmScene {
            speed_kmh: 60,
            altitude_m: 35,
            latitude: 22.543_096,
            longitude: 114.057_865,
            time: Utc.with_ymd_and_hms(2026, 11, 23, 2, 3, 4).unwrap(),
            vehicle_status: 1,
        }
    }

    fn alarm(alarm_id: u32, flag: AlarmFlag, kind: SafetyKind) -> SafetyAlarm {
        SafetyAlarm {
            alarm_id,
            flag,
            kind,
            scene: scene(),
            identifier: identifier(),
        }
    }

    fn bare() -> Location {
        let mut loc = sample();
        loc.mileage_m = None;
        loc.signal = None;
        loc.satellites = None;
        loc.soc_percent = None;
        loc.temperatures.clear();
        loc
    }

    /// Reads `item` after a bare report, expects `alarm`, writes the same
    /// bytes back, and skips every shortened value (another extension's
    /// item under the same id) keeping the fix.
    fn assert_item(item: &[u8], alarm: SafetyAlarm) {
        let mut bytes = bare().encode();
        bytes.extend(item);
        let mut expected = bare();
        expected.safety_alarms.push(alarm);
        assert_eq!(Location::parse(&bytes).unwrap(), expected);
        assert_eq!(expected.encode(), bytes);
        for cut in 1..item.len() - 2 {
            let mut short = bare().encode();
            short.extend([item[0], (item.len() - 2 - cut) as u8]);
            short.extend(&item[2..item.len() - cut]);
            assert_eq!(
                Location::parse(&short).unwrap(),
                bare(),
                "item {:#04x} cut by {cut}",
                item[0]
            );
        }
    }

    #[test]
    fn an_alarm_key_is_the_terminal_id_utc_time_and_serial() {
        // 2026-11-23 10:03:04 Beijing is 02:03:04 UTC.
        assert_eq!(identifier().key(), "TERM001-261123020304-0");
        let mut later = identifier();
        later.serial = 12;
        assert_eq!(later.key(), "TERM001-261123020304-12");
    }

    #[test]
    fn an_adas_item_is_read_with_its_scene_and_identifier() {
        // 0x64, 47 bytes: alarm id 7 | flag start | event 1 forward collision | level 2
        // | front vehicle 50 km/h | headway 1.2 s | no departure | no road sign | sign value 0
        // | scene | identifier
        let mut item = vec![
            0x64, 47, 0x00, 0x00, 0x00, 0x07, 0x01, 0x01, 0x02, 0x32, 0x0c, 0x00, 0x00, 0x00,
        ];
        item.extend(SCENE);
        item.extend(IDENTIFIER);
        assert_item(
            &item,
            alarm(
                7,
                AlarmFlag::Start,
                SafetyKind::Adas {
                    event: 1,
                    level: 2,
                    front_speed_kmh: 50,
                    headway_ds: 12,
                    departure: 0,
                    road_sign: 0,
                    road_sign_value: 0,
                },
            ),
        );
    }

    #[test]
    fn a_dms_item_is_read_with_its_fatigue() {
        // 0x65, 47 bytes: alarm id 8 | flag unavailable | event 1 fatigue | level 1
        // | fatigue 7 | reserved BYTE[4] | scene | identifier
        let mut item = vec![
            0x65, 47, 0x00, 0x00, 0x00, 0x08, 0x00, 0x01, 0x01, 0x07, 0x00, 0x00, 0x00, 0x00,
        ];
        item.extend(SCENE);
        item.extend(IDENTIFIER);
        assert_item(
            &item,
            alarm(
                8,
                AlarmFlag::Unavailable,
                SafetyKind::Dms {
                    event: 1,
                    level: 1,
                    fatigue: 7,
                },
            ),
        );
    }

    #[test]
    fn a_tyre_item_lists_its_tyres_after_the_identifier() {
        // 0x66, 41 + 2 × 9 bytes: alarm id 9 | flag end | scene | identifier | 2 tyres:
        // tyre 0: pressure low (bit 2) | 180 kPa | 40 °C | battery 90 %
        // tyre 3: slow leak (bit 6) | 210 kPa | 38 °C | battery 75 %
        let mut item = vec![0x66, 59, 0x00, 0x00, 0x00, 0x09, 0x02];
        item.extend(SCENE);
        item.extend(IDENTIFIER);
        item.extend([
            0x02, 0x00, 0x00, 0x04, 0x00, 0xb4, 0x00, 0x28, 0x00, 0x5a, 0x03, 0x00, 0x40, 0x00,
            0xd2, 0x00, 0x26, 0x00, 0x4b,
        ]);
        assert_item(
            &item,
            alarm(
                9,
                AlarmFlag::End,
                SafetyKind::Tyres(vec![
                    TyreReading {
                        position: 0,
                        events: 1 << 2,
                        pressure_kpa: 180,
                        temperature_c: 40,
                        battery_percent: 90,
                    },
                    TyreReading {
                        position: 3,
                        events: 1 << 6,
                        pressure_kpa: 210,
                        temperature_c: 38,
                        battery_percent: 75,
                    },
                ]),
            ),
        );
    }

    #[test]
    fn a_blind_spot_item_is_read() {
        // 0x67, 41 bytes: alarm id 10 | flag unavailable | event 2 left rear | scene | identifier
        let mut item = vec![0x67, 41, 0x00, 0x00, 0x00, 0x0a, 0x00, 0x02];
        item.extend(SCENE);
        item.extend(IDENTIFIER);
        assert_item(
            &item,
            alarm(
                10,
                AlarmFlag::Unavailable,
                SafetyKind::BlindSpot { event: 2 },
            ),
        );
    }

    #[test]
    fn an_alarm_with_an_unknown_flag_or_impossible_time_is_skipped_and_the_fix_kept() {
        let mut item = vec![0x67, 41, 0x00, 0x00, 0x00, 0x0a, 0x03, 0x02];
        item.extend(SCENE);
        item.extend(IDENTIFIER);
        let mut bytes = bare().encode();
        bytes.extend(&item);
        bytes.extend([0x30, 1, 25]);
        let mut expected = bare();
        expected.signal = Some(25);
        // Flag 3 is no flag of the standard: another maker's 0x67.
        assert_eq!(Location::parse(&bytes).unwrap(), expected);
        bytes[BASIC_LEN + 6] = 0x01;
        // The scene follows the event; its time's month is its 13th byte.
        bytes[BASIC_LEN + 8 + 12] = 0x13;
        assert_eq!(Location::parse(&bytes).unwrap(), expected);
        bytes[BASIC_LEN + 8 + 12] = 0x11;
        assert_eq!(Location::parse(&bytes).unwrap().safety_alarms.len(), 1);
    }

    fn any_time() -> impl Strategy<Value = DateTime<Utc>> {
        // 2000 to 2099 in Beijing, what a two-digit year can say.
        (946_656_000i64..4_102_416_000).prop_map(|secs| Utc.timestamp_opt(secs, 0).unwrap())
    }

    fn any_kind() -> impl Strategy<Value = SafetyKind> {
        prop_oneof![
            any::<[u8; 7]>().prop_map(|b| SafetyKind::Adas {
                event: b[0],
                level: b[1],
                front_speed_kmh: b[2],
                headway_ds: b[3],
                departure: b[4],
                road_sign: b[5],
                road_sign_value: b[6],
            }),
            any::<[u8; 3]>().prop_map(|b| SafetyKind::Dms {
                event: b[0],
                level: b[1],
                fatigue: b[2],
            }),
            proptest::collection::vec(any::<(u8, u16, u16, u16, u16)>(), 0..=MAX_TYRES).prop_map(
                |tyres| SafetyKind::Tyres(
                    tyres
                        .into_iter()
                        .map(
                            |(position, events, pressure_kpa, temperature_c, battery_percent)| {
                                TyreReading {
                                    position,
                                    events,
                                    pressure_kpa,
                                    temperature_c,
                                    battery_percent,
                                }
                            }
                        )
                        .collect()
                )
            ),
            any::<u8>().prop_map(|event| SafetyKind::BlindSpot { event }),
        ]
    }

    prop_compose! {
        fn any_alarm()(
            alarm_id in any::<u32>(),
            flag in prop::sample::select(vec![AlarmFlag::Unavailable, AlarmFlag::Start, AlarmFlag::End]),
            kind in any_kind(),
            speed_kmh in any::<u8>(),
            altitude_m in any::<u16>(),
            latitude in any::<u32>(),
            longitude in any::<u32>(),
            time in any_time(),
            vehicle_status in any::<u16>(),
            terminal_id in proptest::collection::vec(
                prop::sample::select(b"ABCDEFGHJKLMNPQRSTUVWXYZ0123456789".to_vec()),
                1..=7,
            ),
            identifier_time in any_time(),
            serial in any::<u8>(),
            attachment_count in any::<u8>(),
        ) -> SafetyAlarm {
            SafetyAlarm {
                alarm_id,
                flag,
                kind,
                scene: AlarmScene {
                    speed_kmh,
                    altitude_m,
                    latitude: f64::from(latitude) / 1e6,
                    longitude: f64::from(longitude) / 1e6,
                    time,
                    vehicle_status,
                },
                identifier: AlarmIdentifier {
                    terminal_id: String::from_utf8(terminal_id).unwrap(),
                    time: identifier_time,
                    serial,
                    attachment_count,
                },
            }
        }
    }

    proptest! {
        #[test]
        fn safety_alarms_survive_the_wire(alarms in proptest::collection::vec(any_alarm(), 0..4)) {
            let mut loc = sample();
            loc.safety_alarms = alarms;
            prop_assert_eq!(Location::parse(&loc.encode()).unwrap(), loc);
        }

        #[test]
        fn arbitrary_safety_items_never_panic(
            id in item::ADAS..=item::BLIND_SPOT,
            value in proptest::collection::vec(any::<u8>(), 0..100),
        ) {
            let mut bytes = sample().encode();
            bytes.extend([id, value.len() as u8]);
            bytes.extend(value);
            let _ = Location::parse(&bytes);
        }
    }

    #[test]
    fn a_report_round_trips_with_its_items() {
        let loc = sample();
        let parsed = Location::parse(&loc.encode()).unwrap();
        assert_eq!(parsed, loc);
        assert!(parsed.acc_on() && parsed.positioned() && !parsed.door_locked());
        assert_eq!(parsed.speed_kmh(), 45.2);
    }

    #[test]
    fn time_is_beijing_time_on_the_wire() {
        let bytes = sample().encode();
        // 2026-11-23 02:03:04 UTC is 10:03:04 in Beijing.
        assert_eq!(&bytes[22..28], &[0x26, 0x11, 0x23, 0x10, 0x03, 0x04]);
    }

    #[test]
    fn south_and_west_are_negative() {
        let mut loc = sample();
        loc.latitude = -33.5;
        loc.longitude = -70.25;
        let parsed = Location::parse(&loc.encode()).unwrap();
        assert_eq!((parsed.latitude, parsed.longitude), (-33.5, -70.25));
    }

    #[test]
    fn unknown_items_are_skipped_and_one_past_the_body_ends_the_items() {
        let mut bytes = sample().encode();
        bytes.extend([0x99, 2, 0xde, 0xad]);
        assert_eq!(Location::parse(&bytes).unwrap(), sample());
        // A real terminal's zero padding read as items: 0x00 of 120 bytes.
        bytes.extend([0x00, 0, 0x00, 120, 0x01]);
        assert_eq!(Location::parse(&bytes).unwrap(), sample());
        // The fixed part itself cut short is still refused.
        assert!(matches!(
            Location::parse(&bytes[..BASIC_LEN - 1]),
            Err(Error::Truncated { .. })
        ));
    }

    #[test]
    fn vendor_items_are_read_by_the_terminals_maker() {
        let mut bytes = bare().encode();
        bytes.extend([0xE1, 1, 55, 0xE2, 4, 1, 3, 0xff, 0x4a]);
        let ours = Location::parse_with(&bytes, VendorLayouts::of_maker(Some("FLEETSIM"))).unwrap();
        assert_eq!(ours.soc_percent, Some(55));
        assert_eq!(ours.temperatures.len(), 1);
        let stranger =
            Location::parse_with(&bytes, VendorLayouts::of_maker(Some("70111"))).unwrap();
        assert_eq!(stranger, bare());
        // Not known: ours where the length fits, as before makers were kept.
        assert_eq!(Location::parse(&bytes).unwrap(), ours);
        assert_eq!(
            VendorLayouts::of_maker(Some("FLEET")),
            VendorLayouts::Fleetdesk
        );
    }

    #[test]
    fn vendor_items_that_do_not_fit_our_layout_are_skipped_not_refused() {
        // A GPS51 terminal's firmware string as 0xE2, another's cell
        // information as 0xE1, a SOC past 100 % and an unknown vendor item.
        let mut bytes = bare().encode();
        bytes.extend([0xE2, 21]);
        bytes.extend(b"GPS51-V2.1.3-20190612");
        bytes.extend([
            0xE1, 10, 0x01, 0xcc, 0x00, 0x00, 0x25, 0x1c, 0x00, 0x00, 0x4e, 0x1f,
        ]);
        bytes.extend([0xE1, 1, 101, 0xEF, 3, 1, 2, 3]);
        assert_eq!(Location::parse(&bytes).unwrap(), bare());
        // A count that promises more probes than the item holds.
        let mut bytes = bare().encode();
        bytes.extend([0xE2, 4, 2, 1, 0xff, 0x4a]);
        assert_eq!(Location::parse(&bytes).unwrap(), bare());
        // Ours still read when they fit.
        let mut bytes = bare().encode();
        bytes.extend([0xE1, 1, 55, 0xE2, 4, 1, 3, 0xff, 0x4a]);
        let loc = Location::parse(&bytes).unwrap();
        assert_eq!(loc.soc_percent, Some(55));
        assert_eq!(
            loc.temperatures,
            [ProbeTemperature {
                probe: 3,
                deci_celsius: -182
            }]
        );
    }

    #[test]
    fn a_vendor_item_longer_than_the_body_ends_the_items_and_keeps_the_fix() {
        let mut bytes = sample().encode();
        bytes.extend([0xF3, 40, 0x01, 0x02]);
        assert_eq!(Location::parse(&bytes).unwrap(), sample());
    }

    #[test]
    fn impossible_times_and_coordinates_are_refused() {
        let mut bytes = sample().encode();
        bytes[23] = 0x13; // month 13
        assert_eq!(Location::parse(&bytes), Err(Error::Invalid("time")));
        let mut bytes = sample().encode();
        bytes[8..12].copy_from_slice(&200_000_000u32.to_be_bytes()[..]);
        assert_eq!(Location::parse(&bytes), Err(Error::Invalid("coordinates")));
    }
}

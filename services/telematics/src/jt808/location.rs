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
//!   signed 0.1 °C value (`0xFF9C` = -10.0 °C).
//!
//! Latitude and longitude are WGS-84; the status bits 2 and 3 say south and west.

use chrono::{DateTime, NaiveDate, TimeZone as _, Utc};

use super::Error;
use super::reader::Reader;

/// Length of the fixed part.
pub const BASIC_LEN: usize = 28;

pub mod item {
    pub const MILEAGE: u8 = 0x01;
    pub const SIGNAL: u8 = 0x30;
    pub const SATELLITES: u8 = 0x31;
    pub const SOC: u8 = 0xE1;
    pub const TEMPERATURES: u8 = 0xE2;
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
}

impl Location {
    pub fn parse(body: &[u8]) -> Result<Location, Error> {
        let mut r = Reader::new(body);
        let mut location = Location::parse_basic(&mut r)?;
        while r.remaining() > 0 {
            let id = r.u8("item id")?;
            let len = usize::from(r.u8("item length")?);
            let value = r.take(len, "item value")?;
            location.read_item(id, value)?;
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
        let time = bcd_time(&r.bcd(6, "time")?)?;
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
        })
    }

    fn read_item(&mut self, id: u8, value: &[u8]) -> Result<(), Error> {
        let mut r = Reader::new(value);
        match id {
            item::MILEAGE => self.mileage_m = Some(u64::from(r.u32("mileage")?) * 100),
            item::SIGNAL => self.signal = Some(r.u8("signal")?),
            item::SATELLITES => self.satellites = Some(r.u8("satellites")?),
            item::SOC => {
                let soc = r.u8("soc")?;
                if soc > 100 {
                    return Err(Error::Invalid("soc"));
                }
                self.soc_percent = Some(soc);
            }
            item::TEMPERATURES => {
                let count = r.u8("probe count")?;
                for _ in 0..count {
                    let probe = r.u8("probe")?;
                    let raw = r.u16("temperature")?;
                    self.temperatures.push(ProbeTemperature {
                        probe,
                        deci_celsius: i16::from_be_bytes(raw.to_be_bytes()),
                    });
                }
            }
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
        out
    }
}

/// The standard's clock is Beijing time (UTC+8) with a two-digit year.
fn bcd_time(digits: &str) -> Result<DateTime<Utc>, Error> {
    let n = |i: usize| {
        digits[i..i + 2]
            .parse::<u32>()
            .map_err(|_| Error::BadBcd("time"))
    };
    let (year, month, day) = (n(0)?, n(2)?, n(4)?);
    let (hour, minute, second) = (n(6)?, n(8)?, n(10)?);
    let date = NaiveDate::from_ymd_opt(2000 + year as i32, month, day)
        .and_then(|d| d.and_hms_opt(hour, minute, second))
        .ok_or(Error::Invalid("time"))?;
    let beijing = chrono::FixedOffset::east_opt(8 * 3600).ok_or(Error::Invalid("time"))?;
    beijing
        .from_local_datetime(&date)
        .single()
        .map(|t| t.with_timezone(&Utc))
        .ok_or(Error::Invalid("time"))
}

fn time_bcd(time: DateTime<Utc>) -> [u8; 6] {
    let beijing = time.with_timezone(&chrono::FixedOffset::east_opt(8 * 3600).expect("UTC+8"));
    let text = beijing.format("%y%m%d%H%M%S").to_string();
    let b = text.as_bytes();
    std::array::from_fn(|i| ((b[2 * i] - b'0') << 4) | (b[2 * i + 1] - b'0'))
}

#[cfg(test)]
pub(crate) mod tests {
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
    fn unknown_items_are_skipped_and_broken_ones_refused() {
        let mut bytes = sample().encode();
        bytes.extend([0x99, 2, 0xde, 0xad]);
        assert_eq!(Location::parse(&bytes).unwrap(), sample());
        bytes.extend([0x99, 5, 0x01]);
        assert!(matches!(
            Location::parse(&bytes),
            Err(Error::Truncated { .. })
        ));
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

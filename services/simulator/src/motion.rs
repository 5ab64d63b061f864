//! How a simulated vehicle moves: a loop of waypoints around its city,
//! driven at 10-90 km/h, with parking stops, charging stops when the battery
//! runs low (SOC rising while charging, falling while driving), and the
//! box temperatures of refrigerated vans (with occasional excursions).
//! Each call to [`Motion::tick`] advances one report interval.

use chrono::{DateTime, Utc};
use fleetdesk_telematics::jt808::Location;
use fleetdesk_telematics::jt808::location::{ProbeTemperature, status};
use rand::Rng as _;
use rand::rngs::StdRng;

/// A city the simulated fleet drives in: centre and GB/T 2260 codes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct City {
    pub name: &'static str,
    pub lat: f64,
    pub lng: f64,
    pub province: u16,
    pub city: u16,
}

/// Cities by plate prefix (the demo fleet's, and a few more).
pub const CITIES: [(&str, City); 11] = [
    ("沪", city("上海", 31.2304, 121.4737, 31, 100)),
    ("浙A", city("杭州", 30.2741, 120.1551, 33, 100)),
    ("粤A", city("广州", 23.1291, 113.2644, 44, 100)),
    ("粤B", city("深圳", 22.5431, 114.0579, 44, 300)),
    ("苏A", city("南京", 32.0603, 118.7969, 32, 100)),
    ("苏E", city("苏州", 31.2990, 120.5853, 32, 500)),
    ("粤S", city("东莞", 23.0207, 113.7518, 44, 1900)),
    ("粤E", city("佛山", 23.0215, 113.1214, 44, 600)),
    ("京", city("北京", 39.9042, 116.4074, 11, 100)),
    ("川A", city("成都", 30.5728, 104.0668, 51, 100)),
    ("鄂A", city("武汉", 30.5928, 114.3055, 42, 100)),
];

const fn city(name: &'static str, lat: f64, lng: f64, province: u16, city: u16) -> City {
    City {
        name,
        lat,
        lng,
        province,
        city,
    }
}

/// The city of a plate, or one of the list chosen by the plate's bytes.
pub fn city_of_plate(plate: &str) -> City {
    CITIES
        .iter()
        .find(|(prefix, _)| plate.starts_with(prefix))
        .map(|(_, c)| *c)
        .unwrap_or_else(|| {
            let h = plate.bytes().fold(0usize, |h, b| h * 31 + usize::from(b));
            CITIES[h % CITIES.len()].1
        })
}

/// How a simulated vehicle starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// Parked, driving or charging, as chance has it.
    Random,
    /// Parked for a long while (tests).
    Parked,
    /// Driving, and never stopping (tests).
    Driving,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Mode {
    Driving,
    Parked { ticks_left: u32 },
    Charging,
}

#[derive(Debug, Clone)]
struct Probe {
    setpoint: f64,
    celsius: f64,
    /// Ticks left of a door-open or cooling-failure excursion.
    excursion: u32,
}

const METRES_PER_DEGREE: f64 = 111_320.0;

/// Reports an off-shift vehicle stays parked for (hours at the default
/// 10 s interval).
const OFF_SHIFT_TICKS: std::ops::Range<u32> = 1_500..6_000;

/// A vehicle's state between two reports.
#[derive(Debug)]
pub struct Motion {
    lat: f64,
    lng: f64,
    heading: f64,
    speed_kmh: f64,
    soc: f64,
    mileage_m: f64,
    waypoints: Vec<(f64, f64)>,
    next: usize,
    mode: Mode,
    never_stops: bool,
    locked: bool,
    probes: Vec<Probe>,
    rng: StdRng,
}

impl Motion {
    pub fn new(
        city: City,
        refrigerated: bool,
        start: Start,
        odometer_m: u64,
        mut rng: StdRng,
    ) -> Motion {
        // A loop of 6-9 stops 2-15 km around the centre.
        let stops = rng.gen_range(6..10);
        let waypoints: Vec<(f64, f64)> = (0..stops)
            .map(|_| {
                let r = rng.gen_range(2_000.0..15_000.0);
                let a = rng.gen_range(0.0..std::f64::consts::TAU);
                offset(city.lat, city.lng, r * a.cos(), r * a.sin())
            })
            .collect();
        let at = rng.gen_range(0..waypoints.len());
        let (lat, lng) = waypoints[at];
        let mode = match start {
            Start::Driving => Mode::Driving,
            Start::Parked => Mode::Parked {
                ticks_left: u32::MAX,
            },
            // A real fleet at any hour: some off shift at the depot for hours,
            // some on a delivery stop, most on the road, a few charging.
            Start::Random => match rng.gen_range(0..10) {
                0..=2 => Mode::Parked {
                    ticks_left: rng.gen_range(OFF_SHIFT_TICKS),
                },
                3..=5 => Mode::Driving,
                6..=8 => Mode::Parked {
                    ticks_left: rng.gen_range(3..60),
                },
                _ => Mode::Charging,
            },
        };
        let probes = if refrigerated {
            let setpoint = if rng.gen_bool(0.6) { -18.0 } else { 4.0 };
            (0..2)
                .map(|_| Probe {
                    setpoint,
                    celsius: setpoint + rng.gen_range(-0.5..0.5),
                    excursion: 0,
                })
                .collect()
        } else {
            Vec::new()
        };
        Motion {
            lat,
            lng,
            heading: 0.0,
            speed_kmh: if mode == Mode::Driving { 40.0 } else { 0.0 },
            soc: rng.gen_range(35.0..95.0),
            mileage_m: odometer_m as f64,
            next: (at + 1) % waypoints.len(),
            waypoints,
            mode,
            never_stops: start == Start::Driving,
            locked: false,
            probes,
            rng,
        }
    }

    pub fn moving(&self) -> bool {
        self.speed_kmh > 0.0
    }

    pub fn driving(&self) -> bool {
        self.mode == Mode::Driving
    }

    pub fn locked(&self) -> bool {
        self.locked
    }

    /// Locks or unlocks the doors (only asked of a standing vehicle). A
    /// locked vehicle stays parked until it is unlocked.
    pub fn set_locked(&mut self, locked: bool) {
        self.locked = locked;
        if locked {
            self.speed_kmh = 0.0;
            self.mode = Mode::Parked {
                ticks_left: u32::MAX,
            };
        } else if self.mode
            == (Mode::Parked {
                ticks_left: u32::MAX,
            })
            && !self.never_stops
        {
            self.mode = Mode::Parked {
                ticks_left: self.rng.gen_range(2..10),
            };
        }
    }

    /// Advances `secs` seconds.
    pub fn tick(&mut self, secs: f64) {
        match self.mode {
            Mode::Driving => self.drive(secs),
            Mode::Parked { ticks_left } => {
                self.speed_kmh = 0.0;
                self.mode = match ticks_left {
                    0 if !self.locked => Mode::Driving,
                    0 => Mode::Parked { ticks_left: 0 },
                    n => Mode::Parked {
                        ticks_left: n.saturating_sub(1),
                    },
                };
                // Idle draw of the electronics.
                self.soc = (self.soc - 0.001 * secs / 10.0).max(0.0);
            }
            Mode::Charging => {
                self.speed_kmh = 0.0;
                // A DC charger: about 1.5 % a minute.
                self.soc = (self.soc + 0.025 * secs).min(100.0);
                if self.soc >= 90.0 + self.rng.gen_range(0.0..8.0) {
                    self.mode = Mode::Driving;
                }
            }
        }
        for p in &mut self.probes {
            if p.excursion == 0 && self.rng.gen_bool(0.004) {
                p.excursion = self.rng.gen_range(6..30);
            }
            let target = if p.excursion > 0 {
                p.excursion -= 1;
                p.setpoint + 10.0
            } else {
                p.setpoint
            };
            p.celsius += (target - p.celsius) * 0.3 + self.rng.gen_range(-0.3..0.3);
        }
    }

    fn drive(&mut self, secs: f64) {
        self.speed_kmh = (self.speed_kmh + self.rng.gen_range(-10.0..10.0)).clamp(10.0, 90.0);
        let mut step = self.speed_kmh / 3.6 * secs;
        self.mileage_m += step;
        // About 0.4 % of the battery per km.
        self.soc = (self.soc - step / 1000.0 * 0.4).max(0.0);
        while step > 0.0 {
            let (tlat, tlng) = self.waypoints[self.next];
            let dy = (tlat - self.lat) * METRES_PER_DEGREE;
            let dx = (tlng - self.lng) * METRES_PER_DEGREE * self.lat.to_radians().cos();
            let left = dx.hypot(dy);
            if left > 0.5 {
                self.heading = dx.atan2(dy).to_degrees().rem_euclid(360.0);
            }
            if left > step {
                (self.lat, self.lng) =
                    offset(self.lat, self.lng, dx / left * step, dy / left * step);
                return;
            }
            (self.lat, self.lng) = (tlat, tlng);
            step -= left;
            self.next = (self.next + 1) % self.waypoints.len();
            if self.never_stops {
                continue;
            }
            if self.soc < 25.0 {
                self.mode = Mode::Charging;
                self.speed_kmh = 0.0;
                return;
            }
            if self.rng.gen_bool(0.35) {
                self.mode = Mode::Parked {
                    ticks_left: self.rng.gen_range(3..60),
                };
                self.speed_kmh = 0.0;
                return;
            }
        }
    }

    /// The report of this moment.
    pub fn location(&self, time: DateTime<Utc>, alarm: u32) -> Location {
        let mut bits = status::POSITIONED;
        if self.mode == Mode::Driving {
            bits |= status::ACC_ON;
        }
        if self.locked {
            bits |= status::DOOR_LOCKED;
        }
        Location {
            alarm,
            status: bits,
            latitude: (self.lat * 1e6).round() / 1e6,
            longitude: (self.lng * 1e6).round() / 1e6,
            altitude_m: 12,
            speed_dkmh: (self.speed_kmh * 10.0).round() as u16,
            heading: self.heading.round() as u16 % 360,
            time,
            mileage_m: Some(self.mileage_m as u64 / 100 * 100),
            signal: Some(25),
            satellites: Some(12),
            soc_percent: Some(self.soc.round().clamp(0.0, 100.0) as u8),
            temperatures: self
                .probes
                .iter()
                .enumerate()
                .map(|(i, p)| ProbeTemperature {
                    probe: i as u8 + 1,
                    deci_celsius: (p.celsius * 10.0).round() as i16,
                })
                .collect(),
            safety_alarms: Vec::new(),
        }
    }
}

/// A point `east` and `north` metres from (lat, lng).
fn offset(lat: f64, lng: f64, east: f64, north: f64) -> (f64, f64) {
    (
        lat + north / METRES_PER_DEGREE,
        lng + east / (METRES_PER_DEGREE * lat.to_radians().cos()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng as _;

    fn shenzhen() -> City {
        city_of_plate("粤B12345D")
    }

    /// A vehicle in Shenzhen whose odometer reads 30,000 km.
    fn in_shenzhen(refrigerated: bool, start: Start, seed: u64) -> Motion {
        Motion::new(
            shenzhen(),
            refrigerated,
            start,
            30_000_000,
            StdRng::seed_from_u64(seed),
        )
    }

    #[test]
    fn plates_find_their_city() {
        assert_eq!(shenzhen().name, "深圳");
        assert_eq!(city_of_plate("沪AD12345").name, "上海");
        // Unknown prefixes still get a city, always the same one.
        assert_eq!(city_of_plate("桂A00001"), city_of_plate("桂A00001"));
    }

    #[test]
    fn driving_moves_within_the_city_and_drains_the_battery() {
        let mut m = in_shenzhen(false, Start::Driving, 1);
        let first = m.location(Utc::now(), 0);
        assert_eq!(
            first.mileage_m,
            Some(30_000_000),
            "it drives on from its odometer"
        );
        let soc = m.soc;
        for _ in 0..360 {
            m.tick(10.0);
            let l = m.location(Utc::now(), 0);
            assert!((1..=900).contains(&l.speed_dkmh), "{}", l.speed_dkmh);
            assert!((l.latitude - 22.5431).abs() < 0.2 && (l.longitude - 114.0579).abs() < 0.2);
        }
        let last = m.location(Utc::now(), 0);
        assert!(last.mileage_m > first.mileage_m);
        assert!(m.soc < soc);
    }

    #[test]
    fn charging_raises_the_soc_while_standing() {
        let mut m = in_shenzhen(false, Start::Random, 2);
        m.mode = Mode::Charging;
        m.soc = 20.0;
        for _ in 0..10 {
            m.tick(10.0);
            assert_eq!(m.location(Utc::now(), 0).speed_dkmh, 0);
        }
        assert!(m.soc > 22.0);
    }

    #[test]
    fn a_locked_vehicle_stays_parked_with_the_door_bit_set() {
        let mut m = in_shenzhen(true, Start::Parked, 3);
        m.set_locked(true);
        for _ in 0..100 {
            m.tick(10.0);
        }
        let l = m.location(Utc::now(), 0);
        assert!(l.door_locked() && l.speed_dkmh == 0);
        assert_eq!(l.temperatures.len(), 2);
        m.set_locked(false);
        assert!(!m.location(Utc::now(), 0).door_locked());
    }
}

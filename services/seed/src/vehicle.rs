//! Demo and scale data of the vehicle service.
//!
//! - [`run`]: demo enterprise A gets about 2,000 new-energy logistics
//!   vehicles of real Chinese makes (valid VINs, green plates of several
//!   cities), drivers bound to most of them, usage records of every kind and
//!   their operation-log rows, spread over its organisation tree.
//! - [`scale`]: up to 1,000,000 vehicles over the scale enterprises org's
//!   seed made, written with COPY, one transaction per enterprise.
//!
//! Both are deterministic (a seeded generator, ids from `kit::demo_id`) and
//! idempotent: a block whose first row exists is skipped whole, and each
//! block is one transaction, so it is either all there or not at all.

use std::time::Instant;

use chrono::{DateTime, Datelike, Duration, NaiveTime, TimeZone, Utc};
use fleetdesk_kit::db;
use fleetdesk_kit::demo_id;
use fleetdesk_kit::ids::{IdNumber, Vin};
use sqlx_postgres::{PgConnection, PgPool};
use uuid::Uuid;

/// Vehicles the demo enterprise gets.
pub const DEMO_VEHICLES: usize = 2_000;
/// Drivers the demo enterprise gets (most bound to a vehicle).
pub const DEMO_DRIVERS: usize = 1_200;
/// Drivers of the demo seed that are bound to a vehicle.
const BOUND_DRIVERS: usize = 1_100;
/// Rows per COPY message.
const COPY_CHUNK: usize = 256 * 1024;

/// A small deterministic generator (SplitMix64): the same data every run.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// One of `items`.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }

    /// True with probability `percent` %.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// A vehicle model on the Chinese new-energy logistics market.
#[derive(Debug, Clone, Copy)]
pub struct Model {
    pub brand: &'static str,
    pub model: &'static str,
    /// VehicleCategory code: 1 mini truck, 2 light truck, 4 heavy truck,
    /// 5 van, 6 refrigerated truck.
    pub category: i16,
    /// EnergyType code: 1 battery electric, 3 range extended.
    pub energy: i16,
    pub battery_wh: i64,
    pub range_km: i32,
    pub load_kg: i32,
    pub curb_kg: i32,
    pub seats: i32,
    /// World manufacturer identifier and descriptor section of its VINs.
    pub wmi: &'static str,
    pub vds: &'static str,
    /// Share of the fleet, in parts of 100.
    pub weight: u64,
    /// Purchase price in fen.
    pub price_fen: i64,
    /// Monthly rent in fen.
    pub rent_fen: i64,
}

pub const MODELS: [Model; 14] = [
    Model {
        brand: "五菱",
        model: "五菱荣光EV",
        category: 5,
        energy: 1,
        battery_wh: 41_860,
        range_km: 252,
        load_kg: 830,
        curb_kg: 1_460,
        seats: 2,
        wmi: "LZW",
        vds: "ADAGB",
        weight: 12,
        price_fen: 7_980_000,
        rent_fen: 230_000,
    },
    Model {
        brand: "五菱",
        model: "五菱征程EV",
        category: 5,
        energy: 1,
        battery_wh: 53_580,
        range_km: 300,
        load_kg: 1_000,
        curb_kg: 1_720,
        seats: 2,
        wmi: "LZW",
        vds: "CAGBC",
        weight: 8,
        price_fen: 10_880_000,
        rent_fen: 280_000,
    },
    Model {
        brand: "比亚迪",
        model: "比亚迪T3",
        category: 5,
        energy: 1,
        battery_wh: 50_300,
        range_km: 300,
        load_kg: 750,
        curb_kg: 1_660,
        seats: 2,
        wmi: "LGX",
        vds: "C4C3D",
        weight: 10,
        price_fen: 12_980_000,
        rent_fen: 300_000,
    },
    Model {
        brand: "比亚迪",
        model: "比亚迪T5",
        category: 2,
        energy: 1,
        battery_wh: 81_140,
        range_km: 260,
        load_kg: 1_490,
        curb_kg: 2_860,
        seats: 3,
        wmi: "LGX",
        vds: "F5D4E",
        weight: 8,
        price_fen: 21_800_000,
        rent_fen: 450_000,
    },
    Model {
        brand: "比亚迪",
        model: "比亚迪T5冷藏车",
        category: 6,
        energy: 1,
        battery_wh: 81_140,
        range_km: 230,
        load_kg: 1_200,
        curb_kg: 3_100,
        seats: 3,
        wmi: "LGX",
        vds: "F5D6R",
        weight: 3,
        price_fen: 26_800_000,
        rent_fen: 560_000,
    },
    Model {
        brand: "开瑞",
        model: "开瑞优劲EV",
        category: 1,
        energy: 1,
        battery_wh: 38_640,
        range_km: 260,
        load_kg: 900,
        curb_kg: 1_420,
        seats: 2,
        wmi: "LVV",
        vds: "DB21E",
        weight: 7,
        price_fen: 6_980_000,
        rent_fen: 200_000,
    },
    Model {
        brand: "东风",
        model: "东风凯普特EV350",
        category: 2,
        energy: 1,
        battery_wh: 81_140,
        range_km: 270,
        load_kg: 1_495,
        curb_kg: 2_920,
        seats: 3,
        wmi: "LGA",
        vds: "G24E8",
        weight: 7,
        price_fen: 19_800_000,
        rent_fen: 420_000,
    },
    Model {
        brand: "东风",
        model: "东风EM26",
        category: 5,
        energy: 1,
        battery_wh: 53_580,
        range_km: 280,
        load_kg: 1_000,
        curb_kg: 1_800,
        seats: 2,
        wmi: "LGA",
        vds: "E26B3",
        weight: 5,
        price_fen: 11_280_000,
        rent_fen: 290_000,
    },
    Model {
        brand: "福田",
        model: "福田智蓝轻卡",
        category: 2,
        energy: 1,
        battery_wh: 100_460,
        range_km: 260,
        load_kg: 1_495,
        curb_kg: 2_950,
        seats: 3,
        wmi: "LVB",
        vds: "V4JB4",
        weight: 7,
        price_fen: 23_800_000,
        rent_fen: 480_000,
    },
    Model {
        brand: "江淮",
        model: "江淮帅铃i5",
        category: 2,
        energy: 1,
        battery_wh: 82_170,
        range_km: 245,
        load_kg: 1_490,
        curb_kg: 2_870,
        seats: 3,
        wmi: "LJ1",
        vds: "EKS2G",
        weight: 6,
        price_fen: 19_500_000,
        rent_fen: 410_000,
    },
    Model {
        brand: "远程",
        model: "远程星享V6E",
        category: 5,
        energy: 1,
        battery_wh: 41_860,
        range_km: 270,
        load_kg: 1_050,
        curb_kg: 1_790,
        seats: 2,
        wmi: "L6T",
        vds: "7824Z",
        weight: 9,
        price_fen: 9_980_000,
        rent_fen: 260_000,
    },
    Model {
        brand: "远程",
        model: "远程星智H8E",
        category: 4,
        energy: 3,
        battery_wh: 60_650,
        range_km: 1_000,
        load_kg: 18_000,
        curb_kg: 12_500,
        seats: 2,
        wmi: "L6T",
        vds: "7F4PH",
        weight: 2,
        price_fen: 56_800_000,
        rent_fen: 1_380_000,
    },
    Model {
        brand: "吉利",
        model: "吉利远程锋锐F3E",
        category: 1,
        energy: 1,
        battery_wh: 41_860,
        range_km: 260,
        load_kg: 1_130,
        curb_kg: 1_525,
        seats: 2,
        wmi: "L6T",
        vds: "2H2E5",
        weight: 6,
        price_fen: 7_880_000,
        rent_fen: 220_000,
    },
    Model {
        brand: "上汽大通",
        model: "上汽大通EV30",
        category: 5,
        energy: 1,
        battery_wh: 52_500,
        range_km: 302,
        load_kg: 1_000,
        curb_kg: 1_720,
        seats: 2,
        wmi: "LSK",
        vds: "G4AC3",
        weight: 10,
        price_fen: 13_980_000,
        rent_fen: 320_000,
    },
];

/// A model by the catalogue's weights.
fn pick_model(rng: &mut Rng) -> &'static Model {
    let total: u64 = MODELS.iter().map(|m| m.weight).sum();
    let mut n = rng.below(total);
    for m in &MODELS {
        if n < m.weight {
            return m;
        }
        n -= m.weight;
    }
    &MODELS[0]
}

/// VIN model-year codes, 2020 (L) to 2025 (S).
const YEARS: [(i32, char); 6] = [
    (2020, 'L'),
    (2021, 'M'),
    (2022, 'N'),
    (2023, 'P'),
    (2024, 'R'),
    (2025, 'S'),
];

/// A valid VIN: WMI + VDS + check digit + year + plant + six-digit serial.
pub fn vin(model: &Model, year_code: char, plant: char, serial: u32) -> String {
    let mut vin = format!(
        "{}{}0{year_code}{plant}{:06}",
        model.wmi,
        model.vds,
        serial % 1_000_000
    );
    let check = Vin::check_digit_for(&vin).expect("generated VINs use valid characters");
    vin.replace_range(8..9, &check.to_string());
    vin
}

/// Plate prefixes (province + city letter) of cities with green plates.
const CITIES: [&str; 20] = [
    "粤A", "粤B", "沪A", "沪B", "京A", "浙A", "苏A", "苏E", "川A", "鄂A", "湘A", "闽A", "闽D",
    "鲁B", "渝A", "陕A", "津A", "皖A", "豫A", "粤S",
];

/// Serial letters a plate may use (no I or O).
const PLATE_LETTERS: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ";

/// A small new-energy plate: city + D (battery) or F (other) + 5 characters.
/// `letter` true puts a letter first (the demo's plates), else a digit (the
/// scale plates), so the two never collide.
pub fn plate(city: &str, range_extended: bool, letter: bool, n: u32) -> String {
    let kind = if range_extended { 'F' } else { 'D' };
    let first = if letter {
        PLATE_LETTERS[(n / 10_000) as usize % PLATE_LETTERS.len()] as char
    } else {
        char::from(b'0' + ((n / 10_000) % 10) as u8)
    };
    format!("{city}{kind}{first}{:04}", n % 10_000)
}

/// The demo enterprise's organisations (org seed keys) with the cities whose
/// plates their vehicles carry, and their share of the fleet.
const DEMO_ORGS: [(&str, &[&str], u64); 7] = [
    ("a-shanghai", &["沪A", "沪B"], 22),
    ("a-hangzhou", &["浙A"], 16),
    ("a-guangzhou", &["粤A"], 20),
    ("a-shenzhen", &["粤B"], 24),
    ("a-east", &["苏A", "苏E"], 8),
    ("a-south", &["粤S", "粤E"], 7),
    ("a-root", &["沪A"], 3),
];

const SURNAMES: [&str; 30] = [
    "王", "李", "张", "刘", "陈", "杨", "黄", "赵", "吴", "周", "徐", "孙", "马", "朱", "胡", "郭",
    "何", "高", "林", "罗", "郑", "梁", "谢", "宋", "唐", "许", "韩", "冯", "邓", "曹",
];
const GIVEN: [&str; 40] = [
    "伟", "强", "磊", "军", "勇", "杰", "涛", "斌", "超", "明", "刚", "平", "辉", "鹏", "华", "飞",
    "建国", "建华", "志强", "海涛", "国强", "永刚", "晓东", "文斌", "俊杰", "宏伟", "春雷", "德明",
    "少华", "金龙", "振华", "立新", "红军", "小龙", "家豪", "子豪", "浩然", "宇航", "天佑", "嘉俊",
];
const PHONE_PREFIXES: [&str; 12] = [
    "135", "136", "137", "138", "139", "150", "151", "158", "186", "187", "188", "189",
];

/// (region code, city, districts) for ID numbers and addresses by plate city.
fn region_of(city: &str) -> (&'static str, &'static str, &'static [&'static str]) {
    match city {
        "沪A" | "沪B" => (
            "310115",
            "上海市",
            &["浦东新区", "闵行区", "嘉定区", "宝山区"],
        ),
        "浙A" => (
            "330106",
            "浙江省杭州市",
            &["西湖区", "余杭区", "萧山区", "滨江区"],
        ),
        "粤A" => (
            "440106",
            "广东省广州市",
            &["天河区", "白云区", "番禺区", "黄埔区"],
        ),
        "粤B" => (
            "440305",
            "广东省深圳市",
            &["南山区", "宝安区", "龙岗区", "龙华区"],
        ),
        "苏A" => ("320104", "江苏省南京市", &["秦淮区", "江宁区", "浦口区"]),
        "苏E" => ("320505", "江苏省苏州市", &["虎丘区", "吴中区", "相城区"]),
        "粤S" => ("441900", "广东省东莞市", &["长安镇", "虎门镇", "松山湖"]),
        _ => ("440604", "广东省佛山市", &["禅城区", "南海区", "顺德区"]),
    }
}
const ROADS: [&str; 12] = [
    "建设路",
    "人民路",
    "解放路",
    "中山路",
    "科技园路",
    "物流园大道",
    "工业大道",
    "新华路",
    "长江路",
    "滨河路",
    "发展大道",
    "创业路",
];
const LESSORS: [&str; 6] = [
    "地上铁租车（深圳）有限公司",
    "一汽租赁有限公司",
    "上汽安吉租赁有限公司",
    "深圳市福瑞电动汽车租赁有限公司",
    "浙江快电新能源汽车租赁有限公司",
    "广州骏运新能源汽车租赁有限公司",
];

/// COPY text-format field: `\N` for none, else the value with `\`, tab,
/// newline and carriage return escaped.
fn field(out: &mut String, value: Option<&str>) {
    match value {
        None => out.push_str("\\N"),
        Some(v) => {
            for c in v.chars() {
                match c {
                    '\\' => out.push_str("\\\\"),
                    '\t' => out.push_str("\\t"),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    c => out.push(c),
                }
            }
        }
    }
}

/// One COPY row from its fields.
struct Row<'a>(&'a mut String, bool);

impl Row<'_> {
    fn start(out: &mut String) -> Row<'_> {
        Row(out, true)
    }

    fn opt(mut self, value: Option<&str>) -> Self {
        if !self.1 {
            self.0.push('\t');
        }
        self.1 = false;
        field(self.0, value);
        self
    }

    fn text(self, value: &str) -> Self {
        self.opt(Some(value))
    }

    fn show(self, value: impl std::fmt::Display) -> Self {
        let text = value.to_string();
        self.opt(Some(&text))
    }

    fn maybe(self, value: Option<impl std::fmt::Display>) -> Self {
        match value {
            Some(v) => self.show(v),
            None => self.opt(None),
        }
    }

    fn time(self, value: Option<DateTime<Utc>>) -> Self {
        self.maybe(value.map(|t| t.to_rfc3339()))
    }

    fn end(self) {
        self.0.push('\n');
    }
}

/// Streams text-format rows into `copy <table> (<columns>) from stdin` in chunks.
pub async fn copy(
    conn: &mut PgConnection,
    table: &str,
    columns: &str,
    rows: &str,
) -> sqlx::Result<()> {
    let mut copy = conn
        .copy_in_raw(&format!("copy {table} ({columns}) from stdin"))
        .await?;
    let bytes = rows.as_bytes();
    let mut start = 0;
    while start < bytes.len() {
        // Cut at a row end so no chunk splits a UTF-8 character.
        let mut end = (start + COPY_CHUNK).min(bytes.len());
        while end < bytes.len() && bytes[end - 1] != b'\n' {
            end += 1;
        }
        copy.send(&bytes[start..end]).await?;
        start = end;
    }
    copy.finish().await?;
    Ok(())
}

const VEHICLE_COLUMNS: &str = "id, enterprise_id, org_id, created_by, updated_by, plate_number, \
     plate_color, vin, engine_number, brand, model, category, energy_type, body_color, seat_count, \
     rated_load_kg, curb_weight_kg, battery_capacity_wh, rated_range_km, ownership_type, status, \
     register_time, licence_owner, licence_issue_time, inspection_expire_time, \
     insurance_expire_time, terminal_id, terminal_sim, terminal_bound_at, driver_id, driver_name, \
     usage_kind, usage_status, lease_start_time, lease_end_time, tags, licence_images, remark, \
     created_at";

/// Kind, state, start and end of a vehicle's open usage record.
type UsageCopy = (i16, i16, DateTime<Utc>, Option<DateTime<Utc>>);

/// A generated vehicle.
#[derive(Debug, Clone)]
struct NewVehicle {
    id: Uuid,
    org_id: Uuid,
    plate: String,
    vin: String,
    model: &'static Model,
    ownership: i16,
    status: i16,
    registered: DateTime<Utc>,
    /// The licence's inspection stamp and the insurance's end.
    inspection_due: DateTime<Utc>,
    insurance_end: DateTime<Utc>,
    terminal: Option<(String, String)>,
    driver: Option<(Uuid, String)>,
    /// Kind, state, start, end of the open usage record.
    usage: Option<UsageCopy>,
    created_at: DateTime<Utc>,
}

const BODY_COLORS: [&str; 4] = ["白色", "白色", "银色", "蓝色"];

fn vehicle_row(
    out: &mut String,
    enterprise: Uuid,
    creator: Uuid,
    owner: &str,
    v: &NewVehicle,
    rng: &mut Rng,
) {
    let m = v.model;
    let (kind, state, start, end) = match v.usage {
        Some((k, s, start, end)) => (Some(k), Some(s), Some(start), end),
        None => (None, None, None, None),
    };
    let engine = format!("TZ{}{:07}", m.wmi, rng.below(10_000_000));
    let color = *rng.pick(&BODY_COLORS[..]);
    Row::start(out)
        .show(v.id)
        .show(enterprise)
        .show(v.org_id)
        .show(creator)
        .show(creator)
        .text(&v.plate)
        .show(3) // green
        .text(&v.vin)
        .text(&engine)
        .text(m.brand)
        .text(m.model)
        .show(m.category)
        .show(m.energy)
        .text(color)
        .show(m.seats)
        .show(m.load_kg)
        .show(m.curb_kg)
        .show(m.battery_wh)
        .show(m.range_km)
        .show(v.ownership)
        .show(v.status)
        .time(Some(v.registered))
        .text(owner)
        .time(Some(v.registered))
        .time(Some(v.inspection_due))
        .time(Some(v.insurance_end))
        .maybe(v.terminal.as_ref().map(|t| t.0.clone()))
        .maybe(v.terminal.as_ref().map(|t| t.1.clone()))
        .time(
            v.terminal
                .as_ref()
                .map(|_| v.registered + Duration::days(3)),
        )
        .maybe(v.driver.as_ref().map(|d| d.0))
        .maybe(v.driver.as_ref().map(|d| d.1.clone()))
        .maybe(kind)
        .maybe(state)
        .time(start)
        .time(end)
        .text("{}")
        .text("[]")
        .text("")
        .time(Some(v.created_at))
        .end();
}

/// The first anniversary of `registered` on or after `day` (registration
/// days are 1–28, so every year has one).
fn next_anniversary(registered: DateTime<Utc>, day: DateTime<Utc>) -> DateTime<Utc> {
    let mut year = registered.year().max(day.year() - 1);
    loop {
        let at = registered.with_year(year).unwrap_or(registered);
        if at >= day {
            return at;
        }
        year += 1;
    }
}

/// Scale vehicle `g`'s registration, and its VIN's model-year code.
fn scale_registration(g: u64) -> (DateTime<Utc>, char) {
    let (year, code) = YEARS[(g % YEARS.len() as u64) as usize];
    let at = Utc
        .with_ymd_and_hms(year, 1 + (g % 12) as u32, 1 + (g % 28) as u32, 2, 0, 0)
        .single()
        .expect("days 1-28 exist in every month");
    (at, code)
}

/// Scale vehicle `g`'s inspection stamp: the next anniversary, or for one
/// vehicle in fifty the last one (lapsed).
fn scale_inspection_due(g: u64, registered: DateTime<Utc>, seeded: DateTime<Utc>) -> DateTime<Utc> {
    let due = next_anniversary(registered, seeded);
    if g % 50 == 7 {
        due.with_year(due.year() - 1).unwrap_or(due)
    } else {
        due
    }
}

/// Whole calendar months between two times, at least 0.
fn months_between(from: DateTime<Utc>, to: DateTime<Utc>) -> i32 {
    let months = (to.year() - from.year()) * 12 + to.month() as i32 - from.month() as i32;
    months.max(0)
}

fn add_months(at: DateTime<Utc>, months: i32) -> DateTime<Utc> {
    at + Duration::days(i64::from(months) * 30)
}

/// The demo enterprise's id and the member who "created" its data (the demo admin).
fn demo_enterprise() -> (Uuid, Uuid) {
    let eid = demo_id("enterprise:a");
    (eid, demo_id(&format!("member:{eid}:demo")))
}

/// Loads the demo enterprise's vehicles, drivers and usage records (idempotent).
pub async fn run(pool: &PgPool) -> anyhow::Result<()> {
    let (eid, creator) = demo_enterprise();
    let mut tx = db::begin_service(pool).await?;
    let first = demo_id("vehicle:a:0");
    let exists: bool = sqlx::query_scalar("select exists(select 1 from vehicle where id = $1)")
        .bind(first)
        .fetch_one(&mut *tx)
        .await?;
    if exists {
        tracing::info!("Demo vehicles already there.");
        return Ok(());
    }
    let started = Instant::now();
    let now = Utc
        .with_ymd_and_hms(2026, 11, 1, 2, 0, 0)
        .single()
        .unwrap_or_else(Utc::now);
    let mut rng = Rng::new(0xF1EE_7DE5);

    // Organisations by weight, each with its cities.
    let total_weight: u64 = DEMO_ORGS.iter().map(|o| o.2).sum();
    let org_of = |rng: &mut Rng| {
        let mut n = rng.below(total_weight);
        for o in &DEMO_ORGS {
            if n < o.2 {
                return o;
            }
            n -= o.2;
        }
        &DEMO_ORGS[0]
    };

    let mut vehicles = Vec::with_capacity(DEMO_VEHICLES);
    let mut usage = String::new();
    let mut logs = String::new();
    let mut bindings = String::new();
    let mut drivers = String::new();
    let mut plate_numbers_per_city: std::collections::HashMap<&str, u32> = Default::default();
    for i in 0..DEMO_VEHICLES {
        let model = pick_model(&mut rng);
        let (org_key, cities, _) = org_of(&mut rng);
        let city = *rng.pick(cities);
        let n = plate_numbers_per_city.entry(city).or_insert(0);
        // Spread the plate numbers (7919 is prime to 240,000: no repeats).
        let plate_n = (*n * 7_919) % 240_000;
        *n += 1;
        let (year, year_code) = *rng.pick(&YEARS);
        let registered = Utc
            .with_ymd_and_hms(
                year,
                1 + rng.below(12) as u32,
                1 + rng.below(28) as u32,
                2,
                0,
                0,
            )
            .single()
            .unwrap_or(now)
            .min(now - Duration::days(30));
        let ownership = match rng.below(100) {
            0..35 => 1,  // owned: a purchase
            35..83 => 2, // rented
            _ => 3,      // rent-to-own
        };
        let status = match rng.below(100) {
            0..82 => 1,
            82..92 => 2,
            92..97 => 3,
            _ => 4,
        };
        let terminal = rng.chance(88).then(|| {
            (
                format!("JT808D{i:06}"),
                format!("1440{:09}", 100_000_000 + i as u64 * 7_919 % 900_000_000),
            )
        });
        vehicles.push(NewVehicle {
            id: demo_id(&format!("vehicle:a:{i}")),
            org_id: demo_id(&format!("org:{org_key}")),
            plate: plate(city, model.energy == 3, true, plate_n),
            vin: vin(model, year_code, 'Z', i as u32),
            model,
            ownership,
            status,
            registered,
            inspection_due: registered + Duration::days(365 * 2),
            insurance_end: registered + Duration::days(365),
            terminal,
            driver: None,
            usage: None,
            created_at: registered + Duration::days(1 + rng.below(20) as i64),
        });
    }

    // ID cards end relative to the day the seed runs (the fleet's `now` is a
    // fixed past day): a fresh demo always has a few within the warnings' 30 days.
    let id_card_day = {
        let shanghai = Utc::now() + Duration::hours(8);
        Utc.from_utc_datetime(&shanghai.date_naive().and_time(NaiveTime::MIN)) - Duration::hours(8)
    };
    // Drivers: each in the organisation of the vehicle it drives.
    for i in 0..DEMO_DRIVERS {
        let vehicle_index = i * DEMO_VEHICLES / DEMO_DRIVERS;
        let v = &vehicles[vehicle_index];
        let city = v.plate.chars().take(2).collect::<String>();
        let (region, city_name, districts) = region_of(&city);
        let id = demo_id(&format!("driver:a:{i}"));
        let name = format!("{}{}", rng.pick(&SURNAMES), rng.pick(&GIVEN));
        let phone = format!(
            "{}{:08}",
            PHONE_PREFIXES[i % PHONE_PREFIXES.len()],
            (i as u64 * 7_919 + 1_234_567) % 100_000_000
        );
        let birth = Utc
            .with_ymd_and_hms(1972, 1, 1, 0, 0, 0)
            .single()
            .unwrap_or(now)
            + Duration::days((i as i64) * 8 + rng.below(7) as i64);
        let first17 = format!(
            "{region}{}{:03}",
            birth.format("%Y%m%d"),
            10 + rng.below(980)
        );
        let id_number = match IdNumber::check_char_for(&first17) {
            Some(c) => format!("{first17}{c}"),
            None => continue,
        };
        let address = format!(
            "{city_name}{}{}{}号{}栋{}室",
            rng.pick(districts),
            rng.pick(&ROADS),
            1 + rng.below(300),
            1 + rng.below(20),
            101 + rng.below(30) * 100 + rng.below(6)
        );
        let licence_class = match v.model.category {
            4 => 2,     // A2
            2 | 6 => 4, // B2
            _ => 5,     // C1
        };
        let first_issue = birth + Duration::days(365 * 20 + rng.below(2_000) as i64);
        let expire = now + Duration::days(rng.below(2_400) as i64 - 90);
        let status = if rng.chance(4) {
            2
        } else if rng.chance(3) {
            3
        } else {
            1
        };
        let hire = v.created_at - Duration::days(rng.below(60) as i64);
        let (id_card_end, id_card_long_term) = demo_id_card(i, id_card_day);
        Row::start(&mut drivers)
            .show(id)
            .show(eid)
            .show(v.org_id)
            .show(creator)
            .show(creator)
            .text(&name)
            .text(&phone)
            .text(&id_number)
            .text(&format!("SJ{:05}", i + 1))
            .show(licence_class)
            .time(Some(first_issue))
            .time(Some(expire))
            .text(&address)
            .show(status)
            .time(Some(hire))
            .text("")
            .time(Some(hire))
            .time(id_card_end)
            .show(id_card_long_term)
            .end();
        log_row(
            &mut logs,
            eid,
            2,
            id,
            &format!("新增司机：{name}"),
            creator,
            hire,
        );
        if i < BOUND_DRIVERS && status == 1 {
            let v = &mut vehicles[vehicle_index];
            v.driver = Some((id, name.clone()));
            binding_row(
                &mut bindings,
                eid,
                creator,
                v,
                1,
                &id.to_string(),
                &name,
                "",
                hire,
            );
        }
    }

    // Usage records: the open one of each vehicle, and some history.
    let mut contract = 0u32;
    for (i, v) in vehicles.iter_mut().enumerate() {
        let m = v.model;
        let lessor = *rng.pick(&LESSORS);
        // A tenth of the vehicles had an earlier rental that ended.
        if v.ownership != 1 && rng.chance(10) {
            contract += 1;
            let start = v.registered;
            let end = add_months(start, 6);
            let rec = NewUsage {
                id: demo_id(&format!("usage:a:{i}:history")),
                kind: 1,
                state: 3,
                contract_no: format!("ZL-{}-{contract:05}", start.year()),
                counterparty: lessor.to_owned(),
                start,
                end: Some(end),
                ended_at: Some(end),
                terms: Terms::Rent {
                    rent: m.rent_fen,
                    deposit: m.rent_fen * 2,
                    months: 6,
                    return_time: Some(end),
                },
            };
            usage_row(&mut usage, eid, creator, v, &rec);
            log_row(
                &mut logs,
                eid,
                3,
                rec.id,
                &format!("结束租赁记录：合同编号 {}", rec.contract_no),
                creator,
                end,
            );
        }
        contract += 1;
        let (kind, terms, start, end, counterparty, prefix) = match v.ownership {
            1 => {
                let start = v.registered - Duration::days(5);
                let price = m.price_fen - m.price_fen % 10_000;
                (
                    2,
                    Terms::Purchase {
                        price,
                        tax: 0,
                        invoice: format!("{:08}", 40_000_000 + i),
                    },
                    start,
                    None,
                    format!("{}汽车授权经销商", m.brand),
                    "GC",
                )
            }
            2 => {
                // A few rentals start next month (pending).
                let start = if rng.chance(3) {
                    now + Duration::days(3 + rng.below(25) as i64)
                } else {
                    now - Duration::days(20 + rng.below(600) as i64)
                };
                let months = *rng.pick(&[12, 24, 36]);
                let end = add_months(start, months);
                (
                    1,
                    Terms::Rent {
                        rent: m.rent_fen,
                        deposit: m.rent_fen * 2,
                        months,
                        return_time: None,
                    },
                    start,
                    Some(end),
                    lessor.to_owned(),
                    "ZL",
                )
            }
            _ => {
                let start = now - Duration::days(30 + rng.below(700) as i64);
                let months = 36;
                let monthly = m.price_fen / 40 - m.price_fen / 40 % 100;
                let down = m.price_fen / 5 - m.price_fen / 5 % 100;
                let elapsed = months_between(start, now).min(months);
                let overdue = if rng.chance(12) {
                    1 + rng.below(2) as i32
                } else {
                    0
                };
                let overdue = overdue.min(elapsed);
                (
                    4,
                    Terms::RentToOwn {
                        months,
                        down,
                        monthly,
                        paid: elapsed - overdue,
                        overdue,
                    },
                    start,
                    Some(add_months(start, months)),
                    lessor.to_owned(),
                    "YZDS",
                )
            }
        };
        let state = if start > now { 1 } else { 2 };
        let rec = NewUsage {
            id: demo_id(&format!("usage:a:{i}")),
            kind,
            state,
            contract_no: format!("{prefix}-{}-{contract:05}", start.year()),
            counterparty,
            start,
            end,
            ended_at: None,
            terms,
        };
        usage_row(&mut usage, eid, creator, v, &rec);
        let label = match kind {
            1 => "租赁",
            2 => "购买",
            _ => "以租代售",
        };
        log_row(
            &mut logs,
            eid,
            3,
            rec.id,
            &format!("新增{label}记录：合同编号 {}", rec.contract_no),
            creator,
            v.created_at,
        );
        v.usage = Some((kind, state, start, end));
    }
    // Replacements: a vehicle in repair stood in for by another of the fleet
    // (a temporary replacement that has ended).
    for i in (0..DEMO_VEHICLES).step_by(40) {
        let (new, old) = (&vehicles[i], &vehicles[(i + 17) % DEMO_VEHICLES]);
        contract += 1;
        let start = now - Duration::days(60 + rng.below(200) as i64);
        let end = start + Duration::days(7 + rng.below(20) as i64);
        let rec = NewUsage {
            id: demo_id(&format!("usage:a:{i}:replacement")),
            kind: 3,
            state: 3,
            contract_no: format!("TH-{}-{contract:05}", start.year()),
            counterparty: String::new(),
            start,
            end: Some(end),
            ended_at: Some(end),
            terms: Terms::Replacement {
                replaced: old.id,
                replaced_plate: old.plate.clone(),
            },
        };
        usage_row(&mut usage, eid, creator, new, &rec);
        log_row(
            &mut logs,
            eid,
            3,
            rec.id,
            &format!("结束替换记录：合同编号 {}", rec.contract_no),
            creator,
            end,
        );
    }

    let mut rows = String::new();
    for v in &vehicles {
        vehicle_row(&mut rows, eid, creator, "演示物流有限公司", v, &mut rng);
        log_row(
            &mut logs,
            eid,
            1,
            v.id,
            &format!("新增车辆：{}", v.plate),
            creator,
            v.created_at,
        );
        if v.terminal.is_some() {
            let (serial, sim) = v.terminal.clone().unwrap_or_default();
            binding_row(
                &mut bindings,
                eid,
                creator,
                v,
                3,
                &serial,
                &serial,
                &sim,
                v.registered + Duration::days(3),
            );
        }
    }
    copy(&mut tx, "vehicle", VEHICLE_COLUMNS, &rows).await?;
    copy(&mut tx, "driver", DRIVER_COLUMNS, &drivers).await?;
    copy(&mut tx, "vehicle_binding", BINDING_COLUMNS, &bindings).await?;
    copy(&mut tx, "usage_record", USAGE_COLUMNS, &usage).await?;
    copy(&mut tx, "operation_log", LOG_COLUMNS, &logs).await?;
    tx.commit().await?;
    tracing::info!(
        vehicles = DEMO_VEHICLES,
        drivers = DEMO_DRIVERS,
        elapsed_ms = started.elapsed().as_millis() as u64,
        "Demo vehicles loaded."
    );
    Ok(())
}

/// Demo driver `i`'s ID card (居民身份证有效期至): every tenth long-term
/// (长期), one expired, one in fifty ending within 30 days (the
/// warnings page has some), the rest 1 to 15 years ahead of `day`. From
/// `i` alone, not the shared random stream, so the other demo rows stay as
/// they were.
fn demo_id_card(i: usize, day: DateTime<Utc>) -> (Option<DateTime<Utc>>, bool) {
    let i = i as i64;
    if i % 10 == 0 {
        (None, true)
    } else if i == 7 {
        (Some(day - Duration::days(12)), false)
    } else if i % 50 == 3 {
        (Some(day + Duration::days(2 + i % 27)), false)
    } else {
        let days = 365 * (1 + (i * 37) % 15) + (i * 13) % 300;
        (Some(day + Duration::days(days)), false)
    }
}

const DRIVER_COLUMNS: &str = "id, enterprise_id, org_id, created_by, updated_by, name, phone, \
     id_number, employee_no, licence_class, licence_first_issue_time, licence_expire_time, \
     address, status, hire_time, remark, created_at, id_card_expire_time, id_card_long_term";

const BINDING_COLUMNS: &str = "id, enterprise_id, org_id, created_by, vehicle_id, kind, target_id, \
     target_name, terminal_sim, bound_at, bound_by_name, remark";

#[allow(clippy::too_many_arguments)]
fn binding_row(
    out: &mut String,
    enterprise: Uuid,
    creator: Uuid,
    v: &NewVehicle,
    kind: i16,
    target: &str,
    target_name: &str,
    sim: &str,
    at: DateTime<Utc>,
) {
    Row::start(out)
        .show(demo_id(&format!("binding:{}:{kind}", v.id)))
        .show(enterprise)
        .show(v.org_id)
        .show(creator)
        .show(v.id)
        .show(kind)
        .text(target)
        .text(target_name)
        .text(sim)
        .time(Some(at))
        .text("演示管理员")
        .text("演示数据")
        .end();
}

const LOG_COLUMNS: &str =
    "id, enterprise_id, business_type, business_id, remark, operator_id, operator_name, created_at";

fn log_row(
    out: &mut String,
    enterprise: Uuid,
    business: i16,
    id: Uuid,
    remark: &str,
    creator: Uuid,
    at: DateTime<Utc>,
) {
    Row::start(out)
        .show(demo_id(&format!("oplog:{id}:{remark}")))
        .show(enterprise)
        .show(business)
        .show(id)
        .text(remark)
        .show(creator)
        .text("演示管理员")
        .time(Some(at))
        .end();
}

/// A generated usage record's terms (fen).
enum Terms {
    Rent {
        rent: i64,
        deposit: i64,
        months: i32,
        return_time: Option<DateTime<Utc>>,
    },
    Purchase {
        price: i64,
        tax: i64,
        invoice: String,
    },
    Replacement {
        replaced: Uuid,
        replaced_plate: String,
    },
    RentToOwn {
        months: i32,
        down: i64,
        monthly: i64,
        paid: i32,
        overdue: i32,
    },
}

struct NewUsage {
    id: Uuid,
    kind: i16,
    state: i16,
    contract_no: String,
    counterparty: String,
    start: DateTime<Utc>,
    end: Option<DateTime<Utc>>,
    ended_at: Option<DateTime<Utc>>,
    terms: Terms,
}

const USAGE_COLUMNS: &str = "id, enterprise_id, org_id, created_by, updated_by, vehicle_id, \
     plate_number, vin, kind, state, contract_no, counterparty, start_time, end_time, \
     monthly_rent_fen, deposit_fen, term_months, payment_day, return_time, price_fen, \
     purchase_tax_fen, invoice_no, replaced_vehicle_id, replaced_plate_number, \
     replacement_reason, temporary, down_payment_fen, monthly_payment_fen, total_price_fen, \
     final_payment_fen, paid_periods, overdue_periods, ended_at, created_at";

fn usage_row(out: &mut String, enterprise: Uuid, creator: Uuid, v: &NewVehicle, u: &NewUsage) {
    let none = None::<i64>;
    let row = Row::start(out)
        .show(u.id)
        .show(enterprise)
        .show(v.org_id)
        .show(creator)
        .show(creator)
        .show(v.id)
        .text(&v.plate)
        .text(&v.vin)
        .show(u.kind)
        .show(u.state)
        .text(&u.contract_no)
        .text(&u.counterparty)
        .time(Some(u.start))
        .time(u.end);
    let row = match &u.terms {
        Terms::Rent {
            rent,
            deposit,
            months,
            return_time,
        } => row
            .show(rent)
            .show(deposit)
            .show(months)
            .show(10)
            .time(*return_time)
            .maybe(none)
            .maybe(none)
            .opt(None)
            .opt(None)
            .opt(None)
            .opt(None)
            .opt(None)
            .maybe(none)
            .maybe(none)
            .maybe(none)
            .maybe(none)
            .maybe(none)
            .maybe(none),
        Terms::Purchase {
            price,
            tax,
            invoice,
        } => row
            .maybe(none)
            .maybe(none)
            .maybe(none)
            .maybe(none)
            .opt(None)
            .show(price)
            .show(tax)
            .text(invoice)
            .opt(None)
            .opt(None)
            .opt(None)
            .opt(None)
            .maybe(none)
            .maybe(none)
            .maybe(none)
            .maybe(none)
            .maybe(none)
            .maybe(none),
        Terms::Replacement {
            replaced,
            replaced_plate,
        } => row
            .maybe(none)
            .maybe(none)
            .maybe(none)
            .maybe(none)
            .opt(None)
            .maybe(none)
            .maybe(none)
            .opt(None)
            .show(replaced)
            .text(replaced_plate)
            .show(1) // repair
            .text("t")
            .maybe(none)
            .maybe(none)
            .maybe(none)
            .maybe(none)
            .maybe(none)
            .maybe(none),
        Terms::RentToOwn {
            months,
            down,
            monthly,
            paid,
            overdue,
        } => row
            .maybe(none)
            .maybe(none)
            .show(months)
            .maybe(none)
            .opt(None)
            .maybe(none)
            .maybe(none)
            .opt(None)
            .opt(None)
            .opt(None)
            .opt(None)
            .opt(None)
            .show(down)
            .show(monthly)
            .show(down + monthly * i64::from(*months))
            .show(0)
            .show(paid)
            .show(overdue),
    };
    row.time(u.ended_at).time(Some(u.start)).end();
}

/// One enterprise of the scale data: its id, organisations and the member
/// its rows are created by (made by org's scale seed).
#[derive(Debug, Clone)]
pub struct ScaleTenant {
    pub enterprise_id: Uuid,
    pub org_ids: Vec<Uuid>,
    pub creator: Uuid,
    pub name: String,
    /// Vehicles the scale seed gives it.
    pub vehicles: usize,
}

/// What a scale run did.
#[derive(Debug, Clone, Copy, Default)]
pub struct ScaleReport {
    pub written: usize,
    pub skipped: usize,
    pub seconds: f64,
}

impl ScaleReport {
    pub fn rows_per_second(&self) -> f64 {
        if self.seconds > 0.0 {
            self.written as f64 / self.seconds
        } else {
            0.0
        }
    }
}

/// How `total` vehicles split over `tenants` enterprises: the first (the
/// demo enterprise) gets a tenth, the rest share the remainder by a Zipf-like
/// curve, so sizes range from tens of thousands to a few hundred.
pub fn split(total: usize, tenants: usize) -> Vec<usize> {
    if tenants == 0 {
        return Vec::new();
    }
    let largest = total / 10;
    if tenants == 1 {
        return vec![total];
    }
    let rest = total - largest;
    let weights: Vec<f64> = (0..tenants - 1)
        .map(|k| 1.0 / ((k + 2) as f64).powf(0.8))
        .collect();
    let sum: f64 = weights.iter().sum();
    let mut sizes: Vec<usize> = weights
        .iter()
        .map(|w| (rest as f64 * w / sum) as usize)
        .collect();
    let given: usize = sizes.iter().sum();
    sizes[0] += rest - given;
    let mut out = vec![largest];
    out.extend(sizes);
    out
}

/// Writes each tenant's vehicles with COPY, one transaction per tenant; a
/// tenant whose first scale vehicle exists is skipped.
pub async fn scale(pool: &PgPool, tenants: &[ScaleTenant]) -> anyhow::Result<ScaleReport> {
    let started = Instant::now();
    let mut report = ScaleReport::default();
    // Licences and policies run a year from an anniversary of registration
    // after the day the seed runs, as a real fleet's do: about one vehicle in
    // twelve falls due within a month, and one in fifty has lapsed a year ago
    // (stamps dated from registration alone would leave most of a 1M fleet
    // overdue, and the first due-warning round would raise 800,000 warnings).
    let seeded = Utc::now();
    // A global vehicle number keeps VINs, plates and terminals unique everywhere.
    let mut global: u64 = 0;
    for (t, tenant) in tenants.iter().enumerate() {
        let base = global;
        global += tenant.vehicles as u64;
        if tenant.vehicles == 0 || tenant.org_ids.is_empty() {
            continue;
        }
        let mut tx = db::begin_service(pool).await?;
        let first = demo_id(&format!("vehicle:scale:{}:0", tenant.enterprise_id));
        let exists: bool = sqlx::query_scalar("select exists(select 1 from vehicle where id = $1)")
            .bind(first)
            .fetch_one(&mut *tx)
            .await?;
        if exists {
            report.skipped += tenant.vehicles;
            continue;
        }
        let mut rng = Rng::new(0x5CA1E ^ ((t as u64) << 20));
        let mut rows = String::with_capacity(tenant.vehicles * 520);
        for i in 0..tenant.vehicles {
            let g = base + i as u64;
            let model = pick_model(&mut rng);
            let (registered, year_code) = scale_registration(g);
            let city = CITIES[(g % CITIES.len() as u64) as usize];
            let n = (g / CITIES.len() as u64) as u32;
            let plant = b"ABCDEFGH"[(g / 1_000_000 % 8) as usize] as char;
            let v = NewVehicle {
                id: if i == 0 {
                    first
                } else {
                    Uuid::from_u64_pair(tenant.enterprise_id.as_u64_pair().0, g)
                },
                org_id: tenant.org_ids[(g % tenant.org_ids.len() as u64) as usize],
                // D or F by parity, so a city holds 2 × 100,000 plates.
                plate: plate(city, n % 2 == 1, false, n / 2),
                vin: vin(model, year_code, plant, (g % 1_000_000) as u32),
                model,
                ownership: 1 + (g % 3) as i16,
                status: if g.is_multiple_of(10) { 2 } else { 1 },
                registered,
                inspection_due: scale_inspection_due(g, registered, seeded),
                insurance_end: next_anniversary(registered, seeded),
                terminal: (!g.is_multiple_of(8)).then(|| {
                    (
                        format!("JT808S{g:010}"),
                        format!("1440{:09}", g % 1_000_000_000),
                    )
                }),
                driver: None,
                usage: None,
                created_at: registered + Duration::days(1 + (g % 20) as i64),
            };
            vehicle_row(
                &mut rows,
                tenant.enterprise_id,
                tenant.creator,
                &tenant.name,
                &v,
                &mut rng,
            );
        }
        copy(&mut tx, "vehicle", VEHICLE_COLUMNS, &rows).await?;
        tx.commit().await?;
        report.written += tenant.vehicles;
        tracing::info!(enterprise = %tenant.enterprise_id, vehicles = tenant.vehicles, "Scale vehicles written.");
    }
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

#[cfg(test)]
mod tests {
    use fleetdesk_kit::ids::Plate;

    use super::*;

    #[test]
    fn scale_licences_fall_due_over_the_year_and_few_have_lapsed() {
        let seeded = Utc.with_ymd_and_hms(2026, 12, 1, 2, 0, 0).unwrap();
        let (mut due_soon, mut lapsed) = (0, 0);
        let n = 120_000u64;
        for g in 0..n {
            let (registered, _) = scale_registration(g);
            let insurance = next_anniversary(registered, seeded);
            assert!(insurance >= seeded && insurance < seeded + Duration::days(366));
            assert_eq!(
                (insurance.month(), insurance.day()),
                (registered.month(), registered.day())
            );
            let due = scale_inspection_due(g, registered, seeded);
            if due < seeded {
                lapsed += 1;
            } else if due <= seeded + Duration::days(30) {
                due_soon += 1;
            }
        }
        // About 1/12 due within the warning's 30 days, 1/50 lapsed.
        assert!((n / 14..n / 10).contains(&due_soon), "{due_soon} due soon");
        assert!((n / 60..n / 40).contains(&lapsed), "{lapsed} lapsed");
    }

    #[test]
    fn generated_vins_and_plates_are_valid_and_distinct() {
        let mut seen = std::collections::HashSet::new();
        for g in 0..50_000u64 {
            let m = &MODELS[(g % MODELS.len() as u64) as usize];
            let v = vin(m, 'R', 'A', g as u32);
            assert!(Vin::parse(&v).is_ok(), "{v}");
            let city = CITIES[(g % CITIES.len() as u64) as usize];
            let n = (g / CITIES.len() as u64) as u32;
            let p = plate(city, n % 2 == 1, false, n / 2);
            assert!(Plate::parse(&p).is_ok_and(|p| p.is_new_energy()), "{p}");
            assert!(seen.insert(p));
        }
        let demo = plate("粤B", false, true, 123_456);
        assert!(Plate::parse(&demo).is_ok(), "{demo}");
    }

    #[test]
    fn a_million_vehicles_split_over_200_enterprises_with_the_largest_at_100000() {
        let sizes = split(1_000_000, 200);
        assert_eq!(sizes.len(), 200);
        assert_eq!(sizes.iter().sum::<usize>(), 1_000_000);
        assert_eq!(sizes[0], 100_000);
        assert!(sizes[1..].iter().all(|s| *s < 100_000 && *s > 0));
    }

    #[test]
    fn copy_fields_escape_what_the_text_format_needs() {
        let mut out = String::new();
        Row::start(&mut out).text("a\tb\\c").opt(None).show(3).end();
        assert_eq!(out, "a\\tb\\\\c\t\\N\t3\n");
    }

    #[test]
    fn the_generator_is_deterministic() {
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        assert!((0..100).all(|_| a.next_u64() == b.next_u64()));
    }
}

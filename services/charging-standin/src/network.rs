//! The platform's stations: logistics-park and city stations in the demo
//! fleet's cities and a few more, each with DC and AC piles (one GB/T
//! connector each) priced by its city's time-of-use tariff.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use fleetdesk_ocpi::{
    BusinessDetails, COUNTRY, Capability, Connector, ConnectorFormat, ConnectorType, Evse,
    EvseStatus, GeoLocation, Hours, Location, ParkingType, PowerType, TouPeriod,
};

use crate::tariff::{BandPrices, TariffPlan};

/// One pile with its single connector.
#[derive(Debug, Clone)]
pub struct Pile {
    pub evse_uid: String,
    /// As painted on site, e.g. 03.
    pub pile_no: String,
    pub dc: bool,
    pub max_kw: u32,
}

impl Pile {
    /// The connector's id within the EVSE.
    pub const CONNECTOR_ID: &'static str = "1";

    pub fn standard(&self) -> ConnectorType {
        if self.dc {
            ConnectorType::GbtDc
        } else {
            ConnectorType::GbtAc
        }
    }

    pub fn power_type(&self) -> PowerType {
        if self.dc {
            PowerType::Dc
        } else {
            PowerType::Ac1Phase
        }
    }
}

/// A station.
#[derive(Debug, Clone)]
pub struct Station {
    pub location_id: String,
    pub name: String,
    pub operator: &'static str,
    pub city: &'static str,
    pub city_code: &'static str,
    pub address: String,
    pub lat: f64,
    pub lng: f64,
    /// Plate prefixes of the vehicles at home here (the generator sends
    /// vehicles to stations of their city).
    pub plate_prefixes: &'static [&'static str],
    pub plate_recognition: bool,
    pub truck_friendly: bool,
    pub parking_note: &'static str,
    pub tariff: Arc<TariffPlan>,
    pub piles: Vec<Pile>,
}

impl Station {
    pub fn pile(&self, evse_uid: &str) -> Option<&Pile> {
        self.piles.iter().find(|p| p.evse_uid == evse_uid)
    }

    /// As OCPI publishes it, EVSE statuses from `status`: with the optional
    /// fields a CPO sets (each connector's power and tariff, the piles'
    /// capabilities, parking, operator and hours).
    pub fn to_ocpi(
        &self,
        party_id: &str,
        updated: DateTime<Utc>,
        status: impl Fn(&str) -> (EvseStatus, DateTime<Utc>),
    ) -> Location {
        Location {
            country_code: COUNTRY.to_owned(),
            party_id: party_id.to_owned(),
            id: self.location_id.clone(),
            publish: true,
            publish_allowed_to: Vec::new(),
            name: Some(self.name.clone()),
            address: self.address.clone(),
            city: self.city.to_owned(),
            postal_code: None,
            state: None,
            country: "CHN".to_owned(),
            coordinates: GeoLocation {
                latitude: format!("{:.6}", self.lat),
                longitude: format!("{:.6}", self.lng),
            },
            related_locations: Vec::new(),
            parking_type: Some(ParkingType::ParkingLot),
            evses: self
                .piles
                .iter()
                .map(|p| {
                    let (status, at) = status(&p.evse_uid);
                    Evse {
                        uid: p.evse_uid.clone(),
                        evse_id: Some(format!("CN*{party_id}*E{}", p.evse_uid)),
                        status,
                        status_schedule: Vec::new(),
                        capabilities: vec![
                            Capability::RemoteStartStopCapable,
                            Capability::RfidReader,
                        ],
                        connectors: vec![Connector {
                            id: Pile::CONNECTOR_ID.to_owned(),
                            standard: p.standard(),
                            format: ConnectorFormat::Cable,
                            power_type: p.power_type(),
                            max_voltage: if p.dc { 750 } else { 220 },
                            max_amperage: if p.dc { 250 } else { 32 },
                            max_electric_power: Some(p.max_kw * 1000),
                            tariff_ids: vec![self.tariff.id.clone()],
                            terms_and_conditions: None,
                            last_updated: updated,
                        }],
                        floor_level: None,
                        coordinates: None,
                        physical_reference: Some(p.pile_no.clone()),
                        directions: Vec::new(),
                        parking_restrictions: Vec::new(),
                        images: Vec::new(),
                        last_updated: at.max(updated),
                    }
                })
                .collect(),
            directions: Vec::new(),
            operator: Some(BusinessDetails::named(self.operator)),
            suboperator: None,
            owner: None,
            facilities: Vec::new(),
            time_zone: "Asia/Shanghai".to_owned(),
            opening_times: Some(Hours::always()),
            charging_when_closed: None,
            images: Vec::new(),
            energy_mix: None,
            last_updated: updated,
            x_city_code: self.city_code.to_owned(),
            x_plate_recognition: self.plate_recognition,
            x_truck_friendly: self.truck_friendly,
            x_parking_note: self.parking_note.to_owned(),
        }
    }
}

/// Every station and tariff of the platform.
#[derive(Debug, Clone)]
pub struct Network {
    pub stations: Vec<Station>,
    pub tariffs: Vec<Arc<TariffPlan>>,
}

impl Network {
    pub fn station(&self, location_id: &str) -> Option<&Station> {
        self.stations.iter().find(|s| s.location_id == location_id)
    }
}

use TouPeriod::{Flat, Peak, Valley};

/// Provincial time-of-use schedules (hours) and prices, fen per MWh
/// (electricity, service fee) for peak, flat, valley.
fn tariffs() -> Vec<(&'static str, Arc<TariffPlan>)> {
    let guangdong: &[(u32, u32, TouPeriod)] = &[
        (0, 8, Valley),
        (8, 10, Flat),
        (10, 12, Peak),
        (12, 14, Flat),
        (14, 19, Peak),
        (19, 24, Flat),
    ];
    let shanghai: &[(u32, u32, TouPeriod)] = &[
        (0, 6, Valley),
        (6, 8, Flat),
        (8, 11, Peak),
        (11, 13, Flat),
        (13, 15, Peak),
        (15, 18, Flat),
        (18, 21, Peak),
        (21, 22, Flat),
        (22, 24, Valley),
    ];
    let zhejiang_jiangsu: &[(u32, u32, TouPeriod)] = &[
        (0, 8, Valley),
        (8, 11, Peak),
        (11, 13, Flat),
        (13, 17, Peak),
        (17, 22, Flat),
        (22, 24, Valley),
    ];
    let north_inland: &[(u32, u32, TouPeriod)] = &[
        (0, 7, Valley),
        (7, 10, Flat),
        (10, 15, Peak),
        (15, 18, Flat),
        (18, 21, Peak),
        (21, 23, Flat),
        (23, 24, Valley),
    ];
    // A region's plan `TOU-<region>-2026`: its schedule and (electricity,
    // service fee) at peak, flat and valley.
    let plan = |region: &'static str,
                hours: &[(u32, u32, TouPeriod)],
                [peak, flat, valley]: [(i64, i64); 3]| {
        let id = format!("TOU-{region}-2026");
        let prices = BandPrices { peak, flat, valley };
        (region, Arc::new(TariffPlan::from_hours(&id, hours, prices)))
    };
    vec![
        plan(
            "GD",
            guangdong,
            [(108_350, 80_000), (65_270, 60_000), (26_110, 40_000)],
        ),
        plan(
            "SH",
            shanghai,
            [(112_400, 90_000), (68_350, 70_000), (30_950, 50_000)],
        ),
        plan(
            "ZJ",
            zhejiang_jiangsu,
            [(101_200, 80_000), (62_800, 60_000), (29_800, 45_000)],
        ),
        plan(
            "BJ",
            north_inland,
            [(98_650, 80_000), (61_900, 60_000), (28_750, 40_000)],
        ),
    ]
}

/// A station as the catalogue lists it.
struct Site {
    id: &'static str,
    name: &'static str,
    operator: &'static str,
    city: &'static str,
    city_code: &'static str,
    address: &'static str,
    lat: f64,
    lng: f64,
    plate_prefixes: &'static [&'static str],
    tariff: &'static str,
    /// DC piles (kW each), then AC piles (7 kW).
    dc: &'static [u32],
    ac: u32,
    plate_recognition: bool,
    truck_friendly: bool,
}

const SITES: [Site; 19] = [
    site(
        "SZ-NS-01",
        "深圳南山科技园超充站",
        "蓝电快充",
        "深圳",
        "440300",
        "南山区科苑路15号",
        22.540_5,
        113.953_0,
        &["粤B"],
        "GD",
        &[120, 120, 160, 160],
        2,
        true,
        false,
    ),
    site(
        "SZ-BA-01",
        "深圳宝安机场物流园充电站",
        "城市绿能",
        "深圳",
        "440300",
        "宝安区航站四路物流园B区",
        22.639_3,
        113.810_7,
        &["粤B"],
        "GD",
        &[60, 60, 120, 120, 120],
        0,
        true,
        true,
    ),
    site(
        "SZ-LG-01",
        "深圳平湖物流园充电站",
        "星途充电",
        "深圳",
        "440300",
        "龙岗区平湖街道华南城物流园",
        22.691_0,
        114.122_5,
        &["粤B"],
        "GD",
        &[120, 120, 120],
        4,
        false,
        true,
    ),
    site(
        "GZ-BY-01",
        "广州白云物流园充电站",
        "蓝电快充",
        "广州",
        "440100",
        "白云区太和镇物流园路8号",
        23.226_0,
        113.271_0,
        &["粤A"],
        "GD",
        &[120, 120, 160],
        2,
        true,
        true,
    ),
    site(
        "GZ-HP-01",
        "广州黄埔开发区充电站",
        "城市绿能",
        "广州",
        "440100",
        "黄埔区开创大道2号",
        23.106_0,
        113.459_0,
        &["粤A"],
        "GD",
        &[60, 60, 60],
        4,
        false,
        false,
    ),
    site(
        "DG-CA-01",
        "东莞长安物流枢纽充电站",
        "星途充电",
        "东莞",
        "441900",
        "长安镇振安中路物流枢纽",
        22.800_5,
        113.805_2,
        &["粤S"],
        "GD",
        &[120, 120],
        2,
        true,
        true,
    ),
    site(
        "FS-SD-01",
        "佛山顺德物流园充电站",
        "蓝电快充",
        "佛山",
        "440600",
        "顺德区北滘镇物流园大道",
        22.923_6,
        113.213_4,
        &["粤E"],
        "GD",
        &[60, 120],
        2,
        false,
        true,
    ),
    site(
        "SH-PD-01",
        "上海外高桥物流充电站",
        "申能充电",
        "上海",
        "310100",
        "浦东新区港城路88号",
        31.352_0,
        121.590_0,
        &["沪A", "沪B"],
        "SH",
        &[120, 120, 160, 160],
        2,
        true,
        true,
    ),
    site(
        "SH-MH-01",
        "上海莘庄综合充电站",
        "蓝电快充",
        "上海",
        "310100",
        "闵行区莘建路39号",
        31.111_0,
        121.380_0,
        &["沪A", "沪B"],
        "SH",
        &[60, 60, 120],
        4,
        true,
        false,
    ),
    site(
        "SH-JD-01",
        "上海嘉定物流园充电站",
        "星途充电",
        "上海",
        "310100",
        "嘉定区城北路1288号",
        31.396_2,
        121.264_0,
        &["沪A", "沪B"],
        "SH",
        &[120, 120, 120],
        2,
        false,
        true,
    ),
    site(
        "HZ-XS-01",
        "杭州萧山物流园充电站",
        "城市绿能",
        "杭州",
        "330100",
        "萧山区建设四路物流园",
        30.180_0,
        120.264_0,
        &["浙A"],
        "ZJ",
        &[120, 120, 160],
        2,
        true,
        true,
    ),
    site(
        "HZ-YH-01",
        "杭州余杭仓储中心充电站",
        "蓝电快充",
        "杭州",
        "330100",
        "余杭区良渚街道仓储路6号",
        30.366_4,
        120.063_5,
        &["浙A"],
        "ZJ",
        &[60, 60, 60],
        4,
        false,
        false,
    ),
    site(
        "NJ-JN-01",
        "南京江宁物流园充电站",
        "申能充电",
        "南京",
        "320100",
        "江宁区秣陵街道物流大道",
        31.898_5,
        118.797_2,
        &["苏A"],
        "ZJ",
        &[120, 120],
        2,
        true,
        true,
    ),
    site(
        "SU-XC-01",
        "苏州相城物流园充电站",
        "星途充电",
        "苏州",
        "320500",
        "相城区黄埭镇物流园路",
        31.459_8,
        120.540_7,
        &["苏E"],
        "ZJ",
        &[60, 120, 120],
        2,
        false,
        true,
    ),
    site(
        "BJ-DX-01",
        "北京大兴物流园充电站",
        "京能快充",
        "北京",
        "110100",
        "大兴区京开高速西红门出口",
        39.727_0,
        116.341_0,
        &["京A"],
        "BJ",
        &[120, 120, 160],
        2,
        true,
        true,
    ),
    site(
        "BJ-CY-01",
        "北京十八里店充电站",
        "城市绿能",
        "北京",
        "110100",
        "朝阳区十八里店南桥",
        39.837_0,
        116.515_0,
        &["京A"],
        "BJ",
        &[60, 60],
        4,
        false,
        false,
    ),
    site(
        "CD-SL-01",
        "成都双流物流园充电站",
        "蓝电快充",
        "成都",
        "510100",
        "双流区西航港大道",
        30.575_0,
        103.923_0,
        &["川A"],
        "BJ",
        &[120, 120],
        2,
        true,
        true,
    ),
    site(
        "WH-DX-01",
        "武汉东西湖物流园充电站",
        "星途充电",
        "武汉",
        "420100",
        "东西湖区走马岭物流园",
        30.650_0,
        114.137_0,
        &["鄂A"],
        "BJ",
        &[120, 160],
        2,
        false,
        true,
    ),
    site(
        "XA-GX-01",
        "西安高新物流港充电站",
        "京能快充",
        "西安",
        "610100",
        "高新区锦业路物流港",
        34.190_6,
        108.880_1,
        &["陕A"],
        "BJ",
        &[60, 120],
        2,
        true,
        true,
    ),
];

#[allow(clippy::too_many_arguments)]
const fn site(
    id: &'static str,
    name: &'static str,
    operator: &'static str,
    city: &'static str,
    city_code: &'static str,
    address: &'static str,
    lat: f64,
    lng: f64,
    plate_prefixes: &'static [&'static str],
    tariff: &'static str,
    dc: &'static [u32],
    ac: u32,
    plate_recognition: bool,
    truck_friendly: bool,
) -> Site {
    Site {
        id,
        name,
        operator,
        city,
        city_code,
        address,
        lat,
        lng,
        plate_prefixes,
        tariff,
        dc,
        ac,
        plate_recognition,
        truck_friendly,
    }
}

/// The platform's network.
pub fn network() -> Network {
    let tariffs = tariffs();
    let stations = SITES
        .iter()
        .map(|s| {
            let tariff = tariffs
                .iter()
                .find(|(key, _)| *key == s.tariff)
                .map(|(_, t)| t.clone())
                .expect("every site names a known tariff");
            let mut piles = Vec::new();
            for kw in s.dc.iter().copied().chain((0..s.ac).map(|_| 7)) {
                let n = piles.len() + 1;
                piles.push(Pile {
                    evse_uid: format!("{}-{n:02}", s.id),
                    pile_no: format!("{n:02}"),
                    dc: kw > 7,
                    max_kw: kw,
                });
            }
            Station {
                location_id: s.id.to_owned(),
                name: s.name.to_owned(),
                operator: s.operator,
                city: s.city,
                city_code: s.city_code,
                address: s.address.to_owned(),
                lat: s.lat,
                lng: s.lng,
                plate_prefixes: s.plate_prefixes,
                plate_recognition: s.plate_recognition,
                truck_friendly: s.truck_friendly,
                parking_note: if s.truck_friendly {
                    "充电免费停车2小时，货车通道限高4.5米"
                } else {
                    "充电免费停车2小时"
                },
                tariff,
                piles,
            }
        })
        .collect();
    Network {
        stations,
        tariffs: tariffs.into_iter().map(|(_, t)| t).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stations_span_several_cities_with_dc_and_ac_piles_and_unique_ids() {
        let n = network();
        let mut cities: Vec<_> = n.stations.iter().map(|s| s.city_code).collect();
        cities.sort_unstable();
        cities.dedup();
        assert!(cities.len() >= 8, "{cities:?}");
        let mut uids: Vec<_> = n
            .stations
            .iter()
            .flat_map(|s| s.piles.iter().map(|p| p.evse_uid.clone()))
            .collect();
        let count = uids.len();
        uids.sort();
        uids.dedup();
        assert_eq!(uids.len(), count);
        assert!(n.stations.iter().any(|s| s.piles.iter().any(|p| !p.dc)));
        assert!(n.stations.iter().all(|s| s.piles.iter().any(|p| p.dc)));
    }
}

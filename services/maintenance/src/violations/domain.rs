//! The violation's rules: its states and the moves between them, and what
//! a record from the authority or a file must hold. Pure: no database.

use chrono::{DateTime, Utc};
use fleetdesk_kit::{ErrorCode, ServiceError};
use fleetdesk_proto::vehicle::v1 as pb;

use crate::codes::stored_code;

stored_code!(
    /// How far a violation has been dealt with (codes as ViolationStatus;
    /// HANDLING is not a state of ours).
    State {
        Unhandled = 1,
        Handled = 3,
        Paid = 4,
    }
);

stored_code!(
    /// Where a violation came from.
    Source => pb::ViolationSource {
        Fetched = 1,
        Imported = 2,
    }
);

impl State {
    pub fn to_pb(self) -> pb::ViolationStatus {
        match self {
            State::Unhandled => pb::ViolationStatus::Unhandled,
            State::Handled => pb::ViolationStatus::Handled,
            State::Paid => pb::ViolationStatus::Paid,
        }
    }

    /// A filter's value; HANDLING and unknown values match nothing of ours.
    pub fn from_pb(value: i32) -> Option<State> {
        match pb::ViolationStatus::try_from(value).ok()? {
            pb::ViolationStatus::Unhandled => Some(State::Unhandled),
            pb::ViolationStatus::Handled => Some(State::Handled),
            pb::ViolationStatus::Paid => Some(State::Paid),
            pb::ViolationStatus::Unspecified | pb::ViolationStatus::Handling => None,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            State::Unhandled => "未处理",
            State::Handled => "已处理",
            State::Paid => "已缴款",
        }
    }
}

/// Handling: UNHANDLED → HANDLED only.
pub fn handle(from: State) -> Result<State, ServiceError> {
    match from {
        State::Unhandled => Ok(State::Handled),
        State::Handled | State::Paid => Err(ServiceError::new(
            ErrorCode::Conflict,
            "该违章已处理，请刷新后查看",
        )),
    }
}

/// Paying: HANDLED → PAID only.
pub fn pay(from: State) -> Result<State, ServiceError> {
    match from {
        State::Handled => Ok(State::Paid),
        State::Unhandled => Err(ServiceError::new(
            ErrorCode::Conflict,
            "该违章尚未处理，请先处理再登记缴款",
        )),
        State::Paid => Err(ServiceError::new(
            ErrorCode::Conflict,
            "该违章已缴款，请刷新后查看",
        )),
    }
}

/// Longest decision number the authority issues.
const DECISION_NO_MAX: usize = 32;
/// Largest plausible fine (a single act: 20,000 yuan).
const FINE_MAX_FEN: i64 = 2_000_000;

/// One violation as the authority (or a file) gives it.
#[derive(Debug, Clone, PartialEq)]
pub struct Incoming {
    pub decision_no: String,
    pub plate: String,
    pub time: DateTime<Utc>,
    pub address: String,
    /// (longitude, latitude), WGS-84.
    pub point: Option<(f64, f64)>,
    pub city_code: String,
    pub offence_code: String,
    pub description: String,
    pub fine_fen: i64,
    pub points: i32,
    pub authority: String,
}

/// A GB/T 2260 city code as the console's areas name it: a municipality
/// (北京, 天津, 上海, 重庆) by its province-level code. Authorities often give
/// its 市辖区 or 县 code (310100); stored and filtered alike, 上海市 then
/// finds both.
pub fn city_code_of(code: &str) -> String {
    let code = code.trim();
    let municipality = matches!(code.get(..2), Some("11" | "12" | "31" | "50"));
    if municipality
        && code.len() == 6
        && code.ends_with("00")
        && code.bytes().all(|b| b.is_ascii_digit())
    {
        format!("{}0000", &code[..2])
    } else {
        code.to_owned()
    }
}

impl Incoming {
    /// Checks a record, each problem naming its field (the import's
    /// columns read these names); trims its texts.
    pub fn check(mut self, now: DateTime<Utc>) -> Result<Incoming, ServiceError> {
        self.decision_no = self.decision_no.trim().to_owned();
        self.plate = self.plate.trim().to_owned();
        self.offence_code = self.offence_code.trim().to_owned();
        self.address = self.address.trim().to_owned();
        self.description = self.description.trim().to_owned();
        self.city_code = city_code_of(&self.city_code);
        if self.decision_no.is_empty() {
            return Err(ServiceError::invalid("decisionNo", "决定书编号不能为空"));
        }
        if self.decision_no.chars().count() > DECISION_NO_MAX
            || !self.decision_no.chars().all(|c| c.is_ascii_alphanumeric())
        {
            return Err(ServiceError::invalid(
                "decisionNo",
                "决定书编号只能是32位以内的字母和数字",
            ));
        }
        if self.plate.is_empty() {
            return Err(ServiceError::invalid("plateNumber", "车牌号不能为空"));
        }
        if self.time > now {
            return Err(ServiceError::invalid(
                "violationTime",
                "违章时间不能晚于当前时间",
            ));
        }
        if self.offence_code.is_empty() {
            return Err(ServiceError::invalid("offenceCode", "违法代码不能为空"));
        }
        if !(0..=FINE_MAX_FEN).contains(&self.fine_fen) {
            return Err(ServiceError::invalid(
                "fineFen",
                "罚款金额应在0至20000元之间",
            ));
        }
        if !(0..=12).contains(&self.points) {
            return Err(ServiceError::invalid(
                "penaltyPoints",
                "扣分应在0至12分之间",
            ));
        }
        if let Some((lng, lat)) = self.point
            && (!(-180.0..=180.0).contains(&lng) || !(-90.0..=90.0).contains(&lat))
        {
            return Err(ServiceError::invalid("location", "违章地点坐标无效"));
        }
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_municipality_is_named_by_its_province_level_code() {
        assert_eq!(city_code_of("310100"), "310000");
        assert_eq!(city_code_of(" 500200 "), "500000");
        assert_eq!(city_code_of("110000"), "110000");
        assert_eq!(city_code_of("440300"), "440300");
        assert_eq!(city_code_of("310115"), "310115");
        assert_eq!(city_code_of("31"), "31");
    }

    fn incoming() -> Incoming {
        Incoming {
            decision_no: "440300202611010001".into(),
            plate: "粤B12345".into(),
            time: Utc::now() - chrono::Duration::days(1),
            address: "深南大道".into(),
            point: Some((114.08, 22.54)),
            city_code: "440300".into(),
            offence_code: "1352A".into(),
            description: "机动车超过规定时速未达20%的".into(),
            fine_fen: 20_000,
            points: 1,
            authority: "深圳市公安局交通警察支队".into(),
        }
    }

    #[test]
    fn only_unhandled_is_handled_and_only_handled_is_paid() {
        assert_eq!(handle(State::Unhandled).unwrap(), State::Handled);
        assert_eq!(pay(State::Handled).unwrap(), State::Paid);
        for refused in [handle(State::Handled), handle(State::Paid)] {
            assert_eq!(refused.unwrap_err().code, ErrorCode::Conflict);
        }
        for refused in [pay(State::Unhandled), pay(State::Paid)] {
            assert_eq!(refused.unwrap_err().code, ErrorCode::Conflict);
        }
    }

    #[test]
    fn a_record_names_the_field_it_fails_on() {
        let now = Utc::now();
        assert!(incoming().check(now).is_ok());
        let field = |i: Incoming| {
            let err = i.check(now).unwrap_err();
            err.fields
                .first()
                .map(|f| f.field.clone())
                .unwrap_or_default()
        };
        assert_eq!(
            field(Incoming {
                decision_no: " ".into(),
                ..incoming()
            }),
            "decisionNo"
        );
        assert_eq!(
            field(Incoming {
                time: now + chrono::Duration::hours(1),
                ..incoming()
            }),
            "violationTime"
        );
        assert_eq!(
            field(Incoming {
                fine_fen: -1,
                ..incoming()
            }),
            "fineFen"
        );
        assert_eq!(
            field(Incoming {
                points: 13,
                ..incoming()
            }),
            "penaltyPoints"
        );
    }

    #[test]
    fn states_round_trip_through_their_codes_and_the_wire() {
        for s in State::ALL {
            assert_eq!(State::try_from(i16::from(*s)).unwrap(), *s);
            assert_eq!(State::from_pb(s.to_pb() as i32), Some(*s));
        }
        assert_eq!(State::from_pb(pb::ViolationStatus::Handling as i32), None);
    }
}

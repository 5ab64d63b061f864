//! Answer bodies and values more than one energy route reads or shows:
//! months, session totals and an opening application.

use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::energy::v1 as pb;
use serde::de;
use serde::{Deserialize, Deserializer, Serialize};
use utoipa::ToSchema;

use crate::edge::enums::edge_enum;
use crate::edge::time::rfc3339;
use crate::envelope::ApiError;

/// A month as `yyyy-MM`; empty when absent.
pub fn month_text(month: Option<&common::YearMonth>) -> String {
    month
        .filter(|m| m.year > 0 && (1..=12).contains(&m.month))
        .map(|m| format!("{:04}-{:02}", m.year, m.month))
        .unwrap_or_default()
}

/// What a value that is no `yyyy-MM` is refused with.
const BAD_MONTH: &str = "月份格式应为 yyyy-MM";

/// A `yyyy-MM` query value (a list field's reader).
pub fn month<'de, D: Deserializer<'de>>(d: D) -> Result<Option<common::YearMonth>, D::Error> {
    match Option::<String>::deserialize(d)?.as_deref() {
        None => Result::Ok(None),
        Some(text) => year_month(text)
            .map(Some)
            .ok_or_else(|| de::Error::custom(BAD_MONTH)),
    }
}

/// Reads a `yyyy-MM` value (`key` names it in the refusal).
pub fn parse_month(key: &str, text: &str) -> Result<common::YearMonth, ApiError> {
    year_month(text).ok_or_else(|| ApiError::invalid(key, BAD_MONTH))
}

fn year_month(text: &str) -> Option<common::YearMonth> {
    let (year, month) = text.split_once('-')?;
    let (year, month): (i32, i32) = (year.parse().ok()?, month.parse().ok()?);
    if year.to_string().len() != 4 || !(1..=12).contains(&month) {
        return None;
    }
    Some(common::YearMonth { year, month })
}

/// Totals over sessions (the table's summary row, the dashboard's period).
#[derive(Debug, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChargingSessionTotalsBody {
    pub session_count: i64,
    pub energy_wh: i64,
    pub electricity_fen: i64,
    pub service_fee_fen: i64,
    pub parking_fee_fen: i64,
    pub time_fee_fen: i64,
    pub fixed_fee_fen: i64,
    pub reservation_fee_fen: i64,
    pub discount_fen: i64,
    pub total_fen: i64,
}

impl From<pb::ChargingSessionTotals> for ChargingSessionTotalsBody {
    fn from(t: pb::ChargingSessionTotals) -> Self {
        let pb::ChargingSessionTotals {
            session_count,
            energy_wh,
            electricity_fen,
            service_fee_fen,
            parking_fee_fen,
            time_fee_fen,
            fixed_fee_fen,
            reservation_fee_fen,
            discount_fen,
            total_fen,
        } = t;
        ChargingSessionTotalsBody {
            session_count,
            energy_wh,
            electricity_fen,
            service_fee_fen,
            parking_fee_fen,
            time_fee_fen,
            fixed_fee_fen,
            reservation_fee_fen,
            discount_fen,
            total_fen,
        }
    }
}

edge_enum!(
    /// NOT_OPENED: the introduction popup; APPLYING: the button reads 申请中;
    /// OPENED: a charging account exists and the full energy menu shows.
    ChargingOpenState => pb::ChargingOpenState { NotOpened, Applying, Opened }
);
edge_enum!(
    /// PENDING → CONTACTED → APPROVED or REJECTED (then the enterprise may apply again).
    ChargingOpenApplicationStatus => pb::ChargingOpenApplicationStatus {
        Pending, Contacted, Approved, Rejected
    }
);

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChargingOpenApplicationBody {
    pub id: String,
    pub enterprise_name: String,
    pub applicant_name: String,
    /// Masked by the server.
    pub applicant_phone: String,
    pub status: Option<ChargingOpenApplicationStatus>,
    pub apply_time: String,
    pub contact_time: String,
    /// The operator's staff member who handled it.
    pub handler_name: String,
    pub decide_time: String,
    pub reject_reason: String,
    /// The applicant's note.
    pub remark: String,
    /// The operator's remark when approving.
    pub approve_remark: String,
}

impl From<pb::ChargingOpenApplication> for ChargingOpenApplicationBody {
    fn from(a: pb::ChargingOpenApplication) -> Self {
        let pb::ChargingOpenApplication {
            id,
            enterprise_id: _,
            enterprise_name,
            applicant_account_id: _,
            applicant_name,
            applicant_masked_phone,
            status,
            apply_time,
            contact_time,
            handler_name,
            decide_time,
            reject_reason,
            remark,
            approve_remark,
        } = a;
        ChargingOpenApplicationBody {
            id,
            enterprise_name,
            applicant_name,
            applicant_phone: applicant_masked_phone,
            status: ChargingOpenApplicationStatus::from_pb(status),
            apply_time: rfc3339(apply_time.as_ref()),
            contact_time: rfc3339(contact_time.as_ref()),
            handler_name,
            decide_time: rfc3339(decide_time.as_ref()),
            reject_reason,
            remark,
            approve_remark,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edge::query::{ListQuery, from_query};

    #[derive(Debug, Deserialize)]
    struct Months {
        #[serde(default, deserialize_with = "month")]
        m: Option<common::YearMonth>,
        #[serde(default, deserialize_with = "month")]
        absent: Option<common::YearMonth>,
    }

    #[test]
    fn months_read_and_print_as_yyyy_mm() {
        let q = ListQuery::parse("m=2026-03").unwrap();
        let months: Months = from_query(&q).unwrap();
        assert_eq!(
            months.m,
            Some(common::YearMonth {
                year: 2026,
                month: 3
            })
        );
        assert_eq!(month_text(months.m.as_ref()), "2026-03");
        for bad in ["2026-13", "26-01", "march"] {
            let q = ListQuery::parse(&format!("m={bad}")).unwrap();
            let err = from_query::<Months>(&q).unwrap_err();
            assert_eq!(err.0.fields[0].field, "m", "{bad}");
            assert_eq!(err.0.fields[0].message, BAD_MONTH, "{bad}");
        }
        assert_eq!(months.absent, None);
        assert_eq!(month_text(None), "");
    }
}

//! The policy's rules: its kinds, its expiry state at a moment, and what a
//! recorded policy must hold. Pure: no database.

use std::collections::HashSet;

use chrono::{DateTime, Duration, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_proto::vehicle::v1 as pb;

use crate::codes::stored_code;

stored_code!(
    /// What a policy insures (codes as InsuranceKind).
    Kind => pb::InsuranceKind {
        Compulsory = 1,
        Commercial = 2,
        CarrierLiability = 3,
        Cargo = 4,
    }
);

impl Kind {
    pub fn label(self) -> &'static str {
        match self {
            Kind::Compulsory => "交强险",
            Kind::Commercial => "商业险",
            Kind::CarrierLiability => "承运人责任险",
            Kind::Cargo => "货物运输险",
        }
    }

    pub fn from_label(text: &str) -> Option<Kind> {
        Kind::ALL.iter().copied().find(|k| k.label() == text)
    }
}

/// A policy ending within this many days is EXPIRING.
pub const EXPIRING_DAYS: i64 = 30;

/// Where a policy stands at a moment, from its period.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expiry {
    Pending,
    Active,
    Expiring,
    Expired,
}

impl Expiry {
    pub fn at(start: DateTime<Utc>, end: DateTime<Utc>, now: DateTime<Utc>) -> Expiry {
        if end <= now {
            Expiry::Expired
        } else if start > now {
            Expiry::Pending
        } else if end <= now + Duration::days(EXPIRING_DAYS) {
            Expiry::Expiring
        } else {
            Expiry::Active
        }
    }

    pub fn to_pb(self) -> pb::PolicyStatus {
        match self {
            Expiry::Pending => pb::PolicyStatus::Pending,
            Expiry::Active => pb::PolicyStatus::Active,
            Expiry::Expiring => pb::PolicyStatus::Expiring,
            Expiry::Expired => pb::PolicyStatus::Expired,
        }
    }

    /// A filter's value; SURRENDERED and unknown values match nothing of ours.
    pub fn from_pb(value: i32) -> Option<Expiry> {
        match pb::PolicyStatus::try_from(value).ok()? {
            pb::PolicyStatus::Pending => Some(Expiry::Pending),
            pb::PolicyStatus::Active => Some(Expiry::Active),
            pb::PolicyStatus::Expiring => Some(Expiry::Expiring),
            pb::PolicyStatus::Expired => Some(Expiry::Expired),
            pb::PolicyStatus::Unspecified | pb::PolicyStatus::Surrendered => None,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Expiry::Pending => "未生效",
            Expiry::Active => "有效",
            Expiry::Expiring => "即将到期",
            Expiry::Expired => "已过期",
        }
    }
}

/// One coverage item of a policy.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Coverage {
    pub name: String,
    pub sum_insured_fen: i64,
    pub premium_fen: i64,
    pub deductible_fen: i64,
}

/// A document of a policy as stored (kit's FileRef fields).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Document {
    pub name: String,
    pub key: String,
    pub content_type: String,
    pub size_bytes: i64,
}

/// Longest policy number insurers issue.
const POLICY_NO_MAX: usize = 40;
/// Longest insurer, insured party or coverage name.
const NAME_MAX: usize = 50;
/// Most coverage items and documents of one policy.
const ITEMS_MAX: usize = 20;
/// Largest plausible amount (premium, sum insured, deductible): 100 million yuan.
const AMOUNT_MAX_FEN: i64 = 10_000_000_000;
/// Longest period: three years.
const PERIOD_MAX_DAYS: i64 = 3 * 366;

/// A policy as an operator records it (the form or an import row).
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyForm {
    pub plate: String,
    pub kind: Option<Kind>,
    pub insurer: String,
    pub policy_no: String,
    pub insured_name: String,
    pub start: Option<DateTime<Utc>>,
    pub end: Option<DateTime<Utc>>,
    pub premium_fen: i64,
    pub coverages: Vec<Coverage>,
    pub documents: Vec<Document>,
}

/// A checked policy.
#[derive(Debug, Clone, PartialEq)]
pub struct Policy {
    pub plate: String,
    pub kind: Kind,
    pub insurer: String,
    pub policy_no: String,
    pub insured_name: String,
    pub start: DateTime<Utc>,
    pub end: DateTime<Utc>,
    pub premium_fen: i64,
    pub coverages: Vec<Coverage>,
    pub documents: Vec<Document>,
}

fn amount(field: &str, label: &str, fen: i64) -> Result<(), ServiceError> {
    if (0..=AMOUNT_MAX_FEN).contains(&fen) {
        Ok(())
    } else {
        Err(ServiceError::invalid(
            field,
            format!("{label}应在0至1亿元之间"),
        ))
    }
}

impl PolicyForm {
    /// Checks a policy, each problem naming its field (the import's columns
    /// read these names); trims its texts.
    pub fn check(self) -> Result<Policy, ServiceError> {
        let plate = self.plate.trim().to_owned();
        let insurer = self.insurer.trim().to_owned();
        let policy_no = self.policy_no.trim().to_owned();
        let insured_name = self.insured_name.trim().to_owned();
        if plate.is_empty() {
            return Err(ServiceError::invalid("plateNumber", "车牌号不能为空"));
        }
        let kind = self
            .kind
            .ok_or_else(|| ServiceError::invalid("kind", "请选择险种"))?;
        if insurer.is_empty() {
            return Err(ServiceError::invalid("insurer", "保险公司不能为空"));
        }
        if insurer.chars().count() > NAME_MAX {
            return Err(ServiceError::invalid("insurer", "保险公司不能超过50个字"));
        }
        if policy_no.is_empty() {
            return Err(ServiceError::invalid("policyNo", "保单号不能为空"));
        }
        if policy_no.chars().count() > POLICY_NO_MAX
            || !policy_no
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-')
        {
            return Err(ServiceError::invalid(
                "policyNo",
                "保单号只能是40位以内的字母、数字和短横线",
            ));
        }
        if insured_name.chars().count() > NAME_MAX {
            return Err(ServiceError::invalid(
                "insuredName",
                "被保险人不能超过50个字",
            ));
        }
        let start = self
            .start
            .ok_or_else(|| ServiceError::invalid("startTime", "请填写保险起期"))?;
        let end = self
            .end
            .ok_or_else(|| ServiceError::invalid("endTime", "请填写保险止期"))?;
        if end <= start {
            return Err(ServiceError::invalid("endTime", "保险止期必须晚于保险起期"));
        }
        if end - start > Duration::days(PERIOD_MAX_DAYS) {
            return Err(ServiceError::invalid("endTime", "保险期间不能超过3年"));
        }
        amount("premiumFen", "保费", self.premium_fen)?;
        if self.coverages.len() > ITEMS_MAX {
            return Err(ServiceError::invalid("coverages", "险别不能超过20项"));
        }
        if kind == Kind::Commercial && self.coverages.is_empty() {
            return Err(ServiceError::invalid("coverages", "商业险至少填写一项险别"));
        }
        let mut names = HashSet::new();
        let mut coverages = Vec::with_capacity(self.coverages.len());
        for c in self.coverages {
            let name = c.name.trim().to_owned();
            if name.is_empty() {
                return Err(ServiceError::invalid("coverages", "险别名称不能为空"));
            }
            if name.chars().count() > NAME_MAX {
                return Err(ServiceError::invalid("coverages", "险别名称不能超过50个字"));
            }
            if !names.insert(name.clone()) {
                return Err(ServiceError::invalid(
                    "coverages",
                    format!("险别“{name}”重复"),
                ));
            }
            amount("coverages", "保额", c.sum_insured_fen)?;
            amount("coverages", "险别保费", c.premium_fen)?;
            amount("coverages", "免赔额", c.deductible_fen)?;
            coverages.push(Coverage { name, ..c });
        }
        let items_premium: i64 = coverages.iter().map(|c| c.premium_fen).sum();
        if items_premium > self.premium_fen {
            return Err(ServiceError::invalid(
                "premiumFen",
                "各险别保费之和不能超过总保费",
            ));
        }
        if self.documents.len() > ITEMS_MAX {
            return Err(ServiceError::invalid("documents", "保单文件不能超过20个"));
        }
        Ok(Policy {
            plate,
            kind,
            insurer,
            policy_no,
            insured_name,
            start,
            end,
            premium_fen: self.premium_fen,
            coverages,
            documents: self.documents,
        })
    }
}

/// The refusal of a policy number already recorded with the same insurer.
pub fn policy_no_taken() -> ServiceError {
    ServiceError::taken("policyNo", "该保险公司下已有相同保单号的保单")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form() -> PolicyForm {
        let start = Utc::now() - Duration::days(10);
        PolicyForm {
            plate: " 粤B12345 ".into(),
            kind: Some(Kind::Commercial),
            insurer: "中国人民财产保险".into(),
            policy_no: "PDAA202644030000000001".into(),
            insured_name: "演示物流有限公司".into(),
            start: Some(start),
            end: Some(start + Duration::days(365)),
            premium_fen: 500_000,
            coverages: vec![Coverage {
                name: "第三者责任险".into(),
                sum_insured_fen: 200_000_000,
                premium_fen: 300_000,
                deductible_fen: 0,
            }],
            documents: Vec::new(),
        }
    }

    fn field(f: PolicyForm) -> String {
        f.check().unwrap_err().fields[0].field.clone()
    }

    #[test]
    fn a_form_names_the_field_it_fails_on() {
        assert_eq!(form().check().unwrap().plate, "粤B12345");
        assert_eq!(
            field(PolicyForm {
                kind: None,
                ..form()
            }),
            "kind"
        );
        assert_eq!(
            field(PolicyForm {
                policy_no: "保单1".into(),
                ..form()
            }),
            "policyNo"
        );
        let start = form().start;
        assert_eq!(
            field(PolicyForm {
                end: start,
                ..form()
            }),
            "endTime"
        );
        assert_eq!(
            field(PolicyForm {
                premium_fen: -1,
                ..form()
            }),
            "premiumFen"
        );
        assert_eq!(
            field(PolicyForm {
                coverages: Vec::new(),
                ..form()
            }),
            "coverages"
        );
        assert_eq!(
            field(PolicyForm {
                premium_fen: 100,
                ..form()
            }),
            "premiumFen"
        );
        let twice = [form().coverages, form().coverages].concat();
        assert_eq!(
            field(PolicyForm {
                coverages: twice,
                ..form()
            }),
            "coverages"
        );
        // A compulsory policy needs no coverage items.
        assert!(
            PolicyForm {
                kind: Some(Kind::Compulsory),
                coverages: Vec::new(),
                ..form()
            }
            .check()
            .is_ok()
        );
    }

    #[test]
    fn the_expiry_state_follows_the_period() {
        let now = Utc::now();
        let day = Duration::days(1);
        assert_eq!(Expiry::at(now - day, now, now), Expiry::Expired);
        assert_eq!(Expiry::at(now + day, now + day * 400, now), Expiry::Pending);
        assert_eq!(Expiry::at(now - day, now + day * 30, now), Expiry::Expiring);
        assert_eq!(Expiry::at(now - day, now + day * 31, now), Expiry::Active);
        for e in [
            Expiry::Pending,
            Expiry::Active,
            Expiry::Expiring,
            Expiry::Expired,
        ] {
            assert_eq!(Expiry::from_pb(e.to_pb() as i32), Some(e));
        }
        assert_eq!(Expiry::from_pb(pb::PolicyStatus::Surrendered as i32), None);
    }

    #[test]
    fn kinds_round_trip_through_codes_labels_and_the_wire() {
        for k in Kind::ALL {
            assert_eq!(Kind::try_from(i16::from(*k)).unwrap(), *k);
            assert_eq!(Kind::from_pb(k.pb()), Some(*k));
            assert_eq!(Kind::from_label(k.label()), Some(*k));
        }
    }
}

//! Rules of a driver: stored codes, the checks an input must pass (phone and
//! ID number through kit::ids, licence class, dates, the ID card's validity,
//! lengths), the masked forms the service answers, and the remark of a
//! change. Pure: no database, no proto messages.

use chrono::{DateTime, Datelike, FixedOffset, Months, Utc};
use fleetdesk_kit::ids::{IdNumber, Phone};
use fleetdesk_kit::{ErrorCode, ServiceError, mask};
use fleetdesk_proto::common::v1::FileRef;
use fleetdesk_proto::vehicle::v1 as pb;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::codes::stored_code;
use crate::oplog::Changes;
use crate::vehicles::domain::Problems;

stored_code!(
    /// Whether the driver may drive.
    DriverStatus => pb::DriverStatus {
        Active = 1, Suspended = 2, Left = 3,
    }
);

stored_code!(
    /// Permitted vehicle class on the driving licence.
    LicenceClass => pb::LicenceClass {
        A1 = 1, A2 = 2, B1 = 3, B2 = 4, C1 = 5, C2 = 6,
    }
);

impl DriverStatus {
    pub fn label(self) -> &'static str {
        match self {
            DriverStatus::Active => "在职",
            DriverStatus::Suspended => "停驾",
            DriverStatus::Left => "离职",
        }
    }
}

impl LicenceClass {
    pub fn label(self) -> &'static str {
        match self {
            LicenceClass::A1 => "A1",
            LicenceClass::A2 => "A2",
            LicenceClass::B1 => "B1",
            LicenceClass::B2 => "B2",
            LicenceClass::C1 => "C1",
            LicenceClass::C2 => "C2",
        }
    }
}

/// An uploaded image as stored (the upload route's object key and its facts).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Image {
    pub name: String,
    pub key: String,
    #[serde(default)]
    pub content_type: String,
    #[serde(default)]
    pub size_bytes: i64,
}

impl Image {
    /// From the wire: none when nothing was sent; a name without a key is
    /// the caller's masked image sent back, kept as stored by `DriverDraft::parse`.
    pub fn from_ref(file: Option<FileRef>) -> Option<Image> {
        let FileRef {
            name,
            key,
            content_type,
            size_bytes,
        } = file?;
        let (name, key) = (name.trim().to_owned(), key.trim().to_owned());
        (!key.is_empty() || !name.is_empty()).then_some(Image {
            name,
            key,
            content_type,
            size_bytes,
        })
    }

    /// The masked form: the image is known to exist, its key is not given
    /// out (the key is revealed, with its audit, through the reveal).
    pub fn masked(&self) -> FileRef {
        FileRef {
            name: self.name.clone(),
            key: String::new(),
            content_type: self.content_type.clone(),
            size_bytes: self.size_bytes,
        }
    }
}

/// What the checks need of an input, already taken off the wire.
#[derive(Debug, Clone, Default)]
pub struct DriverFields {
    pub org_id: String,
    pub name: String,
    /// Empty on update keeps the stored value.
    pub phone: String,
    /// Empty on update keeps the stored value.
    pub id_number: String,
    pub employee_no: String,
    pub licence_class: Option<LicenceClass>,
    pub licence_first_issue_time: Option<DateTime<Utc>>,
    pub licence_expire_time: Option<DateTime<Utc>>,
    /// Empty on update keeps the stored value (the console only sees it masked).
    pub address: String,
    pub licence_front: Option<Image>,
    pub licence_back: Option<Image>,
    pub id_card_front: Option<Image>,
    pub id_card_back: Option<Image>,
    pub id_card_expire_time: Option<DateTime<Utc>>,
    pub id_card_long_term: bool,
    pub status: Option<DriverStatus>,
    pub hire_time: Option<DateTime<Utc>>,
    pub remark: String,
}

/// A driver's editable fields, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct DriverDraft {
    pub org_id: Uuid,
    pub name: String,
    pub phone: Phone,
    pub id_number: IdNumber,
    pub employee_no: String,
    pub licence_class: LicenceClass,
    pub licence_first_issue_time: Option<DateTime<Utc>>,
    pub licence_expire_time: Option<DateTime<Utc>>,
    pub address: String,
    pub licence_front: Option<Image>,
    pub licence_back: Option<Image>,
    pub id_card_front: Option<Image>,
    pub id_card_back: Option<Image>,
    pub id_card: IdCardValidity,
    pub status: DriverStatus,
    pub hire_time: Option<DateTime<Utc>>,
    pub remark: String,
}

/// How long a driver's resident ID card is valid (居民身份证有效期至).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IdCardValidity {
    /// Not recorded (drivers entered before the field existed, imports
    /// without the column).
    #[default]
    Unknown,
    /// Valid through this day (stored as the day's start, like the licence's).
    Until(DateTime<Utc>),
    /// A long-term card (长期): no end.
    LongTerm,
}

/// How a long-term card reads in the export and the import (长期).
pub const ID_CARD_LONG_TERM: &str = "长期";

/// The earliest end date accepted: cards of the second generation began in
/// 2004, so an end before 1990 is a typing error.
const ID_CARD_EARLIEST_YEAR: i32 = 1990;
/// The longest term of a fixed-term card is 20 years.
const ID_CARD_LONGEST_YEARS: u32 = 20;

impl IdCardValidity {
    /// As stored: (end date, long-term flag).
    pub fn columns(self) -> (Option<DateTime<Utc>>, bool) {
        match self {
            IdCardValidity::Unknown => (None, false),
            IdCardValidity::Until(at) => (Some(at), false),
            IdCardValidity::LongTerm => (None, true),
        }
    }

    /// From the stored columns (the table's check keeps both from being set).
    pub fn from_columns(expire: Option<DateTime<Utc>>, long_term: bool) -> IdCardValidity {
        match (expire, long_term) {
            (_, true) => IdCardValidity::LongTerm,
            (Some(at), false) => IdCardValidity::Until(at),
            (None, false) => IdCardValidity::Unknown,
        }
    }

    /// Checks an input's end date and flag at `now`; the refusal names
    /// `idCardExpireTime`.
    fn parse(
        expire: Option<DateTime<Utc>>,
        long_term: bool,
        now: DateTime<Utc>,
        p: &mut Problems,
    ) -> IdCardValidity {
        const FIELD: &str = "idCardExpireTime";
        match (expire, long_term) {
            (Some(_), true) => {
                p.add(FIELD, "长期有效的身份证无需填写有效期至");
                IdCardValidity::LongTerm
            }
            (None, true) => IdCardValidity::LongTerm,
            (None, false) => IdCardValidity::Unknown,
            (Some(at), false) => {
                // The year as the card reads it (a day is stored as its
                // Shanghai midnight, the evening before in UTC).
                let year = at
                    .with_timezone(&FixedOffset::east_opt(8 * 3600).expect("UTC+8"))
                    .year();
                if year < ID_CARD_EARLIEST_YEAR {
                    p.add(FIELD, "身份证有效期至不能早于1990年");
                } else if now
                    .checked_add_months(Months::new(ID_CARD_LONGEST_YEARS * 12))
                    .is_some_and(|latest| at > latest)
                {
                    p.add(FIELD, "身份证有效期至不能晚于20年后");
                }
                IdCardValidity::Until(at)
            }
        }
    }

    /// As the operation log shows it.
    fn label(self) -> String {
        match self {
            IdCardValidity::Unknown => String::new(),
            IdCardValidity::Until(at) => crate::oplog::domain::date(Some(at)),
            IdCardValidity::LongTerm => ID_CARD_LONG_TERM.to_owned(),
        }
    }
}

/// The stored personal values an update keeps when the input leaves them empty.
#[derive(Debug, Clone, Default)]
pub struct Kept {
    pub phone: String,
    pub id_number: String,
    pub address: String,
    pub licence_front: Option<Image>,
    pub licence_back: Option<Image>,
    pub id_card_front: Option<Image>,
    pub id_card_back: Option<Image>,
}

/// An image sent back without its key (the caller only ever sees images
/// named, never their keys) means "keep the stored one"; none stored, none kept.
fn keep_image(input: &mut Option<Image>, stored: Option<&Image>) {
    if input.as_ref().is_some_and(|i| i.key.trim().is_empty()) {
        *input = stored.cloned();
    }
}

impl DriverDraft {
    /// Checks every field and reports all refusals at once. On update,
    /// `kept` fills the personal fields the input left empty.
    pub fn parse(
        mut input: DriverFields,
        kept: Option<&Kept>,
    ) -> Result<DriverDraft, ServiceError> {
        keep_image(
            &mut input.licence_front,
            kept.and_then(|k| k.licence_front.as_ref()),
        );
        keep_image(
            &mut input.licence_back,
            kept.and_then(|k| k.licence_back.as_ref()),
        );
        keep_image(
            &mut input.id_card_front,
            kept.and_then(|k| k.id_card_front.as_ref()),
        );
        keep_image(
            &mut input.id_card_back,
            kept.and_then(|k| k.id_card_back.as_ref()),
        );
        if let Some(kept) = kept {
            if input.phone.trim().is_empty() {
                input.phone.clone_from(&kept.phone);
            }
            if input.id_number.trim().is_empty() {
                input.id_number.clone_from(&kept.id_number);
            }
            if input.address.trim().is_empty() {
                input.address.clone_from(&kept.address);
            }
        }
        let mut p = Problems::default();
        let org_id = p.org("orgId", &input.org_id);
        let name = p.text("name", "司机姓名", &input.name, 20);
        let phone = p.check("phone", Phone::parse(&input.phone));
        let id_number = p.check("idNumber", IdNumber::parse(&input.id_number));
        let employee_no = p.optional_text("employeeNo", "工号", &input.employee_no, 32);
        let licence_class = p.choice("licenceClass", "准驾车型", input.licence_class);
        let address = p.optional_text("address", "住址", &input.address, 100);
        let remark = p.optional_text("remark", "备注", &input.remark, 200);
        let id_card = IdCardValidity::parse(
            input.id_card_expire_time,
            input.id_card_long_term,
            Utc::now(),
            &mut p,
        );
        if input.licence_expire_time.is_none() {
            p.add("licenceExpireTime", "请选择驾驶证有效期");
        }
        if let (Some(first), Some(expire)) =
            (input.licence_first_issue_time, input.licence_expire_time)
            && first >= expire
        {
            p.add("licenceExpireTime", "驾驶证有效期须晚于初次领证日期");
        }
        if input
            .licence_first_issue_time
            .is_some_and(|t| t > Utc::now())
        {
            p.add("licenceFirstIssueTime", "初次领证日期不能晚于今天");
        }
        for (field, image) in [
            ("licenceFront", &input.licence_front),
            ("licenceBack", &input.licence_back),
            ("idCardFront", &input.id_card_front),
            ("idCardBack", &input.id_card_back),
        ] {
            if let Some(image) = image
                && (image.key.chars().count() > 500 || image.name.chars().count() > 200)
            {
                p.add(field, "图片文件名或地址过长");
            }
        }
        p.finish()?;
        let (Some(org_id), Some(phone), Some(id_number), Some(licence_class)) =
            (org_id, phone, id_number, licence_class)
        else {
            return Err(ServiceError::of(ErrorCode::BadRequest));
        };
        Ok(DriverDraft {
            org_id,
            name,
            phone,
            id_number,
            employee_no,
            licence_class,
            licence_first_issue_time: input.licence_first_issue_time,
            licence_expire_time: input.licence_expire_time,
            address,
            licence_front: input.licence_front,
            licence_back: input.licence_back,
            id_card_front: input.id_card_front,
            id_card_back: input.id_card_back,
            id_card,
            status: input.status.unwrap_or(DriverStatus::Active),
            hire_time: input.hire_time,
            remark,
        })
    }
}

/// A phone number as the service shows it (docs/console-spec.md §5 centre mode).
pub fn masked_phone(phone: &str) -> String {
    mask::centre(phone)
}

/// An ID number as the service shows it (centre mode).
pub fn masked_id_number(id_number: &str) -> String {
    mask::centre(id_number)
}

/// An address as the service shows it (end mode).
pub fn masked_address(address: &str) -> String {
    mask::end(address)
}

/// The refusal of a phone already on another driver of the enterprise.
pub fn phone_taken() -> ServiceError {
    ServiceError::taken("phone", "该手机号已被其他司机使用")
}

/// The refusal of an ID number already on another driver of the enterprise.
pub fn id_number_taken() -> ServiceError {
    ServiceError::taken("idNumber", "该身份证号已被其他司机使用")
}

fn image_key(image: &Option<Image>) -> &str {
    image.as_ref().map_or("", |i| i.key.as_str())
}

/// The operation-log remark of an edit: each changed field, personal ones
/// without their values.
pub fn changes(before: &DriverDraft, after: &DriverDraft, org_names: (&str, &str)) -> String {
    let org = if before.org_id == after.org_id {
        Changes::new()
    } else {
        Changes::new().text("所属组织", org_names.0, org_names.1)
    };
    org.text("司机姓名", &before.name, &after.name)
        .secret("手机号", before.phone.as_str(), after.phone.as_str())
        .secret(
            "身份证号",
            before.id_number.as_str(),
            after.id_number.as_str(),
        )
        .text("工号", &before.employee_no, &after.employee_no)
        .text(
            "准驾车型",
            before.licence_class.label(),
            after.licence_class.label(),
        )
        .date(
            "初次领证日期",
            before.licence_first_issue_time,
            after.licence_first_issue_time,
        )
        .date(
            "驾驶证有效期",
            before.licence_expire_time,
            after.licence_expire_time,
        )
        .secret("住址", &before.address, &after.address)
        .secret(
            "驾驶证正面",
            image_key(&before.licence_front),
            image_key(&after.licence_front),
        )
        .secret(
            "驾驶证反面",
            image_key(&before.licence_back),
            image_key(&after.licence_back),
        )
        .secret(
            "身份证正面",
            image_key(&before.id_card_front),
            image_key(&after.id_card_front),
        )
        .secret(
            "身份证反面",
            image_key(&before.id_card_back),
            image_key(&after.id_card_back),
        )
        .text(
            "身份证有效期至",
            &before.id_card.label(),
            &after.id_card.label(),
        )
        .text("状态", before.status.label(), after.status.label())
        .date("入职日期", before.hire_time, after.hire_time)
        .text("备注", &before.remark, &after.remark)
        .finish()
}

/// The sensitive-view types a driver carries (docs/console-spec.md §3): 1 phone, 2 ID
/// number, 6 licence front, 7 licence back, 8 address, 10 licence photo
/// (both licence sides), plus the ID card images (4, 5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sensitive {
    Phone,
    IdNumber,
    IdFront,
    IdBack,
    LicenceFront,
    LicenceBack,
    Address,
    LicencePhoto,
}

impl Sensitive {
    /// From the spec's type number; `None` for types a driver does not have.
    pub fn from_type(value: i32) -> Option<Sensitive> {
        Some(match value {
            1 => Sensitive::Phone,
            2 => Sensitive::IdNumber,
            4 => Sensitive::IdFront,
            5 => Sensitive::IdBack,
            6 => Sensitive::LicenceFront,
            7 => Sensitive::LicenceBack,
            8 => Sensitive::Address,
            10 => Sensitive::LicencePhoto,
            _ => return None,
        })
    }

    /// The unmasked value of `draft`: text, or an image's object key.
    pub fn value_of(self, draft: &DriverDraft) -> String {
        match self {
            Sensitive::Phone => draft.phone.as_str().to_owned(),
            Sensitive::IdNumber => draft.id_number.as_str().to_owned(),
            Sensitive::Address => draft.address.clone(),
            Sensitive::IdFront => image_key(&draft.id_card_front).to_owned(),
            Sensitive::IdBack => image_key(&draft.id_card_back).to_owned(),
            Sensitive::LicenceFront | Sensitive::LicencePhoto => {
                image_key(&draft.licence_front).to_owned()
            }
            Sensitive::LicenceBack => image_key(&draft.licence_back).to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use chrono::Duration;

    use super::*;

    pub fn valid_fields() -> DriverFields {
        DriverFields {
            org_id: Uuid::new_v4().to_string(),
            name: " 张伟 ".into(),
            phone: "13812345678".into(),
            id_number: "11010519491231002X".into(),
            licence_class: Some(LicenceClass::C1),
            licence_first_issue_time: Some(Utc::now() - Duration::days(3650)),
            licence_expire_time: Some(Utc::now() + Duration::days(365)),
            address: "广东省深圳市南山区科技园南区8栋".into(),
            ..DriverFields::default()
        }
    }

    #[test]
    fn a_valid_driver_is_trimmed_and_active_by_default() {
        let draft = DriverDraft::parse(valid_fields(), None).unwrap();
        assert_eq!(draft.name, "张伟");
        assert_eq!(draft.status, DriverStatus::Active);
    }

    #[test]
    fn every_bad_field_is_reported_at_once_in_chinese() {
        let input = DriverFields {
            name: "".into(),
            phone: "2381234567".into(),
            id_number: "110105194912310021".into(),
            licence_class: None,
            licence_expire_time: None,
            ..valid_fields()
        };
        let err = DriverDraft::parse(input, None).unwrap_err();
        assert_eq!(err.code, ErrorCode::BadRequest);
        let fields: Vec<_> = err.fields.iter().map(|f| f.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "name",
                "phone",
                "idNumber",
                "licenceClass",
                "licenceExpireTime"
            ]
        );
        assert_eq!(err.fields[0].message, "请输入司机姓名");
        assert_eq!(err.fields[1].message, "请输入正确的手机号");
    }

    #[test]
    fn an_update_keeps_the_stored_personal_values_it_was_not_sent() {
        let stored = |key: &str| Image {
            key: key.into(),
            name: "驾驶证.png".into(),
            ..Image::default()
        };
        let kept = Kept {
            phone: "13900000001".into(),
            id_number: "11010519491231002X".into(),
            address: "北京市朝阳区建国路88号".into(),
            licence_front: Some(stored("e/driver/front.png")),
            licence_back: Some(stored("e/driver/back.png")),
            ..Kept::default()
        };
        let named_only = Some(Image {
            key: "".into(),
            name: "驾驶证.png".into(),
            ..Image::default()
        });
        let input = DriverFields {
            phone: "".into(),
            id_number: "".into(),
            address: "".into(),
            licence_front: named_only.clone(),
            licence_back: None,
            id_card_front: named_only,
            ..valid_fields()
        };
        let draft = DriverDraft::parse(input, Some(&kept)).unwrap();
        assert_eq!(draft.phone.as_str(), "13900000001");
        assert_eq!(draft.address, "北京市朝阳区建国路88号");
        // An image sent back by name keeps its stored file; one left out is removed;
        // a name with nothing stored behind it is no image.
        assert_eq!(draft.licence_front, Some(stored("e/driver/front.png")));
        assert_eq!(draft.licence_back, None);
        assert_eq!(draft.id_card_front, None);
    }

    #[test]
    fn an_id_card_is_long_term_or_ends_on_a_plausible_day() {
        let parse = |expire: Option<DateTime<Utc>>, long_term| {
            DriverDraft::parse(
                DriverFields {
                    id_card_expire_time: expire,
                    id_card_long_term: long_term,
                    ..valid_fields()
                },
                None,
            )
        };
        let in_ten_years = Utc::now() + Duration::days(3650);
        assert_eq!(
            parse(Some(in_ten_years), false).unwrap().id_card,
            IdCardValidity::Until(in_ten_years)
        );
        assert_eq!(parse(None, true).unwrap().id_card, IdCardValidity::LongTerm);
        assert_eq!(parse(None, false).unwrap().id_card, IdCardValidity::Unknown);
        assert!(parse(Some("1989-12-31T16:00:00Z".parse().unwrap()), false).is_ok());
        // An expired card is recorded as it is (the warnings job reports it).
        assert!(parse(Some(Utc::now() - Duration::days(30)), false).is_ok());
        for (expire, long_term, message) in [
            (Some(in_ten_years), true, "长期有效的身份证无需填写有效期至"),
            (
                Some(Utc::now() + Duration::days(21 * 366)),
                false,
                "身份证有效期至不能晚于20年后",
            ),
            (
                // 1989-12-31 in Shanghai; 1990-01-01 would be accepted.
                Some("1989-12-30T16:00:00Z".parse().unwrap()),
                false,
                "身份证有效期至不能早于1990年",
            ),
        ] {
            let err = parse(expire, long_term).unwrap_err();
            assert_eq!(err.fields[0].field, "idCardExpireTime");
            assert_eq!(err.fields[0].message, message);
        }
    }

    #[test]
    fn personal_values_are_masked_by_the_spec_rules() {
        assert_eq!(masked_phone("13812345678"), "138****5678");
        assert_eq!(masked_id_number("11010519491231002X"), "110***********002X");
        assert_eq!(
            masked_address("广东省深圳市南山区科技园"),
            "广东省深圳市南*****"
        );
    }

    #[test]
    fn an_edit_remark_names_personal_changes_without_values() {
        let before = DriverDraft::parse(valid_fields(), None).unwrap();
        let after = DriverDraft::parse(
            DriverFields {
                phone: "13999999999".into(),
                name: "张伟明".into(),
                ..valid_fields()
            },
            None,
        )
        .unwrap();
        let after = DriverDraft {
            org_id: before.org_id,
            ..after
        };
        let remark = changes(&before, &after, ("", ""));
        assert_eq!(remark, "司机姓名：由「张伟」改为「张伟明」；手机号：已修改");
    }

    #[test]
    fn a_driver_carries_the_phone_id_address_and_image_types() {
        for t in [1, 2, 4, 5, 6, 7, 8, 10] {
            assert!(Sensitive::from_type(t).is_some(), "type {t}");
        }
        for t in [0, 3, 9, 11] {
            assert!(Sensitive::from_type(t).is_none(), "type {t}");
        }
    }
}

//! The sensitive-view types (docs/console-spec.md §3) with what masks each
//! and where it lives, the subjects they belong to, and what the audit
//! keeps.

use fleetdesk_kit::mask;
use fleetdesk_proto::org::v1 as pb;

use crate::codes::stored_code;

/// Longest page URL and module name kept in the audit.
pub const MAX_TEXT: usize = 500;

stored_code!(
    /// What kind of value is viewed (`sensitive_view_log.sensitive_type`).
    SensitiveType => pb::SensitiveType {
        Phone = 1,
        IdNumber = 2,
        BankCard = 3,
        IdFront = 4,
        IdBack = 5,
        LicenceFront = 6,
        LicenceBack = 7,
        Address = 8,
        IdPhoto = 9,
        LicencePhoto = 10,
    }
);

stored_code!(
    /// Whose value it is (`sensitive_view_log.subject_kind`).
    SubjectKind => pb::SensitiveSubjectKind {
        Member = 1,
        Approval = 2,
        Feedback = 3,
        /// Kept by the vehicle service: revealed there, audited here.
        Driver = 4,
    }
);

impl SensitiveType {
    pub fn label(self) -> &'static str {
        match self {
            SensitiveType::Phone => "手机号",
            SensitiveType::IdNumber => "身份证号",
            SensitiveType::BankCard => "银行卡号",
            SensitiveType::IdFront => "身份证正面",
            SensitiveType::IdBack => "身份证反面",
            SensitiveType::LicenceFront => "驾驶证正面",
            SensitiveType::LicenceBack => "驾驶证反面",
            SensitiveType::Address => "地址",
            SensitiveType::IdPhoto => "身份证照片",
            SensitiveType::LicencePhoto => "驾驶证照片",
        }
    }

    /// ID and licence images (types 4, 5, 6, 7, 9, 10): the console asks
    /// for confirmation before showing them.
    pub fn is_image(self) -> bool {
        match self {
            SensitiveType::IdFront
            | SensitiveType::IdBack
            | SensitiveType::LicenceFront
            | SensitiveType::LicenceBack
            | SensitiveType::IdPhoto
            | SensitiveType::LicencePhoto => true,
            SensitiveType::Phone
            | SensitiveType::IdNumber
            | SensitiveType::BankCard
            | SensitiveType::Address => false,
        }
    }

    /// The masked form (docs/console-spec.md §5): centre mode for phone, ID
    /// and bank card, end mode for addresses; images are never shown
    /// masked, only named.
    pub fn mask(self, value: &str) -> String {
        match self {
            SensitiveType::Phone | SensitiveType::IdNumber | SensitiveType::BankCard => {
                mask::centre(value)
            }
            SensitiveType::Address => mask::end(value),
            SensitiveType::IdFront
            | SensitiveType::IdBack
            | SensitiveType::LicenceFront
            | SensitiveType::LicenceBack
            | SensitiveType::IdPhoto
            | SensitiveType::LicencePhoto => String::new(),
        }
    }

    /// The column of `member_identity` that holds it (the phone is on `member`).
    pub fn member_column(self) -> &'static str {
        match self {
            SensitiveType::Phone => "phone",
            SensitiveType::IdNumber => "id_number",
            SensitiveType::BankCard => "bank_card",
            SensitiveType::IdFront => "id_front_key",
            SensitiveType::IdBack => "id_back_key",
            SensitiveType::LicenceFront => "licence_front_key",
            SensitiveType::LicenceBack => "licence_back_key",
            SensitiveType::Address => "address",
            SensitiveType::IdPhoto => "id_photo_key",
            SensitiveType::LicencePhoto => "licence_photo_key",
        }
    }
}

/// What the audit says was viewed: the type and the masked value (never the
/// value itself), or the type alone for images.
pub fn log_content(kind: SensitiveType, value: &str) -> String {
    if kind.is_image() {
        format!("查看{}", kind.label())
    } else {
        format!("查看{}：{}", kind.label(), kind.mask(value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exactly_the_id_and_licence_images_need_confirmation() {
        let images: Vec<i32> = (1..=10)
            .filter(|t| SensitiveType::from_pb(*t).unwrap().is_image())
            .collect();
        assert_eq!(images, [4, 5, 6, 7, 9, 10]);
        assert!(SensitiveType::from_pb(0).is_none());
        assert!(SensitiveType::from_pb(11).is_none());
    }

    #[test]
    fn the_audit_keeps_the_masked_value_only() {
        assert_eq!(
            log_content(SensitiveType::Phone, "13800000001"),
            "查看手机号：138****0001"
        );
        assert_eq!(
            log_content(SensitiveType::Address, "上海市浦东新区世纪大道100号"),
            "查看地址：上海市浦东新区世纪******"
        );
        assert_eq!(
            log_content(SensitiveType::IdFront, "identity/a.png"),
            "查看身份证正面"
        );
    }

    #[test]
    fn id_numbers_and_bank_cards_mask_in_centre_mode() {
        assert_eq!(
            SensitiveType::IdNumber.mask("110101199001011234"),
            "110***********1234"
        );
        assert_eq!(
            SensitiveType::BankCard.mask("6222020200112233445"),
            "622************3445"
        );
    }
}

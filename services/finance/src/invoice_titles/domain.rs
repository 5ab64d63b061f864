//! A title's rules: the fields each type needs and the check of its
//! taxpayer id, with the second confirmation of a code failing it.

use fleetdesk_kit::ServiceError;
use fleetdesk_proto::finance::v1 as pb;

use crate::codes::stored_code;
use crate::invoicing::credit_code;

stored_code! {
    InvoiceTitleType => pb::InvoiceTitleType { Company = 1, Institution = 2 }
}

/// Longest buyer name the platform accepts.
const MAX_NAME: usize = 100;

/// A title's fields, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TitleSpec {
    pub title_type: InvoiceTitleType,
    pub name: String,
    pub tax_number: String,
    /// Kept although failing the GB 32100 check (confirmed a second time).
    pub tax_number_unchecked: bool,
    pub registered_address: String,
    pub registered_phone: String,
    pub bank_name: String,
    pub bank_account: String,
    pub is_default: bool,
}

/// A title's fields as typed, before the check.
#[derive(Debug, Clone, Default)]
pub struct TitleInput {
    pub title_type: Option<InvoiceTitleType>,
    pub name: String,
    pub tax_number: String,
    pub registered_address: String,
    pub registered_phone: String,
    pub bank_name: String,
    pub bank_account: String,
    pub is_default: bool,
}

/// Whether a code that failed the check may still be a taxpayer id at all
/// (the old 15- and 20-character ids, or an 18-character code with a bad
/// check character): letters and digits only.
fn plausible(code: &str) -> bool {
    (15..=20).contains(&code.len()) && code.bytes().all(|b| b.is_ascii_alphanumeric())
}

impl TitleInput {
    /// The checked title; `confirmed` is the user's second confirmation of
    /// a tax number failing GB 32100.
    pub fn check(self, confirmed: bool) -> Result<TitleSpec, ServiceError> {
        let TitleInput {
            title_type,
            name,
            tax_number,
            registered_address,
            registered_phone,
            bank_name,
            bank_account,
            is_default,
        } = self;
        let title_type =
            title_type.ok_or_else(|| ServiceError::invalid("titleType", "请选择抬头类型"))?;
        let name = name.trim().to_owned();
        if name.is_empty() || name.chars().count() > MAX_NAME {
            return Err(ServiceError::invalid(
                "name",
                "抬头名称必填，不超过 100 字，须与登记名称一致",
            ));
        }
        let tax_number = tax_number.trim().to_owned();
        if tax_number.is_empty() && title_type == InvoiceTitleType::Company {
            return Err(ServiceError::invalid(
                "taxNumber",
                "企业抬头须填写统一社会信用代码",
            ));
        }
        let mut tax_number_unchecked = false;
        if !tax_number.is_empty()
            && let Err(problem) = credit_code::check(&tax_number)
        {
            if !confirmed || !plausible(&tax_number) {
                return Err(ServiceError::invalid(
                    "taxNumber",
                    format!("{problem}；请核对，如确认无误请再次确认提交"),
                ));
            }
            tax_number_unchecked = true;
        }
        Ok(TitleSpec {
            title_type,
            name,
            tax_number,
            tax_number_unchecked,
            registered_address: registered_address.trim().to_owned(),
            registered_phone: registered_phone.trim().to_owned(),
            bank_name: bank_name.trim().to_owned(),
            bank_account: bank_account.trim().to_owned(),
            is_default,
        })
    }
}

impl TitleSpec {
    /// The fields a special VAT invoice prints that this title lacks, by
    /// their Chinese names; empty when it can be used for one.
    pub fn missing_for_special(&self) -> Vec<&'static str> {
        [
            ("统一社会信用代码", &self.tax_number),
            ("注册地址", &self.registered_address),
            ("注册电话", &self.registered_phone),
            ("开户银行", &self.bank_name),
            ("银行账号", &self.bank_account),
        ]
        .into_iter()
        .filter(|(_, value)| value.trim().is_empty())
        .map(|(label, _)| label)
        .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn company(tax_number: &str) -> TitleInput {
        TitleInput {
            title_type: Some(InvoiceTitleType::Company),
            name: "深圳市腾讯计算机系统有限公司".to_owned(),
            tax_number: tax_number.to_owned(),
            ..TitleInput::default()
        }
    }

    #[test]
    fn a_valid_code_passes_without_confirmation() {
        let spec = company("9144030071526726XG").check(false).unwrap();
        assert!(!spec.tax_number_unchecked);
    }

    #[test]
    fn a_failing_code_needs_the_second_confirmation_and_is_remembered() {
        let err = company("9144030071526726XA").check(false).unwrap_err();
        assert!(format!("{err:?}").contains("taxNumber"));
        let spec = company("9144030071526726XA").check(true).unwrap();
        assert!(spec.tax_number_unchecked);
        // Confirmation does not let through what is no taxpayer id at all.
        assert!(company("91-440300").check(true).is_err());
    }

    #[test]
    fn a_company_needs_a_tax_number_an_institution_does_not() {
        assert!(company("").check(true).is_err());
        let institution = TitleInput {
            title_type: Some(InvoiceTitleType::Institution),
            ..company("")
        };
        assert!(institution.check(false).is_ok());
    }

    #[test]
    fn special_invoices_name_what_the_title_lacks() {
        let spec = company("9144030071526726XG").check(false).unwrap();
        assert_eq!(
            spec.missing_for_special(),
            ["注册地址", "注册电话", "开户银行", "银行账号"]
        );
    }
}

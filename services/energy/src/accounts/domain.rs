//! Rules of charging accounts: their kinds and statuses, and whether an
//! enterprise has charging at all.

use fleetdesk_kit::{ErrorCode, ServiceError};
use fleetdesk_proto::energy::v1 as pb;

use crate::codes::stored_code;

stored_code!(
    /// MAIN (the root organisation's) or an organisation's sub-account.
    AccountKind => pb::ChargingAccountKind {
        Main = 1, Organization = 2,
    }
);

stored_code!(
    /// Whether an account takes part in allocation and charging.
    AccountStatus => pb::ChargingAccountStatus {
        Active = 1, Frozen = 2, Closed = 3,
    }
);

impl AccountStatus {
    /// As a refusal and an export name it.
    pub fn label(self) -> &'static str {
        match self {
            AccountStatus::Active => "正常",
            AccountStatus::Frozen => "已冻结",
            AccountStatus::Closed => "已关闭",
        }
    }
}

impl AccountKind {
    pub fn label(self) -> &'static str {
        match self {
            AccountKind::Main => "主账户",
            AccountKind::Organization => "组织账户",
        }
    }
}

/// The answer of every account and card call of an enterprise without charging.
pub fn not_opened() -> ServiceError {
    ServiceError::new(ErrorCode::Conflict, "贵企业尚未开通充电服务，请先申请开通")
}

/// Refuses money leaving or entering an account that is not active.
pub fn require_active(status: AccountStatus, what: &str) -> Result<(), ServiceError> {
    match status {
        AccountStatus::Active => Ok(()),
        AccountStatus::Frozen | AccountStatus::Closed => Err(ServiceError::new(
            ErrorCode::Conflict,
            format!("{what}{}，无法操作余额", status.label()),
        )),
    }
}

/// The status an update may set: ACTIVE or FROZEN, and MAIN is never frozen here.
pub fn settable_status(
    kind: AccountKind,
    status: Option<AccountStatus>,
) -> Result<Option<AccountStatus>, ServiceError> {
    match (kind, status) {
        (_, None | Some(AccountStatus::Active)) => Ok(status),
        (AccountKind::Main, Some(AccountStatus::Frozen)) => {
            Err(ServiceError::invalid("status", "主账户不能冻结"))
        }
        (AccountKind::Organization, Some(AccountStatus::Frozen)) => Ok(status),
        (_, Some(AccountStatus::Closed)) => {
            Err(ServiceError::invalid("status", "账户只能设为正常或冻结"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_organisation_accounts_freeze_and_none_closes_by_update() {
        assert!(settable_status(AccountKind::Main, Some(AccountStatus::Frozen)).is_err());
        assert_eq!(
            settable_status(AccountKind::Organization, Some(AccountStatus::Frozen)).unwrap(),
            Some(AccountStatus::Frozen)
        );
        for kind in AccountKind::ALL {
            assert!(settable_status(*kind, Some(AccountStatus::Closed)).is_err());
            assert_eq!(settable_status(*kind, None).unwrap(), None);
        }
    }

    #[test]
    fn a_frozen_account_refuses_money_in_chinese() {
        assert!(require_active(AccountStatus::Active, "组织账户").is_ok());
        let err = require_active(AccountStatus::Frozen, "组织账户").unwrap_err();
        assert_eq!(err.message, "组织账户已冻结，无法操作余额");
    }
}

//! Rules of opening: the enterprise's state, an application's status and
//! who may decide.

use fleetdesk_kit::{ErrorCode, ServiceError, grpc};
use fleetdesk_proto::energy::v1 as pb;

use crate::codes::stored_code;

stored_code!(
    /// Whether an enterprise has charging.
    OpenState => pb::ChargingOpenState {
        NotOpened = 1, Applying = 2, Opened = 3,
    }
);

stored_code!(
    /// Where an application stands.
    ApplicationStatus => pb::ChargingOpenApplicationStatus {
        Pending = 1, Contacted = 2, Approved = 3, Rejected = 4,
    }
);

impl ApplicationStatus {
    /// Not decided yet: the operator may approve or reject it.
    pub fn is_open(self) -> bool {
        match self {
            ApplicationStatus::Pending | ApplicationStatus::Contacted => true,
            ApplicationStatus::Approved | ApplicationStatus::Rejected => false,
        }
    }

    /// As the console's list and the export name it.
    pub fn label(self) -> &'static str {
        match self {
            ApplicationStatus::Pending => "待处理",
            ApplicationStatus::Contacted => "已联系",
            ApplicationStatus::Approved => "已开通",
            ApplicationStatus::Rejected => "未通过",
        }
    }
}

/// The permission of the energy menu, which the apply popup belongs to.
pub const PERMISSION: &str = "oss:pc:energy:management";

/// The internal-token subject of the platform operator's tools.
pub const OPERATOR_SUBJECT: &str = "svc:operator";

/// Display name of decisions made by the operator's tools.
pub const OPERATOR_NAME: &str = "平台运营";

/// Longest applicant note or approval remark, in characters.
pub const REMARK_MAX: usize = 200;

/// Refuses any caller but the operator (see the module notes).
pub fn require_operator<T>(req: &tonic::Request<T>) -> Result<(), ServiceError> {
    let claims = grpc::caller(req)?;
    if claims.sub == OPERATOR_SUBJECT && claims.ent.is_none() {
        Ok(())
    } else {
        Err(ServiceError::new(
            ErrorCode::Forbidden,
            "仅平台运营人员可以审批充电开通申请",
        ))
    }
}

/// Whether the caller is the operator (lists every enterprise's applications).
pub fn is_operator<T>(req: &tonic::Request<T>) -> bool {
    require_operator(req).is_ok()
}

/// The refusal of an application while the state is `state`, if any.
pub fn refuse_application(state: OpenState) -> Option<ServiceError> {
    match state {
        OpenState::NotOpened => None,
        OpenState::Applying => Some(ServiceError::new(
            ErrorCode::Conflict,
            "您的开通申请正在处理中，请勿重复提交",
        )),
        OpenState::Opened => Some(ServiceError::new(
            ErrorCode::Conflict,
            "贵企业已开通充电服务，无需重复申请",
        )),
    }
}

/// The refusal of a decision on an application already decided.
pub fn already_decided() -> ServiceError {
    ServiceError::new(ErrorCode::Conflict, "该申请已处理，请刷新后查看")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_state_without_charging_may_apply() {
        assert!(refuse_application(OpenState::NotOpened).is_none());
        let applying = refuse_application(OpenState::Applying).unwrap();
        assert_eq!(applying.code.edge_code(), 4009);
        assert!(applying.message.contains("正在处理中"));
        assert!(
            refuse_application(OpenState::Opened)
                .unwrap()
                .message
                .contains("已开通")
        );
    }

    #[test]
    fn only_pending_and_contacted_applications_are_open() {
        let open: Vec<_> = ApplicationStatus::ALL
            .iter()
            .filter(|s| s.is_open())
            .collect();
        assert_eq!(
            open,
            [&ApplicationStatus::Pending, &ApplicationStatus::Contacted]
        );
    }
}

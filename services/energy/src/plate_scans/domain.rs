//! What came of a plate recognition.

use fleetdesk_proto::energy::v1 as pb;

use crate::codes::stored_code;

stored_code!(
    /// What came of a recognition; none while it is undecided.
    ScanResult => pb::PlateScanResult {
        Started = 1, NotRegistered = 2, CardUnavailable = 3, InsufficientBalance = 4,
        BudgetExceeded = 5, PileFailed = 6,
    }
);

impl ScanResult {
    pub fn label(self) -> &'static str {
        match self {
            ScanResult::Started => "已启动充电",
            ScanResult::NotRegistered => "车牌未绑定充电卡",
            ScanResult::CardUnavailable => "充电卡不可用",
            ScanResult::InsufficientBalance => "余额不足",
            ScanResult::BudgetExceeded => "超出预算",
            ScanResult::PileFailed => "充电桩启动失败",
        }
    }
}

/// The id of a platform recognition here (a repeated push is the same one).
pub fn scan_id(party_id: &str, scan_no: &str) -> uuid::Uuid {
    uuid::Uuid::new_v5(
        &uuid::Uuid::NAMESPACE_URL,
        format!("fleetdesk:ocpi:plate-scan:{party_id}:{scan_no}").as_bytes(),
    )
}

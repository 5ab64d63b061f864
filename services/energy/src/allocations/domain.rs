//! Rules of allocation: its direction, and the targets of one request.

use fleetdesk_kit::list::BATCH_LIMIT;
use fleetdesk_kit::{ErrorCode, ServiceError};
use fleetdesk_proto::energy::v1 as pb;
use uuid::Uuid;

use crate::codes::stored_code;

stored_code!(
    /// Down the tree or back up.
    Direction => pb::AllocationDirection {
        Allocate = 1, Reclaim = 2,
    }
);

impl Direction {
    pub fn label(self) -> &'static str {
        match self {
            Direction::Allocate => "分配",
            Direction::Reclaim => "回收",
        }
    }
}

/// The checked targets of an allocation: at least one, at most 250, each a
/// distinct account with a positive amount; and their total.
pub fn targets(targets: &[pb::AllocationTarget]) -> Result<(Vec<(Uuid, i64)>, i64), ServiceError> {
    if targets.is_empty() {
        return Err(ServiceError::invalid("targets", "请选择分配对象"));
    }
    if targets.len() > BATCH_LIMIT {
        return Err(ServiceError::invalid(
            "targets",
            format!("每次最多向 {BATCH_LIMIT} 个账户分配"),
        ));
    }
    let mut out: Vec<(Uuid, i64)> = Vec::with_capacity(targets.len());
    for t in targets {
        let id = Uuid::parse_str(t.to_account_id.trim())
            .map_err(|_| ServiceError::invalid("targets", "分配对象不存在"))?;
        if t.amount_fen <= 0 {
            return Err(ServiceError::invalid("targets", "分配金额必须大于 0"));
        }
        if out.iter().any(|(o, _)| *o == id) {
            return Err(ServiceError::invalid("targets", "同一账户不能重复分配"));
        }
        out.push((id, t.amount_fen));
    }
    let total = out
        .iter()
        .try_fold(0i64, |sum, (_, a)| sum.checked_add(*a))
        .ok_or_else(|| ServiceError::invalid("targets", "分配金额超出范围"))?;
    Ok((out, total))
}

/// Money moves only between an account and its direct children.
pub fn not_a_child() -> ServiceError {
    ServiceError::new(
        ErrorCode::Conflict,
        "只能在上级账户与其直属下级账户之间分配或回收余额",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(id: u128, amount_fen: i64) -> pb::AllocationTarget {
        pb::AllocationTarget {
            to_account_id: Uuid::from_u128(id).to_string(),
            amount_fen,
        }
    }

    #[test]
    fn targets_are_distinct_positive_and_summed() {
        let (t, total) = targets(&[target(1, 100), target(2, 250)]).unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(total, 350);
        assert!(targets(&[]).is_err());
        assert!(targets(&[target(1, 0)]).is_err());
        assert!(targets(&[target(1, 5), target(1, 6)]).is_err());
        assert!(targets(&[target(1, i64::MAX), target(2, 1)]).is_err());
        let many: Vec<_> = (0..251).map(|i| target(i, 1)).collect();
        assert!(targets(&many).is_err());
    }
}

//! Rules of charging sessions: their stored codes, how much a session may
//! hold (card balance, per-session cap, what the budget leaves), when a
//! running session's hold is topped up or the platform told to stop it,
//! what a settlement captures, and the budget period and statement month
//! in Asia/Shanghai.

use chrono::{DateTime, Datelike, Duration, FixedOffset, NaiveDate, TimeZone, Utc};
use fleetdesk_ocpi::TokenType;
use fleetdesk_proto::energy::v1 as pb;

use crate::cards::domain::BudgetPeriod;
use crate::codes::stored_code;

stored_code!(
    /// Where a session stands.
    SessionStatus => pb::ChargingSessionStatus {
        Charging = 1, Settled = 2, Abnormal = 3, Refunded = 4,
    }
);

stored_code!(
    /// How a session was started.
    StartMethod => pb::StartMethod {
        CardSwipe = 1, AppScan = 2, PlateScan = 3,
    }
);

stored_code!(
    /// An authorisation: waiting for its session, used by it, or expired
    /// (its hold released).
    AuthorizationStatus {
        Open = 1, Started = 2, Expired = 3,
    }
);

impl SessionStatus {
    pub fn label(self) -> &'static str {
        match self {
            SessionStatus::Charging => "充电中",
            SessionStatus::Settled => "已结算",
            SessionStatus::Abnormal => "异常",
            SessionStatus::Refunded => "已退款",
        }
    }
}

impl StartMethod {
    pub fn label(self) -> &'static str {
        match self {
            StartMethod::CardSwipe => "刷卡启动",
            StartMethod::AppScan => "扫码启动",
            StartMethod::PlateScan => "车牌识别启动",
        }
    }

    /// How a token of `kind` starts a session.
    pub fn of(kind: TokenType) -> StartMethod {
        match kind {
            TokenType::Rfid => StartMethod::CardSwipe,
            TokenType::AppUser | TokenType::AdHocUser => StartMethod::AppScan,
            TokenType::Other => StartMethod::PlateScan,
        }
    }
}

/// One hold: what a session takes from the card at a time (50.00 元).
pub const HOLD_STEP_FEN: i64 = 5_000;
/// Below this (5.00 元) there is too little to start a session.
pub const MIN_START_FEN: i64 = 500;
/// Stop when less than this is left on the hold (3.00 元), or less than
/// two updates' worth of spending, whichever is more.
pub const MIN_MARGIN_FEN: i64 = 300;
/// How long an authorisation waits for its session before its hold is released.
pub const AUTHORIZATION_TTL: Duration = Duration::minutes(15);

/// What limits how much a session may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// On the card now.
    pub balance_fen: i64,
    /// Cap on one session; 0 = none.
    pub per_session_limit_fen: i64,
    /// What the card's budget leaves this period; None = no budget.
    pub budget_left_fen: Option<i64>,
}

/// Which limit ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shortfall {
    Balance,
    Budget,
    SessionCap,
}

impl Shortfall {
    /// Why the driver cannot (go on) charging.
    pub fn reason(self) -> &'static str {
        match self {
            Shortfall::Balance => "充电卡余额不足",
            Shortfall::Budget => "充电卡本期预算已用完",
            Shortfall::SessionCap => "已达单次充电限额",
        }
    }
}

impl Limits {
    /// How much more a session holding `held_fen` may take now, and the
    /// limit that binds.
    pub fn room(&self, held_fen: i64) -> (i64, Shortfall) {
        let mut room = (self.balance_fen.max(0), Shortfall::Balance);
        if let Some(left) = self.budget_left_fen
            && left < room.0
        {
            room = (left.max(0), Shortfall::Budget);
        }
        if self.per_session_limit_fen > 0 {
            let cap = (self.per_session_limit_fen - held_fen).max(0);
            if cap < room.0 {
                room = (cap, Shortfall::SessionCap);
            }
        }
        room
    }

    /// The first hold of a session, or the limit that leaves too little.
    pub fn first_hold(&self) -> Result<i64, Shortfall> {
        let (room, binding) = self.room(0);
        if room < MIN_START_FEN {
            return Err(binding);
        }
        Ok(room.min(HOLD_STEP_FEN))
    }
}

/// What a session update decides about money.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    /// Hold this much more (0: nothing).
    pub extend_fen: i64,
    /// Tell the platform to stop the session, and why.
    pub stop: Option<Shortfall>,
}

/// Spending left on a hold below which an update tops it up: half a step,
/// or more while the session spends fast.
fn refill_below(margin: i64) -> i64 {
    (HOLD_STEP_FEN / 2).max(2 * margin)
}

/// After an update brought the cost from `previous_cost` to `cost` with
/// `held` on the hold: top up from `limits` when little is left, and stop
/// when even then less than the margin (two updates' spending, at least
/// [`MIN_MARGIN_FEN`]) would be left.
pub fn on_update(held: i64, previous_cost: i64, cost: i64, limits: &Limits) -> Decision {
    let margin = MIN_MARGIN_FEN.max(2 * (cost - previous_cost).max(0));
    let left = held - cost;
    if left >= refill_below(margin) {
        return Decision {
            extend_fen: 0,
            stop: None,
        };
    }
    let (room, binding) = limits.room(held);
    // Enough to get clear of the margin again, a whole step when it can.
    let want = HOLD_STEP_FEN.max(refill_below(margin) - left);
    let extend_fen = want.min(room);
    let stop = (left + extend_fen < margin).then_some(binding);
    Decision { extend_fen, stop }
}

/// What a settlement captures of `cost` with `held` on the hold: at most
/// what was held (the rest is the platform's loss, never the card's).
pub fn capture(cost: i64, held: i64) -> (i64, i64) {
    let captured = cost.clamp(0, held.max(0));
    (captured, cost.max(0) - captured)
}

fn shanghai() -> FixedOffset {
    FixedOffset::east_opt(8 * 3600).expect("UTC+8 is a valid offset")
}

fn local_midnight(day: NaiveDate) -> DateTime<Utc> {
    shanghai()
        .from_local_datetime(&day.and_hms_opt(0, 0, 0).expect("midnight"))
        .single()
        .expect("UTC+8 has no gaps")
        .with_timezone(&Utc)
}

/// When the current budget period began (Asia/Shanghai); None for no budget.
pub fn period_start(period: BudgetPeriod, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let today = now.with_timezone(&shanghai()).date_naive();
    match period {
        BudgetPeriod::None => None,
        BudgetPeriod::Daily => Some(local_midnight(today)),
        BudgetPeriod::Weekly => Some(local_midnight(
            today - Duration::days(i64::from(today.weekday().num_days_from_monday())),
        )),
        BudgetPeriod::Monthly => Some(local_midnight(today.with_day(1).expect("day 1"))),
    }
}

/// yyyymm of the statement a session ending at `end` belongs to.
pub fn statement_month(end: DateTime<Utc>) -> i32 {
    let local = end.with_timezone(&shanghai());
    local.year() * 100 + local.month() as i32
}

/// Why a session ended, from the platform's CDR remark when energy did
/// not stop it.
pub fn stop_reason(remark: Option<&str>) -> &'static str {
    match remark.map(str::trim) {
        Some("FULL") => "已充满",
        Some("REMOTE") => "平台远程结束",
        Some("LOCAL") | None => "用户结束充电",
        Some(_) => "充电桩结束",
    }
}

/// Why energy stopped a session.
pub fn stopped_because(shortfall: Shortfall) -> String {
    format!("{}，平台已结束充电", shortfall.reason())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(balance: i64) -> Limits {
        Limits {
            balance_fen: balance,
            per_session_limit_fen: 0,
            budget_left_fen: None,
        }
    }

    #[test]
    fn the_first_hold_is_a_step_or_what_the_tightest_limit_leaves() {
        assert_eq!(limits(100_000).first_hold(), Ok(HOLD_STEP_FEN));
        assert_eq!(limits(1_200).first_hold(), Ok(1_200));
        assert_eq!(limits(499).first_hold(), Err(Shortfall::Balance));
        let budget = Limits {
            budget_left_fen: Some(300),
            ..limits(100_000)
        };
        assert_eq!(budget.first_hold(), Err(Shortfall::Budget));
        let cap = Limits {
            per_session_limit_fen: 2_000,
            ..limits(100_000)
        };
        assert_eq!(cap.first_hold(), Ok(2_000));
        assert_eq!(cap.room(2_000), (0, Shortfall::SessionCap));
    }

    #[test]
    fn an_update_tops_up_a_hold_running_low_while_the_card_has_money() {
        // 50 held, 20 spent, 2 more per update: plenty left.
        let d = on_update(5_000, 1_800, 2_000, &limits(10_000));
        assert_eq!(
            d,
            Decision {
                extend_fen: 0,
                stop: None
            }
        );
        // 50 held, 48 spent: another step.
        let d = on_update(5_000, 4_600, 4_800, &limits(10_000));
        assert_eq!(
            d,
            Decision {
                extend_fen: HOLD_STEP_FEN,
                stop: None
            }
        );
        // Only 10 left on the card: held, and no stop yet.
        let d = on_update(5_000, 4_600, 4_800, &limits(1_000));
        assert_eq!(
            d,
            Decision {
                extend_fen: 1_000,
                stop: None
            }
        );
    }

    #[test]
    fn an_update_stops_the_session_before_the_hold_runs_out() {
        // 2 left, nothing more on the card, spending 2 per update.
        let d = on_update(5_000, 4_600, 4_800, &limits(0));
        assert_eq!(
            d,
            Decision {
                extend_fen: 0,
                stop: Some(Shortfall::Balance)
            }
        );
        // Spending 10 per update: a 15 margin is not enough.
        let d = on_update(5_000, 2_500, 3_500, &limits(0));
        assert_eq!(d.stop, Some(Shortfall::Balance));
        // Over the per-session cap.
        let cap = Limits {
            per_session_limit_fen: 5_000,
            ..limits(100_000)
        };
        assert_eq!(
            on_update(5_000, 4_800, 4_900, &cap).stop,
            Some(Shortfall::SessionCap)
        );
    }

    #[test]
    fn a_settlement_never_captures_more_than_was_held() {
        assert_eq!(capture(3_210, 5_000), (3_210, 0));
        assert_eq!(capture(5_400, 5_000), (5_000, 400));
        assert_eq!(capture(0, 5_000), (0, 0));
        assert_eq!(capture(-5, 5_000), (0, 0));
    }

    #[test]
    fn budget_periods_and_statement_months_follow_shanghai_time() {
        // 2026-11-30 17:00 UTC is Tuesday 2026-12-01 01:00 in Shanghai.
        let now = DateTime::parse_from_rfc3339("2026-11-30T17:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let start = |p| period_start(p, now).unwrap().to_rfc3339();
        assert_eq!(start(BudgetPeriod::Daily), "2026-11-30T16:00:00+00:00");
        assert_eq!(start(BudgetPeriod::Weekly), "2026-11-29T16:00:00+00:00");
        assert_eq!(start(BudgetPeriod::Monthly), "2026-11-30T16:00:00+00:00");
        assert_eq!(period_start(BudgetPeriod::None, now), None);
        assert_eq!(statement_month(now), 202_612);
    }
}

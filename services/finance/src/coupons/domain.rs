//! The coupon's pure rules and stored codes: a grant's terms checked, the
//! status a reader sees (expiry judged at read time), which purchases a
//! coupon applies to and how much it takes off.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_proto::finance::v1 as pb;

use crate::bills::domain::BillKind;
use crate::codes::stored_code;
use crate::orders::domain::OrderKind;

stored_code! {
    CouponKind => pb::CouponKind { AmountOff = 1, PercentOff = 2 }
}

stored_code! {
    /// EXPIRED is never stored: an AVAILABLE coupon past its `valid_until`
    /// reads as EXPIRED ([`seen`]), so no job has to keep it current.
    CouponStatus => pb::CouponStatus {
        Available = 1,
        Locked = 2,
        Used = 3,
        Expired = 4,
        Voided = 5,
    }
}

/// Basis points of a whole (PERCENT_OFF's 10000 = everything off).
pub const WHOLE_BP: i32 = 10_000;

/// What a coupon takes off and where it applies, as granted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Terms {
    pub name: String,
    pub kind: CouponKind,
    pub face_value_fen: i64,
    pub percent_off_bp: i32,
    pub max_discount_fen: i64,
    pub min_spend_fen: i64,
    /// Empty = any kind.
    pub bill_kinds: Vec<BillKind>,
    /// Empty = any kind.
    pub order_kinds: Vec<OrderKind>,
    pub valid_from: DateTime<Utc>,
    pub valid_until: DateTime<Utc>,
}

/// One thing paid with a coupon: a bill of `bill_kind`, carrying the
/// payment of an order of `order_kind` when it is an ORDER bill (or an
/// order placed with the coupon, when that is built).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Item {
    pub bill_kind: BillKind,
    pub order_kind: Option<OrderKind>,
}

/// What a payment pays: its items and the amount it moves before the coupon.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Purchase {
    pub items: Vec<Item>,
    pub amount_fen: i64,
}

impl Terms {
    /// Checks a grant's terms; `field` prefixes the field names (`coupons[0]`).
    pub fn check(&self, field: &str) -> Result<(), ServiceError> {
        let at = |name: &str| format!("{field}.{name}");
        if self.name.trim().is_empty() {
            return Err(ServiceError::invalid(&at("name"), "请填写优惠券名称"));
        }
        match self.kind {
            CouponKind::AmountOff if self.face_value_fen <= 0 => {
                return Err(ServiceError::invalid(
                    &at("faceValueFen"),
                    "满减券的面额须大于零",
                ));
            }
            CouponKind::PercentOff if !(1..=WHOLE_BP).contains(&self.percent_off_bp) => {
                return Err(ServiceError::invalid(
                    &at("percentOffBp"),
                    "折扣比例须在0.01%到100%之间",
                ));
            }
            CouponKind::AmountOff | CouponKind::PercentOff => {}
        }
        if self.max_discount_fen < 0 || self.min_spend_fen < 0 || self.face_value_fen < 0 {
            return Err(ServiceError::invalid(
                &at("minSpendFen"),
                "面额、封顶金额和使用门槛不能为负数",
            ));
        }
        if self.valid_until <= self.valid_from {
            return Err(ServiceError::invalid(
                &at("validUntil"),
                "有效期截止时间须晚于开始时间",
            ));
        }
        Ok(())
    }

    /// Whether the coupon may pay for `item`: its bill kind listed (or
    /// none listed) and, for an order's payment, its order kind too.
    pub fn applies_to(&self, item: Item) -> bool {
        let bill_kind = self.bill_kinds.is_empty() || self.bill_kinds.contains(&item.bill_kind);
        let order_kind = match item.order_kind {
            Some(kind) => self.order_kinds.is_empty() || self.order_kinds.contains(&kind),
            None => true,
        };
        bill_kind && order_kind
    }

    /// What the coupon takes off `amount_fen`: AMOUNT_OFF its face value,
    /// PERCENT_OFF its share rounded down to the fen and capped; never
    /// more than the amount.
    pub fn off(&self, amount_fen: i64) -> i64 {
        let off = match self.kind {
            CouponKind::AmountOff => self.face_value_fen,
            CouponKind::PercentOff => {
                let share =
                    i128::from(amount_fen) * i128::from(self.percent_off_bp) / i128::from(WHOLE_BP);
                let share = i64::try_from(share).unwrap_or(i64::MAX);
                match self.max_discount_fen {
                    0 => share,
                    cap => share.min(cap),
                }
            }
        };
        off.clamp(0, amount_fen.max(0))
    }
}

/// The status a reader sees at `now`: an AVAILABLE coupon past its
/// validity is EXPIRED; a LOCKED one stays held by its payment (it was
/// valid when the payment took it).
pub fn seen(stored: CouponStatus, valid_until: DateTime<Utc>, now: DateTime<Utc>) -> CouponStatus {
    match stored {
        CouponStatus::Available if valid_until <= now => CouponStatus::Expired,
        other => other,
    }
}

/// Whether a coupon stored as `status` may be used at `now`: AVAILABLE
/// and within its validity; else why not (4009 naming `couponId`).
pub fn usable(
    status: CouponStatus,
    valid_from: DateTime<Utc>,
    valid_until: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<(), ServiceError> {
    let message = match seen(status, valid_until, now) {
        CouponStatus::Available if now < valid_from => "优惠券尚未生效",
        CouponStatus::Available => return Ok(()),
        CouponStatus::Locked => "优惠券正被另一笔支付占用",
        CouponStatus::Used => "优惠券已使用",
        CouponStatus::Expired => "优惠券已过期",
        CouponStatus::Voided => "优惠券已作废",
    };
    Err(ServiceError::taken("couponId", message))
}

/// The discount a coupon in `status` with `terms` gives `purchase` at
/// `now`, or why it cannot: [`usable`], every item of a kind it applies
/// to, the amount at least its minimum spend, and something taken off.
pub fn discount(
    terms: &Terms,
    status: CouponStatus,
    purchase: &Purchase,
    now: DateTime<Utc>,
) -> Result<i64, ServiceError> {
    usable(status, terms.valid_from, terms.valid_until, now)?;
    let refuse = |message: &str| Err(ServiceError::taken("couponId", message));
    if purchase.items.is_empty() || !purchase.items.iter().all(|i| terms.applies_to(*i)) {
        return refuse("优惠券不适用于所选账单");
    }
    if purchase.amount_fen < terms.min_spend_fen {
        return refuse("未达到优惠券的使用门槛");
    }
    match terms.off(purchase.amount_fen) {
        0 => refuse("优惠券对该金额没有优惠"),
        off => Ok(off),
    }
}

#[cfg(test)]
mod tests {
    use chrono::Duration;

    use super::*;

    fn terms(kind: CouponKind) -> Terms {
        let now = Utc::now();
        Terms {
            name: "新客券".into(),
            kind,
            face_value_fen: 5_000,
            percent_off_bp: 1_000,
            max_discount_fen: 0,
            min_spend_fen: 0,
            bill_kinds: Vec::new(),
            order_kinds: Vec::new(),
            valid_from: now - Duration::days(1),
            valid_until: now + Duration::days(30),
        }
    }

    fn rent(amount_fen: i64) -> Purchase {
        Purchase {
            items: vec![Item {
                bill_kind: BillKind::Rent,
                order_kind: None,
            }],
            amount_fen,
        }
    }

    fn off(t: &Terms, p: &Purchase) -> Result<i64, ServiceError> {
        discount(t, CouponStatus::Available, p, Utc::now())
    }

    #[test]
    fn amount_off_takes_its_face_value_but_never_more_than_the_amount() {
        let t = terms(CouponKind::AmountOff);
        assert_eq!(off(&t, &rent(20_000)).unwrap(), 5_000);
        assert_eq!(off(&t, &rent(3_000)).unwrap(), 3_000);
    }

    #[test]
    fn percent_off_rounds_down_to_the_fen_and_stops_at_its_cap() {
        let mut t = terms(CouponKind::PercentOff);
        assert_eq!(off(&t, &rent(12_345)).unwrap(), 1_234);
        t.max_discount_fen = 1_000;
        assert_eq!(off(&t, &rent(12_345)).unwrap(), 1_000);
        t.percent_off_bp = WHOLE_BP;
        t.max_discount_fen = 0;
        assert_eq!(off(&t, &rent(777)).unwrap(), 777);
        t.percent_off_bp = 1;
        let err = off(&t, &rent(9_999)).unwrap_err();
        assert_eq!(err.fields[0].field, "couponId");
    }

    #[test]
    fn below_the_minimum_spend_nothing_is_taken_off() {
        let mut t = terms(CouponKind::AmountOff);
        t.min_spend_fen = 10_000;
        assert!(off(&t, &rent(9_999)).is_err());
        assert_eq!(off(&t, &rent(10_000)).unwrap(), 5_000);
    }

    #[test]
    fn every_item_must_be_of_a_listed_kind() {
        let mut t = terms(CouponKind::AmountOff);
        t.bill_kinds = vec![BillKind::Rent, BillKind::Order];
        t.order_kinds = vec![OrderKind::ChargingTopUp];
        assert!(off(&t, &rent(10_000)).is_ok());
        let mut mixed = rent(10_000);
        mixed.items.push(Item {
            bill_kind: BillKind::Charging,
            order_kind: None,
        });
        assert!(off(&t, &mixed).is_err());
        let top_up = |kind| Purchase {
            items: vec![Item {
                bill_kind: BillKind::Order,
                order_kind: Some(kind),
            }],
            amount_fen: 10_000,
        };
        assert!(off(&t, &top_up(OrderKind::ChargingTopUp)).is_ok());
        assert!(off(&t, &top_up(OrderKind::VehicleRent)).is_err());
        assert!(
            off(
                &t,
                &Purchase {
                    items: Vec::new(),
                    amount_fen: 10_000
                }
            )
            .is_err()
        );
    }

    #[test]
    fn only_an_available_coupon_within_its_validity_gives_a_discount() {
        let t = terms(CouponKind::AmountOff);
        let p = rent(10_000);
        let now = Utc::now();
        for status in [
            CouponStatus::Locked,
            CouponStatus::Used,
            CouponStatus::Voided,
        ] {
            assert!(discount(&t, status, &p, now).is_err(), "{status:?}");
        }
        assert!(discount(&t, CouponStatus::Available, &p, t.valid_until).is_err());
        assert!(
            discount(
                &t,
                CouponStatus::Available,
                &p,
                t.valid_from - Duration::seconds(1)
            )
            .is_err()
        );
        assert!(discount(&t, CouponStatus::Available, &p, t.valid_from).is_ok());
    }

    #[test]
    fn an_available_coupon_past_its_validity_reads_as_expired_a_held_one_does_not() {
        let until = Utc::now();
        let after = until + Duration::seconds(1);
        assert_eq!(
            seen(CouponStatus::Available, until, after),
            CouponStatus::Expired
        );
        assert_eq!(
            seen(CouponStatus::Available, until, until - Duration::seconds(1)),
            CouponStatus::Available
        );
        assert_eq!(
            seen(CouponStatus::Locked, until, after),
            CouponStatus::Locked
        );
        assert_eq!(seen(CouponStatus::Used, until, after), CouponStatus::Used);
    }

    #[test]
    fn a_grant_needs_a_name_a_value_and_an_end_after_its_start() {
        let field = |t: &Terms| t.check("coupons[0]").unwrap_err().fields[0].field.clone();
        assert!(terms(CouponKind::AmountOff).check("coupons[0]").is_ok());
        let mut t = terms(CouponKind::AmountOff);
        t.face_value_fen = 0;
        assert_eq!(field(&t), "coupons[0].faceValueFen");
        let mut t = terms(CouponKind::PercentOff);
        t.percent_off_bp = WHOLE_BP + 1;
        assert_eq!(field(&t), "coupons[0].percentOffBp");
        let mut t = terms(CouponKind::AmountOff);
        t.valid_until = t.valid_from;
        assert_eq!(field(&t), "coupons[0].validUntil");
        let mut t = terms(CouponKind::AmountOff);
        t.name = " ".into();
        assert_eq!(field(&t), "coupons[0].name");
    }
}

//! Effective permissions: what a user's roles grant, narrowed by the lists
//! their enterprise is on (docs/console-spec.md §6). Pure: the lists are data operators edit
//! (`enterprise_list_entry`); this module only applies the rules.
//!
//! Groups: `sf` = on the white list and on the SF id list; `b2b` = neither mt
//! nor sf. Rules, in order:
//! 1. white-listed, not SF, not b2b: drop every value containing `pre:` and
//!    the two B2B page-pay/reconciliation values;
//! 2. white-listed SF: drop every bill value;
//! 3. everyone else: drop B2B bill recovery and bill recovery;
//! 4. the order centre only for the order-centre list or SF;
//! 5. SF (never b2b): drop bill settlement and refund management;
//! 6. charging behaviour analysis only on its white list;
//! 7. lock management only on the lock-car white list, an empty list meaning everyone;
//! 8. the insurance blacklist loses insurance (routes flagged noBlackList);
//! 9. B2B-only values (page pay, reconciliation) only for b2b.
//!
//! The charge blacklist takes no value away: §6 names no effect on
//! permissions, and the energy menu must stay so that its introduction shows
//! the enterprise why it cannot apply (energy's open status says so and
//! refuses the application).

use std::collections::BTreeSet;

pub const BILL_PAGE_PAY: &str = "oss:bill:pagepay";
pub const BILL_RECONCILIATION: &str = "oss:bill:reconciliation";
pub const B2B_BILL_RECOVER: &str = "b2b:bill:recover";
pub const BILL_RECOVER: &str = "bill:recover";
pub const BILL_SETTLEMENT: &str = "bill:settlement";
pub const REFUND: &str = "as:refund";
pub const ORDER_CENTER: &str = "as:order:center";
pub const BEHAVIOR_ANALYSIS: &str = "as:charge:behavior";
pub const LOCK_CAR: &str = "as:lockcar";
pub const INSURANCE: &str = "as:insurance";

/// Every bill value (rule 2).
const BILL_VALUES: [&str; 7] = [
    "as:b2b:bill",
    "bill:biz:pageInfo",
    BILL_PAGE_PAY,
    BILL_RECONCILIATION,
    BILL_SETTLEMENT,
    B2B_BILL_RECOVER,
    BILL_RECOVER,
];

/// Which lists an enterprise is on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ListMembership {
    pub white: bool,
    /// On the configured SF id list (SF group also needs the white list).
    pub sf_list: bool,
    pub mt: bool,
    pub behavior_analysis: bool,
    /// The lock-car white list has no entries at all.
    pub lock_car_list_empty: bool,
    pub lock_car: bool,
    pub charge_blacklist: bool,
    pub insurance_blacklist: bool,
    pub order_center: bool,
}

/// The groups the lists put an enterprise in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Groups {
    pub white: bool,
    pub sf: bool,
    pub mt: bool,
    pub b2b: bool,
}

impl ListMembership {
    pub fn groups(&self) -> Groups {
        let sf = self.white && self.sf_list;
        Groups {
            white: self.white,
            sf,
            mt: self.mt,
            b2b: !self.mt && !sf,
        }
    }
}

/// The values `granted` by roles that survive the enterprise's lists.
pub fn effective_permissions<'a>(
    granted: impl IntoIterator<Item = &'a str>,
    lists: &ListMembership,
) -> BTreeSet<String> {
    let g = lists.groups();
    granted
        .into_iter()
        .filter(|value| {
            let v = *value;
            let dropped_by_group = if g.white && !g.sf && !g.b2b {
                v.contains("pre:") || v == BILL_PAGE_PAY || v == BILL_RECONCILIATION
            } else if g.white && g.sf {
                BILL_VALUES.contains(&v)
            } else {
                v == B2B_BILL_RECOVER || v == BILL_RECOVER
            };
            let dropped = dropped_by_group
                || (v == ORDER_CENTER && !(lists.order_center || g.sf))
                || (g.sf && (v == BILL_SETTLEMENT || v == REFUND))
                || (v == BEHAVIOR_ANALYSIS && !lists.behavior_analysis)
                || (v == LOCK_CAR && !(lists.lock_car_list_empty || lists.lock_car))
                || (lists.insurance_blacklist && v == INSURANCE)
                || (!g.b2b && (v == BILL_PAGE_PAY || v == BILL_RECONCILIATION));
            !dropped
        })
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lists::domain::{ListType, ListType::*, membership};

    const ALL: [&str; 16] = [
        "as:sys:car",
        "pre:as:fence",
        "as:b2b:bill",
        "bill:biz:pageInfo",
        BILL_PAGE_PAY,
        BILL_RECONCILIATION,
        BILL_SETTLEMENT,
        B2B_BILL_RECOVER,
        BILL_RECOVER,
        REFUND,
        ORDER_CENTER,
        BEHAVIOR_ANALYSIS,
        LOCK_CAR,
        INSURANCE,
        "oss:pc:energy:management",
        "as:charge:card",
    ];

    fn effective(lists: ListMembership) -> BTreeSet<String> {
        effective_permissions(ALL, &lists)
    }

    fn has(set: &BTreeSet<String>, v: &str) -> bool {
        set.contains(v)
    }

    /// Membership of exactly the lists `types` (the lock-car list has entries).
    fn on(types: &[ListType]) -> ListMembership {
        membership(types, false)
    }

    /// Membership of exactly the lists `types`, with an empty lock-car list.
    fn on_empty_lock_car(types: &[ListType]) -> ListMembership {
        membership(types, true)
    }

    /// Lists under which nothing but the group rules apply.
    fn open(lists: ListMembership) -> ListMembership {
        let ListMembership {
            white,
            sf_list,
            mt,
            behavior_analysis: _,
            lock_car_list_empty: _,
            lock_car,
            charge_blacklist,
            insurance_blacklist,
            order_center: _,
        } = lists;
        ListMembership {
            white,
            sf_list,
            mt,
            behavior_analysis: true,
            lock_car_list_empty: true,
            lock_car,
            charge_blacklist,
            insurance_blacklist,
            order_center: true,
        }
    }

    #[test]
    fn groups_b2b_is_neither_mt_nor_sf_and_sf_needs_the_white_list() {
        assert!(ListMembership::default().groups().b2b);
        assert!(!on(&[Mt]).groups().b2b);
        let sf = on(&[White, Sf]).groups();
        assert!(sf.sf && !sf.b2b);
        let not_white = on(&[Sf]).groups();
        assert!(!not_white.sf && not_white.b2b);
    }

    #[test]
    fn rule1_white_listed_mt_loses_pre_and_b2b_pay_values() {
        let e = effective(open(on(&[White, Mt])));
        assert!(
            !has(&e, "pre:as:fence") && !has(&e, BILL_PAGE_PAY) && !has(&e, BILL_RECONCILIATION)
        );
        assert!(has(&e, B2B_BILL_RECOVER) && has(&e, BILL_RECOVER) && has(&e, "bill:biz:pageInfo"));
    }

    #[test]
    fn rule2_white_listed_sf_loses_every_bill_value() {
        let e = effective(open(on(&[White, Sf])));
        for v in BILL_VALUES {
            assert!(!has(&e, v), "{v}");
        }
        assert!(has(&e, "pre:as:fence"));
    }

    #[test]
    fn rule3_everyone_else_loses_bill_recovery() {
        for lists in [ListMembership::default(), on(&[Mt]), on(&[White])] {
            let e = effective(open(lists));
            assert!(
                !has(&e, B2B_BILL_RECOVER) && !has(&e, BILL_RECOVER),
                "{lists:?}"
            );
            assert!(has(&e, "pre:as:fence"), "{lists:?}");
        }
    }

    #[test]
    fn rule4_order_centre_only_for_its_list_or_sf() {
        assert!(!has(&effective(ListMembership::default()), ORDER_CENTER));
        assert!(has(&effective(on(&[OrderCenter])), ORDER_CENTER));
        assert!(has(&effective(on(&[White, Sf])), ORDER_CENTER));
    }

    #[test]
    fn rule5_sf_loses_settlement_and_refunds() {
        let e = effective(open(on(&[White, Sf])));
        assert!(!has(&e, BILL_SETTLEMENT) && !has(&e, REFUND));
        let b2b = effective(open(ListMembership::default()));
        assert!(has(&b2b, BILL_SETTLEMENT) && has(&b2b, REFUND));
    }

    #[test]
    fn rule6_behaviour_analysis_only_on_its_list() {
        assert!(!has(
            &effective(ListMembership::default()),
            BEHAVIOR_ANALYSIS
        ));
        assert!(has(&effective(on(&[BehaviorAnalysis])), BEHAVIOR_ANALYSIS));
    }

    #[test]
    fn rule7_lock_management_when_listed_or_the_list_is_empty() {
        assert!(!has(&effective(ListMembership::default()), LOCK_CAR));
        assert!(has(&effective(on(&[LockCar])), LOCK_CAR));
        assert!(has(&effective(on_empty_lock_car(&[])), LOCK_CAR));
    }

    #[test]
    fn the_charge_blacklist_keeps_the_energy_menu_for_its_introduction() {
        let e = effective(open(on(&[ChargeBlacklist])));
        assert!(has(&e, "oss:pc:energy:management") && has(&e, "as:charge:card"));
    }

    #[test]
    fn rule8_insurance_blacklist_loses_insurance() {
        assert!(!has(&effective(open(on(&[InsuranceBlacklist]))), INSURANCE));
        assert!(has(&effective(open(ListMembership::default())), INSURANCE));
    }

    #[test]
    fn rule9_b2b_only_values_need_b2b() {
        let b2b = effective(open(ListMembership::default()));
        assert!(has(&b2b, BILL_PAGE_PAY) && has(&b2b, BILL_RECONCILIATION));
        let mt = effective(open(on(&[Mt])));
        assert!(!has(&mt, BILL_PAGE_PAY) && !has(&mt, BILL_RECONCILIATION));
    }

    #[test]
    fn values_not_named_by_any_rule_always_survive() {
        for lists in [
            ListMembership::default(),
            on(&[White, Sf, ChargeBlacklist, InsuranceBlacklist]),
        ] {
            assert!(has(&effective(lists), "as:sys:car"));
        }
    }
}

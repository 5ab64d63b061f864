//! The evaluation core, pure and synchronous: an enterprise's fences in an
//! R-tree of bounding boxes, the exact test after a box hit, and the state
//! machine of one vehicle against one fence over fixes in fix-time order.
//!
//! State machine (per vehicle and fence): the side the vehicle is confirmed
//! on and since when, plus a *pending* transition — the first fix seen on
//! the other side. Every following fix on that side confirms it once it is
//! `dwell` seconds after the pending fix; a fix back on the confirmed side
//! drops it. A confirmed transition is a crossing timed at the pending fix
//! (when the vehicle actually crossed) and confirmed at the fix that
//! completed the dwell. Fixes outside the fence's active windows are not
//! observations. Speeding is a function of two consecutive fixes: a fix
//! inside an active fence with a limit, faster than it, raises an alarm when
//! the vehicle's previous fix did not already speed inside that fence. A
//! fence with a max stay flags an *overstay* once per stay: at the first fix
//! at or after enter + max stay while the vehicle has not begun leaving
//! before that moment (a fix outside before it, later confirmed, ends the
//! stay in time). It is timed at that moment and keyed by it.
//!
//! Because a crossing is determined only by fixes up to its confirmation,
//! and the state right after a confirmation is exact (confirmed side, no
//! pending), replaying from the last crossing confirmed before a late fix
//! gives exactly what an in-order run would have (see `evaluate`).

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Utc};
use rstar::primitives::{GeomWithData, Rectangle};
use rstar::{AABB, RTree};
use uuid::Uuid;

use super::domain::{self, ActiveWindow, Direction, Geometry, Purpose};
use super::geometry::Point;

/// A fence as evaluation needs it.
#[derive(Debug, Clone)]
pub struct Fence {
    pub id: Uuid,
    pub name: String,
    pub purpose: Purpose,
    pub geometry: Geometry,
    pub speed_limit_kmh: Option<i32>,
    pub windows: Vec<ActiveWindow>,
    pub dwell_seconds: i64,
    /// Longest stay before an overstay alarm; `None`: no limit.
    pub max_stay_seconds: Option<i64>,
    pub alert_on_enter: bool,
    pub alert_on_exit: bool,
    pub all_vehicles: bool,
    pub vehicles: HashSet<Uuid>,
}

impl Fence {
    pub fn watches(&self, vehicle: Uuid) -> bool {
        self.all_vehicles || self.vehicles.contains(&vehicle)
    }

    /// Whether the fix is an observation for this fence and, if so, whether it is inside.
    pub fn observe(&self, fix: &Fix) -> Option<bool> {
        domain::active_at(&self.windows, fix.time).then(|| self.geometry.contains(fix.point()))
    }

    /// Whether the fix speeds inside this fence.
    fn speeding(&self, fix: &Fix) -> bool {
        match self.speed_limit_kmh {
            Some(limit) => fix.speed_dkmh > limit * 10 && self.observe(fix) == Some(true),
            None => false,
        }
    }
}

/// One position fix.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fix {
    pub time: DateTime<Utc>,
    pub lat: f64,
    pub lng: f64,
    /// Tenths of km/h.
    pub speed_dkmh: i32,
}

impl Fix {
    pub fn point(&self) -> Point {
        Point::new(self.lat, self.lng)
    }
}

type Entry = GeomWithData<Rectangle<[f64; 2]>, usize>;

/// One enterprise's enabled fences, indexed by bounding box.
#[derive(Debug, Default)]
pub struct FenceIndex {
    tree: RTree<Entry>,
    fences: Vec<Fence>,
    by_id: HashMap<Uuid, usize>,
}

impl FenceIndex {
    /// Bulk-loads the tree (thousands of fences take a few milliseconds).
    pub fn build(fences: Vec<Fence>) -> FenceIndex {
        let entries = fences
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let b = f.geometry.bbox();
                GeomWithData::new(Rectangle::from_corners(b.min, b.max), i)
            })
            .collect();
        let by_id = fences.iter().enumerate().map(|(i, f)| (f.id, i)).collect();
        FenceIndex {
            tree: RTree::bulk_load(entries),
            fences,
            by_id,
        }
    }

    pub fn len(&self) -> usize {
        self.fences.len()
    }

    pub fn is_empty(&self) -> bool {
        self.fences.is_empty()
    }

    /// Whether any fence has a speed limit (else no fix needs a lookup).
    pub fn has_speed_limits(&self) -> bool {
        self.fences.iter().any(|f| f.speed_limit_kmh.is_some())
    }

    pub fn get(&self, id: Uuid) -> Option<&Fence> {
        self.by_id.get(&id).map(|&i| &self.fences[i])
    }

    /// The lowest speed limit, in tenths of km/h, of the active fences
    /// watching `vehicle` that `fix` is inside (the overspeed alarm rule's
    /// limit there).
    pub fn speed_limit_dkmh(&self, vehicle: Uuid, fix: &Fix) -> Option<i32> {
        self.candidates(vehicle, fix.point())
            .filter_map(|f| {
                f.speed_limit_kmh
                    .filter(|_| f.observe(fix) == Some(true))
                    .map(|l| l * 10)
            })
            .min()
    }

    /// Fences watching `vehicle` whose box holds the point (exact test not yet applied).
    pub fn candidates(&self, vehicle: Uuid, p: Point) -> impl Iterator<Item = &Fence> {
        self.tree
            .locate_in_envelope_intersecting(&AABB::from_point([p.lng, p.lat]))
            .map(|e| &self.fences[e.data])
            .filter(move |f| f.watches(vehicle))
    }
}

/// A vehicle against a fence.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FenceState {
    pub inside: bool,
    /// When the confirmed side began (the crossing's time); `None` before any crossing.
    pub since: Option<DateTime<Utc>>,
    pub pending: Option<Pending>,
}

/// The first fix on the other side, waiting for the dwell delay.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pending {
    pub inside: bool,
    pub fix: Fix,
}

/// A confirmed crossing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Crossing {
    pub fence: Uuid,
    pub direction: Direction,
    /// The first fix on the new side.
    pub at: Fix,
    /// The fix that completed the dwell delay.
    pub confirmed_at: DateTime<Utc>,
    /// Exits: seconds inside since the enter.
    pub dwell_seconds: Option<i64>,
}

/// A stay longer than the fence's max stay.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Overstay {
    pub fence: Uuid,
    /// When the stay began (its enter crossing).
    pub since: DateTime<Utc>,
    /// When the stay became too long: `since` + max stay.
    pub due: DateTime<Utc>,
    /// The fix that showed it.
    pub seen: Fix,
}

/// What fixes found for one fence.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Found {
    pub crossings: Vec<Crossing>,
    pub overstays: Vec<Overstay>,
}

/// A speeding alarm.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Speeding {
    pub fence: Uuid,
    pub at: Fix,
    pub limit_kmh: i32,
}

/// Applies one fix to the state of one fence, pushing a crossing when one
/// is confirmed and an overstay when the fix shows one.
pub fn step(fence: &Fence, state: &mut FenceState, fix: &Fix, out: &mut Found) {
    let Some(inside) = fence.observe(fix) else {
        return;
    };
    // The stay this fix may show to be too long, before the fix moves the state.
    let stay = match (state.inside, state.since, fence.max_stay_seconds) {
        (true, Some(since), Some(max)) => Some((since, since + chrono::Duration::seconds(max))),
        _ => None,
    };
    let confirmed = cross(fence, state, fix, inside);
    if let Some((since, due)) = stay
        && fix.time >= due
    {
        let too_long = match confirmed {
            // Left in this very fix: too long if it left after the limit.
            Some(exit) => exit.at.time >= due,
            // Still there, unless it began leaving before the limit.
            None => state.pending.is_none_or(|p| p.fix.time >= due),
        };
        let flagged = out
            .overstays
            .last()
            .is_some_and(|o| o.fence == fence.id && o.since == since);
        if too_long && !flagged {
            out.overstays.push(Overstay {
                fence: fence.id,
                since,
                due,
                seen: *fix,
            });
        }
    }
    out.crossings.extend(confirmed);
}

/// The crossing `fix` confirms, if any, moving the state.
fn cross(fence: &Fence, state: &mut FenceState, fix: &Fix, inside: bool) -> Option<Crossing> {
    if inside == state.inside {
        state.pending = None;
        return None;
    }
    let pending = *state.pending.get_or_insert(Pending { inside, fix: *fix });
    if (fix.time - pending.fix.time).num_seconds() < fence.dwell_seconds {
        return None;
    }
    let direction = if inside {
        Direction::Enter
    } else {
        Direction::Exit
    };
    let dwell_seconds = match (direction, state.since) {
        (Direction::Exit, Some(since)) => Some((pending.fix.time - since).num_seconds()),
        (Direction::Exit, None) | (Direction::Enter, _) => None,
    };
    *state = FenceState {
        inside,
        since: Some(pending.fix.time),
        pending: None,
    };
    Some(Crossing {
        fence: fence.id,
        direction,
        at: pending.fix,
        confirmed_at: fix.time,
        dwell_seconds,
    })
}

/// Runs fixes (in time order) through one fence's state.
pub fn run(fence: &Fence, state: &mut FenceState, fixes: &[Fix]) -> Found {
    let mut out = Found::default();
    for fix in fixes {
        step(fence, state, fix, &mut out);
    }
    out
}

/// Speeding alarms of `fixes` (time order), `previous` being the vehicle's
/// fix just before them, if any.
pub fn speeding(
    index: &FenceIndex,
    vehicle: Uuid,
    previous: Option<&Fix>,
    fixes: &[Fix],
) -> Vec<Speeding> {
    let mut out = Vec::new();
    let mut prev = previous;
    for fix in fixes {
        for fence in index.candidates(vehicle, fix.point()) {
            if fence.speeding(fix) && !prev.is_some_and(|p| fence.speeding(p)) {
                out.push(Speeding {
                    fence: fence.id,
                    at: *fix,
                    limit_kmh: fence.speed_limit_kmh.unwrap_or_default(),
                });
            }
        }
        prev = Some(fix);
    }
    out
}

#[cfg(test)]
mod tests {
    use chrono::Duration;

    use super::*;

    fn t0() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-11-23T02:00:00Z")
            .unwrap()
            .with_timezone(&Utc)
    }

    fn fence(dwell: i64) -> Fence {
        Fence {
            id: Uuid::from_u128(1),
            name: "f".into(),
            purpose: Purpose::General,
            geometry: Geometry::Circle {
                center: Point::new(31.0, 121.0),
                radius_m: 100,
            },
            speed_limit_kmh: Some(30),
            windows: Vec::new(),
            dwell_seconds: dwell,
            max_stay_seconds: None,
            alert_on_enter: false,
            alert_on_exit: false,
            all_vehicles: true,
            vehicles: HashSet::new(),
        }
    }

    /// A fix `secs` after t0, inside (at the centre) or 1 km north.
    fn fix(secs: i64, inside: bool) -> Fix {
        Fix {
            time: t0() + Duration::seconds(secs),
            lat: if inside { 31.0 } else { 31.01 },
            lng: 121.0,
            speed_dkmh: 0,
        }
    }

    #[test]
    fn an_enter_counts_only_after_the_dwell_and_is_timed_at_the_first_inside_fix() {
        let f = fence(60);
        let mut s = FenceState::default();
        let brief = run(&f, &mut s, &[fix(0, false), fix(10, true), fix(40, false)]).crossings;
        assert!(brief.is_empty(), "30 s inside is under the dwell");
        let found = run(
            &f,
            &mut s,
            &[fix(100, true), fix(130, true), fix(170, true)],
        )
        .crossings;
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].direction, Direction::Enter);
        assert_eq!(found[0].at.time, t0() + Duration::seconds(100));
        assert_eq!(found[0].confirmed_at, t0() + Duration::seconds(170));
        let out = run(&f, &mut s, &[fix(400, false), fix(500, false)]).crossings;
        assert_eq!(out[0].direction, Direction::Exit);
        assert_eq!(out[0].dwell_seconds, Some(300));
    }

    #[test]
    fn the_alarm_rules_read_the_lowest_limit_of_the_fences_a_fix_is_inside() {
        let wide = Fence {
            id: Uuid::from_u128(2),
            speed_limit_kmh: Some(50),
            geometry: Geometry::Circle {
                center: Point::new(31.0, 121.0),
                radius_m: 5000,
            },
            ..fence(0)
        };
        let unlimited = Fence {
            id: Uuid::from_u128(3),
            speed_limit_kmh: None,
            ..fence(0)
        };
        let index = FenceIndex::build(vec![wide, fence(0), unlimited]);
        let v = Uuid::nil();
        assert_eq!(index.speed_limit_dkmh(v, &fix(0, true)), Some(300));
        assert_eq!(index.speed_limit_dkmh(v, &fix(0, false)), Some(500));
        let far = Fix {
            lat: 32.0,
            ..fix(0, false)
        };
        assert_eq!(index.speed_limit_dkmh(v, &far), None);
    }

    #[test]
    fn the_index_finds_only_fences_whose_box_holds_the_point() {
        let mut fences: Vec<Fence> = (0..1_000u32)
            .map(|i| {
                let mut f = fence(0);
                f.id = Uuid::from_u128(u128::from(i) + 10);
                f.geometry = Geometry::Circle {
                    center: Point::new(30.0 + f64::from(i) * 0.01, 121.0),
                    radius_m: 200,
                };
                f
            })
            .collect();
        fences[5].all_vehicles = false;
        let index = FenceIndex::build(fences);
        let near_7: Vec<Uuid> = index
            .candidates(Uuid::nil(), Point::new(30.07, 121.0))
            .map(|f| f.id)
            .collect();
        assert_eq!(near_7, [Uuid::from_u128(17)]);
        assert_eq!(
            index
                .candidates(Uuid::nil(), Point::new(30.05, 121.0))
                .count(),
            0,
            "fence 5 does not watch this vehicle"
        );
    }

    #[test]
    fn speeding_alarms_once_per_run_of_fast_fixes_inside() {
        let index = FenceIndex::build(vec![fence(0)]);
        let fast = |secs, inside| Fix {
            speed_dkmh: 500,
            ..fix(secs, inside)
        };
        let fixes = [
            fast(0, true),
            fast(10, true),
            fix(20, true),
            fast(30, true),
            fast(40, false),
        ];
        let found = speeding(&index, Uuid::nil(), None, &fixes);
        let times: Vec<_> = found.iter().map(|s| s.at.time).collect();
        assert_eq!(times, [t0(), t0() + Duration::seconds(30)]);
        let again = speeding(&index, Uuid::nil(), Some(&fixes[2]), &fixes[3..]);
        assert_eq!(again.len(), 1, "the same alarm from the middle of the run");
    }

    #[test]
    fn a_stay_past_the_max_is_flagged_once_at_the_limit_and_a_shorter_one_never() {
        let f = Fence {
            max_stay_seconds: Some(300),
            ..fence(0)
        };
        let mut s = FenceState::default();
        let inside: Vec<Fix> = [0, 100, 200, 310, 400].map(|t| fix(t, true)).to_vec();
        let found = run(&f, &mut s, &inside);
        assert_eq!(found.overstays.len(), 1, "{:?}", found.overstays);
        let o = found.overstays[0];
        assert_eq!((o.since, o.due), (t0(), t0() + Duration::seconds(300)));
        assert_eq!(o.seen.time, t0() + Duration::seconds(310));
        // Still there in the next batch: the same stay, nothing new from this run.
        let later = run(&f, &mut s, &[fix(500, true), fix(600, false)]);
        assert_eq!(later.overstays[0].due, o.due, "the same stay, the same key");
        assert_eq!(later.crossings[0].direction, Direction::Exit);

        let mut short = FenceState::default();
        let found = run(
            &f,
            &mut short,
            &[fix(0, true), fix(250, true), fix(290, false)],
        );
        assert!(found.overstays.is_empty());
    }

    #[test]
    fn leaving_before_the_limit_is_no_overstay_even_when_confirmed_after_it() {
        let f = Fence {
            max_stay_seconds: Some(300),
            ..fence(60)
        };
        let mut s = FenceState::default();
        // Entered at 0 (confirmed at 60), first outside at 280, confirmed at 340.
        let fixes: Vec<Fix> = [
            (0, true),
            (60, true),
            (280, false),
            (320, false),
            (340, false),
        ]
        .map(|(t, inside)| fix(t, inside))
        .to_vec();
        let found = run(&f, &mut s, &fixes);
        assert!(found.overstays.is_empty(), "{:?}", found.overstays);
        assert_eq!(found.crossings[1].at.time, t0() + Duration::seconds(280));
        // Back inside before the exit is confirmed: the stay goes on past the limit.
        let mut s = FenceState::default();
        let fixes: Vec<Fix> = [(0, true), (60, true), (280, false), (320, true)]
            .map(|(t, inside)| fix(t, inside))
            .to_vec();
        let found = run(&f, &mut s, &fixes);
        assert_eq!(found.overstays.len(), 1);
        assert_eq!(found.overstays[0].seen.time, t0() + Duration::seconds(320));
    }
}

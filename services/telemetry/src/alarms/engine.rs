//! The alarm rules as a state machine over one vehicle's fixes in fix-time
//! order. Pure: `evaluate` feeds it and stores what it finds.
//!
//! A condition that holds over consecutive fixes is one alarm span, keyed by
//! (rule, condition, start): it is reported when found, while it lasts (no
//! end; again when its peak moves, else at most every [`SEEN_EVERY`]) and
//! once more when it ends, never once per fix. A fix's reading holds until the
//! next fix (a terminal reports every 10–30 s), so an overspeed seen on one
//! fix and gone on the next lasted the time between them, and counts against
//! the rule's minimum duration; across a silence longer than [`MAX_GAP`]
//! nothing is held, and an open span ends at the last fix that showed it.
//!
//! Overspeed reads each fix's `fence_limit_dkmh` (the lowest speed limit of
//! the fences the fix is inside, found by `evaluate`) before the rule's own
//! limit. A fatigue rule with a daily limit also adds up each Beijing day's
//! driving (the time from a moving fix to the next, across silences of at
//! most [`MAX_GAP`], split at midnight): the moment the day's total passes
//! the limit starts that day's one alarm (condition
//! [`DAILY_CONDITION`](super::domain::DAILY_CONDITION)), which ends at the
//! day's last driving, once a fix of a later day shows the day is over.
//! Fence-window, temperature and offline rules are not fix conditions: the
//! machine skips them (`evaluate` and `offline` find those).
//!
//! [`Track`] is what the machine remembers of a vehicle between batches,
//! and `clear_at`, the last fix after which nothing was open: a late fix is
//! evaluated by running the machine again from there over the stored
//! history, so any order of the same fixes gives the same spans.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::domain::{
    AlarmKind, DAILY_CONDITION, Rule, RuleKind, beijing, beijing_minute, in_window,
};

/// Moving at or above 5 km/h (below it is GNSS drift at a standstill).
pub const MOVING_DKMH: i32 = 50;
/// No reading is held across a silence longer than this.
pub const MAX_GAP: Duration = Duration::minutes(10);
/// While an alarm lasts and only its last-seen time moves, it is reported
/// again at most this often: its row is not rewritten on every batch (its
/// start, peak and end are reported at once).
pub const SEEN_EVERY: Duration = Duration::seconds(60);

/// One fix as the rules read it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    pub time: DateTime<Utc>,
    pub lat: f64,
    pub lng: f64,
    pub speed_dkmh: i32,
    pub alarm_bits: i64,
    pub soc: Option<i16>,
    /// The lowest speed limit of the fences the fix is inside, if any has
    /// one (it replaces an overspeed rule's own limit).
    pub fence_limit_dkmh: Option<i32>,
}

/// What the machine knows of one alarm: found, still holding (`end` none)
/// or ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Span {
    pub rule_id: Uuid,
    /// The terminal bit for terminal alarms, otherwise -1.
    pub condition: i16,
    pub kind: AlarmKind,
    pub level: i16,
    pub start: DateTime<Utc>,
    pub end: Option<DateTime<Utc>>,
    /// The last fix that showed it.
    pub last: DateTime<Utc>,
    pub lat: f64,
    pub lng: f64,
    pub peak_dkmh: i32,
}

/// What was last reported of an open alarm.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
struct Reported {
    last: DateTime<Utc>,
    peak_dkmh: i32,
}

/// Reports an open span when it is new, its peak moved, or it was last
/// reported [`SEEN_EVERY`] ago.
fn put_open(reported: &mut Option<Reported>, span: Span, found: &mut Found) {
    let due =
        reported.is_none_or(|r| r.peak_dkmh != span.peak_dkmh || span.last - r.last >= SEEN_EVERY);
    if due {
        *reported = Some(Reported {
            last: span.last,
            peak_dkmh: span.peak_dkmh,
        });
        found.put(span);
    }
}

/// A condition holding since `start`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
struct Run {
    rule: Uuid,
    condition: i16,
    start: DateTime<Utc>,
    last: DateTime<Utc>,
    lat: f64,
    lng: f64,
    peak_dkmh: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    reported: Option<Reported>,
}

/// A stretch of driving with no rest as long as the fatigue rule's.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
struct Stretch {
    rule: Uuid,
    start: DateTime<Utc>,
    last_moving: DateTime<Utc>,
    /// Standing since, while the stop is shorter than a rest.
    standing_since: Option<DateTime<Utc>>,
    lat: f64,
    lng: f64,
    peak_dkmh: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    reported: Option<Reported>,
}

/// One Beijing day's driving under a fatigue rule's daily limit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
struct Day {
    rule: Uuid,
    day: NaiveDate,
    driven_s: i64,
    /// When the day's driving passed the limit.
    over_at: Option<DateTime<Utc>>,
    /// The end of the day's last driving counted.
    last_moving: DateTime<Utc>,
    /// The previous fix, and whether it was moving.
    prev: DateTime<Utc>,
    prev_moving: bool,
    lat: f64,
    lng: f64,
    peak_dkmh: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    reported: Option<Reported>,
}

impl Day {
    fn new(rule: Uuid, s: &Sample) -> Day {
        Day {
            rule,
            day: beijing_day(s.time),
            driven_s: 0,
            over_at: None,
            last_moving: s.time,
            prev: s.time,
            prev_moving: s.speed_dkmh >= MOVING_DKMH,
            lat: s.lat,
            lng: s.lng,
            peak_dkmh: s.speed_dkmh,
            reported: None,
        }
    }

    /// Counts driving from `from` to `to` (both in this day).
    fn drive(&mut self, limit_s: i64, from: DateTime<Utc>, to: DateTime<Utc>, s: &Sample) {
        let before = self.driven_s;
        self.driven_s += (to - from).num_seconds();
        self.last_moving = to;
        if self.over_at.is_none() && self.driven_s > limit_s {
            self.over_at = Some(from + Duration::seconds(limit_s - before));
            self.lat = s.lat;
            self.lng = s.lng;
        }
    }
}

fn beijing_day(time: DateTime<Utc>) -> NaiveDate {
    time.with_timezone(&beijing()).date_naive()
}

/// When the Beijing day after `day` begins.
fn next_midnight(day: NaiveDate) -> DateTime<Utc> {
    day.succ_opt()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .and_then(|t| t.and_local_timezone(beijing()).single())
        .map_or(DateTime::<Utc>::MAX_UTC, |t| t.with_timezone(&Utc))
}

/// A vehicle's rule state between batches (stored as JSON).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Track {
    /// The newest fix run through the machine.
    pub last: Option<DateTime<Utc>>,
    /// The newest fix after which no run or stretch was open.
    pub clear_at: Option<DateTime<Utc>>,
    runs: Vec<Run>,
    stretches: Vec<Stretch>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    days: Vec<Day>,
}

/// Spans found by one run of the machine, the latest word on each key.
#[derive(Debug, Default)]
pub struct Found(BTreeMap<(Uuid, i16, DateTime<Utc>), Span>);

impl Found {
    fn put(&mut self, span: Span) {
        self.0
            .insert((span.rule_id, span.condition, span.start), span);
    }

    pub fn into_spans(self) -> Vec<Span> {
        self.0.into_values().collect()
    }
}

/// The conditions of a condition rule that hold at `s`, and those it checks.
fn holds(kind: &RuleKind, condition: i16, s: &Sample) -> bool {
    match *kind {
        RuleKind::Overspeed { limit_dkmh, .. } => {
            s.speed_dkmh > s.fence_limit_dkmh.unwrap_or(limit_dkmh)
        }
        RuleKind::NightDriving {
            from_minute,
            to_minute,
            ..
        } => {
            s.speed_dkmh >= MOVING_DKMH && in_window(beijing_minute(s.time), from_minute, to_minute)
        }
        RuleKind::LowSoc { below, .. } => s.soc.is_some_and(|soc| soc < below),
        RuleKind::Terminal { .. } => (s.alarm_bits >> condition) & 1 == 1,
        RuleKind::Fatigue { .. }
        | RuleKind::FenceWindow { .. }
        | RuleKind::Temperature { .. }
        | RuleKind::Offline { .. } => false,
    }
}

/// The conditions a rule watches: one, or each of its terminal bits.
fn conditions(kind: &RuleKind) -> Vec<i16> {
    match kind {
        RuleKind::Terminal { bits } => (0..32).filter(|b| bits >> b & 1 == 1).collect(),
        RuleKind::Overspeed { .. } | RuleKind::NightDriving { .. } | RuleKind::LowSoc { .. } => {
            vec![-1]
        }
        // Not conditions of the fixes (the fatigue rule has its own state).
        RuleKind::Fatigue { .. }
        | RuleKind::FenceWindow { .. }
        | RuleKind::Temperature { .. }
        | RuleKind::Offline { .. } => Vec::new(),
    }
}

impl Track {
    /// Runs `samples` (one vehicle's, in fix-time order, all after `last`)
    /// through `rules`, adding what they find to `found`.
    pub fn run(&mut self, rules: &[Rule], samples: &[Sample], found: &mut Found) {
        // A deleted or narrowed rule's state goes with it.
        self.runs.retain(|r| {
            rules
                .iter()
                .any(|rule| rule.id == r.rule && conditions(&rule.kind).contains(&r.condition))
        });
        self.stretches
            .retain(|s| rules.iter().any(|rule| rule.id == s.rule));
        self.days.retain(|d| {
            rules.iter().any(|rule| {
                rule.id == d.rule
                    && matches!(
                        rule.kind,
                        RuleKind::Fatigue {
                            daily_s: Some(_),
                            ..
                        }
                    )
            })
        });
        for s in samples {
            self.step(rules, s, found);
        }
    }

    fn step(&mut self, rules: &[Rule], s: &Sample, found: &mut Found) {
        let silent_since = self.last.filter(|last| s.time - *last > MAX_GAP);
        for rule in rules {
            match rule.kind {
                RuleKind::Fatigue {
                    max_drive_s,
                    rest_s,
                    daily_s,
                } => {
                    self.fatigue(
                        rule,
                        Duration::seconds(max_drive_s.into()),
                        Duration::seconds(rest_s.into()),
                        s,
                        found,
                    );
                    if let Some(daily_s) = daily_s {
                        self.daily(rule, i64::from(daily_s), s, found);
                    }
                }
                ref kind => {
                    for condition in conditions(kind) {
                        self.condition(rule, condition, silent_since, s, found);
                    }
                }
            }
        }
        self.last = Some(s.time);
        if self.runs.is_empty() && self.stretches.is_empty() && self.days.is_empty() {
            self.clear_at = Some(s.time);
        }
    }

    fn condition(
        &mut self,
        rule: &Rule,
        condition: i16,
        silent_since: Option<DateTime<Utc>>,
        s: &Sample,
        found: &mut Found,
    ) {
        let min = Duration::seconds(rule.kind.min_duration_s().into());
        let kind = rule.kind.alarm_kind(condition);
        let at = self
            .runs
            .iter()
            .position(|r| r.rule == rule.id && r.condition == condition);
        if let (Some(i), Some(_)) = (at, silent_since) {
            // Nothing is held across the silence: it ended at its last fix.
            let run = self.runs.remove(i);
            if run.last - run.start >= min {
                found.put(span(rule, kind, &run, Some(run.last)));
            }
        }
        let at = self
            .runs
            .iter()
            .position(|r| r.rule == rule.id && r.condition == condition);
        if holds(&rule.kind, condition, s) {
            let run = match at {
                Some(i) => &mut self.runs[i],
                None => {
                    self.runs.push(Run {
                        rule: rule.id,
                        condition,
                        start: s.time,
                        last: s.time,
                        lat: s.lat,
                        lng: s.lng,
                        peak_dkmh: s.speed_dkmh,
                        reported: None,
                    });
                    self.runs.last_mut().expect("just pushed")
                }
            };
            run.last = s.time;
            run.peak_dkmh = run.peak_dkmh.max(s.speed_dkmh);
            if run.last - run.start >= min {
                let open = span(rule, kind, run, None);
                put_open(&mut run.reported, open, found);
            }
        } else if let Some(i) = at {
            // Held until this fix showed it gone.
            let mut run = self.runs.remove(i);
            run.last = s.time;
            if s.time - run.start >= min {
                found.put(span(rule, kind, &run, Some(s.time)));
            }
        }
    }

    fn fatigue(
        &mut self,
        rule: &Rule,
        max_drive: Duration,
        rest: Duration,
        s: &Sample,
        found: &mut Found,
    ) {
        let moving = s.speed_dkmh >= MOVING_DKMH;
        if let Some(i) = self.stretches.iter().position(|t| t.rule == rule.id) {
            let t = self.stretches[i];
            // A rest: standing, or silent, for as long as the rule's.
            let rested_at = match t.standing_since {
                Some(since) if s.time - since >= rest => Some(since),
                _ if s.time - self.last.unwrap_or(s.time) >= rest => Some(t.last_moving),
                _ => None,
            };
            if let Some(end) = rested_at {
                self.stretches.remove(i);
                if end - t.start > max_drive {
                    found.put(fatigue_span(rule, &t, max_drive, Some(end)));
                }
            }
        }
        let at = self.stretches.iter().position(|t| t.rule == rule.id);
        match (at, moving) {
            (None, false) => {}
            (None, true) => self.stretches.push(Stretch {
                rule: rule.id,
                start: s.time,
                last_moving: s.time,
                standing_since: None,
                lat: s.lat,
                lng: s.lng,
                peak_dkmh: s.speed_dkmh,
                reported: None,
            }),
            (Some(i), true) => {
                let t = &mut self.stretches[i];
                t.last_moving = s.time;
                t.standing_since = None;
                t.peak_dkmh = t.peak_dkmh.max(s.speed_dkmh);
                if s.time - t.start > max_drive {
                    let open = fatigue_span(rule, t, max_drive, None);
                    put_open(&mut t.reported, open, found);
                }
            }
            (Some(i), false) => {
                let t = &mut self.stretches[i];
                t.standing_since.get_or_insert(s.time);
            }
        }
    }
}

impl Track {
    /// A fatigue rule's daily limit: the day's driving, one alarm when it
    /// passes the limit.
    fn daily(&mut self, rule: &Rule, limit_s: i64, s: &Sample, found: &mut Found) {
        let moving = s.speed_dkmh >= MOVING_DKMH;
        let day = beijing_day(s.time);
        let Some(i) = self.days.iter().position(|d| d.rule == rule.id) else {
            if moving {
                self.days.push(Day::new(rule.id, s));
            }
            return;
        };
        let mut d = self.days.remove(i);
        // Driving from the previous fix, held until this one, split at
        // midnight (a gap is at most MAX_GAP, so one midnight at most).
        let mut carried = None;
        if d.prev_moving && s.time - d.prev <= MAX_GAP {
            let midnight = next_midnight(d.day);
            if s.time > midnight {
                d.drive(limit_s, d.prev, midnight, s);
                carried = Some(midnight);
            } else {
                d.drive(limit_s, d.prev, s.time, s);
            }
        }
        if day > d.day {
            if d.over_at.is_some() {
                found.put(daily_span(rule, &d, Some(d.last_moving)));
            }
            if carried.is_some() || moving {
                let mut next = Day::new(rule.id, s);
                if let Some(midnight) = carried {
                    next.drive(limit_s, midnight, s.time, s);
                }
                next.prev_moving = moving;
                self.days.push(next);
            }
            return;
        }
        d.prev = s.time;
        d.prev_moving = moving;
        if moving {
            d.peak_dkmh = d.peak_dkmh.max(s.speed_dkmh);
        }
        if d.over_at.is_some() {
            let open = daily_span(rule, &d, None);
            put_open(&mut d.reported, open, found);
        }
        self.days.push(d);
    }
}

/// A day's alarm: from the moment its driving passed the limit to its last
/// driving.
fn daily_span(rule: &Rule, d: &Day, end: Option<DateTime<Utc>>) -> Span {
    Span {
        rule_id: rule.id,
        condition: DAILY_CONDITION,
        kind: AlarmKind::FatigueDriving,
        level: rule.level,
        start: d.over_at.unwrap_or(d.last_moving),
        end,
        last: d.last_moving,
        lat: d.lat,
        lng: d.lng,
        peak_dkmh: d.peak_dkmh,
    }
}

fn span(rule: &Rule, kind: AlarmKind, run: &Run, end: Option<DateTime<Utc>>) -> Span {
    Span {
        rule_id: rule.id,
        condition: run.condition,
        kind,
        level: rule.level,
        start: run.start,
        end,
        last: run.last,
        lat: run.lat,
        lng: run.lng,
        peak_dkmh: run.peak_dkmh,
    }
}

/// A fatigue alarm starts when the stretch passes the limit and ends when
/// the rest begins.
fn fatigue_span(rule: &Rule, t: &Stretch, max_drive: Duration, end: Option<DateTime<Utc>>) -> Span {
    Span {
        rule_id: rule.id,
        condition: -1,
        kind: AlarmKind::FatigueDriving,
        level: rule.level,
        start: t.start + max_drive,
        end,
        last: t.last_moving,
        lat: t.lat,
        lng: t.lng,
        peak_dkmh: t.peak_dkmh,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: i64 = 1_800_000_000;

    fn at(secs: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(T0 + secs, 0).unwrap()
    }

    fn sample(secs: i64, kmh: i32) -> Sample {
        Sample {
            time: at(secs),
            lat: 22.5,
            lng: 114.0,
            speed_dkmh: kmh * 10,
            alarm_bits: 0,
            soc: Some(80),
            fence_limit_dkmh: None,
        }
    }

    fn rule(kind: RuleKind) -> Rule {
        Rule {
            id: Uuid::from_u128(7),
            level: 2,
            org_path: None,
            kind,
        }
    }

    fn overspeed(limit_kmh: i32, min_s: i32) -> Rule {
        rule(RuleKind::Overspeed {
            limit_dkmh: limit_kmh * 10,
            min_s,
        })
    }

    fn spans(rules: &[Rule], samples: &[Sample]) -> Vec<Span> {
        let mut found = Found::default();
        Track::default().run(rules, samples, &mut found);
        found.into_spans()
    }

    #[test]
    fn two_minutes_over_the_limit_is_one_alarm_from_first_fix_over_to_first_fix_back() {
        // 50 km/h, then 90 km/h from 60 s to 170 s, back to 50 km/h at 180 s.
        let samples: Vec<Sample> = (0..30)
            .map(|i| sample(i * 10, if (6..18).contains(&i) { 90 } else { 50 }))
            .collect();
        let found = spans(&[overspeed(60, 30)], &samples);
        assert_eq!(found.len(), 1);
        let s = found[0];
        assert_eq!((s.start, s.end), (at(60), Some(at(180))));
        assert_eq!((s.kind, s.peak_dkmh), (AlarmKind::Overspeed, 900));
    }

    #[test]
    fn an_overspeed_seen_on_one_fix_counts_until_the_next() {
        // Fixes a minute apart: one over the limit is a minute over it.
        let found = spans(
            &[overspeed(60, 30)],
            &[sample(0, 50), sample(60, 95), sample(120, 50)],
        );
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].start, found[0].end), (at(60), Some(at(120))));
        // Shorter than the minimum: nothing.
        let found = spans(
            &[overspeed(60, 30)],
            &[sample(0, 50), sample(10, 95), sample(20, 50)],
        );
        assert!(found.is_empty());
    }

    #[test]
    fn an_ongoing_condition_is_reported_without_an_end_then_ended_once() {
        let rules = [overspeed(60, 30)];
        let mut track = Track::default();
        let mut found = Found::default();
        track.run(&rules, &[sample(0, 90), sample(40, 95)], &mut found);
        let open = found.into_spans();
        assert_eq!(open.len(), 1);
        assert_eq!((open[0].start, open[0].end), (at(0), None));
        assert_eq!(track.clear_at, None);
        let mut found = Found::default();
        track.run(&rules, &[sample(80, 40)], &mut found);
        let closed = found.into_spans();
        assert_eq!((closed[0].start, closed[0].end), (at(0), Some(at(80))));
        assert_eq!(track.clear_at, Some(at(80)));
    }

    #[test]
    fn nothing_is_held_across_a_silence() {
        let found = spans(
            &[overspeed(60, 30)],
            &[sample(0, 90), sample(40, 90), sample(3600, 50)],
        );
        assert_eq!((found[0].start, found[0].end), (at(0), Some(at(40))));
    }

    fn fatigue() -> Rule {
        rule(RuleKind::Fatigue {
            max_drive_s: 4 * 3600,
            rest_s: 20 * 60,
            daily_s: None,
        })
    }

    #[test]
    fn four_hours_ten_of_driving_is_one_fatigue_alarm_from_the_limit_to_the_rest() {
        // Every 30 s: driving 0..4h10, then standing 25 minutes.
        let drive = 4 * 3600 + 600;
        let samples: Vec<Sample> = (0..=(drive + 1500) / 30)
            .map(|i| sample(i * 30, if i * 30 < drive { 60 } else { 0 }))
            .collect();
        let found = spans(&[fatigue()], &samples);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].kind, AlarmKind::FatigueDriving);
        assert_eq!(
            (found[0].start, found[0].end),
            (at(4 * 3600), Some(at(drive)))
        );
    }

    #[test]
    fn short_stops_do_not_reset_the_driving_stretch_but_a_rest_does() {
        // 2 h driving, 10 min stop, 2 h 10 driving: one stretch over 4 h.
        let mut samples = Vec::new();
        let mut t = 0;
        for (secs, kmh) in [(7200, 60), (600, 0), (7800, 60), (1500, 0)] {
            let end = t + secs;
            while t < end {
                samples.push(sample(t, kmh));
                t += 60;
            }
        }
        assert_eq!(spans(&[fatigue()], &samples).len(), 1);
        // With a 20-minute rest in the middle: none.
        let mut samples = Vec::new();
        let mut t = 0;
        for (secs, kmh) in [(7200, 60), (1260, 0), (7800, 60), (1500, 0)] {
            let end = t + secs;
            while t < end {
                samples.push(sample(t, kmh));
                t += 60;
            }
        }
        assert!(spans(&[fatigue()], &samples).is_empty());
    }

    #[test]
    fn each_terminal_bit_is_its_own_alarm() {
        let terminal = rule(RuleKind::Terminal {
            bits: 1 | (1 << 29),
        });
        let mut s = vec![sample(0, 30), sample(10, 30), sample(20, 30)];
        s[0].alarm_bits = 1;
        s[1].alarm_bits = 1 | (1 << 29) | (1 << 5);
        let found = spans(&[terminal], &s);
        let kinds: Vec<(AlarmKind, i16, Option<DateTime<Utc>>)> =
            found.iter().map(|f| (f.kind, f.condition, f.end)).collect();
        assert_eq!(
            kinds,
            vec![
                (AlarmKind::Emergency, 0, Some(at(20))),
                (AlarmKind::Collision, 29, Some(at(20)))
            ]
        );
    }

    #[test]
    fn night_driving_counts_in_beijing_time_across_midnight() {
        let night = rule(RuleKind::NightDriving {
            from_minute: 22 * 60,
            to_minute: 5 * 60,
            min_s: 60,
        });
        // 16:00 UTC is 00:00 in Beijing.
        let midnight = DateTime::parse_from_rfc3339("2026-11-28T16:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let samples: Vec<Sample> = (0..5)
            .map(|i| Sample {
                time: midnight + Duration::seconds(i * 30),
                ..sample(0, 40)
            })
            .collect();
        assert_eq!(spans(std::slice::from_ref(&night), &samples).len(), 1);
        let noon: Vec<Sample> = samples
            .iter()
            .map(|s| Sample {
                time: s.time + Duration::hours(12),
                ..*s
            })
            .collect();
        assert!(spans(&[night], &noon).is_empty());
    }

    #[test]
    fn inside_a_fence_its_own_limit_wins_over_the_rules() {
        // 70 km/h under a 60 km/h rule, inside a 80 km/h fence: no alarm;
        // 50 km/h inside a 40 km/h fence: one.
        let mut samples: Vec<Sample> = (0..10).map(|i| sample(i * 10, 70)).collect();
        for s in &mut samples {
            s.fence_limit_dkmh = Some(800);
        }
        assert!(spans(&[overspeed(60, 30)], &samples).is_empty());
        for s in &mut samples {
            s.speed_dkmh = 500;
            s.fence_limit_dkmh = Some(400);
        }
        let found = spans(&[overspeed(60, 30)], &samples);
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].start, found[0].end), (at(0), None));
    }

    #[test]
    fn a_daily_limit_is_one_alarm_per_beijing_day_from_the_moment_it_is_passed() {
        let daily = rule(RuleKind::Fatigue {
            max_drive_s: 12 * 3600,
            rest_s: 20 * 60,
            daily_s: Some(3 * 3600),
        });
        // Two Beijing days (from 08:00, i.e. 00:00 UTC): 2 h driving, 30 min
        // stop, 2 h driving, then standing.
        let day0 = DateTime::parse_from_rfc3339("2026-11-27T00:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let mut samples = Vec::new();
        for d in 0..2 {
            let start = day0 + Duration::days(d);
            let mut t = 0;
            for (secs, kmh) in [(7200, 60), (1800, 0), (7200, 60), (3600, 0)] {
                let end = t + secs;
                while t < end {
                    samples.push(Sample {
                        time: start + Duration::seconds(t),
                        ..sample(0, kmh)
                    });
                    t += 60;
                }
            }
        }
        let found = spans(&[daily], &samples);
        let daily: Vec<&Span> = found
            .iter()
            .filter(|s| s.condition == DAILY_CONDITION)
            .collect();
        assert_eq!(daily.len(), 2);
        // 3 h of driving: 2 h, the stop, then 1 h more (at 3 h 30).
        let first = day0 + Duration::seconds(3 * 3600 + 1800);
        assert_eq!(daily[0].start, first);
        // The first day's alarm ends at its last driving (4 h 30 in).
        assert_eq!(
            daily[0].end,
            Some(day0 + Duration::seconds(4 * 3600 + 1800))
        );
        assert_eq!(daily[1].start, first + Duration::days(1));
        assert_eq!(daily[1].end, None, "the second day is not over");
        assert_eq!(daily[0].kind, AlarmKind::FatigueDriving);
    }

    #[test]
    fn a_machine_fed_in_pieces_finds_what_it_finds_in_one_go() {
        let daily = rule(RuleKind::Fatigue {
            max_drive_s: 4 * 3600,
            rest_s: 20 * 60,
            daily_s: Some(3600),
        });
        let rules = [overspeed(60, 30), daily];
        let samples: Vec<Sample> = (0..600)
            .map(|i| sample(i * 30, if i % 37 < 5 { 95 } else { 55 }))
            .collect();
        let whole = spans(&rules, &samples);
        let mut track = Track::default();
        let mut found = Found::default();
        for chunk in samples.chunks(7) {
            track.run(&rules, chunk, &mut found);
        }
        assert_eq!(found.into_spans(), whole);
        assert!(whole.len() > 10);
    }
}

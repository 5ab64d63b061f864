//! The alarm numbers this replica handed out in 0x9208, shared by its 808
//! connections (which ask) and its attachment connections (which match an
//! upload to its vehicle). A number is the only thing an uploading terminal
//! presents that the platform chose, so an upload naming a number not
//! handed out here, or handed out for another alarm, is refused. Numbers
//! expire; the registry is bounded.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::directory::Binding;
use crate::jt808::location::AlarmIdentifier;

/// How long a terminal has to upload after it was asked.
pub const ALARM_NUMBER_TTL: Duration = Duration::from_secs(2 * 3600);
/// Numbers kept at most; past it the oldest are forgotten.
const MAX_NUMBERS: usize = 100_000;

/// The alarm an alarm number was handed out for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requested {
    pub enterprise_id: String,
    pub vehicle_id: String,
    /// `SafetyAlarm.alarm_key` of the alarm.
    pub alarm_key: String,
    pub identifier: AlarmIdentifier,
}

#[derive(Debug, Default)]
pub struct Registry {
    numbers: Mutex<HashMap<String, (Arc<Requested>, Instant)>>,
}

impl Registry {
    /// A fresh alarm number (32 hex digits, the width of 苏标's field) for
    /// the alarm `identifier` of the vehicle `binding`.
    pub fn request(&self, binding: &Binding, identifier: &AlarmIdentifier) -> String {
        let number = uuid::Uuid::new_v4().simple().to_string();
        let requested = Requested {
            enterprise_id: binding.enterprise_id.clone(),
            vehicle_id: binding.vehicle_id.clone(),
            alarm_key: identifier.key(),
            identifier: identifier.clone(),
        };
        let now = Instant::now();
        let mut numbers = self.numbers.lock().expect("alarm numbers lock");
        if numbers.len() >= MAX_NUMBERS {
            numbers.retain(|_, (_, at)| now.duration_since(*at) < ALARM_NUMBER_TTL);
        }
        if numbers.len() >= MAX_NUMBERS
            && let Some(oldest) = numbers
                .iter()
                .min_by_key(|(_, (_, at))| *at)
                .map(|(n, _)| n.clone())
        {
            numbers.remove(&oldest);
        }
        numbers.insert(number.clone(), (Arc::new(requested), now));
        number
    }

    /// The alarm `number` was handed out for, if it was, has not expired and
    /// names the same alarm as the terminal's `identifier`.
    pub fn find(&self, number: &str, identifier: &AlarmIdentifier) -> Option<Arc<Requested>> {
        let mut numbers = self.numbers.lock().expect("alarm numbers lock");
        let (requested, at) = numbers.get(number)?;
        if at.elapsed() >= ALARM_NUMBER_TTL {
            numbers.remove(number);
            return None;
        }
        (requested.alarm_key == identifier.key()).then(|| requested.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jt808::location::tests::identifier;

    fn binding() -> Binding {
        Binding {
            enterprise_id: "e".into(),
            vehicle_id: "v".into(),
        }
    }

    #[test]
    fn a_number_finds_its_alarm_and_no_other() {
        let registry = Registry::default();
        let number = registry.request(&binding(), &identifier());
        assert_eq!(number.len(), 32);
        assert_ne!(registry.request(&binding(), &identifier()), number);
        let found = registry.find(&number, &identifier()).expect("handed out");
        assert_eq!(
            (found.vehicle_id.as_str(), found.alarm_key.as_str()),
            ("v", "TERM001-261123020304-0")
        );
        let mut other = identifier();
        other.serial = 1;
        assert_eq!(registry.find(&number, &other), None);
        assert_eq!(registry.find("0".repeat(32).as_str(), &identifier()), None);
    }
}

//! The temperature bands the demo seed gives refrigerated vans follow the
//! set points the simulator (`fleetdesk simulate`, default seed) gives
//! their boxes, so the live readings of `make run` stay inside them.

use chrono::Utc;
use fleetdesk_seed::telemetry::simulated_setpoint;
use fleetdesk_simulator::motion::{Motion, Start, city_of_plate};
use rand::rngs::StdRng;
use rand::{Rng as _, SeedableRng as _};

/// The simulator's default `--seed`.
const SEED: u64 = 808;

#[test]
fn the_seeded_set_point_is_the_simulators_for_every_fleet_position() {
    let (mut frozen, mut chilled) = (0, 0);
    for index in 0..400usize {
        // As `fleetdesk_simulator::simulate` and `Terminal::new` seed a terminal's motion.
        let mut terminal =
            StdRng::seed_from_u64(SEED ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let motion = Motion::new(
            city_of_plate("沪ADA0000"),
            true,
            Start::Random,
            30_000_000,
            StdRng::seed_from_u64(terminal.r#gen()),
        );
        let probe = motion.location(Utc::now(), 0).temperatures[0].deci_celsius;
        let expected = simulated_setpoint(index);
        // The box starts within half a degree of its set point.
        assert!(
            (f64::from(probe) / 10.0 - expected).abs() <= 0.5,
            "fleet position {index}: box at {probe} dC, seeded set point {expected}"
        );
        if expected < 0.0 {
            frozen += 1;
        } else {
            chilled += 1;
        }
    }
    assert!(frozen > 0 && chilled > 0);
}

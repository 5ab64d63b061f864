//! Plane and sphere geometry of fences on WGS-84 degrees: the exact tests
//! that follow an R-tree bounding-box hit (haversine distance for circles,
//! even-odd ray casting for polygons, point-to-segment distance for
//! corridors), bounding boxes, and the self-intersection check of a ring.
//! Fences are city-sized: a local equirectangular projection around the
//! point is accurate to well under a metre at 5 km and is what corridors use.

/// Mean earth radius, metres.
const EARTH_RADIUS_M: f64 = 6_371_008.8;
/// Metres per degree of latitude (on the mean sphere).
const M_PER_DEG: f64 = EARTH_RADIUS_M * std::f64::consts::PI / 180.0;

/// A WGS-84 position, degrees.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub lat: f64,
    pub lng: f64,
}

impl Point {
    pub fn new(lat: f64, lng: f64) -> Point {
        Point { lat, lng }
    }
}

/// Great-circle distance, metres.
pub fn haversine_m(a: Point, b: Point) -> f64 {
    let (la1, la2) = (a.lat.to_radians(), b.lat.to_radians());
    let dlat = la2 - la1;
    let dlng = (b.lng - a.lng).to_radians();
    let h = (dlat / 2.0).sin().powi(2) + la1.cos() * la2.cos() * (dlng / 2.0).sin().powi(2);
    2.0 * EARTH_RADIUS_M * h.sqrt().min(1.0).asin()
}

/// Whether `p` is inside the ring (even-odd rule; the ring is not closed).
pub fn in_polygon(p: Point, ring: &[Point]) -> bool {
    let mut inside = false;
    let n = ring.len();
    let mut j = n.wrapping_sub(1);
    for i in 0..n {
        let (a, b) = (ring[i], ring[j]);
        if (a.lat > p.lat) != (b.lat > p.lat) {
            let x = (b.lng - a.lng) * (p.lat - a.lat) / (b.lat - a.lat) + a.lng;
            if p.lng < x {
                inside = !inside;
            }
        }
        j = i;
    }
    inside
}

/// Shortest distance from `p` to the polyline, metres (projected around `p`).
pub fn distance_to_polyline_m(p: Point, line: &[Point]) -> f64 {
    let k = p.lat.to_radians().cos();
    let local = |q: Point| ((q.lng - p.lng) * k * M_PER_DEG, (q.lat - p.lat) * M_PER_DEG);
    match line {
        [] => f64::INFINITY,
        [only] => {
            let (x, y) = local(*only);
            x.hypot(y)
        }
        _ => line
            .windows(2)
            .map(|w| {
                let (ax, ay) = local(w[0]);
                let (bx, by) = local(w[1]);
                let (dx, dy) = (bx - ax, by - ay);
                let len2 = dx * dx + dy * dy;
                // The origin is `p`: project it onto the segment.
                let t = if len2 == 0.0 {
                    0.0
                } else {
                    (-(ax * dx + ay * dy) / len2).clamp(0.0, 1.0)
                };
                (ax + t * dx).hypot(ay + t * dy)
            })
            .fold(f64::INFINITY, f64::min),
    }
}

/// A bounding box `[min lng, min lat]`–`[max lng, max lat]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BBox {
    pub min: [f64; 2],
    pub max: [f64; 2],
}

impl BBox {
    /// The box of `points` grown by `margin_m` metres on every side.
    pub fn around(points: &[Point], margin_m: f64) -> BBox {
        let mut min = [f64::INFINITY, f64::INFINITY];
        let mut max = [f64::NEG_INFINITY, f64::NEG_INFINITY];
        for p in points {
            min = [min[0].min(p.lng), min[1].min(p.lat)];
            max = [max[0].max(p.lng), max[1].max(p.lat)];
        }
        let dlat = margin_m / M_PER_DEG;
        // The widest longitude span of the margin is at the box's highest latitude.
        let lat = min[1].abs().max(max[1].abs()).min(89.0);
        let dlng = margin_m / (M_PER_DEG * lat.to_radians().cos());
        BBox {
            min: [min[0] - dlng, min[1] - dlat],
            max: [max[0] + dlng, max[1] + dlat],
        }
    }
}

/// Whether segments `ab` and `cd` touch (orientation test, collinear overlaps included).
fn segments_touch(a: Point, b: Point, c: Point, d: Point) -> bool {
    fn orient(p: Point, q: Point, r: Point) -> f64 {
        (q.lng - p.lng) * (r.lat - p.lat) - (q.lat - p.lat) * (r.lng - p.lng)
    }
    fn on_segment(p: Point, q: Point, r: Point) -> bool {
        r.lng >= p.lng.min(q.lng)
            && r.lng <= p.lng.max(q.lng)
            && r.lat >= p.lat.min(q.lat)
            && r.lat <= p.lat.max(q.lat)
    }
    let (o1, o2) = (orient(a, b, c), orient(a, b, d));
    let (o3, o4) = (orient(c, d, a), orient(c, d, b));
    if ((o1 > 0.0 && o2 < 0.0) || (o1 < 0.0 && o2 > 0.0))
        && ((o3 > 0.0 && o4 < 0.0) || (o3 < 0.0 && o4 > 0.0))
    {
        return true;
    }
    (o1 == 0.0 && on_segment(a, b, c))
        || (o2 == 0.0 && on_segment(a, b, d))
        || (o3 == 0.0 && on_segment(c, d, a))
        || (o4 == 0.0 && on_segment(c, d, b))
}

/// Whether any two non-adjacent edges of the closed ring touch (O(n²); n ≤ 1,000).
pub fn ring_self_intersects(ring: &[Point]) -> bool {
    let n = ring.len();
    if n < 4 {
        // A triangle cannot cross itself; a degenerate one is caught by its area.
        return false;
    }
    let edge = |i: usize| (ring[i], ring[(i + 1) % n]);
    for i in 0..n {
        let (a, b) = edge(i);
        for j in (i + 2)..n {
            // The first and the last edge share a vertex.
            if i == 0 && j == n - 1 {
                continue;
            }
            let (c, d) = edge(j);
            if segments_touch(a, b, c, d) {
                return true;
            }
        }
    }
    false
}

/// Twice the signed area of the ring in degree² (zero for a degenerate ring).
pub fn ring_area2(ring: &[Point]) -> f64 {
    let n = ring.len();
    (0..n)
        .map(|i| {
            let (a, b) = (ring[i], ring[(i + 1) % n]);
            a.lng * b.lat - b.lng * a.lat
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn haversine_matches_a_known_distance() {
        // Tian'anmen to the Shanghai Bund is about 1,067 km.
        let d = haversine_m(Point::new(39.9087, 116.3975), Point::new(31.2400, 121.4900));
        assert!((d - 1_067_000.0).abs() < 5_000.0, "{d}");
        let near = haversine_m(Point::new(31.0, 121.0), Point::new(31.0009, 121.0));
        assert!((near - 100.0).abs() < 0.5, "{near}");
    }

    #[test]
    fn points_in_and_out_of_a_concave_polygon() {
        // A U shape open to the north.
        let u = [
            Point::new(0.0, 0.0),
            Point::new(0.0, 3.0),
            Point::new(3.0, 3.0),
            Point::new(3.0, 2.0),
            Point::new(1.0, 2.0),
            Point::new(1.0, 1.0),
            Point::new(3.0, 1.0),
            Point::new(3.0, 0.0),
        ];
        assert!(in_polygon(Point::new(0.5, 1.5), &u));
        assert!(in_polygon(Point::new(2.5, 0.5), &u));
        assert!(!in_polygon(Point::new(2.0, 1.5), &u), "the notch");
        assert!(!in_polygon(Point::new(-1.0, 1.0), &u));
    }

    #[test]
    fn distance_to_a_polyline_is_to_its_nearest_segment() {
        let line = [Point::new(31.0, 121.0), Point::new(31.0, 121.01)];
        let north = Point::new(31.0009, 121.005);
        assert!((distance_to_polyline_m(north, &line) - 100.0).abs() < 0.5);
        let past_end = Point::new(31.0, 121.01 + 0.001);
        let d = distance_to_polyline_m(past_end, &line);
        assert!((d - haversine_m(past_end, line[1])).abs() < 0.5, "{d}");
    }

    #[test]
    fn a_bow_tie_crosses_itself_and_a_square_does_not() {
        let square = [
            Point::new(0.0, 0.0),
            Point::new(0.0, 1.0),
            Point::new(1.0, 1.0),
            Point::new(1.0, 0.0),
        ];
        assert!(!ring_self_intersects(&square));
        let bow = [
            Point::new(0.0, 0.0),
            Point::new(1.0, 1.0),
            Point::new(0.0, 1.0),
            Point::new(1.0, 0.0),
        ];
        assert!(ring_self_intersects(&bow));
        assert!(
            ring_area2(&[
                Point::new(0.0, 0.0),
                Point::new(1.0, 1.0),
                Point::new(2.0, 2.0)
            ]) == 0.0
        );
    }

    #[test]
    fn a_box_grows_by_its_margin() {
        let b = BBox::around(&[Point::new(31.0, 121.0)], 1_000.0);
        assert!((b.max[1] - 31.0 - 1_000.0 / M_PER_DEG).abs() < 1e-9);
        assert!(
            b.max[0] - 121.0 > b.max[1] - 31.0,
            "longitude degrees are shorter"
        );
    }
}

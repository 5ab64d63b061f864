//! Edge routes under `/api/v1`, one module per resource.

pub mod approvals;
pub mod auth;
pub mod charging_accounts;
pub mod charging_behavior;
pub mod charging_cards;
pub mod charging_dashboard;
pub mod charging_opening;
pub mod charging_sessions;
pub mod charging_statements;
pub mod charging_stations;
pub mod dev;
pub mod drivers;
pub mod exports;
pub mod files;
pub mod geofences;
pub mod help;
pub mod lock;
pub mod login_logs;
pub mod me;
pub mod monitor;
pub mod notices;
pub mod operation_logs;
pub mod password;
pub mod sensitive;
pub mod shared_data;
pub mod system;
pub mod temperature;
pub mod usage_records;
pub mod users;
pub mod vehicles;
pub mod vehicles_bindings;
pub mod vehicles_private_cars;

use fleetdesk_proto::common::v1::PageRequest;
use utoipa_axum::router::OpenApiRouter;

use crate::envelope::ApiError;
use crate::state::AppState;

/// Every `/api/v1` route.
pub fn api_v1() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .merge(auth::router())
        .merge(password::router())
        .merge(login_logs::router())
        .merge(dev::router())
        .merge(me::router())
        .merge(system::router())
        .merge(users::router())
        .merge(shared_data::router())
        .merge(notices::router())
        .merge(approvals::router())
        .merge(exports::router())
        .merge(files::router())
        .merge(help::router())
        .merge(sensitive::router())
        .merge(drivers::router())
        .merge(usage_records::router())
        .merge(operation_logs::router())
        .merge(vehicles::router())
        .merge(vehicles_bindings::router())
        .merge(vehicles_private_cars::router())
        .merge(geofences::router())
        .merge(monitor::router())
        .merge(lock::router())
        .merge(temperature::router())
        .merge(charging_opening::router())
        .merge(charging_dashboard::router())
        .merge(charging_accounts::router())
        .merge(charging_cards::router())
        .merge(charging_sessions::router())
        .merge(charging_stations::router())
        .merge(charging_statements::router())
        .merge(charging_behavior::router())
}

/// Page sizes a list accepts.
pub const PAGE_SIZES: [i32; 5] = [5, 10, 20, 50, 100];

/// Validates `page` (from 1) and `size` (5/10/20/50/100, default 20).
pub fn paging(page: Option<i32>, size: Option<i32>) -> Result<PageRequest, ApiError> {
    let page = page.unwrap_or(1);
    let size = size.unwrap_or(20);
    if page < 1 {
        return Err(ApiError::invalid("page", "页码从 1 开始"));
    }
    if !PAGE_SIZES.contains(&size) {
        return Err(ApiError::invalid(
            "size",
            "每页条数只能是 5、10、20、50 或 100",
        ));
    }
    Ok(PageRequest { page, size })
}

/// A protobuf timestamp as RFC 3339 (UTC, whole seconds); empty when absent.
pub fn rfc3339(ts: Option<&prost_types::Timestamp>) -> String {
    ts.and_then(fleetdesk_kit::convert::datetime)
        .map(utc_seconds)
        .unwrap_or_default()
}

/// `yyyy-MM-ddTHH:mm:ssZ`, written digit by digit: a list page carries
/// many timestamps, and chrono's general formatter took 8 % of the
/// gateway's instructions on a page of 20 vehicles. Years outside 0..=9999
/// go to chrono (they need a sign or a fifth digit).
fn utc_seconds(t: chrono::DateTime<chrono::Utc>) -> String {
    use chrono::{Datelike as _, Timelike as _};
    let year = match u32::try_from(t.year()) {
        Ok(year) if year <= 9999 => year,
        _ => return t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
    };
    let digit = |n: u32| char::from(b'0' + (n % 10) as u8);
    let mut out = String::with_capacity(20);
    for place in [1000, 100, 10, 1] {
        out.push(digit(year / place));
    }
    for (separator, value) in [
        ('-', t.month()),
        ('-', t.day()),
        ('T', t.hour()),
        (':', t.minute()),
        (':', t.second()),
    ] {
        out.push(separator);
        out.push(digit(value / 10));
        out.push(digit(value));
    }
    out.push('Z');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_read_as_chrono_writes_them() {
        for seconds in [
            0,
            1,
            -1,
            951_782_400, // 2000-02-29
            1_764_288_000,
            4_102_444_799,   // 2099-12-31T23:59:59
            -62_135_596_800, // 0001-01-01
            253_402_300_799, // 9999-12-31T23:59:59
            253_402_300_800, // 10000-01-01: chrono's own
        ] {
            for nanos in [0, 999_999_999] {
                let ts = prost_types::Timestamp { seconds, nanos };
                let expected = fleetdesk_kit::convert::datetime(&ts)
                    .unwrap()
                    .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
                assert_eq!(rfc3339(Some(&ts)), expected, "{seconds}");
            }
        }
        assert_eq!(rfc3339(None), "");
    }

    #[test]
    fn paging_accepts_only_the_listed_sizes() {
        assert_eq!(
            paging(None, None).unwrap(),
            PageRequest { page: 1, size: 20 }
        );
        for size in PAGE_SIZES {
            assert!(paging(Some(2), Some(size)).is_ok());
        }
        for size in [0, 7, 101, 1000] {
            assert!(paging(None, Some(size)).is_err(), "{size}");
        }
        assert!(paging(Some(0), None).is_err());
    }
}

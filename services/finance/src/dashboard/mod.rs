//! The bill dashboard (billDashboard): what is owed, overdue, due within a
//! week and paid over a range of bill periods (this year so far unless
//! asked otherwise), by kind, for chosen organisations and a channel, with
//! the trend of the twelve months up to the range's end. Computed on read
//! from the bills (`monthly::store`'s aggregations); depends on `bills`
//! and `monthly`.

pub mod handlers;

/// The permission of the dashboard.
pub const PERMISSION: &str = "as:b2b:bill";

//! What this crate's exports share: the vehicle target's export domain and
//! helpers, which fleetdesk-assets holds (the target's one worker runs the
//! kinds of both crates, so their jobs queue under one domain name).

pub use fleetdesk_assets::exports::{
    DOMAIN, ListExport, NewJob, actor, after, cursor, day, filter, header, label, moment,
    range_json, start, text,
};

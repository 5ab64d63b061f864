//! Time-of-use tariffs of the charging platform (OCPI tariffs): a day in
//! peak, flat and valley bands, each with an electricity price and a
//! service fee in fen per MWh. Synced with the stations; a station lists
//! today's bands of its tariff.

pub mod domain;
pub mod store;

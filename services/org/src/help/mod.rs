//! Help centre: operation manual pages (operator data shared by every
//! enterprise), members' feedback with attachments, and the customer-service
//! settings (one source for the console's float and online customer page).

pub mod convert;
pub mod domain;
pub mod handlers;
pub mod store;

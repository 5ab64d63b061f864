//! Accounts: the sign-in identity of a person (account name, phone,
//! password), created for org's users — or linked when the person already
//! has one — and read back by the console's own-account pages.

pub mod convert;
pub mod domain;
pub mod handlers;
pub mod store;

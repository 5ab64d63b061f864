//! Organisation changes for other services: every unit whose state changed
//! (created, renamed, moved — with everything below it, whose paths changed
//! — disabled or enabled) is announced with its full state and version
//! (`OrgUnitChanged`), in the transaction of the change; and the paged
//! snapshot of all units a replica catches up from.

pub mod convert;
pub mod handlers;
pub mod store;

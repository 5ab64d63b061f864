//! The way of a sign-in attempt as the log keeps it.

use fleetdesk_proto::auth::v1 as pb;

use crate::codes::stored_code;

stored_code!(
    /// How someone tried to sign in (`login_log.login_type`).
    LoginType => pb::LoginType {
        Password = 1,
        SmsCode = 2,
        Wecom = 3,
    }
);

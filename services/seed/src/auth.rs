//! Demo accounts. Idempotent: a second run changes nothing a user did.

use fleetdesk_kit::demo_id;
use sqlx_postgres::PgPool;

use fleetdesk_auth::accounts::store;
use fleetdesk_auth::credentials::PasswordHasher;

/// Password of every demo account.
pub const DEMO_PASSWORD: &str = "Demo@12345";

/// (username, display name, phone) of the demo accounts. `demo_multi` belongs
/// to both demo enterprises, so it signs in to a personal session and chooses.
pub const DEMO_ACCOUNTS: [(&str, &str, &str); 4] = [
    ("demo", "演示管理员", "13800000001"),
    ("demo_ops", "运营专员", "13800000002"),
    ("demo2", "冷链管理员", "13800000003"),
    ("demo_multi", "跨企业专员", "13800000004"),
];

/// The account id of a demo username, as the org seed refers to it.
pub fn demo_account_id(username: &str) -> uuid::Uuid {
    demo_id(&format!("account:{username}"))
}

pub async fn run(pool: &PgPool) -> anyhow::Result<()> {
    let hasher = PasswordHasher::new();
    for (username, name, phone) in DEMO_ACCOUNTS {
        let exists: bool = sqlx::query_scalar("select exists(select 1 from account where id = $1)")
            .bind(demo_account_id(username))
            .fetch_one(pool)
            .await?;
        if exists {
            continue;
        }
        let hash = hasher.hash(DEMO_PASSWORD.to_owned()).await?;
        store::upsert(
            pool,
            demo_account_id(username),
            username,
            name,
            Some(phone),
            &hash,
        )
        .await?;
    }
    Ok(())
}

//! The permission catalogue: every permission value the product knows, with
//! its labels. `permissions.json` beside this file is the one source; the
//! `permission` table is kept in step with it.

use sqlx::PgPool;

#[derive(Debug, Clone, serde::Deserialize)]
pub struct PermissionEntry {
    pub value: String,
    pub zh: String,
    pub en: String,
    pub ja: String,
}

/// The catalogue as shipped.
pub fn entries() -> Vec<PermissionEntry> {
    serde_json::from_str(include_str!("permissions.json")).expect("permissions.json is valid")
}

/// Upserts every catalogue entry into the `permission` table.
pub async fn sync(pool: &PgPool) -> sqlx::Result<()> {
    let entries = entries();
    let values: Vec<&str> = entries.iter().map(|e| e.value.as_str()).collect();
    let zh: Vec<&str> = entries.iter().map(|e| e.zh.as_str()).collect();
    let en: Vec<&str> = entries.iter().map(|e| e.en.as_str()).collect();
    let ja: Vec<&str> = entries.iter().map(|e| e.ja.as_str()).collect();
    sqlx::query(
        "insert into permission (value, label_zh, label_en, label_ja) \
         select * from unnest($1::text[], $2::text[], $3::text[], $4::text[]) \
         on conflict (value) do update set label_zh = excluded.label_zh, \
         label_en = excluded.label_en, label_ja = excluded.label_ja",
    )
    .bind(&values)
    .bind(&zh)
    .bind(&en)
    .bind(&ja)
    .execute(pool)
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogue_values_are_unique_and_labelled_in_three_languages() {
        let entries = entries();
        let mut values: Vec<&str> = entries.iter().map(|e| e.value.as_str()).collect();
        values.sort_unstable();
        values.dedup();
        assert_eq!(values.len(), entries.len(), "duplicate permission values");
        for e in &entries {
            assert!(
                !e.zh.is_empty() && !e.en.is_empty() && !e.ja.is_empty(),
                "{} lacks a label",
                e.value
            );
            assert_ne!(e.value, "*", "'*' is an access rule, not a permission");
        }
    }
}

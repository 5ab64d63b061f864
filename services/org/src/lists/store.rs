//! Queries of `enterprise_list_entry` and `need_open_page`. They need a
//! service-scoped transaction: the lists are cross-tenant operator data.

use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::{self, ListType, Lists};
use crate::charging;
use crate::codes::optional;

/// Reads the lists of `enterprise_id`. Whether the lock-car list is empty
/// is a question about every enterprise.
pub async fn of_enterprise(conn: &mut PgConnection, enterprise_id: Uuid) -> sqlx::Result<Lists> {
    let codes: Vec<i16> =
        sqlx::query_scalar("select list_type from enterprise_list_entry where enterprise_id = $1")
            .bind(enterprise_id)
            .fetch_all(&mut *conn)
            .await?;
    let on: Vec<ListType> = codes
        .into_iter()
        .filter_map(|c| optional(Some(c)))
        .collect();
    let lock_car_list_empty: bool = sqlx::query_scalar(
        "select not exists(select 1 from enterprise_list_entry where list_type = $1)",
    )
    .bind(i16::from(ListType::LockCar))
    .fetch_one(&mut *conn)
    .await?;
    let need_open_pages = if on.contains(&ListType::NeedOpenPage) {
        sqlx::query_scalar("select name from need_open_page order by name")
            .fetch_all(&mut *conn)
            .await?
    } else {
        Vec::new()
    };
    Ok(Lists {
        membership: domain::membership(&on, lock_car_list_empty),
        need_open_pages,
        charging: charging::store::of_enterprise(conn, enterprise_id).await?,
    })
}

/// Enterprise ids on one list, oldest entry first.
pub async fn entries(conn: &mut PgConnection, list: ListType) -> sqlx::Result<Vec<Uuid>> {
    sqlx::query_scalar(
        "select enterprise_id from enterprise_list_entry where list_type = $1 order by created_at, enterprise_id",
    )
    .bind(i16::from(list))
    .fetch_all(conn)
    .await
}

pub async fn enterprise_exists(conn: &mut PgConnection, enterprise_id: Uuid) -> sqlx::Result<bool> {
    sqlx::query_scalar("select exists(select 1 from enterprise where id = $1)")
        .bind(enterprise_id)
        .fetch_one(conn)
        .await
}

/// Puts the enterprise on the list or takes it off; `true` when that changed anything.
pub async fn set(
    conn: &mut PgConnection,
    list: ListType,
    enterprise_id: Uuid,
    member: bool,
) -> sqlx::Result<bool> {
    let changed = if member {
        sqlx::query(
            "insert into enterprise_list_entry (list_type, enterprise_id) values ($1, $2) on conflict do nothing",
        )
    } else {
        sqlx::query("delete from enterprise_list_entry where list_type = $1 and enterprise_id = $2")
    }
    .bind(i16::from(list))
    .bind(enterprise_id)
    .execute(conn)
    .await?
    .rows_affected();
    Ok(changed > 0)
}

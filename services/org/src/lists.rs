//! Enterprise lists (spec §6): which enterprises are on the white, SF, mt,
//! behaviour-analysis, lock-car, charge-blacklist, insurance-blacklist,
//! order-centre and need-open-page lists. Operator data in
//! `enterprise_list_entry` (the SF id list is list type SF), edited through
//! service-level RPCs; [`crate::rules`] turns membership into permissions.

use fleetdesk_kit::{ServiceError, convert, db, grpc};
use fleetdesk_proto::org::v1 as pb;
use sqlx::{PgConnection, PgPool};
use tonic::Request;
use uuid::Uuid;

use crate::changes;
use crate::charging::{self, Charging};
use crate::rules::ListMembership;

const WHITE: i16 = pb::EnterpriseListType::White as i16;
const SF: i16 = pb::EnterpriseListType::Sf as i16;
const MT: i16 = pb::EnterpriseListType::Mt as i16;
const BEHAVIOR: i16 = pb::EnterpriseListType::BehaviorAnalysis as i16;
const LOCK_CAR: i16 = pb::EnterpriseListType::LockCar as i16;
const CHARGE_BLACK: i16 = pb::EnterpriseListType::ChargeBlacklist as i16;
const INSURANCE_BLACK: i16 = pb::EnterpriseListType::InsuranceBlacklist as i16;
const ORDER_CENTER: i16 = pb::EnterpriseListType::OrderCenter as i16;
const NEED_OPEN_PAGE: i16 = pb::EnterpriseListType::NeedOpenPage as i16;

/// Everything the lists say about one enterprise.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lists {
    pub membership: ListMembership,
    /// On the need-open-page list: its console opens these pages in a new tab.
    pub need_open_pages: Vec<String>,
    /// Energy's charging state (not a list, but a flag of the same kind).
    pub charging: Charging,
}

impl Lists {
    /// The flags the console and gateway see.
    pub fn flags(&self) -> pb::EnterpriseFlags {
        let m = &self.membership;
        let g = m.groups();
        pb::EnterpriseFlags {
            white_list: g.white,
            sf: g.sf,
            mt: g.mt,
            b2b: g.b2b,
            behavior_analysis: m.behavior_analysis,
            lock_car: m.lock_car || m.lock_car_list_empty,
            charge_blacklist: m.charge_blacklist,
            insurance_blacklist: m.insurance_blacklist,
            order_center: m.order_center || g.sf,
            need_open_pages: self.need_open_pages.clone(),
            charge_account: self.charging.opened,
            charge_applying: self.charging.applying,
        }
    }
}

/// Reads the lists of `enterprise_id`. Needs a service-scoped transaction:
/// whether the lock-car list is empty is a question about every enterprise.
pub async fn of_enterprise(conn: &mut PgConnection, enterprise_id: Uuid) -> sqlx::Result<Lists> {
    let types: Vec<i16> =
        sqlx::query_scalar("select list_type from enterprise_list_entry where enterprise_id = $1")
            .bind(enterprise_id)
            .fetch_all(&mut *conn)
            .await?;
    let lock_car_list_empty: bool = sqlx::query_scalar(
        "select not exists(select 1 from enterprise_list_entry where list_type = $1)",
    )
    .bind(LOCK_CAR)
    .fetch_one(&mut *conn)
    .await?;
    let on = |t: i16| types.contains(&t);
    let need_open_pages = if on(NEED_OPEN_PAGE) {
        sqlx::query_scalar("select name from need_open_page order by name")
            .fetch_all(&mut *conn)
            .await?
    } else {
        Vec::new()
    };
    Ok(Lists {
        membership: ListMembership {
            white: on(WHITE),
            sf_list: on(SF),
            mt: on(MT),
            behavior_analysis: on(BEHAVIOR),
            lock_car_list_empty,
            lock_car: on(LOCK_CAR),
            charge_blacklist: on(CHARGE_BLACK),
            insurance_blacklist: on(INSURANCE_BLACK),
            order_center: on(ORDER_CENTER),
        },
        need_open_pages,
        charging: charging::of_enterprise(conn, enterprise_id).await?,
    })
}

fn list_type(value: i32) -> Result<i16, ServiceError> {
    match pb::EnterpriseListType::try_from(value) {
        Ok(pb::EnterpriseListType::Unspecified) | Err(_) => {
            Err(ServiceError::invalid("listType", "名单类型无效"))
        }
        Ok(t) => Ok(t as i16),
    }
}

/// Enterprise ids on one list (service callers only).
pub async fn entries(
    pool: &PgPool,
    request: Request<pb::ListEnterpriseListEntriesRequest>,
) -> Result<pb::ListEnterpriseListEntriesResponse, ServiceError> {
    grpc::require_service(&request)?;
    let list = list_type(request.get_ref().list_type)?;
    let mut tx = db::begin_service(pool).await?;
    let ids: Vec<Uuid> = sqlx::query_scalar(
        "select enterprise_id from enterprise_list_entry where list_type = $1 order by created_at, enterprise_id",
    )
    .bind(list)
    .fetch_all(&mut *tx)
    .await?;
    Ok(pb::ListEnterpriseListEntriesResponse {
        enterprise_ids: ids.iter().map(Uuid::to_string).collect(),
    })
}

/// Puts an enterprise on a list or takes it off (service callers only). The
/// lock-car list's emptiness matters to everyone, so every cached principal goes.
pub async fn set(
    pool: &PgPool,
    request: Request<pb::SetEnterpriseListMembershipRequest>,
) -> Result<pb::SetEnterpriseListMembershipResponse, ServiceError> {
    grpc::require_service(&request)?;
    let req = request.into_inner();
    let list = list_type(req.list_type)?;
    let enterprise_id = convert::id(&req.enterprise_id)?;
    let mut tx = db::begin_service(pool).await?;
    let exists: bool = sqlx::query_scalar("select exists(select 1 from enterprise where id = $1)")
        .bind(enterprise_id)
        .fetch_one(&mut *tx)
        .await?;
    if !exists {
        return Err(ServiceError::not_found());
    }
    let changed = if req.member {
        sqlx::query(
            "insert into enterprise_list_entry (list_type, enterprise_id) values ($1, $2) on conflict do nothing",
        )
    } else {
        sqlx::query("delete from enterprise_list_entry where list_type = $1 and enterprise_id = $2")
    }
    .bind(list)
    .bind(enterprise_id)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    if changed > 0 {
        let scope = if list == LOCK_CAR {
            None
        } else {
            Some(enterprise_id)
        };
        changes::principals_changed(&mut tx, scope, &[]).await?;
    }
    tx.commit().await?;
    tracing::info!(list, %enterprise_id, member = req.member, "Enterprise list changed.");
    Ok(pb::SetEnterpriseListMembershipResponse {})
}

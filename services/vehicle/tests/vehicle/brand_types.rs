//! What any member may ask of the vehicle service, over the real server:
//! the brand-type list (ListVehicleBrandTypes) and the forms' pickers
//! (PickVehicles, PickDrivers), within the caller's reach, never another
//! tenant's.

use crate::support;

use std::collections::BTreeMap;

use fleetdesk_kit::db;
use fleetdesk_proto::vehicle::v1 as pb;
use fleetdesk_proto::vehicle::v1::asset_service_client::AssetServiceClient;
use support::{Stack, Tenant};
use uuid::Uuid;

/// A unit below `t`'s organisation, with one vehicle of `brand`/`model` in it.
async fn branch_with_vehicle(s: &Stack, t: &Tenant, brand: &str, model: &str) -> Uuid {
    let branch = Uuid::new_v4();
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query(
        "insert into org_unit (id, enterprise_id, name, path, version) values ($1, $2, '分部', $3, 1)",
    )
    .bind(branch)
    .bind(t.enterprise)
    .bind(format!("/{}/{}/", t.org, branch))
    .execute(&mut *tx)
    .await
    .unwrap();
    let n = &Uuid::new_v4().simple().to_string()[..5];
    sqlx::query(
        "insert into vehicle (id, enterprise_id, org_id, plate_number, plate_color, vin, \
         brand, model, category, energy_type, ownership_type, status) \
         values ($1, $2, $3, $4, 3, $5, $6, $7, 2, 1, 1, 1)",
    )
    .bind(Uuid::new_v4())
    .bind(t.enterprise)
    .bind(branch)
    .bind(format!("粤D{}", n.to_uppercase()))
    .bind(format!("LBRAND{:011}", u64::from_str_radix(n, 16).unwrap()))
    .bind(brand)
    .bind(model)
    .execute(&mut *tx)
    .await
    .unwrap();
    tx.commit().await.unwrap();
    branch
}

fn shape(answer: pb::ListVehicleBrandTypesResponse) -> BTreeMap<String, Vec<String>> {
    answer
        .brand_types
        .into_iter()
        .map(|b| (b.brand, b.models))
        .collect()
}

fn map(entries: &[(&str, &[&str])]) -> BTreeMap<String, Vec<String>> {
    entries
        .iter()
        .map(|(b, ms)| {
            (
                (*b).to_owned(),
                ms.iter().map(|m| (*m).to_owned()).collect(),
            )
        })
        .collect()
}

#[tokio::test]
async fn brand_types_follow_the_reach_and_never_cross_tenants() {
    let s = support::stack().await;
    let a = s.tenant(2).await;
    let b = s.tenant_with_plates(1, "京A").await;
    let branch = branch_with_vehicle(&s, &a, "比亚迪", "T5").await;
    branch_with_vehicle(&s, &a, "比亚迪", "").await;
    branch_with_vehicle(&s, &b, "福田", "智蓝").await;
    let mut client = AssetServiceClient::new(s.channel.clone());

    // No permission is needed; the whole enterprise sees every brand once.
    let whole = client
        .list_vehicle_brand_types(s.req_as(&a, a.user, &[], pb::ListVehicleBrandTypesRequest {}))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(shape(whole), map(&[("东风", &["EV"]), ("比亚迪", &["T5"])]));

    // Only the branch's subtree: its brand only.
    let narrow = client
        .list_vehicle_brand_types(s.req_reaching(
            &a,
            a.user,
            &[],
            vec![branch],
            pb::ListVehicleBrandTypesRequest {},
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(shape(narrow), map(&[("比亚迪", &["T5"])]));

    // Reaching nothing: nothing.
    let none = client
        .list_vehicle_brand_types(s.req_reaching(
            &a,
            a.user,
            &[],
            Vec::new(),
            pb::ListVehicleBrandTypesRequest {},
        ))
        .await
        .unwrap()
        .into_inner();
    assert!(none.brand_types.is_empty(), "{none:?}");

    // The other tenant sees its own brands only.
    let other = client
        .list_vehicle_brand_types(s.req_as(&b, b.user, &[], pb::ListVehicleBrandTypesRequest {}))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(shape(other), map(&[("东风", &["EV"]), ("福田", &["智蓝"])]));
}

#[tokio::test]
async fn the_pickers_need_no_permission_follow_the_reach_and_never_cross_tenants() {
    let s = support::stack().await;
    let a = s.tenant(2).await;
    let b = s.tenant_with_plates(1, "京A").await;
    let branch = branch_with_vehicle(&s, &a, "比亚迪", "T5").await;
    let driver = Uuid::new_v4();
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query(
        "insert into driver (id, enterprise_id, org_id, name, phone, id_number, licence_class, \
         status) values ($1, $2, $3, '王师傅', '13800000009', 'ID-PICKER-1', 1, 1)",
    )
    .bind(driver)
    .bind(a.enterprise)
    .bind(branch)
    .execute(&mut *tx)
    .await
    .unwrap();
    tx.commit().await.unwrap();
    let mut client = AssetServiceClient::new(s.channel.clone());
    let plates = |answer: pb::PickVehiclesResponse| -> Vec<String> {
        let mut plates: Vec<String> = answer
            .vehicles
            .into_iter()
            .map(|v| v.plate_number)
            .collect();
        plates.sort();
        plates
    };

    // No permission; the whole enterprise: every vehicle, a keyword narrows.
    let whole = client
        .pick_vehicles(s.req_as(&a, a.user, &[], pb::PickVehiclesRequest::default()))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(whole.vehicles.len(), 3);
    let found = client
        .pick_vehicles(s.req_as(
            &a,
            a.user,
            &[],
            pb::PickVehiclesRequest {
                keyword: "粤B00001".into(),
            },
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(plates(found), ["粤B00001"]);

    // The branch's subtree only: its vehicle and driver.
    let narrow = client
        .pick_vehicles(s.req_reaching(
            &a,
            a.user,
            &[],
            vec![branch],
            pb::PickVehiclesRequest::default(),
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(narrow.vehicles.len(), 1);
    assert!(narrow.vehicles[0].plate_number.starts_with("粤D"));
    let drivers = client
        .pick_drivers(s.req_reaching(
            &a,
            a.user,
            &[],
            vec![branch],
            pb::PickDriversRequest {
                keyword: "王".into(),
            },
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        drivers
            .drivers
            .iter()
            .map(|d| (d.id.clone(), d.name.clone()))
            .collect::<Vec<_>>(),
        [(driver.to_string(), "王师傅".to_owned())]
    );
    let elsewhere = client
        .pick_drivers(s.req_reaching(
            &a,
            a.user,
            &[],
            vec![Uuid::new_v4()],
            pb::PickDriversRequest::default(),
        ))
        .await
        .unwrap()
        .into_inner();
    assert!(elsewhere.drivers.is_empty(), "{elsewhere:?}");

    // The other tenant picks its own only.
    let other = client
        .pick_vehicles(s.req_as(&b, b.user, &[], pb::PickVehiclesRequest::default()))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(plates(other), ["京A00000"]);
}

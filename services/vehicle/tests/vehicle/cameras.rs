//! Cameras and the viewing audit over the real vehicle service: the camera
//! list follows the tenant and the reach and leaves out vehicles without
//! video; one camera vehicle answers its terminal's phone only inside the
//! tenant and reach; viewings are recorded, ended once by their viewer, and
//! listed for the audit under the same reach. Camera rows are written as
//! the device edge's report leaves them (`vehicle_camera`).

use fleetdesk_kit::{ErrorCode, ServiceError, db};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use uuid::Uuid;

use crate::support;

use support::{Stack, Tenant};

const VIDEO: &str = "as:risk:video";

fn err(s: &tonic::Status) -> ServiceError {
    ServiceError::from_status(s)
}

fn page() -> Option<common::PageRequest> {
    Some(common::PageRequest { page: 1, size: 100 })
}

/// What the edge's report leaves for `vehicle`: `channels` video channels.
async fn camera(s: &Stack, t: &Tenant, vehicle: Uuid, phone: &str, channels: i16) {
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query(
        "insert into vehicle_camera (vehicle_id, enterprise_id, org_id, phone, video_channels, \
         audio_channels, video_encoding, reported_at) \
         select id, enterprise_id, org_id, $2, $3, 1, 98, now() from vehicle \
         where id = $1 and enterprise_id = $4",
    )
    .bind(vehicle)
    .bind(phone)
    .bind(channels)
    .bind(t.enterprise)
    .execute(&mut *tx)
    .await
    .unwrap();
    tx.commit().await.unwrap();
}

/// A fix `minutes_ago` of `vehicle`, as ingest keeps the latest one.
async fn latest_fix(s: &Stack, t: &Tenant, vehicle: Uuid, minutes_ago: i32) {
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query(
        "insert into latest_position (vehicle_id, enterprise_id, fix_time, receive_time, lat, \
           lng, altitude_m, speed_dkmh, heading, alarm_bits, status_bits) \
         values ($1, $2, now() - make_interval(mins => $3), now(), 22.54, 114.05, 0, 0, 0, 0, 0)",
    )
    .bind(vehicle)
    .bind(t.enterprise)
    .bind(minutes_ago)
    .execute(&mut *tx)
    .await
    .unwrap();
    tx.commit().await.unwrap();
}

/// A branch under `t`'s organisation and `vehicle` moved into it.
async fn branch_of(s: &Stack, t: &Tenant, vehicle: Uuid) -> Uuid {
    let branch = Uuid::new_v4();
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query(
        "insert into org_unit (id, enterprise_id, name, path, version) \
         values ($1, $2, '分部', $3, 1)",
    )
    .bind(branch)
    .bind(t.enterprise)
    .bind(format!("/{}/{branch}/", t.org))
    .execute(&mut *tx)
    .await
    .unwrap();
    sqlx::query("update vehicle set org_id = $2 where id = $1")
        .bind(vehicle)
        .bind(branch)
        .execute(&mut *tx)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    branch
}

impl Stack {
    fn video<T>(&self, t: &Tenant, message: T) -> tonic::Request<T> {
        self.req_as(t, t.user, &[VIDEO], message)
    }

    async fn camera_plates(
        &self,
        req: tonic::Request<pb::ListCameraVehiclesRequest>,
    ) -> Vec<String> {
        let answer = self
            .telemetry
            .clone()
            .list_camera_vehicles(req)
            .await
            .unwrap()
            .into_inner();
        assert_eq!(
            answer.page.unwrap().total,
            answer.vehicles.len() as i64,
            "the total counts what is listed"
        );
        answer
            .vehicles
            .into_iter()
            .map(|v| v.plate_number)
            .collect()
    }

    async fn get_camera(
        &self,
        req: tonic::Request<pb::GetCameraVehicleRequest>,
    ) -> Result<pb::GetCameraVehicleResponse, ServiceError> {
        self.telemetry
            .clone()
            .get_camera_vehicle(req)
            .await
            .map(|r| r.into_inner())
            .map_err(|s| err(&s))
    }

    async fn start(
        &self,
        req: tonic::Request<pb::StartVideoViewRequest>,
    ) -> Result<String, ServiceError> {
        self.telemetry
            .clone()
            .start_video_view(req)
            .await
            .map(|r| r.into_inner().view_id)
            .map_err(|s| err(&s))
    }

    async fn views(&self, req: tonic::Request<pb::ListVideoViewsRequest>) -> Vec<pb::VideoView> {
        self.telemetry
            .clone()
            .list_video_views(req)
            .await
            .unwrap()
            .into_inner()
            .views
    }
}

fn list_all() -> pb::ListCameraVehiclesRequest {
    pb::ListCameraVehiclesRequest {
        page: page(),
        ..Default::default()
    }
}

fn get(vehicle: Uuid) -> pb::GetCameraVehicleRequest {
    pb::GetCameraVehicleRequest {
        vehicle_id: vehicle.to_string(),
    }
}

fn live(vehicle: Uuid, channel: u32) -> pb::StartVideoViewRequest {
    pb::StartVideoViewRequest {
        vehicle_id: vehicle.to_string(),
        channel,
        kind: pb::VideoViewKind::Live as i32,
    }
}

fn views_of(vehicle: Option<Uuid>) -> pb::ListVideoViewsRequest {
    pb::ListVideoViewsRequest {
        page: page(),
        vehicle_id: vehicle.map(|v| v.to_string()).unwrap_or_default(),
        ..Default::default()
    }
}

async fn the_camera_list_follows_tenant_and_reach_and_leaves_out_vehicles_without_video(s: &Stack) {
    // 粤B00000 two cameras, online; 粤B00001 no report; 粤B00002 a report
    // without video; 粤B00003 one camera in a branch, last seen an hour ago.
    let a = s.tenant_with_plates(4, "粤B").await;
    let b = s.tenant_with_plates(1, "沪A").await;
    camera(s, &a, a.vehicles[0], "13800000001", 2).await;
    camera(s, &a, a.vehicles[2], "13800000002", 0).await;
    camera(s, &a, a.vehicles[3], "13800000003", 1).await;
    camera(s, &b, b.vehicles[0], "13900000001", 4).await;
    latest_fix(s, &a, a.vehicles[0], 1).await;
    latest_fix(s, &a, a.vehicles[3], 60).await;
    let branch = branch_of(s, &a, a.vehicles[3]).await;

    let answer = s
        .telemetry
        .clone()
        .list_camera_vehicles(s.video(&a, list_all()))
        .await
        .unwrap()
        .into_inner();
    let seen: Vec<(String, bool, Vec<u32>)> = answer
        .vehicles
        .iter()
        .map(|v| (v.plate_number.clone(), v.online, v.channels.clone()))
        .collect();
    assert_eq!(
        seen,
        vec![
            ("粤B00000".to_owned(), true, vec![1, 2]),
            ("粤B00003".to_owned(), false, vec![1]),
        ]
    );
    assert_eq!(answer.vehicles[1].org_name, "分部");

    // The plate search and the organisation filter narrow it.
    let searched = s
        .camera_plates(s.video(
            &a,
            pb::ListCameraVehiclesRequest {
                plate_search: "0003".into(),
                ..list_all()
            },
        ))
        .await;
    assert_eq!(searched, vec!["粤B00003"]);
    let in_branch = s
        .camera_plates(s.video(
            &a,
            pb::ListCameraVehiclesRequest {
                org_ids: vec![branch.to_string()],
                ..list_all()
            },
        ))
        .await;
    assert_eq!(in_branch, vec!["粤B00003"]);

    // A user reaching only the branch sees only its camera; B only its own.
    let narrow = s
        .camera_plates(s.req_reaching(&a, a.user, &[VIDEO], vec![branch], list_all()))
        .await;
    assert_eq!(narrow, vec!["粤B00003"]);
    assert_eq!(
        s.camera_plates(s.video(&b, list_all())).await,
        vec!["沪A00000"]
    );

    // Without the permission: refused.
    let refused = s
        .telemetry
        .clone()
        .list_camera_vehicles(s.req_as(&a, a.user, &["as:mancar"], list_all()))
        .await
        .unwrap_err();
    assert_eq!(err(&refused).code, ErrorCode::Forbidden);
}

async fn one_camera_vehicle_answers_its_phone_only_inside_tenant_and_reach(s: &Stack) {
    let a = s.tenant_with_plates(3, "粤C").await;
    let b = s.tenant_with_plates(1, "沪B").await;
    camera(s, &a, a.vehicles[0], "13800000011", 2).await;
    camera(s, &a, a.vehicles[2], "13800000012", 1).await;
    let branch = branch_of(s, &a, a.vehicles[2]).await;

    let got = s.get_camera(s.video(&a, get(a.vehicles[0]))).await.unwrap();
    assert_eq!(got.phone, "13800000011");
    let vehicle = got.vehicle.unwrap();
    assert_eq!(
        (vehicle.plate_number.as_str(), vehicle.channels),
        ("粤C00000", vec![1, 2])
    );

    // Another tenant's vehicle, an unknown id, one out of reach: not found.
    let other = s
        .get_camera(s.video(&b, get(a.vehicles[0])))
        .await
        .unwrap_err();
    assert_eq!(other.code, ErrorCode::NotFound);
    let unknown = s
        .get_camera(s.video(&a, get(Uuid::new_v4())))
        .await
        .unwrap_err();
    assert_eq!(unknown.code, ErrorCode::NotFound);
    let outside = s
        .get_camera(s.req_reaching(&a, a.user, &[VIDEO], vec![branch], get(a.vehicles[0])))
        .await
        .unwrap_err();
    assert_eq!(outside.code, ErrorCode::NotFound);
    let inside = s
        .get_camera(s.req_reaching(&a, a.user, &[VIDEO], vec![branch], get(a.vehicles[2])))
        .await
        .unwrap();
    assert_eq!(inside.phone, "13800000012");

    // A vehicle of the caller's without a camera says so.
    let none = s
        .get_camera(s.video(&a, get(a.vehicles[1])))
        .await
        .unwrap_err();
    assert_eq!(
        (none.code, none.message.as_str()),
        (ErrorCode::Conflict, "该车辆未配置摄像头")
    );
}

async fn viewings_are_recorded_ended_once_and_audited_under_the_reach(s: &Stack) {
    let a = s.tenant_with_plates(2, "粤D").await;
    let b = s.tenant_with_plates(1, "沪C").await;
    camera(s, &a, a.vehicles[0], "13800000021", 2).await;
    camera(s, &a, a.vehicles[1], "13800000022", 1).await;
    let branch = branch_of(s, &a, a.vehicles[1]).await;

    // A channel the vehicle lacks, a vehicle without camera, another
    // tenant's vehicle: nothing recorded.
    let bad = s
        .start(s.video(&a, live(a.vehicles[0], 3)))
        .await
        .unwrap_err();
    assert_eq!(bad.fields[0].field, "channel");
    let unknown_kind = s
        .start(s.video(
            &a,
            pb::StartVideoViewRequest {
                kind: 0,
                ..live(a.vehicles[0], 1)
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(unknown_kind.fields[0].field, "kind");
    let other = s
        .start(s.video(&b, live(a.vehicles[0], 1)))
        .await
        .unwrap_err();
    assert_eq!(other.code, ErrorCode::NotFound);
    assert!(s.views(s.video(&a, views_of(None))).await.is_empty());

    let first = s.start(s.video(&a, live(a.vehicles[0], 2))).await.unwrap();
    let second = s
        .start(s.video(
            &a,
            pb::StartVideoViewRequest {
                kind: pb::VideoViewKind::Playback as i32,
                ..live(a.vehicles[1], 1)
            },
        ))
        .await
        .unwrap();
    let listed = s.views(s.video(&a, views_of(None))).await;
    assert_eq!(
        listed.iter().map(|v| v.id.as_str()).collect::<Vec<_>>(),
        vec![second.as_str(), first.as_str()],
        "newest first"
    );
    let lasting = &listed[1];
    assert_eq!(
        (lasting.plate_number.as_str(), lasting.channel, lasting.kind),
        ("粤D00000", 2, pb::VideoViewKind::Live as i32)
    );
    assert_eq!(lasting.viewer_id, a.user.to_string());
    assert!(lasting.ended_at.is_none(), "lasting until its end is heard");

    // Another user of the tenant cannot end it; its viewer can, once.
    let stranger = s
        .telemetry
        .clone()
        .end_video_view(s.req_as(
            &a,
            Uuid::new_v4(),
            &[VIDEO],
            pb::EndVideoViewRequest {
                view_id: first.clone(),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&stranger).code, ErrorCode::NotFound);
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    for _ in 0..2 {
        s.telemetry
            .clone()
            .end_video_view(s.video(
                &a,
                pb::EndVideoViewRequest {
                    view_id: first.clone(),
                },
            ))
            .await
            .unwrap();
    }
    let ended = s.views(s.video(&a, views_of(Some(a.vehicles[0])))).await;
    assert_eq!(ended.len(), 1, "one vehicle's viewings");
    let ended_at = ended[0].ended_at.unwrap();
    assert!(ended[0].duration_seconds >= 1, "{:?}", ended[0]);
    let again = s.views(s.video(&a, views_of(Some(a.vehicles[0])))).await;
    assert_eq!(
        again[0].ended_at,
        Some(ended_at),
        "ending again changes nothing"
    );

    // The audit follows the reach (a viewer always sees their own
    // viewings; another user reaching only the branch sees its vehicle's);
    // another tenant sees none of it.
    let narrow = s
        .views(s.req_reaching(&a, Uuid::new_v4(), &[VIDEO], vec![branch], views_of(None)))
        .await;
    assert_eq!(
        narrow.iter().map(|v| v.id.as_str()).collect::<Vec<_>>(),
        vec![second.as_str()]
    );
    assert!(s.views(s.video(&b, views_of(None))).await.is_empty());
}

#[tokio::test]
async fn cameras_on_one_stack() {
    let s = support::stack().await;
    fleetdesk_testkit::scenarios!(&s;
        the_camera_list_follows_tenant_and_reach_and_leaves_out_vehicles_without_video,
        one_camera_vehicle_answers_its_phone_only_inside_tenant_and_reach,
        viewings_are_recorded_ended_once_and_audited_under_the_reach,
    );
}

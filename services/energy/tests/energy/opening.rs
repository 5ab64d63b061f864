//! Opening charging over the real energy service: apply → APPLYING → a
//! second application refused → only the operator decides → approved:
//! OPENED with the MAIN account and the organisation sub-accounts, each
//! change announced for org's flags; a rejection lets the enterprise apply
//! again; an enterprise without charging is refused the account calls.

use crate::support;

use fleetdesk_kit::{ErrorCode, db};
use fleetdesk_proto::energy::v1 as pb;
use prost::Message as _;
use support::{err, stack};

/// The charging states announced for `enterprise`, oldest first.
async fn announced(owner: &sqlx_postgres::PgPool, enterprise: uuid::Uuid) -> Vec<(i32, i64)> {
    let mut tx = db::begin_service(owner).await.unwrap();
    let payloads: Vec<Vec<u8>> = sqlx::query_scalar(
        "select payload from outbox where subject = 'fleetdesk.energy.opening.changed' \
         order by created_at, id",
    )
    .fetch_all(&mut *tx)
    .await
    .unwrap();
    payloads
        .iter()
        .map(|p| pb::ChargingOpenChanged::decode(p.as_slice()).unwrap())
        .filter(|e| e.enterprise_id == enterprise.to_string())
        .map(|e| (e.state, e.version))
        .collect()
}

#[tokio::test]
async fn an_application_is_pending_until_the_operator_opens_charging() {
    let s = stack(false).await;
    let mut c = s.client.clone();
    let status = c
        .get_charging_open_status(s.req(&s.a, pb::GetChargingOpenStatusRequest {}))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(status.state, pb::ChargingOpenState::NotOpened as i32);
    assert!(status.latest_application.is_none());
    let refused = c
        .get_main_charging_account(s.req(&s.a, pb::GetMainChargingAccountRequest {}))
        .await
        .unwrap_err();
    assert_eq!(err(&refused).code, ErrorCode::Conflict);
    assert!(err(&refused).message.contains("尚未开通"));

    let application = c
        .apply_charging_open(s.req(
            &s.a,
            pb::ApplyChargingOpenRequest {
                remark: "车队 200 台".into(),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .application
        .unwrap();
    assert_eq!(
        application.status,
        pb::ChargingOpenApplicationStatus::Pending as i32
    );
    let status = c
        .get_charging_open_status(s.req(&s.a, pb::GetChargingOpenStatusRequest {}))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(status.state, pb::ChargingOpenState::Applying as i32);
    assert_eq!(status.latest_application.unwrap().id, application.id);

    let again = c
        .apply_charging_open(s.req(&s.a, pb::ApplyChargingOpenRequest::default()))
        .await
        .unwrap_err();
    assert_eq!(err(&again).code, ErrorCode::Conflict);
    assert_eq!(err(&again).message, "您的开通申请正在处理中，请勿重复提交");

    // Neither the enterprise itself nor another service may approve.
    let approve = |application_id: String| pb::ApproveChargingOpenApplicationRequest {
        application_id,
        credit_limit_fen: 0,
        remark: String::new(),
    };
    let by_user = c
        .approve_charging_open_application(s.req(&s.a, approve(application.id.clone())))
        .await
        .unwrap_err();
    assert_eq!(err(&by_user).code, ErrorCode::Forbidden);
    let by_service = c
        .approve_charging_open_application(fleetdesk_kit::grpc::outgoing(
            approve(application.id.clone()),
            &s.signer,
            &fleetdesk_kit::internal_token::Claims::service("vehicle"),
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&by_service).code, ErrorCode::Forbidden);

    // The operator sees every enterprise's pending applications.
    let pending = c
        .list_charging_open_applications(s.operator(pb::ListChargingOpenApplicationsRequest {
            statuses: vec![pb::ChargingOpenApplicationStatus::Pending as i32],
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(pending.applications.len(), 1);
    assert_eq!(pending.applications[0].remark, "车队 200 台");

    let approved = c
        .approve_charging_open_application(s.operator(approve(application.id.clone())))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        approved.application.unwrap().status,
        pb::ChargingOpenApplicationStatus::Approved as i32
    );
    let main = approved.main_account.unwrap();
    assert_eq!(main.kind, pb::ChargingAccountKind::Main as i32);
    assert_eq!(main.org_id, s.a.root.to_string());
    assert_eq!(main.available_fen, 0);
    let twice = c
        .approve_charging_open_application(s.operator(approve(application.id.clone())))
        .await
        .unwrap_err();
    assert_eq!(err(&twice).code, ErrorCode::Conflict);

    let status = c
        .get_charging_open_status(s.req(&s.a, pb::GetChargingOpenStatusRequest {}))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(status.state, pb::ChargingOpenState::Opened as i32);
    let opened = c
        .apply_charging_open(s.req(&s.a, pb::ApplyChargingOpenRequest::default()))
        .await
        .unwrap_err();
    assert!(err(&opened).message.contains("已开通"));

    // MAIN serves the root; each organisation below has its sub-account under its parent's.
    let accounts = s.accounts(&s.a).await;
    assert_eq!(accounts.len(), 4);
    let of = |org: uuid::Uuid| {
        accounts
            .iter()
            .find(|a| a.org_id == org.to_string())
            .unwrap()
    };
    assert_eq!(of(s.a.root).id, main.id);
    assert_eq!(of(s.a.east).parent_account_id, main.id);
    assert_eq!(of(s.a.shanghai).parent_account_id, of(s.a.east).id);
    assert_eq!(of(s.a.shanghai).level, 2);

    // Org follows every change: APPLYING then OPENED, in version order.
    assert_eq!(
        announced(&s.owner, s.a.enterprise).await,
        vec![
            (pb::ChargingOpenState::Applying as i32, 1),
            (pb::ChargingOpenState::Opened as i32, 2)
        ]
    );
    // B saw none of it.
    let b = c
        .get_charging_open_status(s.req(&s.b, pb::GetChargingOpenStatusRequest {}))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(b.state, pb::ChargingOpenState::NotOpened as i32);
    let b_list = c
        .list_charging_open_applications(s.req(
            &s.b,
            pb::ListChargingOpenApplicationsRequest {
                enterprise_id: s.a.enterprise.to_string(),
                ..Default::default()
            },
        ))
        .await
        .unwrap()
        .into_inner();
    assert!(b_list.applications.is_empty());
}

#[tokio::test]
async fn a_rejected_enterprise_may_apply_again() {
    let s = stack(false).await;
    let mut c = s.client.clone();
    let application = c
        .apply_charging_open(s.req(&s.b, pb::ApplyChargingOpenRequest::default()))
        .await
        .unwrap()
        .into_inner()
        .application
        .unwrap();
    let no_reason = c
        .reject_charging_open_application(s.operator(pb::RejectChargingOpenApplicationRequest {
            application_id: application.id.clone(),
            reason: " ".into(),
        }))
        .await
        .unwrap_err();
    assert_eq!(err(&no_reason).fields[0].field, "reason");
    let rejected = c
        .reject_charging_open_application(s.operator(pb::RejectChargingOpenApplicationRequest {
            application_id: application.id,
            reason: "资料不全".into(),
        }))
        .await
        .unwrap()
        .into_inner()
        .application
        .unwrap();
    assert_eq!(
        rejected.status,
        pb::ChargingOpenApplicationStatus::Rejected as i32
    );
    assert_eq!(rejected.reject_reason, "资料不全");
    let status = c
        .get_charging_open_status(s.req(&s.b, pb::GetChargingOpenStatusRequest {}))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(status.state, pb::ChargingOpenState::NotOpened as i32);
    c.apply_charging_open(s.req(&s.b, pb::ApplyChargingOpenRequest::default()))
        .await
        .unwrap();
    let own = c
        .list_charging_open_applications(
            s.req(&s.b, pb::ListChargingOpenApplicationsRequest::default()),
        )
        .await
        .unwrap()
        .into_inner();
    assert_eq!(own.applications.len(), 2);
    assert_eq!(own.page.unwrap().total, 2);
}

#[tokio::test]
async fn the_operators_approval_remark_is_kept_on_the_application() {
    let s = stack(false).await;
    let mut c = s.client.clone();
    let application = c
        .apply_charging_open(s.req(
            &s.a,
            pb::ApplyChargingOpenRequest {
                remark: "车队 200 台".into(),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .application
        .unwrap();
    assert_eq!(application.approve_remark, "");
    let approve = |remark: String| pb::ApproveChargingOpenApplicationRequest {
        application_id: application.id.clone(),
        credit_limit_fen: 50_000,
        remark,
    };
    // Too long: refused, and the application is still undecided.
    let long = c
        .approve_charging_open_application(s.operator(approve("长".repeat(201))))
        .await
        .unwrap_err();
    assert_eq!(err(&long).code, ErrorCode::BadRequest);
    assert_eq!(err(&long).fields[0].field, "remark");
    let status = c
        .get_charging_open_status(s.req(&s.a, pb::GetChargingOpenStatusRequest {}))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(status.state, pb::ChargingOpenState::Applying as i32);

    let approved = c
        .approve_charging_open_application(s.operator(approve("  合同 HT-2026-118 已签  ".into())))
        .await
        .unwrap()
        .into_inner()
        .application
        .unwrap();
    assert_eq!(approved.approve_remark, "合同 HT-2026-118 已签");
    // The applicant's note is its own field, untouched.
    assert_eq!(approved.remark, "车队 200 台");
    // Stored: the enterprise reads it back on its status and its list.
    let status = c
        .get_charging_open_status(s.req(&s.a, pb::GetChargingOpenStatusRequest {}))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        status.latest_application.unwrap().approve_remark,
        "合同 HT-2026-118 已签"
    );
    let own = c
        .list_charging_open_applications(
            s.req(&s.a, pb::ListChargingOpenApplicationsRequest::default()),
        )
        .await
        .unwrap()
        .into_inner();
    assert_eq!(own.applications[0].approve_remark, "合同 HT-2026-118 已签");
}

#[tokio::test]
async fn the_application_export_lists_the_enterprises_own_rows_under_the_lists_filter() {
    let s = stack(false).await;
    let mut c = s.client.clone();
    // A: one application rejected, then a second one pending; B: one pending.
    let first = c
        .apply_charging_open(s.req(
            &s.a,
            pb::ApplyChargingOpenRequest {
                remark: "车队 200 台".into(),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .application
        .unwrap();
    c.reject_charging_open_application(s.operator(pb::RejectChargingOpenApplicationRequest {
        application_id: first.id,
        reason: "资料不全".into(),
    }))
    .await
    .unwrap();
    c.apply_charging_open(s.req(&s.a, pb::ApplyChargingOpenRequest::default()))
        .await
        .unwrap();
    c.apply_charging_open(s.req(
        &s.b,
        pb::ApplyChargingOpenRequest {
            remark: "B 的申请".into(),
        },
    ))
    .await
    .unwrap();

    // Every application of A, newest first; B's stays out.
    let job = c
        .export_charging_open_applications(
            s.req(&s.a, pb::ExportChargingOpenApplicationsRequest::default()),
        )
        .await
        .unwrap()
        .into_inner()
        .job
        .unwrap();
    let rows = s.exported_rows(&job.id).await;
    assert_eq!(
        rows[0],
        [
            "申请时间",
            "申请人",
            "状态",
            "处理时间",
            "处理人",
            "申请备注",
            "处理意见"
        ]
    );
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[1][2], "待处理");
    assert_eq!(rows[1][3], "");
    assert_eq!(rows[2][2], "未通过");
    assert_eq!(rows[2][4], "平台运营");
    assert_eq!(rows[2][5], "车队 200 台");
    assert_eq!(rows[2][6], "资料不全");
    assert!(!rows[2][3].is_empty());
    assert!(rows.iter().all(|r| !r.contains(&"B 的申请".to_owned())));

    // The list's filter holds, and naming A's enterprise gives B nothing of A.
    let rejected = c
        .export_charging_open_applications(s.req(
            &s.a,
            pb::ExportChargingOpenApplicationsRequest {
                filter: Some(pb::ListChargingOpenApplicationsRequest {
                    statuses: vec![pb::ChargingOpenApplicationStatus::Rejected as i32],
                    ..Default::default()
                }),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .job
        .unwrap();
    let rows = s.exported_rows(&rejected.id).await;
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[1][6], "资料不全");
    let of_b = c
        .export_charging_open_applications(s.req(
            &s.b,
            pb::ExportChargingOpenApplicationsRequest {
                filter: Some(pb::ListChargingOpenApplicationsRequest {
                    enterprise_id: s.a.enterprise.to_string(),
                    ..Default::default()
                }),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .job
        .unwrap();
    let rows = s.exported_rows(&of_b.id).await;
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[1][5], "B 的申请");

    // A bad filter is refused when asked, not in the worker.
    let bad = c
        .export_charging_open_applications(s.req(
            &s.a,
            pb::ExportChargingOpenApplicationsRequest {
                filter: Some(pb::ListChargingOpenApplicationsRequest {
                    statuses: vec![99],
                    ..Default::default()
                }),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&bad).fields[0].field, "statuses");
    // The operator acts for no enterprise: no export record to keep.
    assert!(
        c.export_charging_open_applications(
            s.operator(pb::ExportChargingOpenApplicationsRequest::default())
        )
        .await
        .is_err()
    );
}

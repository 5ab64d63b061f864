//! Insurance policies over the real vehicle service (MaintenanceService,
//! fleetdesk-maintenance::insurance): recording and correcting policies with
//! their coverage items and documents, the list's filters and expiry states,
//! the document answered only for a policy the caller may see, the import
//! all rows or none, the caller's data scope, the permission (which the
//! insurance blacklist takes away), and nothing of one tenant seen by
//! another.

use crate::support;

use chrono::{DateTime, Duration, Utc};
use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::{ErrorCode, ServiceError, db};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use fleetdesk_proto::vehicle::v1::maintenance_service_client::MaintenanceServiceClient;
use support::{Stack, Tenant};
use tonic::transport::Channel;
use uuid::Uuid;

const PERMS: &[&str] = &["as:insurance", "as:insurance:file"];

fn client(s: &Stack) -> MaintenanceServiceClient<Channel> {
    MaintenanceServiceClient::new(s.channel.clone())
}

fn req<T>(s: &Stack, t: &Tenant, message: T) -> tonic::Request<T> {
    s.req_as(t, t.user, PERMS, message)
}

fn err(status: &tonic::Status) -> ServiceError {
    ServiceError::from_status(status)
}

fn field(status: &tonic::Status) -> String {
    err(status)
        .fields
        .first()
        .map(|f| f.field.clone())
        .unwrap_or_default()
}

fn plate(i: usize) -> String {
    format!("粤B{i:05}")
}

fn form(
    i: usize,
    kind: pb::InsuranceKind,
    policy_no: &str,
    (start, end): (DateTime<Utc>, DateTime<Utc>),
) -> pb::InsurancePolicyForm {
    let coverages = if kind == pb::InsuranceKind::Commercial {
        vec![
            pb::InsuranceCoverage {
                name: "车损险".into(),
                sum_insured_fen: 15_000_000,
                premium_fen: 200_000,
                deductible_fen: 0,
            },
            pb::InsuranceCoverage {
                name: "第三者责任险".into(),
                sum_insured_fen: 200_000_000,
                premium_fen: 150_000,
                deductible_fen: 0,
            },
        ]
    } else {
        Vec::new()
    };
    pb::InsurancePolicyForm {
        plate_number: plate(i),
        kind: kind.into(),
        insurer: "中国人民财产保险".into(),
        policy_no: policy_no.into(),
        insured_name: "测试物流".into(),
        start_time: Some(timestamp(start)),
        end_time: Some(timestamp(end)),
        premium_fen: 400_000,
        coverages,
        documents: Vec::new(),
    }
}

async fn create(
    s: &Stack,
    t: &Tenant,
    form: pb::InsurancePolicyForm,
) -> Result<pb::InsurancePolicy, tonic::Status> {
    client(s)
        .create_insurance_policy(req(
            s,
            t,
            pb::CreateInsurancePolicyRequest { form: Some(form) },
        ))
        .await
        .map(|r| r.into_inner().policy.unwrap())
}

async fn list(
    s: &Stack,
    t: &Tenant,
    f: pb::ListInsurancePoliciesRequest,
) -> pb::ListInsurancePoliciesResponse {
    client(s)
        .list_insurance_policies(req(
            s,
            t,
            pb::ListInsurancePoliciesRequest {
                page: Some(common::PageRequest { page: 1, size: 100 }),
                ..f
            },
        ))
        .await
        .unwrap()
        .into_inner()
}

fn nos(r: &pb::ListInsurancePoliciesResponse) -> Vec<&str> {
    let mut out: Vec<&str> = r.policies.iter().map(|p| p.policy_no.as_str()).collect();
    out.sort_unstable();
    out
}

/// One policy per expiry state on vehicles 0..4: expired, expiring, valid, pending.
async fn four_states(s: &Stack, t: &Tenant) -> Vec<pb::InsurancePolicy> {
    let now = Utc::now();
    let day = Duration::days(1);
    let mut out = Vec::new();
    for (i, kind, no, period) in [
        (
            0,
            pb::InsuranceKind::Compulsory,
            "P-EXPIRED",
            (now - day * 400, now - day * 35),
        ),
        (
            1,
            pb::InsuranceKind::Commercial,
            "P-EXPIRING",
            (now - day * 355, now + day * 10),
        ),
        (
            2,
            pb::InsuranceKind::Commercial,
            "P-ACTIVE",
            (now - day * 10, now + day * 355),
        ),
        (
            3,
            pb::InsuranceKind::Compulsory,
            "P-PENDING",
            (now + day * 5, now + day * 370),
        ),
    ] {
        out.push(create(s, t, form(i, kind, no, period)).await.unwrap());
    }
    out
}

#[tokio::test]
async fn the_list_filters_by_expiry_state_kind_insurer_plate_and_end_time() {
    let s = support::stack().await;
    let t = s.tenant(4).await;
    let made = four_states(&s, &t).await;
    let status = |p: &pb::InsurancePolicy| pb::PolicyStatus::try_from(p.status).unwrap();
    assert_eq!(
        made.iter().map(status).collect::<Vec<_>>(),
        [
            pb::PolicyStatus::Expired,
            pb::PolicyStatus::Expiring,
            pb::PolicyStatus::Active,
            pb::PolicyStatus::Pending
        ]
    );
    assert_eq!(made[1].coverages.len(), 2);
    assert_eq!(made[1].coverages[1].sum_insured_fen, 200_000_000);
    assert_eq!(made[0].vin, "LVIN0000000000000");

    let by = |statuses: &[pb::PolicyStatus]| pb::ListInsurancePoliciesRequest {
        statuses: statuses.iter().map(|s| *s as i32).collect(),
        ..Default::default()
    };
    assert_eq!(
        nos(&list(&s, &t, by(&[pb::PolicyStatus::Expired])).await),
        ["P-EXPIRED"]
    );
    assert_eq!(
        nos(&list(&s, &t, by(&[pb::PolicyStatus::Expiring])).await),
        ["P-EXPIRING"]
    );
    assert_eq!(
        nos(&list(&s, &t, by(&[pb::PolicyStatus::Active])).await),
        ["P-ACTIVE"]
    );
    assert_eq!(
        nos(&list(&s, &t, by(&[pb::PolicyStatus::Pending])).await),
        ["P-PENDING"]
    );
    let due = list(
        &s,
        &t,
        by(&[pb::PolicyStatus::Expiring, pb::PolicyStatus::Expired]),
    )
    .await;
    assert_eq!(nos(&due), ["P-EXPIRED", "P-EXPIRING"]);
    assert_eq!(due.page.unwrap().total, 2);

    let all = list(&s, &t, Default::default()).await;
    assert_eq!(
        all.policies
            .iter()
            .map(|p| p.policy_no.as_str())
            .collect::<Vec<_>>(),
        ["P-PENDING", "P-ACTIVE", "P-EXPIRING", "P-EXPIRED"],
        "latest end first"
    );
    let commercial = list(
        &s,
        &t,
        pb::ListInsurancePoliciesRequest {
            kinds: vec![pb::InsuranceKind::Commercial as i32],
            ..Default::default()
        },
    )
    .await;
    assert_eq!(nos(&commercial), ["P-ACTIVE", "P-EXPIRING"]);
    let plates = list(
        &s,
        &t,
        pb::ListInsurancePoliciesRequest {
            plate_numbers: vec![plate(0), plate(3)],
            ..Default::default()
        },
    )
    .await;
    assert_eq!(nos(&plates), ["P-EXPIRED", "P-PENDING"]);
    let vins = list(
        &s,
        &t,
        pb::ListInsurancePoliciesRequest {
            vins: vec!["LVIN0000000000002".into()],
            ..Default::default()
        },
    )
    .await;
    assert_eq!(nos(&vins), ["P-ACTIVE"]);
    let insurer = list(
        &s,
        &t,
        pb::ListInsurancePoliciesRequest {
            insurers: vec!["平安财险".into()],
            ..Default::default()
        },
    )
    .await;
    assert_eq!(insurer.page.unwrap().total, 0);
    let now = Utc::now();
    let ending_soon = list(
        &s,
        &t,
        pb::ListInsurancePoliciesRequest {
            end_time: Some(common::TimeRange {
                start: Some(timestamp(now)),
                end: Some(timestamp(now + Duration::days(60))),
            }),
            ..Default::default()
        },
    )
    .await;
    assert_eq!(nos(&ending_soon), ["P-EXPIRING"]);
    let too_many = client(&s)
        .list_insurance_policies(req(
            &s,
            &t,
            pb::ListInsurancePoliciesRequest {
                plate_numbers: (0..251).map(plate).collect(),
                ..Default::default()
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(field(&too_many), "plateNumbers");
}

#[tokio::test]
async fn a_policy_is_recorded_corrected_and_logged_and_bad_input_changes_nothing() {
    let s = support::stack().await;
    let t = s.tenant(2).await;
    let now = Utc::now();
    let year = (now - Duration::days(1), now + Duration::days(364));
    let policy = create(
        &s,
        &t,
        form(0, pb::InsuranceKind::Commercial, "PDAA001", year),
    )
    .await
    .unwrap();

    // Bad input names its field and writes nothing.
    let mut bad = form(1, pb::InsuranceKind::Commercial, "PDAA002", year);
    bad.coverages.clear();
    assert_eq!(field(&create(&s, &t, bad).await.unwrap_err()), "coverages");
    let backwards = form(
        1,
        pb::InsuranceKind::Compulsory,
        "PDAA002",
        (year.1, year.0),
    );
    assert_eq!(
        field(&create(&s, &t, backwards).await.unwrap_err()),
        "endTime"
    );
    let unknown = pb::InsurancePolicyForm {
        plate_number: "粤Z99999".into(),
        ..form(1, pb::InsuranceKind::Compulsory, "PDAA002", year)
    };
    assert_eq!(
        field(&create(&s, &t, unknown).await.unwrap_err()),
        "plateNumber"
    );
    // The policy number is unique per insurer: a duplicate is 4009 naming it.
    let twice = create(
        &s,
        &t,
        form(1, pb::InsuranceKind::Compulsory, "PDAA001", year),
    )
    .await
    .unwrap_err();
    let twice = err(&twice);
    assert_eq!(twice.code, ErrorCode::Conflict);
    assert_eq!(twice.fields[0].field, "policyNo");
    let other_insurer = pb::InsurancePolicyForm {
        insurer: "平安财险".into(),
        ..form(1, pb::InsuranceKind::Compulsory, "PDAA001", year)
    };
    create(&s, &t, other_insurer).await.unwrap();
    assert_eq!(
        list(&s, &t, Default::default()).await.page.unwrap().total,
        2
    );

    let corrected = client(&s)
        .update_insurance_policy(req(
            &s,
            &t,
            pb::UpdateInsurancePolicyRequest {
                policy_id: policy.id.clone(),
                form: Some(pb::InsurancePolicyForm {
                    premium_fen: 420_000,
                    ..form(0, pb::InsuranceKind::Commercial, "PDAA001", year)
                }),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .policy
        .unwrap();
    assert_eq!(corrected.premium_fen, 420_000);
    let detail = client(&s)
        .get_insurance_policy(req(
            &s,
            &t,
            pb::GetInsurancePolicyRequest {
                policy_id: policy.id.clone(),
            },
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(detail.logs.len(), 2, "{:?}", detail.logs);
    assert!(
        detail.logs[0].remark.contains("保费"),
        "{}",
        detail.logs[0].remark
    );
    assert!(
        detail.logs[1].remark.starts_with("录入保单"),
        "{}",
        detail.logs[1].remark
    );
}

/// A PDF stored under tenant `t`'s document uploads.
async fn stored_pdf(s: &Stack, enterprise: Uuid) -> common::FileRef {
    let key = fleetdesk_kit::files::key(
        enterprise,
        "document",
        &Uuid::new_v4().to_string(),
        "保单.pdf",
    );
    fleetdesk_kit::files::FileStore::local(&s.objects)
        .unwrap()
        .put(&key, b"%PDF-1.4\n%%EOF\n".to_vec().into())
        .await
        .unwrap();
    common::FileRef {
        name: "保单.pdf".into(),
        key,
        content_type: "application/pdf".into(),
        size_bytes: 15,
    }
}

async fn document(
    s: &Stack,
    t: &Tenant,
    policy_id: &str,
    key: &str,
) -> Result<common::FileRef, tonic::Status> {
    client(s)
        .get_insurance_policy_document(req(
            s,
            t,
            pb::GetInsurancePolicyDocumentRequest {
                policy_id: policy_id.into(),
                key: key.into(),
            },
        ))
        .await
        .map(|r| r.into_inner().document.unwrap())
}

#[tokio::test]
async fn a_document_is_answered_only_for_a_policy_that_holds_it() {
    let s = support::stack().await;
    let t = s.tenant(1).await;
    let b = s.tenant(1).await;
    let now = Utc::now();
    let year = (now, now + Duration::days(365));
    let pdf = stored_pdf(&s, t.enterprise).await;
    let policy = create(
        &s,
        &t,
        pb::InsurancePolicyForm {
            documents: vec![pdf.clone()],
            ..form(0, pb::InsuranceKind::Compulsory, "JQX001", year)
        },
    )
    .await
    .unwrap();
    assert_eq!(policy.documents, vec![pdf.clone()]);
    assert_eq!(policy.policy_document.as_ref(), Some(&pdf));
    assert_eq!(document(&s, &t, &policy.id, &pdf.key).await.unwrap(), pdf);
    // A key the policy does not hold, another tenant, no file permission.
    let other = stored_pdf(&s, t.enterprise).await;
    let missing = document(&s, &t, &policy.id, &other.key).await.unwrap_err();
    assert_eq!(err(&missing).code, ErrorCode::NotFound);
    let foreign = document(&s, &b, &policy.id, &pdf.key).await.unwrap_err();
    assert_eq!(err(&foreign).code, ErrorCode::NotFound);
    let no_file = client(&s)
        .get_insurance_policy_document(s.req_as(
            &t,
            t.user,
            &["as:insurance"],
            pb::GetInsurancePolicyDocumentRequest {
                policy_id: policy.id.clone(),
                key: pdf.key.clone(),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&no_file).code, ErrorCode::Forbidden);
    // Another enterprise's upload, or one not in the store, cannot be attached.
    for refused in [
        stored_pdf(&s, b.enterprise).await,
        common::FileRef {
            key: format!("{}/document/x/gone.pdf", t.enterprise),
            ..pdf.clone()
        },
    ] {
        let attached = create(
            &s,
            &t,
            pb::InsurancePolicyForm {
                documents: vec![refused],
                ..form(0, pb::InsuranceKind::Compulsory, "JQX002", year)
            },
        )
        .await
        .unwrap_err();
        assert_eq!(field(&attached), "documents");
    }
}

#[tokio::test]
async fn tenant_b_sees_nothing_of_a_and_its_ids_are_not_found_before_any_check() {
    let s = support::stack().await;
    let a = s.tenant(4).await;
    let b = s.tenant(4).await;
    let made = four_states(&s, &a).await;
    let id = made[0].id.clone();
    assert_eq!(
        list(&s, &b, Default::default()).await.page.unwrap().total,
        0
    );
    let got = client(&s)
        .get_insurance_policy(req(
            &s,
            &b,
            pb::GetInsurancePolicyRequest {
                policy_id: id.clone(),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&got).code, ErrorCode::NotFound);
    // An empty form on A's id: not found, not a validation error.
    let updated = client(&s)
        .update_insurance_policy(req(
            &s,
            &b,
            pb::UpdateInsurancePolicyRequest {
                policy_id: id.clone(),
                form: None,
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&updated).code, ErrorCode::NotFound);
    let linked = document(&s, &b, &id, "").await.unwrap_err();
    assert_eq!(err(&linked).code, ErrorCode::NotFound);
    // B's plates name B's vehicles: recording one on A's plate writes B's own.
    assert_eq!(
        list(&s, &a, Default::default()).await.page.unwrap().total,
        4
    );
}

#[tokio::test]
async fn the_callers_data_scope_limits_list_detail_and_writes() {
    let s = support::stack().await;
    let t = s.tenant(4).await;
    let made = four_states(&s, &t).await;
    // Another member (a member's own records are always theirs) reaching
    // only an organisation that holds none of the vehicles.
    let member = Uuid::new_v4();
    let elsewhere = vec![Uuid::new_v4()];
    let listed = client(&s)
        .list_insurance_policies(s.req_reaching(
            &t,
            member,
            PERMS,
            elsewhere.clone(),
            pb::ListInsurancePoliciesRequest::default(),
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(listed.page.unwrap().total, 0);
    let got = client(&s)
        .get_insurance_policy(s.req_reaching(
            &t,
            member,
            PERMS,
            elsewhere.clone(),
            pb::GetInsurancePolicyRequest {
                policy_id: made[0].id.clone(),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&got).code, ErrorCode::NotFound);
    let now = Utc::now();
    let created = client(&s)
        .create_insurance_policy(s.req_reaching(
            &t,
            member,
            PERMS,
            elsewhere,
            pb::CreateInsurancePolicyRequest {
                form: Some(form(
                    0,
                    pb::InsuranceKind::Compulsory,
                    "SCOPE1",
                    (now, now + Duration::days(365)),
                )),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(
        (field(&created), err(&created).message),
        (
            "plateNumber".to_owned(),
            "该车辆不在您的数据权限范围内".to_owned()
        )
    );
}

#[tokio::test]
async fn without_the_insurance_permission_every_call_is_refused() {
    // What an enterprise on the insurance blacklist holds: org takes
    // `as:insurance` away from its effective permissions.
    let s = support::stack().await;
    let t = s.tenant(1).await;
    let refused = client(&s)
        .list_insurance_policies(s.req_as(
            &t,
            t.user,
            &["as:violation", "as:insurance:file"],
            pb::ListInsurancePoliciesRequest::default(),
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&refused).code, ErrorCode::Forbidden);
    let now = Utc::now();
    let created = client(&s)
        .create_insurance_policy(s.req_as(
            &t,
            t.user,
            &["as:violation"],
            pb::CreateInsurancePolicyRequest {
                form: Some(form(
                    0,
                    pb::InsuranceKind::Compulsory,
                    "BL1",
                    (now, now + Duration::days(365)),
                )),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&created).code, ErrorCode::Forbidden);
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    let stored: i64 = sqlx::query_scalar("select count(*) from insurance_policy")
        .fetch_one(&mut *tx)
        .await
        .unwrap();
    assert_eq!(stored, 0);
}

/// An xlsx of `rows` under the import's header, stored as tenant `t`'s upload.
async fn upload(s: &Stack, t: &Tenant, rows: &[[&str; 9]]) -> pb::ImportFile {
    let header = [
        "车牌号",
        "险种",
        "保险公司",
        "保单号",
        "被保险人",
        "保险起期",
        "保险止期",
        "保费(元)",
        "险别及保额(元)",
    ];
    let rows: Vec<&[&str]> = rows.iter().map(|r| &r[..]).collect();
    s.upload_sheet(t, "保单.xlsx", &header, &rows).await
}

async fn import(s: &Stack, t: &Tenant, file: pb::ImportFile) -> common::ImportResult {
    client(s)
        .import_insurance_policies(req(
            s,
            t,
            pb::ImportInsurancePoliciesRequest { file: Some(file) },
        ))
        .await
        .unwrap()
        .into_inner()
        .result
        .unwrap()
}

#[tokio::test]
async fn an_import_writes_all_rows_or_none() {
    let s = support::stack().await;
    let t = s.tenant(2).await;
    let good = [
        "粤B00000",
        "商业险",
        "中国人民财产保险",
        "IMP-001",
        "测试物流",
        "2026-01-01",
        "2026-12-31",
        "5200",
        "车损险:150000；第三者责任险:2000000",
    ];
    let other = [
        "粤B00001",
        "交强险",
        "中国人民财产保险",
        "IMP-002",
        "",
        "2026-01-01",
        "2026-12-31",
        "950.00",
        "",
    ];
    let refused = import(
        &s,
        &t,
        upload(
            &s,
            &t,
            &[
                good,
                [
                    "粤Z99999",
                    "交强险",
                    "人保",
                    "IMP-003",
                    "",
                    "2026-01-01",
                    "2026-12-31",
                    "950",
                    "",
                ],
                [
                    "粤B00001",
                    "寿险",
                    "人保",
                    "IMP-004",
                    "",
                    "2026-01-01",
                    "2026-12-31",
                    "950",
                    "",
                ],
                [
                    "粤B00001",
                    "交强险",
                    "人保",
                    "IMP-005",
                    "",
                    "2026-12-31",
                    "2026-01-01",
                    "950",
                    "",
                ],
                [
                    "粤B00001",
                    "商业险",
                    "人保",
                    "IMP-006",
                    "",
                    "2026-01-01",
                    "2026-12-31",
                    "950",
                    "",
                ],
                [
                    "粤B00001",
                    "交强险",
                    "中国人民财产保险",
                    "IMP-001",
                    "",
                    "2026-01-01",
                    "2026-12-31",
                    "950",
                    "",
                ],
            ],
        )
        .await,
    )
    .await;
    assert_eq!(refused.imported, 0);
    let problems: Vec<(i64, &str)> = refused
        .error_list
        .iter()
        .map(|e| (e.row, e.column.as_str()))
        .collect();
    assert!(problems.contains(&(4, "险种")), "{problems:?}");
    assert!(problems.contains(&(5, "保险止期")), "{problems:?}");
    assert!(problems.contains(&(6, "险别及保额(元)")), "{problems:?}");
    assert!(problems.contains(&(7, "保单号")), "{problems:?}");
    assert_eq!(
        list(&s, &t, Default::default()).await.page.unwrap().total,
        0
    );
    // The unknown plate is found against the stored vehicles.
    let unknown = import(
        &s,
        &t,
        upload(
            &s,
            &t,
            &[
                good,
                [
                    "粤Z99999",
                    "交强险",
                    "人保",
                    "IMP-003",
                    "",
                    "2026-01-01",
                    "2026-12-31",
                    "950",
                    "",
                ],
            ],
        )
        .await,
    )
    .await;
    assert_eq!(unknown.imported, 0);
    assert_eq!(unknown.error_list[0].column, "车牌号");

    let done = import(&s, &t, upload(&s, &t, &[good, other]).await).await;
    assert_eq!(done.imported, 2);
    let all = list(&s, &t, Default::default()).await;
    let first = all
        .policies
        .iter()
        .find(|p| p.policy_no == "IMP-001")
        .unwrap();
    assert_eq!(first.premium_fen, 520_000);
    assert_eq!(first.coverages[1].sum_insured_fen, 200_000_000);
    assert_eq!(
        fleetdesk_kit::convert::datetime(first.start_time.as_ref().unwrap())
            .unwrap()
            .to_rfc3339(),
        "2025-12-31T16:00:00+00:00",
        "00:00 Beijing of the first day"
    );
    // The same number again is refused against the stored policies.
    let again = import(&s, &t, upload(&s, &t, &[good]).await).await;
    assert_eq!(again.imported, 0);
    assert_eq!(again.error_list[0].column, "保单号");
}

#[tokio::test]
async fn the_export_writes_the_filtered_list() {
    let s = support::stack().await;
    let t = s.tenant(4).await;
    four_states(&s, &t).await;
    let filter = pb::ListInsurancePoliciesRequest {
        statuses: vec![
            pb::PolicyStatus::Expiring as i32,
            pb::PolicyStatus::Expired as i32,
        ],
        ..Default::default()
    };
    let job = client(&s)
        .export_insurance_policies(req(
            &s,
            &t,
            pb::ExportInsurancePoliciesRequest {
                filter: Some(filter),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .job
        .unwrap();
    let rows = s.exported_rows(&job.id).await;
    assert_eq!(rows[0][0], "车牌号");
    assert_eq!(rows.len() - 1, 2);
    assert_eq!(rows[1][5], "P-EXPIRING");
    assert_eq!(rows[1][11], "即将到期");
    assert_eq!(rows[2][11], "已过期");
}

#[tokio::test]
async fn the_expiring_and_expired_lists_read_the_end_time_index() {
    let s = support::stack().await;
    let t = s.tenant(1).await;
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query("set local enable_seqscan = off")
        .execute(&mut *tx)
        .await
        .unwrap();
    let plan: Vec<String> = sqlx::query_scalar(
        "explain select id from insurance_policy t where t.enterprise_id = $1 \
         and (t.end_time <= now() or (t.end_time > now() and t.end_time <= now() + interval '30 days' \
         and t.start_time <= now())) order by t.end_time desc, t.id desc limit 20",
    )
    .bind(t.enterprise)
    .fetch_all(&mut *tx)
    .await
    .unwrap();
    let plan = plan.join("\n");
    assert!(plan.contains("insurance_policy_end_idx"), "{plan}");
}

//! Workflow requests other services send org by typed events, through a
//! real org service (gRPC on port 0, its own PostgreSQL database, a private
//! JetStream server): notice requests published to the event stream become
//! one notice per recipient and source key, addressed by permission and
//! data scope; approval requests become pending approvals the approval
//! list shows, and deciding one publishes `ApprovalDecided` with the kind
//! and business id as requested.

use std::time::Duration;

use crate::support;

use fleetdesk_kit::{db, events, subjects};
use fleetdesk_proto::common::v1::PageRequest;
use fleetdesk_proto::org::v1 as pb;
use futures::StreamExt as _;
use prost::Message as _;
use uuid::Uuid;

const NOTICES: &str = "as:message:pageInfo";
const APPROVALS: &str = "as:approval:pageInfo";
const DECIDE: &str = "oss:as:approval";

/// The org service and a client of its event stream.
struct Stack {
    base: support::Stack,
    nats: async_nats::Client,
}

impl std::ops::Deref for Stack {
    type Target = support::Stack;

    fn deref(&self) -> &support::Stack {
        &self.base
    }
}

async fn stack() -> Stack {
    let base = support::stack().await;
    let client = async_nats::connect(base.nats_server.url()).await.unwrap();
    events::ensure_event_stream(&events::jetstream(client.clone()))
        .await
        .unwrap();
    Stack { base, nats: client }
}

impl Stack {
    /// Publishes a request as another service's outbox relay does.
    async fn publish(&self, subject: String, id: Uuid, payload: Vec<u8>) {
        let js = events::jetstream(self.nats.clone());
        let mut headers = async_nats::HeaderMap::new();
        headers.insert(events::ID_HEADER, id.to_string().as_str());
        headers.insert(events::SOURCE_HEADER, self.db.name.as_str());
        js.publish_with_headers(subject, headers, payload.into())
            .await
            .unwrap()
            .await
            .unwrap();
    }

    /// The member's notices through ListNotices.
    async fn notices(&self, enterprise: Uuid, member: Uuid) -> Vec<pb::Notice> {
        self.org
            .clone()
            .list_notices(self.req(
                enterprise,
                member,
                &[NOTICES],
                pb::ListNoticesRequest {
                    page: Some(PageRequest { page: 1, size: 100 }),
                    read: None,
                    category: String::new(),
                },
            ))
            .await
            .unwrap()
            .into_inner()
            .notices
    }

    /// How many events of `subject` org's consumers applied.
    async fn processed(&self, subject: &str) -> i64 {
        let mut tx = db::begin_service(&self.owner).await.unwrap();
        sqlx::query_scalar("select count(*) from processed_event where subject = $1")
            .bind(subject)
            .fetch_one(&mut *tx)
            .await
            .unwrap()
    }

    /// Waits until org's consumer of `subject` applied `count` events.
    async fn applied(&self, subject: &str, count: i64) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        while self.processed(subject).await < count {
            assert!(
                tokio::time::Instant::now() < deadline,
                "org applied {} of {count} events of {subject}",
                self.processed(subject).await
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// An enterprise: root 总部 with branches 华南 (and 深圳 below it) and 华东.
struct Tenant {
    enterprise: Uuid,
    south: Uuid,
    shenzhen: Uuid,
    east: Uuid,
}

async fn tenant(s: &Stack) -> Tenant {
    let t = Tenant {
        enterprise: Uuid::new_v4(),
        south: Uuid::new_v4(),
        shenzhen: Uuid::new_v4(),
        east: Uuid::new_v4(),
    };
    let root = Uuid::new_v4();
    sqlx::query("insert into enterprise (id, name, code) values ($1, '顺达物流', $2)")
        .bind(t.enterprise)
        .bind(t.enterprise.to_string())
        .execute(&s.owner)
        .await
        .unwrap();
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    for (id, parent, code, name, level) in [
        (root, None, "A01", "总部", 1),
        (t.south, Some(root), "A0101", "华南", 2),
        (t.shenzhen, Some(t.south), "A010101", "深圳", 3),
        (t.east, Some(root), "A0102", "华东", 2),
    ] {
        sqlx::query(
            "insert into org_unit (id, enterprise_id, parent_id, org_code, name, level) \
             values ($1, $2, $3, $4, $5, $6)",
        )
        .bind(id)
        .bind(t.enterprise)
        .bind(parent)
        .bind(code)
        .bind(name)
        .bind(level)
        .execute(&mut *tx)
        .await
        .unwrap();
    }
    tx.commit().await.unwrap();
    t
}

/// A role of the tenant granting `perms` with a data scope.
async fn role(s: &Stack, t: &Tenant, perms: &[&str], scope: i16, orgs: &[Uuid]) -> Uuid {
    let id = Uuid::new_v4();
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query(
        "insert into role (id, enterprise_id, name, data_scope_kind, data_scope_org_ids) \
         values ($1, $2, $3, $4, $5)",
    )
    .bind(id)
    .bind(t.enterprise)
    .bind(format!("角色{}", &id.to_string()[..8]))
    .bind(scope)
    .bind(orgs)
    .execute(&mut *tx)
    .await
    .unwrap();
    for p in perms {
        sqlx::query(
            "insert into role_permission (enterprise_id, role_id, permission_value) values ($1, $2, $3)",
        )
        .bind(t.enterprise)
        .bind(id)
        .bind(*p)
        .execute(&mut *tx)
        .await
        .unwrap();
    }
    tx.commit().await.unwrap();
    id
}

/// A member of `org` holding `roles`; `status` 1 enabled, 2 disabled;
/// `own_scope` their own data scope kind, if set.
async fn member(
    s: &Stack,
    t: &Tenant,
    name: &str,
    org: Uuid,
    roles: &[Uuid],
    status: i16,
    own_scope: Option<i16>,
) -> Uuid {
    let id = Uuid::new_v4();
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query(
        "insert into member (id, enterprise_id, account_id, name, user_name, phone, org_id, status, \
           data_scope_kind) values ($1, $2, $3, $4, $5, '13800138000', $6, $7, $8)",
    )
    .bind(id)
    .bind(t.enterprise)
    .bind(Uuid::new_v4())
    .bind(name)
    .bind(format!("u{}", &id.to_string()[..8]))
    .bind(org)
    .bind(status)
    .bind(own_scope)
    .execute(&mut *tx)
    .await
    .unwrap();
    for r in roles {
        sqlx::query(
            "insert into member_role (enterprise_id, member_id, role_id) values ($1, $2, $3)",
        )
        .bind(t.enterprise)
        .bind(id)
        .bind(r)
        .execute(&mut *tx)
        .await
        .unwrap();
    }
    tx.commit().await.unwrap();
    id
}

fn notice_request(t: &Tenant, key: &str, org: Uuid, named: &[Uuid]) -> pb::NoticeRequested {
    pb::NoticeRequested {
        enterprise_id: t.enterprise.to_string(),
        source_key: key.to_owned(),
        category: "alarm".into(),
        title: "三级告警：超速 · 粤B12345".into(),
        content: "车辆 粤B12345 发生三级告警".into(),
        link: "/carManagement/riskControll/riskAlarmRecord?alarmId=1".into(),
        member_ids: named.iter().map(Uuid::to_string).collect(),
        permission: "as:alarm".into(),
        org_id: org.to_string(),
    }
}

#[tokio::test]
async fn workflow_requests_become_notices_and_approvals_once() {
    let s = stack().await;
    notices_reach_each_holder_in_scope_once(&s).await;
    an_approval_request_is_listed_and_its_decision_goes_back(&s).await;
}

async fn notices_reach_each_holder_in_scope_once(s: &Stack) {
    let t = tenant(s).await;
    let everywhere = role(s, &t, &["as:alarm", NOTICES], 5, &[]).await;
    let south_only = role(s, &t, &["as:alarm", NOTICES], 3, &[t.south]).await;
    let east_only = role(s, &t, &["as:alarm", NOTICES], 3, &[t.east]).await;
    let no_alarms = role(s, &t, &[NOTICES], 5, &[]).await;
    let chief = member(s, &t, "总监", t.east, &[everywhere], 1, None).await;
    let south = member(s, &t, "华南风控", t.east, &[south_only], 1, None).await;
    let east = member(s, &t, "华东风控", t.south, &[east_only], 1, None).await;
    let gone = member(s, &t, "离职风控", t.south, &[everywhere], 2, None).await;
    let clerk = member(s, &t, "文员", t.south, &[no_alarms], 1, None).await;
    // Their own scope (self only) overrides the role's enterprise scope.
    let own_rows = member(s, &t, "只看自己", t.shenzhen, &[everywhere], 1, Some(1)).await;
    let named = member(s, &t, "车队长", t.east, &[no_alarms], 1, None).await;

    // A notice about a vehicle of 深圳 (under 华南), published twice under the
    // same source key as two events, and the first event redelivered.
    let request = notice_request(&t, "risk-alarm:a1", t.shenzhen, &[named]);
    let subject = subjects::notice_requested("vehicle");
    let first = Uuid::new_v4();
    s.publish(subject.clone(), first, request.encode_to_vec())
        .await;
    s.publish(subject.clone(), Uuid::new_v4(), request.encode_to_vec())
        .await;
    s.publish(subject.clone(), first, request.encode_to_vec())
        .await;
    s.applied(subjects::NOTICE_REQUESTED_ALL, 2).await;

    let count = |list: Vec<pb::Notice>| list.len();
    assert_eq!(
        count(s.notices(t.enterprise, chief).await),
        1,
        "enterprise scope"
    );
    assert_eq!(
        count(s.notices(t.enterprise, south).await),
        1,
        "subtree of 华南"
    );
    assert_eq!(count(s.notices(t.enterprise, named).await), 1, "named");
    assert_eq!(
        count(s.notices(t.enterprise, east).await),
        0,
        "华东 does not reach 深圳"
    );
    assert_eq!(count(s.notices(t.enterprise, gone).await), 0, "disabled");
    assert_eq!(
        count(s.notices(t.enterprise, clerk).await),
        0,
        "no as:alarm"
    );
    assert_eq!(
        count(s.notices(t.enterprise, own_rows).await),
        0,
        "self scope"
    );
    let n = &s.notices(t.enterprise, chief).await[0];
    assert_eq!(
        (n.title.as_str(), n.category.as_str(), n.read),
        ("三级告警：超速 · 粤B12345", "alarm", false)
    );
    assert_eq!(
        n.link,
        "/carManagement/riskControll/riskAlarmRecord?alarmId=1"
    );

    // Another key about 华东: its holders, not 华南's.
    let other = notice_request(&t, "risk-alarm:a2", t.east, &[]);
    s.publish(subject, Uuid::new_v4(), other.encode_to_vec())
        .await;
    s.applied(subjects::NOTICE_REQUESTED_ALL, 3).await;
    assert_eq!(count(s.notices(t.enterprise, chief).await), 2);
    assert_eq!(count(s.notices(t.enterprise, east).await), 1);
    assert_eq!(count(s.notices(t.enterprise, south).await), 1);
    assert_eq!(count(s.notices(t.enterprise, named).await), 1);
}

async fn an_approval_request_is_listed_and_its_decision_goes_back(s: &Stack) {
    let t = tenant(s).await;
    let approver_role = role(s, &t, &[APPROVALS, DECIDE], 3, &[t.south]).await;
    let approver = member(s, &t, "华南主管", t.south, &[approver_role], 1, None).await;
    let east_role = role(s, &t, &[APPROVALS, DECIDE], 3, &[t.east]).await;
    let east = member(s, &t, "华东主管", t.east, &[east_role], 1, None).await;
    let applicant = member(s, &t, "调度员", t.shenzhen, &[], 1, None).await;
    let request = pb::ApprovalRequested {
        enterprise_id: t.enterprise.to_string(),
        request_key: "allotment:9001:1".into(),
        kind: pb::ApprovalKind::VehicleAllotment.into(),
        business_id: "9001".into(),
        applicant_id: applicant.to_string(),
        applicant_name: String::new(),
        title: "车辆调拨：粤B12345".into(),
        content: "从深圳调往广州".into(),
        organisation_id: String::new(),
        plate_number: "粤b12345".into(),
    };
    let subject = subjects::approval_requested("vehicle");
    // The same request key twice (a requester's retry) raises one approval.
    s.publish(subject.clone(), Uuid::new_v4(), request.encode_to_vec())
        .await;
    s.publish(subject, Uuid::new_v4(), request.encode_to_vec())
        .await;
    s.applied(subjects::APPROVAL_REQUESTED_ALL, 2).await;

    let list = |member: Uuid| {
        let mut org = s.org.clone();
        let req = s.req(
            t.enterprise,
            member,
            &[APPROVALS, DECIDE],
            pb::ListApprovalsRequest {
                page: Some(PageRequest { page: 1, size: 20 }),
                status: pb::ApprovalStatus::Pending.into(),
                kind: 0,
            },
        );
        async move {
            org.list_approvals(req)
                .await
                .unwrap()
                .into_inner()
                .approvals
        }
    };
    let pending = list(approver).await;
    assert_eq!(pending.len(), 1, "{pending:?}");
    let a = &pending[0];
    assert_eq!(
        (
            a.title.as_str(),
            a.business_id.as_str(),
            a.applicant_name.as_str(),
            a.plate_number.as_str()
        ),
        ("车辆调拨：粤B12345", "9001", "调度员", "粤B12345")
    );
    assert_eq!(a.kind, pb::ApprovalKind::VehicleAllotment as i32);
    assert!(
        a.detail_json.contains("从深圳调往广州"),
        "{}",
        a.detail_json
    );
    assert!(
        list(east).await.is_empty(),
        "华东 does not reach the applicant's 深圳"
    );

    // Deciding it publishes ApprovalDecided with the kind and business id.
    let mut decided = s
        .nats
        .subscribe(subjects::ORG_APPROVAL_DECIDED)
        .await
        .unwrap();
    s.nats.flush().await.unwrap();
    s.org
        .clone()
        .decide_approval(s.req(
            t.enterprise,
            approver,
            &[APPROVALS, DECIDE],
            pb::DecideApprovalRequest {
                id: a.id.clone(),
                approve: true,
                comment: "同意".into(),
            },
        ))
        .await
        .unwrap();
    let message = tokio::time::timeout(Duration::from_secs(20), decided.next())
        .await
        .expect("ApprovalDecided published")
        .unwrap();
    let event = pb::ApprovalDecided::decode(message.payload).unwrap();
    assert_eq!(event.approval_id, a.id);
    assert_eq!(event.enterprise_id, t.enterprise.to_string());
    assert_eq!(event.kind, pb::ApprovalKind::VehicleAllotment as i32);
    assert_eq!(event.business_id, "9001");
    assert_eq!(event.status, pb::ApprovalStatus::Approved as i32);
    assert_eq!(event.operator_id, approver.to_string());
    assert!(list(approver).await.is_empty(), "no longer pending");
}

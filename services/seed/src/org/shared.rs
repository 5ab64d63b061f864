//! Demo data of the shared back-office parts: dictionaries, operating
//! regions, manual pages, and for enterprises A and B notices, approvals,
//! export records and members' identity data. Idempotent: fixed ids, and
//! rows that exist are left alone.

use fleetdesk_kit::{db, demo_id};
use serde_json::json;
use sqlx_postgres::{PgConnection, PgPool};
use uuid::Uuid;

const DICTS: &[(&str, &str, &str)] = &[
    ("NOTICE_CATEGORY", "system", "系统通知"),
    ("NOTICE_CATEGORY", "approval", "审批通知"),
    ("NOTICE_CATEGORY", "export", "导出通知"),
    ("NOTICE_CATEGORY", "alarm", "告警通知"),
    ("APPROVAL_KIND", "1", "车辆调拨"),
    ("APPROVAL_KIND", "2", "充电额度分配"),
    ("APPROVAL_KIND", "3", "退款"),
    ("APPROVAL_KIND", "4", "开票"),
    ("APPROVAL_STATUS", "1", "待审批"),
    ("APPROVAL_STATUS", "2", "已通过"),
    ("APPROVAL_STATUS", "3", "已驳回"),
    ("APPROVAL_STATUS", "4", "已撤回"),
    ("EXPORT_STATUS", "1", "排队中"),
    ("EXPORT_STATUS", "2", "导出中"),
    ("EXPORT_STATUS", "3", "导出成功"),
    ("EXPORT_STATUS", "4", "导出失败"),
    ("EXPORT_STATUS", "5", "已过期"),
    ("EXPORT_STATUS", "6", "已取消"),
    ("CAR_ENERGY_TYPE", "1", "燃油"),
    ("CAR_ENERGY_TYPE", "2", "纯电动"),
    ("CAR_ENERGY_TYPE", "3", "插电混动"),
    ("FEEDBACK_TYPE", "1", "功能建议"),
    ("FEEDBACK_TYPE", "2", "问题反馈"),
    ("FEEDBACK_TYPE", "3", "其他"),
];

/// (type, code, parent code, name, GB/T 2260 code).
const OPERATING_AREAS: &[(&str, &str, &str, &str, &str)] = &[
    ("REGIONAL_LIST", "R01", "", "华东区域", ""),
    ("REGIONAL_LIST", "R02", "", "华南区域", ""),
    ("REGIONAL_LIST", "R03", "", "华北区域", ""),
    ("OPERATING_CITY", "310100", "R01", "上海市", "310000"),
    ("OPERATING_CITY", "330100", "R01", "杭州市", "330100"),
    ("OPERATING_CITY", "320500", "R01", "苏州市", "320500"),
    ("OPERATING_CITY", "440100", "R02", "广州市", "440100"),
    ("OPERATING_CITY", "440300", "R02", "深圳市", "440300"),
    ("OPERATING_CITY", "110100", "R03", "北京市", "110000"),
    ("OPERATING_CITY", "120100", "R03", "天津市", "120000"),
];

/// (key, category, title, body).
const ARTICLES: &[(&str, &str, &str, &str)] = &[
    (
        "login",
        "快速入门",
        "登录与切换企业",
        "## 登录\n\n支持企业微信扫码、手机验证码和账号密码三种方式。\n\n## 切换企业\n\n点击右上角头像，选择【切换企业】。",
    ),
    (
        "car-files",
        "车辆管理",
        "查看车辆档案",
        "在【车辆管理 > 资产数据 > 车辆档案】中按车牌号或车架号查询，支持批量查询，每次最多 250 台。",
    ),
    (
        "roles",
        "系统设置",
        "角色与权限",
        "在【系统设置 > 角色管理】中新建角色，勾选功能权限并设置数据权限范围。",
    ),
    (
        "exports",
        "常见问题",
        "如何下载导出文件",
        "导出结果请到右上方个人信息下【导出记录】中查看下载结果。导出文件保留 7 天。",
    ),
];

fn enterprise(key: &str) -> Uuid {
    demo_id(&format!("enterprise:{key}"))
}

fn member(enterprise_id: Uuid, username: &str) -> Uuid {
    demo_id(&format!("member:{enterprise_id}:{username}"))
}

async fn notice(
    tx: &mut PgConnection,
    key: &str,
    eid: Uuid,
    recipient: Option<Uuid>,
    (category, title, content): (&str, &str, &str),
    days_ago: i32,
) -> sqlx::Result<()> {
    sqlx::query(
        "insert into notice (id, enterprise_id, recipient_id, category, title, content, published_at) \
         values ($1, $2, $3, $4, $5, $6, now() - make_interval(days => $7)) on conflict (id) do nothing",
    )
    .bind(demo_id(&format!("notice:{key}")))
    .bind(eid)
    .bind(recipient)
    .bind(category)
    .bind(title)
    .bind(content)
    .bind(days_ago)
    .execute(tx)
    .await?;
    Ok(())
}

struct DemoApproval<'a> {
    key: &'a str,
    kind: i16,
    title: &'a str,
    business_id: &'a str,
    applicant: (&'a str, &'a str),
    phone: &'a str,
    plate: &'a str,
    detail: serde_json::Value,
    days_ago: i32,
    /// Approved by this member name, or still pending.
    approved_by: Option<&'a str>,
}

async fn approval(tx: &mut PgConnection, eid: Uuid, a: DemoApproval<'_>) -> sqlx::Result<()> {
    let id = demo_id(&format!("approval:{}", a.key));
    let applicant_id = member(eid, a.applicant.0);
    let status: i16 = if a.approved_by.is_some() { 2 } else { 1 };
    let inserted = sqlx::query(
        "insert into approval (id, enterprise_id, kind, title, business_id, applicant_id, applicant_name, \
         applicant_phone, plate_number, status, detail, applied_at, decided_at, org_id) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, now() - make_interval(days => $12), \
         case when $10 = 2 then now() else null end, \
         (select org_id from member where id = $6 and enterprise_id = $2)) on conflict (id) do nothing",
    )
    .bind(id)
    .bind(eid)
    .bind(a.kind)
    .bind(a.title)
    .bind(a.business_id)
    .bind(applicant_id)
    .bind(a.applicant.1)
    .bind(a.phone)
    .bind(a.plate)
    .bind(status)
    .bind(&a.detail)
    .bind(a.days_ago)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    if inserted == 0 {
        return Ok(());
    }
    sqlx::query(
        "insert into approval_step (id, enterprise_id, approval_id, status, operator_id, operator_name, comment, created_at) \
         values ($1, $2, $3, 1, $4, $5, '提交申请', now() - make_interval(days => $6))",
    )
    .bind(demo_id(&format!("approval-step:{}:submit", a.key)))
    .bind(eid)
    .bind(id)
    .bind(applicant_id)
    .bind(a.applicant.1)
    .bind(a.days_ago)
    .execute(&mut *tx)
    .await?;
    if let Some(name) = a.approved_by {
        sqlx::query(
            "insert into approval_step (id, enterprise_id, approval_id, status, operator_name, comment) \
             values ($1, $2, $3, 2, $4, '同意')",
        )
        .bind(demo_id(&format!("approval-step:{}:decide", a.key)))
        .bind(eid)
        .bind(id)
        .bind(name)
        .execute(&mut *tx)
        .await?;
    }
    Ok(())
}

/// (key, name, module, status, rows, file key, failure).
type DemoExport<'a> = (&'a str, &'a str, &'a str, i16, i64, &'a str, &'a str);

async fn export(
    tx: &mut PgConnection,
    eid: Uuid,
    requested_by: (&str, &str),
    (key, name, module, status, rows, file_key, failure): DemoExport<'_>,
) -> sqlx::Result<()> {
    sqlx::query(
        "insert into export_record (id, enterprise_id, name, module, status, requested_by, requested_by_name, \
         row_count, file_key, failure_reason, finished_at, expires_at) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, \
         case when $5 in (3, 4) then now() end, case when $5 = 3 then now() + interval '7 days' end) \
         on conflict (id) do nothing",
    )
    .bind(demo_id(&format!("export:{key}")))
    .bind(eid)
    .bind(name)
    .bind(module)
    .bind(status)
    .bind(member(eid, requested_by.0))
    .bind(requested_by.1)
    .bind(rows)
    .bind(file_key)
    .bind(failure)
    .execute(tx)
    .await?;
    Ok(())
}

async fn identity(
    tx: &mut PgConnection,
    eid: Uuid,
    username: &str,
    (id_number, bank_card, address): (&str, &str, &str),
) -> sqlx::Result<()> {
    let mid = member(eid, username);
    sqlx::query(
        "insert into member_identity (member_id, enterprise_id, id_number, bank_card, address, \
         id_front_key, id_back_key, licence_front_key, licence_back_key, id_photo_key, licence_photo_key) \
         values ($1, $2, $3, $4, $5, $6 || 'id-front.png', $6 || 'id-back.png', $6 || 'licence-front.png', \
         $6 || 'licence-back.png', $6 || 'id-photo.png', $6 || 'licence-photo.png') \
         on conflict (member_id) do nothing",
    )
    .bind(mid)
    .bind(eid)
    .bind(id_number)
    .bind(bank_card)
    .bind(address)
    .bind(format!("identity/{mid}/"))
    .execute(tx)
    .await?;
    Ok(())
}

pub async fn run(pool: &PgPool) -> sqlx::Result<()> {
    // Seeding writes rows of several tenants: a service-scoped transaction.
    let mut tx = db::begin_service(pool).await?;
    for (sort, (dict_type, value, label)) in DICTS.iter().enumerate() {
        sqlx::query(
            "insert into dict_entry (dict_type, value, label, sort) values ($1, $2, $3, $4) \
             on conflict (dict_type, value) do nothing",
        )
        .bind(*dict_type)
        .bind(*value)
        .bind(*label)
        .bind(i32::try_from(sort).unwrap_or(0))
        .execute(&mut *tx)
        .await?;
    }
    for (sort, (type_code, code, parent, name, area)) in OPERATING_AREAS.iter().enumerate() {
        sqlx::query(
            "insert into operating_area (type_code, code, parent_code, name, area_code, sort) \
             values ($1, $2, $3, $4, $5, $6) on conflict (type_code, code) do nothing",
        )
        .bind(*type_code)
        .bind(*code)
        .bind(*parent)
        .bind(*name)
        .bind(*area)
        .bind(i32::try_from(sort).unwrap_or(0))
        .execute(&mut *tx)
        .await?;
    }
    for (sort, (key, category, title, body)) in ARTICLES.iter().enumerate() {
        sqlx::query(
            "insert into help_article (id, category, title, content_markdown, sort) \
             values ($1, $2, $3, $4, $5) on conflict (id) do nothing",
        )
        .bind(demo_id(&format!("help:{key}")))
        .bind(*category)
        .bind(*title)
        .bind(*body)
        .bind(i32::try_from(sort).unwrap_or(0))
        .execute(&mut *tx)
        .await?;
    }

    let (a, b) = (enterprise("a"), enterprise("b"));
    let ops = member(a, "demo_ops");
    for (key, eid, recipient, text, days) in [
        (
            "a-maintenance",
            a,
            None,
            (
                "system",
                "系统维护通知",
                "本周六 02:00-04:00 系统升级维护，期间暂停服务。",
            ),
            3,
        ),
        (
            "a-insurance",
            a,
            None,
            (
                "system",
                "车辆保险即将到期",
                "沪A12345 的交强险将于 30 天后到期，请及时续保。",
            ),
            2,
        ),
        (
            "a-export",
            a,
            None,
            (
                "export",
                "导出完成",
                "车辆档案导出已完成，请到【导出记录】中下载。",
            ),
            1,
        ),
        (
            "a-ops-approval",
            a,
            Some(ops),
            (
                "approval",
                "您的调拨申请待审批",
                "沪A12345 从上海调拨至杭州的申请已提交，等待审批。",
            ),
            0,
        ),
        (
            "b-maintenance",
            b,
            None,
            (
                "system",
                "冷链温控升级",
                "冷链车辆温度监控将于下周一升级，届时数据刷新更快。",
            ),
            2,
        ),
        (
            "b-welcome",
            b,
            None,
            ("system", "欢迎使用", "欢迎使用车管家企业版。"),
            5,
        ),
    ] {
        notice(&mut tx, key, eid, recipient, text, days).await?;
    }

    let allotment =
        |from: &str, to: &str, vin: &str| json!({ "fromOrg": from, "toOrg": to, "vin": vin });
    for (eid, item) in [
        (
            a,
            DemoApproval {
                key: "a-allot-1",
                kind: 1,
                title: "车辆调拨：沪A12345 上海→杭州",
                business_id: "ALLOT-A-0001",
                applicant: ("demo_ops", "运营专员"),
                phone: "13800000002",
                plate: "沪A12345",
                detail: allotment("上海运营中心", "杭州运营中心", "LSVAA4182E2000001"),
                days_ago: 1,
                approved_by: None,
            },
        ),
        (
            a,
            DemoApproval {
                key: "a-allot-2",
                kind: 1,
                title: "车辆调拨：浙A67890 杭州→广州",
                business_id: "ALLOT-A-0002",
                applicant: ("demo_ops", "运营专员"),
                phone: "13800000002",
                plate: "浙A67890",
                detail: allotment("杭州运营中心", "广州运营中心", "LSVAA4182E2000002"),
                days_ago: 2,
                approved_by: None,
            },
        ),
        (
            a,
            DemoApproval {
                key: "a-refund-1",
                kind: 3,
                title: "充电余额退款 ¥1,200.00",
                business_id: "REFUND-A-0001",
                applicant: ("demo_multi", "跨企业专员"),
                phone: "13800000004",
                plate: "",
                detail: json!({ "amountFen": 120000, "reason": "车辆退租，余额退回" }),
                days_ago: 3,
                approved_by: None,
            },
        ),
        (
            a,
            DemoApproval {
                key: "a-allot-0",
                kind: 1,
                title: "车辆调拨：粤B54321 深圳→广州",
                business_id: "ALLOT-A-0000",
                applicant: ("demo_ops", "运营专员"),
                phone: "13800000002",
                plate: "粤B54321",
                detail: allotment("深圳运营中心", "广州运营中心", "LSVAA4182E2000000"),
                days_ago: 6,
                approved_by: Some("演示管理员"),
            },
        ),
        (
            b,
            DemoApproval {
                key: "b-allot-1",
                kind: 1,
                title: "车辆调拨：京A00001 北京→天津",
                business_id: "ALLOT-B-0001",
                applicant: ("demo2", "冷链管理员"),
                phone: "13800000003",
                plate: "京A00001",
                detail: allotment("北京冷链站", "天津冷链站", "LSVAA4182E2000009"),
                days_ago: 1,
                approved_by: None,
            },
        ),
    ] {
        approval(&mut tx, eid, item).await?;
    }

    // Only what the system backs: no finished export without its file and no
    // running one that nothing will finish. A failed export is a real end state.
    export(
        &mut tx,
        a,
        ("demo_ops", "运营专员"),
        (
            "a-alarms",
            "风险报警记录导出",
            "riskAlarmRecord",
            4,
            0,
            "",
            "导出数据超过 10 万行，请缩小查询范围",
        ),
    )
    .await?;

    identity(
        &mut tx,
        a,
        "demo",
        (
            "110101199001011234",
            "6222020200112233445",
            "上海市浦东新区世纪大道100号",
        ),
    )
    .await?;
    identity(
        &mut tx,
        a,
        "demo_ops",
        (
            "310101199202023456",
            "6217000010001234567",
            "上海市徐汇区漕溪北路88号",
        ),
    )
    .await?;
    identity(
        &mut tx,
        b,
        "demo2",
        (
            "110105198803035678",
            "6228480010009876543",
            "北京市朝阳区建国路1号",
        ),
    )
    .await?;
    tx.commit().await
}

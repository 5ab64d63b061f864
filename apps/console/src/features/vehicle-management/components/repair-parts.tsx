/** What the repair pages share: status tags, the items table, the log table and the supplier filter. */
import { ArrowLeftOutlined } from '@ant-design/icons';
import { Button, Table, Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { codeLabel } from '@/lib/codes';
import { formatTime } from '@/lib/format';
import { yuan } from '@/lib/money';
import type { RepairItem } from '../api/repairs';
import {
  BILL_COLORS,
  ORDER_COLORS,
  STATEMENT_COLORS,
  type RepairBillStatus,
  type RepairOrderStatus,
  type RepairStatementStatus,
} from './repair-labels';

const P = 'vehicleManagement:repair';

export function OrderStatusTag({
  status,
}: {
  status?: RepairOrderStatus | null;
}) {
  const { t } = useTranslation();
  if (!status) return <>--</>;
  return (
    <Tag color={ORDER_COLORS[status]} data-testid="repair-status">
      {codeLabel(t, `${P}.statuses`, status)}
    </Tag>
  );
}

export function StatementStatusTag({
  status,
}: {
  status?: RepairStatementStatus | null;
}) {
  const { t } = useTranslation();
  if (!status) return <>--</>;
  return (
    <Tag color={STATEMENT_COLORS[status]} data-testid="statement-status">
      {codeLabel(t, `${P}.statementStatuses`, status)}
    </Tag>
  );
}

export function BillStatusTag({
  status,
}: {
  status?: RepairBillStatus | null;
}) {
  const { t } = useTranslation();
  if (!status) return <>--</>;
  return (
    <Tag color={BILL_COLORS[status]} data-testid="bill-status">
      {codeLabel(t, `${P}.billStatuses`, status)}
    </Tag>
  );
}

/** The lines of a quote or of the work done, read-only. */
export function ItemsTable({ items }: { items: RepairItem[] }) {
  const { t } = useTranslation();
  const m = (key: string) => t(`${P}.${key}`);
  return (
    <Table<RepairItem>
      size="small"
      rowKey={(_, i) => String(i)}
      pagination={false}
      dataSource={items}
      data-testid="repair-items"
      columns={[
        { title: m('itemName'), dataIndex: 'name' },
        {
          title: m('itemKind'),
          render: (_, row) => codeLabel(t, `${P}.itemKinds`, row.kind),
        },
        { title: m('partNo'), dataIndex: 'partNo' },
        { title: m('quantity'), dataIndex: 'quantity', align: 'right' },
        {
          title: m('unitPrice'),
          align: 'right',
          render: (_, row) => yuan(row.unitPriceFen),
        },
        {
          title: m('amount'),
          align: 'right',
          render: (_, row) => yuan(row.amountFen),
        },
        {
          title: m('warranty'),
          render: (_, row) => (row.warranty ? m('yes') : m('no')),
        },
      ]}
    />
  );
}

export interface LogRow {
  remark: string;
  operName: string;
  operTime: string;
}

/** An operation log as the detail answers it, newest first. */
export function LogsTable({ logs }: { logs: LogRow[] }) {
  const { t } = useTranslation();
  const m = (key: string) => t(`${P}.${key}`);
  return (
    <Table<LogRow>
      size="small"
      rowKey={(_, i) => String(i)}
      pagination={false}
      dataSource={logs}
      data-testid="repair-logs"
      columns={[
        { title: m('content'), dataIndex: 'remark' },
        { title: m('operator'), dataIndex: 'operName', width: 140 },
        {
          title: m('operateTime'),
          width: 180,
          render: (_, row) => formatTime(row.operTime),
        },
      ]}
    />
  );
}

export function BackButton({ to }: { to: string }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  return (
    <Button icon={<ArrowLeftOutlined />} onClick={() => navigate(to)}>
      {t(`${P}.back`)}
    </Button>
  );
}

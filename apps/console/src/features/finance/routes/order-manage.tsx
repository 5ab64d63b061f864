import { Button, Descriptions, Drawer, Input, Space, Table } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { AppDialog } from '@/components/app-dialog';
import { ExportButton } from '@/components/export-button';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner, LoadErrorResult } from '@/components/load-error';
import { PageLoading } from '@/components/page-loading';
import { codeLabel, codeOptions } from '@/lib/codes';
import { formatTime } from '@/lib/format';
import { toastSuccess } from '@/lib/notify';
import '../messages';
import { ORDERS_KEY, exportOrders, listOrders, orderQuery, useCancelOrder, useOrderDetail, type Order, type OrderQuery } from '../api/finance';
import { ORDER_COLORS, ORDER_KINDS, ORDER_STATUSES, money, withId } from '../components/labels';
import { CodeTag, P } from '../components/parts';

type OrderItem = Order['items'][number];

/**
 * 订单中心 (orderManage, as:order:center, the order-centre list): orders for
 * vehicles, services and top-ups; an order's lines and its bill open in a
 * drawer (also from `?id=`, where bills link to it), and one awaiting
 * payment can be cancelled.
 */
export default function OrderManagePage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const [openId, setOpenId] = useState(params.get('id') ?? '');
  const fields = useMemo<FilterField[]>(
    () => [
      { prop: 'orderNos', label: t(`${P}order.orderNo`), type: 'batchInput', width: 200 },
      { prop: 'plateNumbers', label: t(`${P}common.plateNumber`), type: 'batchInput', width: 200 },
      { prop: 'kinds', label: t(`${P}order.kind`), type: 'select', multiple: true, width: 200, options: codeOptions(t, `${P}orderKinds`, ORDER_KINDS) },
      { prop: 'statuses', label: t(`${P}common.status`), type: 'select', multiple: true, width: 200, options: codeOptions(t, `${P}orderStatuses`, ORDER_STATUSES) },
      { prop: 'contractNo', label: t(`${P}order.contractNo`), type: 'input', width: 180 },
      { prop: 'placedTime', label: t(`${P}order.placedTime`), type: 'daterange', keys: { start: 'placedTimeStart', end: 'placedTimeEnd' } },
    ],
    [t],
  );
  const list = useListPage<Order, OrderQuery>({ fields, queryKey: ORDERS_KEY, toQuery: orderQuery, fetch: listOrders });
  const columns: ListColumn<Order>[] = [
    { prop: 'orderNo', label: t(`${P}order.orderNo`), width: 190, fixed: 'left' },
    { prop: 'title', label: t(`${P}order.title`), width: 220, showOverflowTooltip: true },
    { prop: 'kind', label: t(`${P}order.kind`), width: 120, formatter: (row) => codeLabel(t, `${P}orderKinds`, row.kind) },
    { prop: 'orgName', label: t(`${P}common.org`), width: 160, showOverflowTooltip: true },
    { prop: 'payableFen', label: t(`${P}bill.payable`), width: 130, align: 'right', formatter: (row) => money(row.payableFen) },
    { prop: 'paidFen', label: t(`${P}bill.paid`), width: 130, align: 'right', formatter: (row) => money(row.paidFen) },
    { prop: 'status', label: t(`${P}common.status`), width: 110, render: (row) => <CodeTag code={row.status} labels="orderStatuses" colors={ORDER_COLORS} /> },
    { prop: 'placedTime', label: t(`${P}order.placedTime`), width: 170, formatter: (row) => formatTime(row.placedTime) },
    {
      key: 'actions',
      label: t(`${P}common.actions`),
      width: 90,
      fixed: 'right',
      render: (row) => (
        <Button type="link" size="small" data-testid="order-view" onClick={() => setOpenId(row.id)}>
          {t(`${P}common.detail`)}
        </Button>
      ),
    },
  ];
  return (
    <ListPage<Order>
      testId="finance-order-list"
      {...list.listProps}
      toolbar={<ExportButton startExport={(options) => exportOrders(list.query, options)} />}
      banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
      table={{ rowKey: 'id', showIndex: true, columns, scrollX: 1500, ...list.tableProps }}
    >
      <Drawer open={!!openId} size={900} title={t(`${P}order.detail`)} onClose={() => setOpenId('')} destroyOnHidden>
        {openId && <OrderDetail id={openId} />}
      </Drawer>
    </ListPage>
  );
}

function OrderDetail({ id }: { id: string }) {
  const { t } = useTranslation();
  const detail = useOrderDetail(id);
  const cancel = useCancelOrder();
  const [cancelling, setCancelling] = useState(false);
  const [reason, setReason] = useState('');
  if (detail.error) return <LoadErrorResult error={detail.error} onRetry={() => void detail.refetch()} />;
  if (!detail.data) return <PageLoading />;
  const { order, bill } = detail.data;
  return (
    <Space direction="vertical" style={{ width: '100%' }} data-testid="order-detail">
      <Descriptions column={2} size="small" bordered>
        <Descriptions.Item label={t(`${P}order.orderNo`)}>{order.orderNo}</Descriptions.Item>
        <Descriptions.Item label={t(`${P}common.status`)}>
          <CodeTag code={order.status} labels="orderStatuses" colors={ORDER_COLORS} />
        </Descriptions.Item>
        <Descriptions.Item label={t(`${P}order.kind`)}>{codeLabel(t, `${P}orderKinds`, order.kind)}</Descriptions.Item>
        <Descriptions.Item label={t(`${P}order.contractNo`)}>{order.contractNo || '-'}</Descriptions.Item>
        <Descriptions.Item label={t(`${P}order.total`)}>{money(order.totalFen)}</Descriptions.Item>
        <Descriptions.Item label={t(`${P}bill.discount`)}>{money(order.discountFen)}</Descriptions.Item>
        <Descriptions.Item label={t(`${P}bill.payable`)}>{money(order.payableFen)}</Descriptions.Item>
        <Descriptions.Item label={t(`${P}bill.paid`)}>{money(order.paidFen)}</Descriptions.Item>
        <Descriptions.Item label={t(`${P}order.placedTime`)}>{formatTime(order.placedTime)}</Descriptions.Item>
        <Descriptions.Item label={t(`${P}order.paymentDeadline`)}>{formatTime(order.paymentDeadline)}</Descriptions.Item>
        <Descriptions.Item label={t(`${P}bill.bill`)}>{bill ? <Link to={withId('billDetail', bill.id)}>{bill.billNo}</Link> : '-'}</Descriptions.Item>
        <Descriptions.Item label={t(`${P}common.remark`)}>{order.remark || '-'}</Descriptions.Item>
      </Descriptions>
      <Table<OrderItem & { key: number }>
        size="small"
        rowKey="key"
        pagination={false}
        dataSource={order.items.map((item, key) => ({ ...item, key }))}
        columns={[
          { title: t(`${P}order.item`), dataIndex: 'name' },
          { title: t(`${P}common.plateNumber`), dataIndex: 'plateNumber' },
          { title: t(`${P}bill.quantity`), dataIndex: 'quantity', align: 'right' },
          { title: t(`${P}bill.unitPrice`), key: 'unit', align: 'right', render: (_, i) => money(i.unitPriceFen) },
          { title: t(`${P}bill.amount`), key: 'amount', align: 'right', render: (_, i) => money(i.amountFen) },
        ]}
      />
      {order.status === 'PENDING_PAYMENT' && (
        <Button danger onClick={() => setCancelling(true)} data-testid="order-cancel">
          {t(`${P}order.cancel`)}
        </Button>
      )}
      <AppDialog
        open={cancelling}
        title={t(`${P}order.cancel`)}
        onCancel={() => setCancelling(false)}
        onConfirm={async () => {
          await cancel.mutateAsync({ id: order.id, reason });
          toastSuccess(t(`${P}order.cancelled`));
          setCancelling(false);
        }}
      >
        <Input.TextArea value={reason} onChange={(e) => setReason(e.target.value)} maxLength={200} placeholder={t(`${P}order.cancelReason`)} />
      </AppDialog>
    </Space>
  );
}

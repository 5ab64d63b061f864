import { Descriptions, Space, Table } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { ModuleCard } from '@/components/module-card';
import { codeLabel } from '@/lib/codes';
import { formatTime } from '@/lib/format';
import '../messages';
import { useApplication, type InvoiceApplication } from '../api/finance';
import { APPLICATION_COLORS, money, pathOf, withId } from '../components/labels';
import { BackButton, CodeTag, DetailState, P } from '../components/parts';

type Issued = InvoiceApplication['invoices'][number];
type AppliedBill = InvoiceApplication['bills'][number];

export interface InvoiceHistoryDetailProps {
  /** invoiceHistoryB2BDetail: a B2B application (contract and purchase-order numbers). */
  b2b?: boolean;
}

/**
 * 开票详情 (invoiceHistoryDetail, and invoiceHistoryB2BDetail, as:invoice): an
 * application with its buyer, delivery, bills and the invoices issued, each
 * with its PDF download link.
 */
export default function InvoiceHistoryDetailPage({ b2b = false }: InvoiceHistoryDetailProps) {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const detail = useApplication(params.get('id') ?? '', b2b);
  return (
    <DetailState
      query={detail}
      render={(a) => (
        <Space direction="vertical" style={{ width: '100%' }} data-testid="application-detail">
          <ModuleCard title={`${t(`${P}invoice.application`)} · ${a.applicationNo}`} extra={<BackButton to={pathOf('invoiceHistory')} />}>
            <Descriptions column={3} size="small" bordered>
              <Descriptions.Item label={t(`${P}invoice.type`)}>{codeLabel(t, `${P}invoiceTypes`, a.invoiceType)}</Descriptions.Item>
              <Descriptions.Item label={t(`${P}common.status`)}>
                <CodeTag code={a.status} labels="applicationStatuses" colors={APPLICATION_COLORS} />
              </Descriptions.Item>
              <Descriptions.Item label={t(`${P}invoice.amount`)}>{money(a.amountFen)}</Descriptions.Item>
              <Descriptions.Item label={t(`${P}invoice.title`)}>{a.title?.name ?? '-'}</Descriptions.Item>
              <Descriptions.Item label={t(`${P}company.taxNumber`)}>{a.title?.taxNumber || '-'}</Descriptions.Item>
              <Descriptions.Item label={t(`${P}invoice.content`)}>{a.content || '-'}</Descriptions.Item>
              {b2b && <Descriptions.Item label={t(`${P}invoice.contractNo`)}>{a.contractNo || '-'}</Descriptions.Item>}
              {b2b && <Descriptions.Item label={t(`${P}invoice.purchaseOrderNo`)}>{a.purchaseOrderNo || '-'}</Descriptions.Item>}
              <Descriptions.Item label={t(`${P}invoice.address`)}>
                {a.address ? `${a.address.recipientName} ${a.address.area.provinceName}${a.address.area.cityName}${a.address.detailAddress}` : '-'}
              </Descriptions.Item>
              <Descriptions.Item label={t(`${P}invoice.express`)}>{a.trackingNo ? `${a.expressCompany} ${a.trackingNo}` : '-'}</Descriptions.Item>
              <Descriptions.Item label={t(`${P}invoice.applyTime`)}>{formatTime(a.applyTime)}</Descriptions.Item>
              {a.rejectReason && <Descriptions.Item label={t(`${P}invoice.rejectReason`)}>{a.rejectReason}</Descriptions.Item>}
            </Descriptions>
          </ModuleCard>
          <ModuleCard title={t(`${P}invoice.issued`)}>
            <Table<Issued>
              size="small"
              rowKey="invoiceNumber"
              pagination={false}
              dataSource={a.invoices}
              data-testid="application-invoices"
              columns={[
                { title: t(`${P}invoice.invoiceNumber`), dataIndex: 'invoiceNumber' },
                { title: t(`${P}invoice.net`), key: 'net', align: 'right', render: (_, i) => money(i.amountFen) },
                { title: t(`${P}invoice.tax`), key: 'tax', align: 'right', render: (_, i) => money(i.taxFen) },
                { title: t(`${P}invoice.gross`), key: 'gross', align: 'right', render: (_, i) => money(i.totalFen) },
                { title: t(`${P}bill.taxRate`), key: 'rate', align: 'right', render: (_, i) => `${i.taxRateBp / 100}%` },
                { title: t(`${P}invoice.issueTime`), key: 'time', render: (_, i) => formatTime(i.issueTime) },
                { title: t(`${P}invoice.reversed`), key: 'reversed', render: (_, i) => (i.reversed ? t(`${P}common.yes`) : t(`${P}common.no`)) },
                {
                  title: t(`${P}invoice.file`),
                  key: 'file',
                  render: (_, i) =>
                    i.fileUrl ? (
                      <a href={i.fileUrl} target="_blank" rel="noopener noreferrer" data-testid="invoice-pdf">
                        {t(`${P}invoice.download`)}
                      </a>
                    ) : (
                      '-'
                    ),
                },
              ]}
            />
          </ModuleCard>
          <ModuleCard title={t(`${P}invoice.bills`)}>
            <Table<AppliedBill>
              size="small"
              rowKey="billId"
              pagination={false}
              dataSource={a.bills}
              columns={[
                { title: t(`${P}bill.billNo`), key: 'no', render: (_, b) => <Link to={withId('billDetail', b.billId)}>{b.billNo}</Link> },
                { title: t(`${P}bill.kind`), key: 'kind', render: (_, b) => codeLabel(t, `${P}billKinds`, b.kind) },
                { title: t(`${P}bill.period`), dataIndex: 'period' },
                { title: t(`${P}invoice.amount`), key: 'amount', align: 'right', render: (_, b) => money(b.amountFen) },
              ]}
            />
          </ModuleCard>
        </Space>
      )}
    />
  );
}

/** The insurance policy's form as dynamic-form data: the same fields record, correct and show the detail. */
import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { AutoComplete, Button, InputNumber, Space, Table } from 'antd';
import { useTranslation } from 'react-i18next';
import type { CustomControlProps, FormField, FormValues } from '@/components/dynamic-form/field-schema';
import type { FileItem } from '@/components/upload/upload-control';
import { DOCUMENT_ATTACHMENTS } from '@/lib/files';
import { formatTimeIn } from '@/lib/format';
import { MAX_YUAN, toFen, toYuan, yuan } from '@/lib/money';
import type { Coverage, Policy, PolicyForm } from '../api/insurance';
import { COVERAGE_SUGGESTIONS, INSURANCE_KINDS, type InsuranceKind } from './insurance-labels';

type T = (key: string, options?: Record<string, unknown>) => string;

/** Most coverage items of one policy (the server's bound). */
export const MAX_COVERAGES = 20;

const blank = (): Coverage => ({ name: '', sumInsuredFen: 0, premiumFen: 0, deductibleFen: 0 });

/** The coverage items as an editable list: name, sum insured and premium in yuan. */
export function CoverageControl({ value, onChange, disabled }: CustomControlProps) {
  const { t } = useTranslation();
  const items = (value as Coverage[] | undefined) ?? [];
  const set = (i: number, patch: Partial<Coverage>) => onChange?.(items.map((c, j) => (j === i ? { ...c, ...patch } : c)));
  const money = (i: number, key: 'sumInsuredFen' | 'premiumFen', label: string) => (
    <InputNumber
      min={0}
      max={MAX_YUAN}
      precision={2}
      disabled={disabled}
      value={toYuan(items[i][key])}
      onChange={(v) => set(i, { [key]: toFen(v) })}
      placeholder={label}
      aria-label={label}
      addonAfter={t('vehicleManagement:insurance.yuan')}
      style={{ width: 190 }}
    />
  );
  return (
    <div data-testid="coverage-items">
      {items.map((item, i) => (
        <Space key={i} style={{ display: 'flex', marginBottom: 8 }} align="start">
          <AutoComplete
            value={item.name}
            disabled={disabled}
            options={COVERAGE_SUGGESTIONS.map((name) => ({ value: name }))}
            onChange={(name: string) => set(i, { name })}
            placeholder={t('vehicleManagement:insurance.coverageName')}
            aria-label={t('vehicleManagement:insurance.coverageName')}
            style={{ width: 220 }}
          />
          {money(i, 'sumInsuredFen', t('vehicleManagement:insurance.sumInsured'))}
          {money(i, 'premiumFen', t('vehicleManagement:insurance.coveragePremium'))}
          <Button icon={<DeleteOutlined />} disabled={disabled} onClick={() => onChange?.(items.filter((_, j) => j !== i))} aria-label={t('vehicleManagement:common.delete')} />
        </Space>
      ))}
      <Button type="dashed" icon={<PlusOutlined />} disabled={disabled || items.length >= MAX_COVERAGES} onClick={() => onChange?.([...items, blank()])} data-testid="coverage-add">
        {t('vehicleManagement:insurance.addCoverage')}
      </Button>
    </div>
  );
}

/** The coverage items as a read-only table. */
export function CoverageTable({ items }: { items: Coverage[] }) {
  const { t } = useTranslation();
  const i = (key: string) => t(`vehicleManagement:insurance.${key}`);
  return (
    <Table<Coverage>
      size="small"
      pagination={false}
      rowKey="name"
      dataSource={items}
      data-testid="coverage-table"
      columns={[
        { title: i('coverageName'), dataIndex: 'name' },
        { title: `${i('sumInsured')}(${i('yuan')})`, align: 'right', render: (_, c) => yuan(c.sumInsuredFen) },
        { title: `${i('coveragePremium')}(${i('yuan')})`, align: 'right', render: (_, c) => yuan(c.premiumFen) },
      ]}
    />
  );
}

const filesOf = (list: Policy['documents'] | undefined): FileItem[] => (list ?? []).map((f) => ({ name: f.name, url: '', saveUrl: f.key }));

/** The form's fields. */
export function policyFields(t: T): FormField[] {
  const i = (key: string) => t(`vehicleManagement:insurance.${key}`);
  const documents = { purpose: 'document' as const, types: [...DOCUMENT_ATTACHMENTS.types], maxSizeMb: DOCUMENT_ATTACHMENTS.maxSizeMb, limit: DOCUMENT_ATTACHMENTS.limit };
  return [
    { kind: 'text', name: 'plateNumber', label: i('plateNumber'), required: true, maxLength: 20, span: 12 },
    {
      kind: 'select',
      name: 'kind',
      label: i('kind'),
      required: true,
      options: INSURANCE_KINDS.map((k) => ({ value: k, label: i(`kinds.${k}`) })),
      span: 12,
    },
    { kind: 'text', name: 'insurer', label: i('insurer'), required: true, maxLength: 50, span: 12 },
    { kind: 'text', name: 'policyNo', label: i('policyNo'), required: true, maxLength: 40, span: 12 },
    { kind: 'text', name: 'insuredName', label: i('insuredName'), maxLength: 50, span: 12 },
    { kind: 'money-fen', name: 'premiumFen', label: i('premium'), required: true, span: 12 },
    { kind: 'date-range', name: 'period', label: i('period'), required: true, keys: { start: 'startTime', end: 'endTime' }, span: 24 },
    {
      kind: 'custom',
      name: 'coverages',
      label: i('coverages'),
      control: CoverageControl,
      format: (value) => <CoverageTable items={(value as Coverage[] | undefined) ?? []} />,
      span: 24,
    },
    { kind: 'upload', name: 'documents', label: i('documents'), upload: documents, span: 24 },
  ];
}

/** A stored policy as the form's record (files as the upload control holds them). */
export function policyRecord(policy: Policy | undefined): FormValues | undefined {
  if (!policy) return undefined;
  // The period as its Beijing days, so the pickers show them wherever the browser is.
  const day = (value: string) => formatTimeIn(value, '{y}-{m}-{d}');
  return { ...policy, startTime: day(policy.startTime), endTime: day(policy.endTime), documents: filesOf(policy.documents) };
}

const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

/**
 * What is sent: `submitted` are the shaped values (the period's two days as
 * yyyy-MM-dd, money in fen), `raw` the controls' values (the files with their
 * names). A policy runs from 00:00 of its first day to 24:00 of its last.
 */
export function policyBody(submitted: FormValues, raw: FormValues): PolicyForm {
  const day = (v: unknown) => text(v).slice(0, 10);
  return {
    plateNumber: text(submitted.plateNumber),
    kind: submitted.kind as InsuranceKind,
    insurer: text(submitted.insurer),
    policyNo: text(submitted.policyNo),
    insuredName: text(submitted.insuredName),
    startTime: day(submitted.startTime) && `${day(submitted.startTime)} 00:00:00`,
    endTime: day(submitted.endTime) && `${day(submitted.endTime)} 23:59:59`,
    premiumFen: Number(submitted.premiumFen ?? 0),
    coverages: ((raw.coverages as Coverage[] | undefined) ?? []).map((c) => ({ ...c, name: c.name.trim() })),
    documents: ((raw.documents as FileItem[] | undefined) ?? [])
      .filter((f) => !!f.saveUrl)
      .map((f) => ({ key: f.saveUrl as string, name: f.name, contentType: '', sizeBytes: 0 })),
  };
}

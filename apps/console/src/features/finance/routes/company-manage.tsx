import { App, Button, Form, Popconfirm, Space, Tag } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { DynamicForm } from '@/components/dynamic-form/dynamic-form';
import type { FormField, FormValues } from '@/components/dynamic-form/field-schema';
import { toSubmitValues } from '@/components/dynamic-form/field-values';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { codeLabel, codeOptions } from '@/lib/codes';
import { oneOf, type ListFilters } from '@/lib/list-url';
import { toastSuccess } from '@/lib/notify';
import '../messages';
import { TITLES_KEY, listTitles, useDeleteTitle, useSaveTitle, type InvoiceTitle, type InvoiceTitleForm } from '../api/finance';
import { checkCreditCode } from '../components/credit-code';
import { TITLE_TYPES, type InvoiceTitleType } from '../components/labels';
import { P } from '../components/parts';

type TitleQuery = { page: number; size: number; keyword?: string };
const titleQuery = (filters: ListFilters, page: number, size: number): TitleQuery => ({ page, size, keyword: oneOf(filters, 'keyword') || undefined });


/**
 * 开票公司 (companyManage, as:invoice:company): the invoice titles. A
 * company's unified social credit code is checked as typed (18 characters of
 * 0-9 and A-Y without I, O, S, V, Z); one whose GB 32100 check character does
 * not match is kept only after a second confirmation (a few legitimate codes
 * fail it).
 */
export default function CompanyManagePage() {
  const { t } = useTranslation();
  const [editing, setEditing] = useState<InvoiceTitle | 'new'>();
  const [form] = Form.useForm();
  const save = useSaveTitle();
  const remove = useDeleteTitle();
  const { modal } = App.useApp();
  /** Asks once more before a code that fails the GB 32100 check is kept; resolves true to keep it. */
  const confirmOddCode = (title: string, content: string) =>
    new Promise<boolean>((resolve) => {
      modal.confirm({ title, content, onOk: () => resolve(true), onCancel: () => resolve(false) });
    });
  const filterFields = useMemo<FilterField[]>(() => [{ prop: 'keyword', label: t(`${P}company.keyword`), type: 'input', width: 240 }], [t]);
  const list = useListPage<InvoiceTitle, TitleQuery>({ fields: filterFields, queryKey: TITLES_KEY, toQuery: titleQuery, fetch: listTitles });
  const fields = useMemo<FormField[]>(
    () => [
      { kind: 'radio', name: 'titleType', label: t(`${P}company.titleType`), required: true, options: codeOptions(t, `${P}titleTypes`, TITLE_TYPES), initialValue: 'COMPANY' },
      { kind: 'text', name: 'name', label: t(`${P}company.name`), required: true, maxLength: 100 },
      {
        kind: 'text',
        name: 'taxNumber',
        label: t(`${P}company.taxNumber`),
        maxLength: 18,
        rules: [
          ({ getFieldValue }) => ({
            validator: (_, v?: string) => {
              if (!v) return getFieldValue('titleType') === 'COMPANY' ? Promise.reject(new Error(t(`${P}company.taxNumberRequired`))) : Promise.resolve();
              return checkCreditCode(v) === 'shape' ? Promise.reject(new Error(t(`${P}company.taxNumberShape`))) : Promise.resolve();
            },
          }),
        ],
      },
      { kind: 'text', name: 'registeredAddress', label: t(`${P}company.registeredAddress`), maxLength: 200 },
      { kind: 'text', name: 'registeredPhone', label: t(`${P}company.registeredPhone`), maxLength: 30 },
      { kind: 'text', name: 'bankName', label: t(`${P}company.bankName`), maxLength: 100 },
      { kind: 'text', name: 'bankAccount', label: t(`${P}company.bankAccount`), maxLength: 40 },
      {
        kind: 'radio',
        name: 'isDefault',
        label: t(`${P}common.default`),
        options: [
          { value: 'yes', label: t(`${P}common.yes`) },
          { value: 'no', label: t(`${P}common.no`) },
        ],
        initialValue: 'no',
      },
    ],
    [t],
  );
  const record = useMemo<FormValues | undefined>(
    () => (editing && editing !== 'new' ? { ...editing, isDefault: editing.isDefault ? 'yes' : 'no' } : undefined),
    [editing],
  );
  const submit = async () => {
    await form.validateFields();
    const values = toSubmitValues(fields, form.getFieldsValue(true) as FormValues);
    const text = (k: string) => (typeof values[k] === 'string' ? (values[k] as string).trim() : '');
    const taxNumber = text('taxNumber').toUpperCase();
    // A code failing only its check character is sent once the user confirmed it a second time.
    const taxNumberConfirmed = !!taxNumber && checkCreditCode(taxNumber) === 'checkDigit';
    if (taxNumberConfirmed) {
      const keep = await confirmOddCode(t(`${P}company.oddCodeTitle`), t(`${P}company.oddCode`, { code: taxNumber }));
      if (!keep) throw new Error('kept the dialog open');
    }
    const body: InvoiceTitleForm = {
      titleType: (values.titleType as InvoiceTitleType | undefined) ?? null,
      name: text('name'),
      taxNumber,
      registeredAddress: text('registeredAddress'),
      registeredPhone: text('registeredPhone'),
      bankName: text('bankName'),
      bankAccount: text('bankAccount'),
      isDefault: values.isDefault === 'yes',
      taxNumberConfirmed,
    };
    await save.mutateAsync({ id: editing && editing !== 'new' ? editing.id : undefined, body });
    toastSuccess(t(`${P}common.saved`));
    setEditing(undefined);
  };
  const columns: ListColumn<InvoiceTitle>[] = [
    {
      prop: 'name',
      label: t(`${P}company.name`),
      width: 240,
      render: (row) => (
        <Space>
          {row.name}
          {row.isDefault && <Tag color="blue">{t(`${P}common.default`)}</Tag>}
        </Space>
      ),
    },
    { prop: 'titleType', label: t(`${P}company.titleType`), width: 120, formatter: (row) => codeLabel(t, `${P}titleTypes`, row.titleType) },
    { prop: 'taxNumber', label: t(`${P}company.taxNumber`), width: 190 },
    { prop: 'registeredAddress', label: t(`${P}company.registeredAddress`), width: 240, showOverflowTooltip: true },
    { prop: 'bankName', label: t(`${P}company.bankName`), width: 180 },
    { prop: 'bankAccount', label: t(`${P}company.bankAccount`), width: 200 },
    {
      key: 'actions',
      label: t(`${P}common.actions`),
      width: 140,
      fixed: 'right',
      render: (row) => (
        <Space size={0}>
          <Button type="link" size="small" onClick={() => setEditing(row)}>
            {t(`${P}common.edit`)}
          </Button>
          <Popconfirm title={t(`${P}common.deleteConfirm`)} onConfirm={() => remove.mutateAsync(row.id).then(() => toastSuccess(t(`${P}common.deleted`)))}>
            <Button type="link" size="small" danger>
              {t(`${P}common.delete`)}
            </Button>
          </Popconfirm>
        </Space>
      ),
    },
  ];
  return (
    <ListPage<InvoiceTitle>
      testId="finance-title-list"
      {...list.listProps}
      toolbar={
        <Button type="primary" onClick={() => setEditing('new')} data-testid="title-add">
          {t(`${P}company.add`)}
        </Button>
      }
      banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
      table={{ rowKey: 'id', showIndex: true, columns, scrollX: 1300, ...list.tableProps }}
    >
      <AppDialog
        open={!!editing}
        width={720}
        title={t(editing === 'new' ? `${P}company.add` : `${P}company.edit`)}
        onCancel={() => setEditing(undefined)}
        onConfirm={submit}
        destroyOnHidden
      >
        <DynamicForm fields={fields} form={form} record={record} name="invoice-title" />
      </AppDialog>
    </ListPage>
  );
}

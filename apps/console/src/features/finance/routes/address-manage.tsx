import { Button, Form, Popconfirm, Space, Tag } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { DynamicForm } from '@/components/dynamic-form/dynamic-form';
import type { FormField, FormValues } from '@/components/dynamic-form/field-schema';
import { toSubmitValues } from '@/components/dynamic-form/field-values';
import { ListPage, useListPage, type ListColumn } from '@/components/list-page';
import { LoadErrorBanner } from '@/components/load-error';
import { toastSuccess } from '@/lib/notify';
import { isValidPhone } from '@/lib/validators';
import '../messages';
import { ADDRESSES_KEY, listAddresses, pageQuery, useDeleteAddress, useSaveAddress, type InvoiceAddress, type PageQuery } from '../api/finance';
import { P } from '../components/parts';

interface AreaValue {
  provinceCode?: string;
  provinceName?: string;
  cityCode?: string;
  cityName?: string;
}

/**
 * 地址管理 (addressManage, as:invoice): where paper invoices are posted and
 * electronic ones e-mailed; the default one is picked first when applying.
 */
export default function AddressManagePage() {
  const { t } = useTranslation();
  const [editing, setEditing] = useState<InvoiceAddress | 'new'>();
  const [form] = Form.useForm();
  const save = useSaveAddress();
  const remove = useDeleteAddress();
  const list = useListPage<InvoiceAddress, PageQuery>({ fields: [], queryKey: ADDRESSES_KEY, toQuery: pageQuery, fetch: listAddresses });
  const fields = useMemo<FormField[]>(
    () => [
      { kind: 'text', name: 'recipientName', label: t(`${P}address.recipient`), required: true, maxLength: 50, span: 12 },
      {
        kind: 'text',
        name: 'recipientPhone',
        label: t(`${P}address.phone`),
        required: editing === 'new',
        maxLength: 20,
        span: 12,
        placeholder: editing !== 'new' ? t(`${P}address.phoneKept`) : undefined,
        rules: [{ validator: (_, v?: string) => (!v || isValidPhone(v) ? Promise.resolve() : Promise.reject(new Error(t(`${P}address.phoneBad`)))) }],
      },
      { kind: 'province-city', name: 'area', label: t(`${P}address.area`), required: true, span: 24 },
      { kind: 'text', name: 'detailAddress', label: t(`${P}address.detail`), required: true, maxLength: 200, span: 24 },
      { kind: 'text', name: 'postalCode', label: t(`${P}address.postalCode`), maxLength: 6, span: 12, rules: [{ pattern: /^\d{6}$/, message: t(`${P}address.postalCodeBad`) }] },
      { kind: 'text', name: 'email', label: t(`${P}address.email`), maxLength: 100, span: 12, rules: [{ type: 'email', message: t(`${P}address.emailBad`) }] },
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
    [t, editing],
  );
  const record = useMemo<FormValues | undefined>(
    () =>
      editing && editing !== 'new'
        ? { ...editing, recipientPhone: '', area: { ...editing.area }, isDefault: editing.isDefault ? 'yes' : 'no' }
        : undefined,
    [editing],
  );
  const submit = async () => {
    await form.validateFields();
    const values = toSubmitValues(fields, form.getFieldsValue(true) as FormValues);
    const area = (values.area ?? {}) as AreaValue;
    const text = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : '');
    await save.mutateAsync({
      id: editing && editing !== 'new' ? editing.id : undefined,
      body: {
        recipientName: text('recipientName'),
        recipientPhone: text('recipientPhone'),
        area: {
          provinceCode: area.provinceCode ?? '',
          provinceName: area.provinceName ?? '',
          cityCode: area.cityCode ?? '',
          cityName: area.cityName ?? '',
          districtCode: '',
          districtName: '',
        },
        detailAddress: text('detailAddress'),
        postalCode: text('postalCode'),
        email: text('email'),
        isDefault: values.isDefault === 'yes',
      },
    });
    toastSuccess(t(`${P}common.saved`));
    setEditing(undefined);
  };
  const columns: ListColumn<InvoiceAddress>[] = [
    { prop: 'recipientName', label: t(`${P}address.recipient`), width: 120, render: (row) => (
      <Space>
        {row.recipientName}
        {row.isDefault && <Tag color="blue">{t(`${P}common.default`)}</Tag>}
      </Space>
    ) },
    { prop: 'recipientMaskedPhone', label: t(`${P}address.phone`), width: 140 },
    { prop: 'area', label: t(`${P}address.area`), width: 180, formatter: (row) => `${row.area.provinceName}${row.area.cityName}${row.area.districtName}` },
    { prop: 'detailAddress', label: t(`${P}address.detail`), width: 260, showOverflowTooltip: true },
    { prop: 'postalCode', label: t(`${P}address.postalCode`), width: 100 },
    { prop: 'email', label: t(`${P}address.email`), width: 200 },
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
    <ListPage<InvoiceAddress>
      testId="finance-address-list"
      {...list.listProps}
      toolbar={
        <Button type="primary" onClick={() => setEditing('new')} data-testid="address-add">
          {t(`${P}address.add`)}
        </Button>
      }
      banner={<LoadErrorBanner error={list.error} onRetry={() => void list.refetch()} />}
      table={{ rowKey: 'id', showIndex: true, columns, scrollX: 1100, ...list.tableProps }}
    >
      <AppDialog
        open={!!editing}
        width={720}
        title={t(editing === 'new' ? `${P}address.add` : `${P}address.edit`)}
        onCancel={() => setEditing(undefined)}
        onConfirm={submit}
        destroyOnHidden
      >
        <DynamicForm fields={fields} form={form} record={record} defaultSpan={24} name="invoice-address" />
      </AppDialog>
    </ListPage>
  );
}

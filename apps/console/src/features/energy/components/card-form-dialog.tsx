import { Col, Form, Input, InputNumber, Radio, Row, Select, Spin, TreeSelect } from 'antd';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { newIdempotencyKey } from '@/lib/idempotency';
import { toastSuccess } from '@/lib/notify';
import { useOrgTreeOptions } from '@/lib/org-options';
import { showServerErrors } from '@/lib/server-errors';
import { trimInput } from '@/lib/validators';
import { useChargingAccounts } from '../api/accounts';
import { useStationOptions } from '../api/sessions';
import { useDriverOptions, useVehicleOptions, type PickerOption } from '@/lib/pickers';
import { useCard, useCreateCard, useUpdateCard } from '../api/cards';
import { AMOUNT_INPUT } from './amount';
import { CARD_NO_PATTERN, cardBody, cardFormValues, NEW_CARD, type CardFormValues } from './card-form';
import { BUDGET_PERIODS, CARD_KINDS, codeOptions, HOLDER_KINDS } from './labels';
import { FORM_LABEL_COL } from '@/components/dynamic-form/field-schema';

/** A select that searches as the user types; the current value keeps its label. */
function SearchSelect({ value, onChange, useOptions, current, placeholder, testId }: {
  value?: string;
  onChange?: (value: string) => void;
  /** The look-up hook (mounted only while the dialog shows). */
  useOptions: (keyword: string, enabled: boolean) => { data?: PickerOption[]; isFetching: boolean };
  current?: PickerOption;
  placeholder: string;
  testId: string;
}) {
  const [keyword, setKeyword] = useState('');
  const found = useOptions(keyword, true);
  const options = useMemo(() => {
    const list = found.data ?? [];
    return current && !list.some((o) => o.value === current.value) ? [current, ...list] : list;
  }, [found.data, current]);
  return (
    <Select
      value={value}
      onChange={onChange}
      showSearch={{ filterOption: false, onSearch: setKeyword }}
      options={options}
      loading={found.isFetching}
      placeholder={placeholder}
      allowClear
      data-testid={testId}
    />
  );
}

/** Stations a card may charge at (multiple, searched by name); none chosen = any station. */
function StationSelect({ value, onChange }: { value?: string[]; onChange?: (value: string[]) => void }) {
  const { t } = useTranslation();
  const [keyword, setKeyword] = useState('');
  const found = useStationOptions(keyword);
  // Chosen stations keep a label even when the current search does not list them.
  const [known, setKnown] = useState<Map<string, string>>(new Map());
  useEffect(() => {
    if (!found.data?.length) return;
    setKnown((old) => new Map([...old, ...found.data.map((o) => [o.value, o.label] as const)]));
  }, [found.data]);
  const options = useMemo(() => {
    const list = found.data ?? [];
    const extra = (value ?? []).filter((id) => !list.some((o) => o.value === id)).map((id) => ({ value: id, label: known.get(id) ?? id }));
    return [...extra, ...list];
  }, [found.data, value, known]);
  return (
    <Select
      mode="multiple"
      value={value}
      onChange={onChange}
      showSearch={{ filterOption: false, onSearch: setKeyword }}
      options={options}
      loading={found.isFetching}
      placeholder={t('energy:cards.stationsPlaceholder')}
      allowClear
      maxCount={250}
      data-testid="card-stations"
    />
  );
}

/**
 * 开卡 / 编辑充电卡: organisation and its funding account, physical (printed
 * number) or virtual card, a vehicle or a driver as holder, budget per period and
 * per session, the stations it may charge at. A new card starts with zero balance (amounts move through 额度变更).
 */
export function CardFormDialog({ open, cardId, onClose }: { open: boolean; cardId?: string; onClose: () => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<CardFormValues>();
  const orgs = useOrgTreeOptions();
  const accounts = useChargingAccounts({}, open);
  const card = useCard(open ? cardId : undefined);
  const create = useCreateCard();
  const update = useUpdateCard();
  const key = useRef(newIdempotencyKey());
  const editing = !!cardId;

  const kind = Form.useWatch('kind', form);
  const holderKind = Form.useWatch('holderKind', form);
  const orgId = Form.useWatch('orgId', form);
  const budgetPeriod = Form.useWatch('budgetPeriod', form);

  useEffect(() => {
    if (!open) return;
    form.resetFields();
    if (!cardId) {
      key.current = newIdempotencyKey();
      form.setFieldsValue(NEW_CARD);
    } else if (card.data) form.setFieldsValue(cardFormValues(card.data));
  }, [open, cardId, card.data, form]);

  // The funding account follows the organisation: its own account when it has one.
  const accountOptions = useMemo(
    () => (accounts.data ?? []).filter((a) => a.status !== 'CLOSED' && (!orgId || a.orgId === orgId)).map((a) => ({ value: a.id, label: a.orgName })),
    [accounts.data, orgId],
  );
  useEffect(() => {
    if (!open || !orgId || editing) return;
    const own = accountOptions[0]?.value;
    if (own && form.getFieldValue('accountId') !== own) form.setFieldValue('accountId', own);
  }, [open, orgId, editing, accountOptions, form]);

  const submit = async () => {
    const values = await form.validateFields();
    try {
      const body = cardBody(values);
      if (cardId) await update.mutateAsync({ id: cardId, body });
      else await create.mutateAsync({ body, idempotencyKey: key.current });
      toastSuccess(t(cardId ? 'energy:cards.updated' : 'energy:cards.created'));
      onClose();
    } catch (err) {
      showServerErrors(form, err, { conflictField: () => 'cardNo' });
      throw err;
    }
  };

  const required = (message: string) => [{ required: true, message }];
  return (
    <AppDialog open={open} width={760} title={t(editing ? 'energy:cards.editTitle' : 'energy:cards.addTitle')} onCancel={onClose} onConfirm={submit} destroyOnHidden>
      <Spin spinning={editing && !card.data}>
        <Form form={form} name="cardForm" layout="horizontal" labelCol={FORM_LABEL_COL} labelWrap data-testid="card-form">
          <Row gutter={16}>
            <Col span={12}>
              <Form.Item name="orgId" label={t('energy:fields.org')} rules={required(t('energy:cards.orgRequired'))}>
                <TreeSelect treeData={orgs} treeDefaultExpandAll showSearch={{ treeNodeFilterProp: 'title' }} placeholder={t('common.pleaseSelect')} data-testid="card-org" />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item name="accountId" label={t('energy:fields.account')} rules={required(t('energy:cards.accountRequired'))}>
                <Select options={accountOptions} loading={accounts.isFetching} placeholder={t('common.pleaseSelect')} data-testid="card-account" />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item name="kind" label={t('energy:cards.kind')} rules={required(t('energy:cards.kindRequired'))}>
                <Radio.Group options={codeOptions(t, 'cardKind', CARD_KINDS)} />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item
                name="cardNo"
                label={t('energy:fields.cardNo')}
                normalize={trimInput}
                rules={kind === 'PHYSICAL' ? [{ required: true, message: t('energy:cards.cardNoRequired') }, { pattern: CARD_NO_PATTERN, message: t('energy:cards.cardNoFormat') }] : []}
              >
                <Input maxLength={32} disabled={kind !== 'PHYSICAL'} placeholder={t('energy:cards.cardNoPlaceholder')} data-testid="card-no" />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item name="holderKind" label={t('energy:cards.holderKind')} rules={required(t('energy:cards.holderKindRequired'))}>
                <Radio.Group options={codeOptions(t, 'holderKind', HOLDER_KINDS)} />
              </Form.Item>
            </Col>
            <Col span={12}>
              {holderKind === 'DRIVER' ? (
                <Form.Item name="driverId" label={t('energy:cards.driver')} rules={required(t('energy:cards.driverRequired'))}>
                  <SearchSelect
                    useOptions={useDriverOptions}
                    current={card.data?.driverId ? { value: card.data.driverId, label: card.data.driverName } : undefined}
                    placeholder={t('energy:cards.driverPlaceholder')}
                    testId="card-driver"
                  />
                </Form.Item>
              ) : (
                <Form.Item name="vehicleId" label={t('energy:cards.vehicle')} rules={required(t('energy:cards.vehicleRequired'))}>
                  <SearchSelect
                    useOptions={useVehicleOptions}
                    current={card.data?.vehicleId ? { value: card.data.vehicleId, label: card.data.plateNumber } : undefined}
                    placeholder={t('energy:cards.vehiclePlaceholder')}
                    testId="card-vehicle"
                  />
                </Form.Item>
              )}
            </Col>
            <Col span={8}>
              <Form.Item name="budgetPeriod" label={t('energy:cards.budgetPeriod')}>
                <Select options={codeOptions(t, 'budgetPeriod', BUDGET_PERIODS)} />
              </Form.Item>
            </Col>
            <Col span={8}>
              <Form.Item name="budgetLimit" label={t('energy:cards.budgetLimit')}>
                <InputNumber {...AMOUNT_INPUT} disabled={budgetPeriod === 'NONE'} />
              </Form.Item>
            </Col>
            <Col span={8}>
              <Form.Item name="perSessionLimit" label={t('energy:cards.perSessionLimit')}>
                <InputNumber {...AMOUNT_INPUT} />
              </Form.Item>
            </Col>
            <Col span={24}>
              <Form.Item name="allowedStationIds" label={t('energy:cards.stations')} extra={t('energy:cards.stationsAll')}>
                <StationSelect />
              </Form.Item>
            </Col>
            <Col span={24}>
              <Form.Item name="remark" label={t('energy:common.remark')}>
                <Input.TextArea rows={2} maxLength={200} showCount placeholder={t('energy:common.remarkPlaceholder')} />
              </Form.Item>
            </Col>
          </Row>
        </Form>
      </Spin>
    </AppDialog>
  );
}

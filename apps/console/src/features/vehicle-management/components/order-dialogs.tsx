/** The order moves entered in dialogs: the shop's quote (lines from the catalogue or typed), completion, cancel. */
import { DeleteOutlined } from '@ant-design/icons';
import {
  Button,
  Checkbox,
  DatePicker,
  Form,
  Input,
  InputNumber,
  Select,
  Space,
  Typography,
} from 'antd';
import dayjs from 'dayjs';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { codeOptions } from '@/lib/codes';
import { toFen, yuan } from '@/lib/money';
import { toastSuccess } from '@/lib/notify';
import {
  useCancelOrder,
  useCompleteOrder,
  useQuoteOrder,
  useRepairConfig,
  type RepairItem,
  type RepairOrder,
} from '../api/repairs';
import { ITEM_KINDS, type RepairItemKind } from './repair-labels';

const P = 'vehicleManagement:repair';

/** A quote line as the form holds it: the price in yuan. */
interface LineValues {
  name?: string;
  kind?: RepairItemKind;
  partNo?: string;
  quantity?: number;
  unitPrice?: number;
  warranty?: boolean;
}

const toLines = (items: RepairItem[]): LineValues[] =>
  items.map((i) => ({
    name: i.name,
    kind: i.kind ?? undefined,
    partNo: i.partNo,
    quantity: i.quantity,
    unitPrice: i.unitPriceFen / 100,
    warranty: i.warranty,
  }));

const toItems = (lines: LineValues[]): RepairItem[] =>
  lines.map((l) => ({
    name: l.name ?? '',
    kind: l.kind ?? null,
    partNo: l.partNo ?? '',
    quantity: Number(l.quantity ?? 0),
    unitPriceFen: toFen(l.unitPrice ?? 0),
    amountFen: 0,
    warranty: !!l.warranty,
  }));

/** What the lines charge, as the server computes it (warranty lines free). */
export const linesTotal = (lines: LineValues[]) =>
  lines.reduce(
    (sum, l) =>
      sum +
      (l.warranty
        ? 0
        : Math.round(Number(l.quantity ?? 0) * toFen(l.unitPrice ?? 0))),
    0,
  );

/** The lines editor: a catalogue picker and one row per line. */
function LinesField({ name }: { name: string }) {
  const { t } = useTranslation();
  const m = (key: string) => t(`${P}.${key}`);
  const config = useRepairConfig();
  const form = Form.useFormInstance();
  const lines: LineValues[] = Form.useWatch(name, form) ?? [];
  const catalogue = (config.data?.items ?? []).filter((i) => i.enabled);
  return (
    <>
      <Space style={{ marginBottom: 8 }}>
        <Select
          style={{ width: 260 }}
          placeholder={m('pickItem')}
          value={null}
          data-testid="repair-pick-item"
          options={catalogue.map((i) => ({
            value: i.id,
            label: `${i.name}（${yuan(i.unitPriceFen)}/${i.unit}）`,
          }))}
          onChange={(id: string) => {
            const item = catalogue.find((i) => i.id === id);
            if (!item) return;
            form.setFieldValue(name, [
              ...lines,
              {
                name: item.name,
                kind: item.kind ?? 'OTHER',
                partNo: item.partNo,
                quantity: 1,
                unitPrice: item.unitPriceFen / 100,
                warranty: false,
              },
            ]);
          }}
        />
        <Typography.Text strong data-testid="repair-lines-total">
          {t(`${P}.total`, { total: yuan(linesTotal(lines)) })}
        </Typography.Text>
      </Space>
      <Form.List
        name={name}
        rules={[
          {
            validator: async (_, v: unknown[]) =>
              v?.length
                ? undefined
                : Promise.reject(new Error(m('itemsRequired'))),
          },
        ]}
      >
        {(rows, { add, remove }, { errors }) => (
          <>
            {rows.map((row) => (
              <Space key={row.key} align="baseline" data-testid="repair-line">
                <Form.Item
                  name={[row.name, 'name']}
                  rules={[{ required: true, message: m('itemName') }]}
                >
                  <Input
                    placeholder={m('itemName')}
                    style={{ width: 160 }}
                    maxLength={200}
                    data-testid="repair-line-name"
                  />
                </Form.Item>
                <Form.Item
                  name={[row.name, 'kind']}
                  rules={[{ required: true, message: m('itemKind') }]}
                >
                  <Select
                    placeholder={m('itemKind')}
                    style={{ width: 90 }}
                    options={codeOptions(t, `${P}.itemKinds`, ITEM_KINDS)}
                    data-testid="repair-line-kind"
                  />
                </Form.Item>
                <Form.Item
                  name={[row.name, 'quantity']}
                  rules={[{ required: true, message: m('quantity') }]}
                >
                  <InputNumber
                    placeholder={m('quantity')}
                    min={0.01}
                    max={10000}
                    style={{ width: 90 }}
                    data-testid="repair-line-quantity"
                  />
                </Form.Item>
                <Form.Item
                  name={[row.name, 'unitPrice']}
                  rules={[{ required: true, message: m('unitPrice') }]}
                >
                  <InputNumber
                    placeholder={m('unitPrice')}
                    min={0}
                    max={1_000_000}
                    precision={2}
                    style={{ width: 130 }}
                    data-testid="repair-line-price"
                  />
                </Form.Item>
                <Form.Item
                  name={[row.name, 'warranty']}
                  valuePropName="checked"
                >
                  <Checkbox>{m('warranty')}</Checkbox>
                </Form.Item>
                <DeleteOutlined onClick={() => remove(row.name)} />
              </Space>
            ))}
            <Button
              type="dashed"
              onClick={() => add({ kind: 'PART', quantity: 1 })}
              data-testid="repair-add-line"
            >
              {m('addItem')}
            </Button>
            <Form.ErrorList errors={errors} />
          </>
        )}
      </Form.List>
    </>
  );
}

export function QuoteDialog({
  order,
  onClose,
}: {
  order?: RepairOrder;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const m = (key: string) => t(`${P}.${key}`);
  const [form] = Form.useForm<{ lines: LineValues[]; remark?: string }>();
  const quote = useQuoteOrder();
  const confirm = async () => {
    if (!order) return;
    const values = await form.validateFields();
    await quote.mutateAsync({
      id: order.id,
      body: { items: toItems(values.lines), remark: values.remark ?? '' },
    });
    toastSuccess(m('quoteDone'));
    onClose();
  };
  return (
    <AppDialog
      open={!!order}
      width={860}
      title={m('quote')}
      onCancel={onClose}
      onConfirm={confirm}
      destroyOnHidden
    >
      <Form
        form={form}
        initialValues={{ lines: toLines(order?.quoteItems ?? []) }}
        data-testid="repair-quote-form"
      >
        <LinesField name="lines" />
        <Form.Item
          name="remark"
          label={m('quoteRemark')}
          rules={[{ max: 200 }]}
        >
          <Input.TextArea rows={2} maxLength={200} />
        </Form.Item>
      </Form>
    </AppDialog>
  );
}

export function CompleteDialog({
  order,
  onClose,
}: {
  order?: RepairOrder;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const m = (key: string) => t(`${P}.${key}`);
  const [form] = Form.useForm<{
    completedTime: dayjs.Dayjs;
    odometerKm: number;
    remark?: string;
  }>();
  const complete = useCompleteOrder();
  const confirm = async () => {
    if (!order) return;
    const values = await form.validateFields();
    await complete.mutateAsync({
      id: order.id,
      body: {
        completedTime: values.completedTime.format('YYYY-MM-DD HH:mm:ss'),
        odometerM: Math.round(Number(values.odometerKm ?? 0) * 1000),
        remark: values.remark ?? '',
        completionImages: [],
        finalItems: [],
      },
    });
    toastSuccess(m('completeDone'));
    onClose();
  };
  return (
    <AppDialog
      open={!!order}
      width={560}
      title={m('complete')}
      onCancel={onClose}
      onConfirm={confirm}
      destroyOnHidden
    >
      <Form
        form={form}
        labelCol={{ flex: '110px' }}
        initialValues={{
          completedTime: dayjs(),
          odometerKm: Math.round((order?.odometerM ?? 0) / 1000),
        }}
        data-testid="repair-complete-form"
      >
        <Form.Item
          name="completedTime"
          label={m('completedTime')}
          rules={[{ required: true }]}
        >
          <DatePicker showTime disabledDate={(d) => d.isAfter(dayjs())} />
        </Form.Item>
        <Form.Item
          name="odometerKm"
          label={m('completedOdometer')}
          rules={[{ required: true }]}
        >
          <InputNumber
            min={0}
            max={10_000_000}
            precision={0}
            addonAfter={t('vehicleManagement:common.km')}
          />
        </Form.Item>
        <Form.Item name="remark" label={m('remark')} rules={[{ max: 200 }]}>
          <Input.TextArea rows={2} maxLength={200} />
        </Form.Item>
      </Form>
    </AppDialog>
  );
}

/** A reason asked before a move: cancelling the order or sending the quote back. */
export function ReasonDialog({
  open,
  title,
  onSubmit,
  onClose,
}: {
  open: boolean;
  title: string;
  onSubmit: (reason: string) => Promise<unknown>;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const [form] = Form.useForm<{ reason: string }>();
  const confirm = async () => {
    const { reason } = await form.validateFields();
    await onSubmit(reason);
    onClose();
  };
  return (
    <AppDialog
      open={open}
      title={title}
      onCancel={onClose}
      onConfirm={confirm}
      destroyOnHidden
    >
      <Form form={form} data-testid="repair-reason-form">
        <Form.Item
          name="reason"
          rules={[
            { required: true, message: t(`${P}.reasonRequired`) },
            { max: 200 },
          ]}
        >
          <Input.TextArea
            rows={3}
            maxLength={200}
            data-testid="repair-reason"
          />
        </Form.Item>
      </Form>
    </AppDialog>
  );
}

export function useCancelDialogSubmit(order?: RepairOrder) {
  const { t } = useTranslation();
  const cancel = useCancelOrder();
  return async (reason: string) => {
    if (!order) return;
    await cancel.mutateAsync({ id: order.id, body: { reason } });
    toastSuccess(t(`${P}.cancelDone`));
  };
}

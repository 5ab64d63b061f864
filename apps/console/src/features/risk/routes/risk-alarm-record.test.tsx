import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import dayjs from 'dayjs';
import { afterEach, beforeEach, vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import { RulesDrawer } from '../components/rules-drawer';
import RiskAlarmRecordPage from './risk-alarm-record';

const PATH = '/carManagement/riskControll/riskAlarmRecord';
const ok = (data: unknown) => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data })));
const me = (permissions: string[]) => ({ id: 'u1', name: '演示管理员', userName: 'demo', roles: ['admin'], permissions: permissions.map((permissionValue) => ({ permissionValue })), flags: {} });

const alarm = (id: string, plateNumber: string, over: Record<string, unknown> = {}) => ({
  id,
  orgId: 'o1',
  orgName: '华南大区',
  vehicleId: `v-${id}`,
  plateNumber,
  vin: 'LGXCE4CB6R0046600',
  driverId: '',
  driverName: '',
  alarmType: 'OVERSPEED',
  level: 'HIGH',
  alarmTime: '2026-11-25T02:00:00Z',
  endTime: '2026-11-25T02:02:00Z',
  ongoing: false,
  point: { lat: 22.5, lng: 114.0 },
  address: '',
  speedKmh: 91.5,
  durationSeconds: 120,
  status: 'UNHANDLED',
  handleMethod: null,
  handleRemark: '',
  handlerName: '',
  handleTime: '',
  handleSeconds: 0,
  assigneeId: '',
  assigneeName: '',
  ruleId: 'r1',
  ruleName: '城区限速',
  terminalBit: -1,
  videoClipIds: [],
  images: [],
  clips: [],
  alarmKey: '',
  ...over,
});

const rows = [
  alarm('a1', '粤B11111'),
  alarm('a2', '粤B22222', { level: 'LOW', ongoing: true, endTime: '', status: 'PROCESSING', assigneeId: 'u2', assigneeName: '李四' }),
  alarm('a3', '粤B33333', { status: 'HANDLED', handleSeconds: 600, handleMethod: 'PHONE_CALL' }),
];

let fetchMock: ReturnType<typeof vi.fn>;
let permissions: string[];
beforeEach(() => {
  permissions = ['as:alarm'];
  fetchMock = vi.fn((url: string, init?: RequestInit) => {
    if (url === '/api/v1/me') return ok(me(permissions));
    if (url === '/api/v1/orgs/simple') return ok([]);
    if (url.startsWith('/api/v1/risk/alarms?')) return ok({ list: rows, total: rows.length });
    if (url === '/api/v1/risk/alarms/handle' && init?.method === 'POST') return ok([]);
    if (url.startsWith('/api/v1/risk/alarms/export') && init?.method === 'POST') return ok({ id: 'r1', status: 1 });
    if (url.startsWith('/api/v1/risk/alarm-rules')) return ok(init?.method === 'POST' ? {} : []);
    return ok(null);
  });
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const calls = (match: (url: string, init?: RequestInit) => boolean) =>
  fetchMock.mock.calls.filter(([url, init]) => match(String(url), init as RequestInit | undefined)).map(([url, init]) => ({ url: new URL(String(url), 'http://x'), init: init as RequestInit }));
const listCalls = () => calls((u) => u.startsWith('/api/v1/risk/alarms?'));
const handlePosts = () => calls((u, init) => u === '/api/v1/risk/alarms/handle' && init?.method === 'POST');
const rowOf = async (plate: string) => (await screen.findByText(plate)).closest('tr') as HTMLElement;
const dialog = () => screen.getByRole('dialog');
const confirm = () => fireEvent.click(within(dialog()).getByRole('button', { name: '提 交' }));
/** The shared dialog drops a second confirm within 1.5 s: the next one comes later. */
const later = () => {
  const now = Date.now();
  vi.spyOn(Date, 'now').mockReturnValue(now + 2_000);
};

describe('risk alarm records (riskAlarmRecord)', () => {
  it('opens the alarm a notice links to (?alarmId=)', async () => {
    renderWithProviders(<RiskAlarmRecordPage />, { route: `${PATH}?alarmId=a1` });
    await screen.findByTestId('alarm-drawer');
    await waitFor(() => expect(calls((u) => u === '/api/v1/risk/alarms/a1')).toHaveLength(1));
  });

  it('asks for the open alarms of the last 7 days and shows each row with -- for empty cells', async () => {
    renderWithProviders(<RiskAlarmRecordPage />, { route: PATH });
    const first = await rowOf('粤B11111');
    expect(first).toHaveTextContent('超速');
    expect(first).toHaveTextContent('三级');
    expect(first).toHaveTextContent('2分0秒');
    expect(first).toHaveTextContent('91.5');
    expect(first).toHaveTextContent('未处理');
    expect(within(first).getByText('三级').closest('.ant-tag')?.className).toContain('red');
    const second = await rowOf('粤B22222');
    expect(second).toHaveTextContent('持续中');
    expect(second).toHaveTextContent('李四');
    expect(second).toHaveTextContent('--');
    expect(await rowOf('粤B33333')).toHaveTextContent('10分0秒');

    const { searchParams } = listCalls()[0].url;
    expect(searchParams.getAll('statuses')).toEqual(['UNHANDLED', 'PROCESSING']);
    const start = dayjs(searchParams.get('alarmTimeStart'));
    const end = dayjs(searchParams.get('alarmTimeEnd'));
    expect(end.startOf('day').diff(start.startOf('day'), 'day')).toBe(6);
  });

  it('exports the list’s filters without paging', async () => {
    renderWithProviders(<RiskAlarmRecordPage />, { route: `${PATH}?levels=HIGH&plateNumbers=粤B11111&page=2` });
    await rowOf('粤B11111');
    const listed = listCalls().at(-1)?.url.searchParams ?? new URLSearchParams();
    fireEvent.click(screen.getByTestId('export-button'));
    const exports = () => calls((u, init) => u.startsWith('/api/v1/risk/alarms/export') && init?.method === 'POST');
    await waitFor(() => expect(exports()).toHaveLength(1));
    const { searchParams } = exports()[0].url;
    expect(searchParams.getAll('levels')).toEqual(['HIGH']);
    expect(searchParams.getAll('plateNumbers')).toEqual(['粤B11111']);
    expect(searchParams.getAll('statuses')).toEqual(listed.getAll('statuses'));
    expect(searchParams.get('alarmTimeStart')).toBe(listed.get('alarmTimeStart'));
    expect(searchParams.has('page')).toBe(false);
    expect(searchParams.has('size')).toBe(false);
    expect(await screen.findByText(/导出记录/)).toBeInTheDocument();
  });

  it('handles the selected alarms in one batch with the chosen method', async () => {
    renderWithProviders(<RiskAlarmRecordPage />, { route: PATH });
    fireEvent.click(within(await rowOf('粤B11111')).getByRole('checkbox'));
    fireEvent.click(within(await rowOf('粤B22222')).getByRole('checkbox'));
    // A closed alarm cannot be picked.
    expect(within(await rowOf('粤B33333')).getByRole('checkbox')).toBeDisabled();
    fireEvent.click(screen.getByTestId('batch-handle'));
    expect(await within(dialog()).findByText('已选 2 条报警')).toBeInTheDocument();

    confirm();
    expect(await within(dialog()).findByText('请选择处理方式')).toBeInTheDocument();
    expect(handlePosts()).toHaveLength(0);

    fireEvent.mouseDown(within(dialog()).getByRole('combobox'));
    fireEvent.click(await screen.findByTitle('电话联系'));
    fireEvent.change(within(dialog()).getByTestId('handle-remark'), { target: { value: '  已电话提醒司机  ' } });
    later();
    confirm();
    await waitFor(() => expect(handlePosts()).toHaveLength(1));
    expect(JSON.parse(String(handlePosts()[0].init.body))).toEqual({ alarmIds: ['a1', 'a2'], status: 'HANDLED', handleMethod: 'PHONE_CALL', remark: '已电话提醒司机', attachments: [] });
  });

  it('refuses a false alarm without its reason', async () => {
    renderWithProviders(<RiskAlarmRecordPage />, { route: PATH });
    fireEvent.click(screen.getByTestId('batch-false'));
    // Nothing selected: nothing to dismiss.
    expect(await screen.findByText('请先选择报警记录')).toBeInTheDocument();

    fireEvent.click(within(await rowOf('粤B11111')).getByRole('checkbox'));
    fireEvent.click(screen.getByTestId('batch-false'));
    expect(within(await screen.findByRole('dialog')).queryByText('处理方式')).not.toBeInTheDocument();
    fireEvent.change(within(dialog()).getByTestId('handle-remark'), { target: { value: '   ' } });
    confirm();
    expect(await within(dialog()).findByText('请填写误报原因')).toBeInTheDocument();
    expect(handlePosts()).toHaveLength(0);

    fireEvent.change(within(dialog()).getByTestId('handle-remark'), { target: { value: '设备误触发' } });
    later();
    confirm();
    await waitFor(() => expect(handlePosts()).toHaveLength(1));
    expect(JSON.parse(String(handlePosts()[0].init.body))).toMatchObject({ alarmIds: ['a1'], status: 'FALSE_ALARM', remark: '设备误触发' });
  });
});

describe('alarm rules (drawer of riskAlarmRecord)', () => {
  const rulePosts = () => calls((u, init) => u === '/api/v1/risk/alarm-rules' && init?.method === 'POST');

  async function openRuleForm() {
    permissions = ['as:alarm', 'as:alarm:rule'];
    renderWithProviders(<RulesDrawer open onClose={() => undefined} />, { route: PATH });
    fireEvent.click(await screen.findByTestId('rule-add'));
    return waitFor(() => {
      const found = screen.getAllByRole('dialog').find((d) => d.querySelector('form#alarm-rule'));
      if (!found) throw new Error('no rule form yet');
      return found;
    });
  }

  it('refuses a rule without its name and kind', async () => {
    const form = await openRuleForm();
    // No kind yet: no kind's parameters.
    expect(within(form).queryByLabelText('限速(km/h)')).not.toBeInTheDocument();
    fireEvent.click(within(form).getByRole('button', { name: '提 交' }));
    expect(await within(form).findByText('请输入规则名称')).toBeInTheDocument();
    expect(within(form).getByText('请选择规则类型')).toBeInTheDocument();
    expect(rulePosts()).toHaveLength(0);
  });

  it('shows the kind’s own parameters and sends them, the others as 0', async () => {
    const form = await openRuleForm();
    fireEvent.change(within(form).getByLabelText('规则名称'), { target: { value: '城区限速' } });
    fireEvent.mouseDown(within(form).getByRole('combobox', { name: '规则类型' }));
    fireEvent.click(await screen.findByTitle('超速'));
    const limit = await within(form).findByLabelText('限速(km/h)');
    expect(within(form).queryByLabelText('电量低于(%)')).not.toBeInTheDocument();
    fireEvent.change(limit, { target: { value: '60' } });
    fireEvent.click(within(form).getByRole('button', { name: '提 交' }));
    await waitFor(() => expect(rulePosts()).toHaveLength(1));
    expect(JSON.parse(String(rulePosts()[0].init.body))).toMatchObject({
      name: '城区限速',
      kind: 'OVERSPEED',
      level: 'MEDIUM',
      enabled: true,
      limitKmh: 60,
      minDurationSeconds: 30,
      socBelowPercent: 0,
      terminalBits: [],
    });
  });

  it('offers no changes without the rule permission', async () => {
    fetchMock.mockImplementation((url: string) => {
      if (url === '/api/v1/me') return ok(me(['as:alarm']));
      if (url.startsWith('/api/v1/risk/alarm-rules'))
        return ok([{ id: 'r1', name: '夜间禁行', kind: 'NIGHT_DRIVING', level: 'LOW', orgId: '', orgName: '', enabled: true, limitKmh: 0, minDurationSeconds: 0, maxDriveMinutes: 0, restMinutes: 0, windowStartMinute: 1320, windowEndMinute: 360, socBelowPercent: 0, terminalBits: [], quietMinutes: 0, createdBy: '', createTime: '', updatedBy: '', updateTime: '' }]);
      if (url.startsWith('/api/v1/risk/alarms?')) return ok({ list: [], total: 0 });
      return ok([]);
    });
    renderWithProviders(<RiskAlarmRecordPage />, { route: PATH });
    // The page opens its rules in a drawer.
    fireEvent.click(await screen.findByTestId('open-rules'));
    const row = (await screen.findByText('夜间禁行')).closest('tr') as HTMLElement;
    expect(row).toHaveTextContent('22:00 至 06:00 行驶');
    expect(row).toHaveTextContent('全部车辆');
    expect(within(row).getByTestId('rule-switch')).toBeDisabled();
    expect(screen.queryByTestId('rule-add')).not.toBeInTheDocument();
    expect(screen.queryByTestId('rule-edit')).not.toBeInTheDocument();
  });
});

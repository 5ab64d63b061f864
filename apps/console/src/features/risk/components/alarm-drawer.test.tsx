import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import '../messages';
import { AlarmDrawer } from './alarm-drawer';

vi.mock('@/components/map/map-view', () => ({
  MapView: ({ children }: { children?: ReactNode }) => <div data-testid="map">{children}</div>,
  useMapApi: () => null,
}));
vi.mock('@/components/chart/echart', () => ({ EChart: ({ 'data-testid': id }: { 'data-testid'?: string }) => <div data-testid={id} /> }));

const ok = (data: unknown) => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data })));
const detail = {
  alarm: {
    id: 'a1', orgId: 'o1', orgName: '华南大区', vehicleId: 'v1', plateNumber: '粤B11111', vin: 'LGX', driverId: '', driverName: '', alarmType: 'COLLISION', level: 'HIGH',
    alarmTime: '2026-11-25T02:00:00Z', endTime: '', ongoing: true, point: { lat: 22.5, lng: 114 }, address: '', speedKmh: 0, durationSeconds: 0, status: 'PROCESSING',
    handleMethod: null, handleRemark: '', handlerName: '', handleTime: '', handleSeconds: 0, assigneeId: 'u1', assigneeName: '演示管理员', ruleId: '', ruleName: '', terminalBit: 29,
    videoClipIds: [], images: [], clips: [], alarmKey: '',
  },
  activities: [
    { action: 'ASSIGNED', fromStatus: 'UNHANDLED', toStatus: 'PROCESSING', remark: '请跟进', attachments: [], actorName: '张三', time: '2026-11-25T02:05:00Z' },
    { action: 'VIEWED', fromStatus: null, toStatus: null, remark: '', attachments: [], actorName: '演示管理员', time: '2026-11-25T02:06:00Z' },
  ],
  track: [
    { time: '2026-11-25T01:59:00Z', point: { lat: 22.5, lng: 114 }, speedKmh: 40 },
    { time: '2026-11-25T02:00:00Z', point: { lat: 22.5, lng: 114 }, speedKmh: 0 },
  ],
};

let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(() => {
  fetchMock = vi.fn((url: string) => {
    if (url === '/api/v1/risk/alarms/a1') return ok(detail);
    if (url === '/api/v1/risk/alarms/a1/comments') return ok(detail.activities);
    return ok(null);
  });
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => vi.unstubAllGlobals());

const posts = (url: string) => fetchMock.mock.calls.filter(([u, init]) => u === url && (init as RequestInit).method === 'POST');

describe('alarm detail drawer', () => {
  it('shows the facts, the evidence and the activity log, and offers the moves of an open alarm', async () => {
    const onClosing = vi.fn();
    renderWithProviders(<AlarmDrawer alarmId="a1" onClose={() => undefined} onClosing={onClosing} onAssign={() => undefined} />);
    const facts = await screen.findByTestId('alarm-facts');
    expect(facts).toHaveTextContent('碰撞预警');
    expect(facts).toHaveTextContent('持续中');
    expect(facts).toHaveTextContent('114.000000, 22.500000');
    expect(screen.getByTestId('alarm-speed-chart')).toBeInTheDocument();
    const log = screen.getByTestId('alarm-activities');
    expect(log).toHaveTextContent('张三 指派（未处理 → 处理中）');
    expect(log).toHaveTextContent('请跟进');
    expect(log).toHaveTextContent('演示管理员 查看证据');
    expect(screen.getByTestId('alarm-no-evidence')).toHaveTextContent('暂无证据');
    fireEvent.click(screen.getByTestId('drawer-false'));
    expect(onClosing).toHaveBeenCalledWith('FALSE_ALARM', ['a1']);
  });

  it('shows the photos and plays each clip of an active-safety alarm', async () => {
    const file = (key: string, contentType: string) => ({ key, name: key, contentType, sizeBytes: 10, url: `/api/v1/files/download?key=${key}` });
    const safety = {
      ...detail,
      alarm: {
        ...detail.alarm, alarmType: 'PHONE_USE', alarmKey: 'T1-261125100000-1', images: [file('p.jpg', 'image/jpeg')],
        clips: [{ file: file('c.mp4', 'video/mp4'), channel: 2, takenAt: '2026-11-25T02:00:05Z' }],
      },
    };
    fetchMock.mockImplementation((url: string) => (url === '/api/v1/risk/alarms/a1' ? ok(safety) : ok(null)));
    renderWithProviders(<AlarmDrawer alarmId="a1" onClose={() => undefined} onClosing={() => undefined} onAssign={() => undefined} />);
    const clips = await screen.findByTestId('alarm-clips');
    const video = within(clips).getByTestId('alarm-clip');
    expect(video.tagName).toBe('VIDEO');
    expect(video).toHaveAttribute('src', '/api/v1/files/download?key=c.mp4');
    expect(video).toHaveAttribute('controls');
    expect(clips).toHaveTextContent('通道 2');
    expect(within(screen.getByTestId('alarm-images')).getByRole('img')).toHaveAttribute('src', '/api/v1/files/download?key=p.jpg');
    expect(screen.queryByTestId('alarm-no-evidence')).not.toBeInTheDocument();
  });

  it('adds a remark only when there is one', async () => {
    renderWithProviders(<AlarmDrawer alarmId="a1" onClose={() => undefined} onClosing={() => undefined} onAssign={() => undefined} />);
    const submit = await screen.findByTestId('comment-submit');
    fireEvent.click(submit);
    expect(await screen.findByText('请填写备注')).toBeInTheDocument();
    expect(posts('/api/v1/risk/alarms/a1/comments')).toHaveLength(0);
    fireEvent.change(screen.getByTestId('comment-remark'), { target: { value: '已联系司机' } });
    fireEvent.click(submit);
    await waitFor(() => expect(posts('/api/v1/risk/alarms/a1/comments')).toHaveLength(1));
    expect(JSON.parse(String((posts('/api/v1/risk/alarms/a1/comments')[0][1] as RequestInit).body))).toEqual({ remark: '已联系司机', attachments: [] });
    expect(within(screen.getByTestId('alarm-drawer')).queryByText('请填写备注')).not.toBeInTheDocument();
  });
});

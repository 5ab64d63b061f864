import { Button, Descriptions, Drawer, Empty, Form, Image, Input, Space, Spin, Timeline, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { EChart } from '@/components/chart/echart';
import { LoadErrorBanner } from '@/components/load-error';
import { UploadControl, type FileItem } from '@/components/upload/upload-control';
import { uploaderFor } from '@/lib/files';
import { BLANK, formatTime } from '@/lib/format';
import { toastSuccess } from '@/lib/notify';
import { useAlarmDetail, useCommentAlarm, type AlarmActivity, type RiskAlarm } from '../api/alarms';
import { AlarmMap } from './alarm-map';
import { durationCell, endText, handleTimeCell, isOpen, levelTag, speedCell, statusTag, textCell, typeText } from './alarm-cells';
import { ATTACHMENT_PURPOSE, ATTACHMENT_RULES, fileRefsOf } from './attachments';
import type { Closing } from './handle-dialog';
import { REMARK_MAX } from './labels';
import { speedChartOption } from './speed-chart';

export interface AlarmDrawerProps {
  alarmId?: string;
  onClose: () => void;
  onClosing: (closing: Closing, ids: string[]) => void;
  onAssign: (ids: string[]) => void;
}

function activityText(t: (key: string) => string, a: AlarmActivity): string {
  const action = a.action ? t(`risk:activity.${a.action}`) : BLANK;
  const move = a.fromStatus && a.toStatus ? `（${t(`risk:status.${a.fromStatus}`)} → ${t(`risk:status.${a.toStatus}`)}）` : '';
  return `${a.actorName || BLANK} ${action}${move}`;
}

function Facts({ alarm }: { alarm: RiskAlarm }) {
  const { t } = useTranslation();
  const point = alarm.point ? `${alarm.point.lng.toFixed(6)}, ${alarm.point.lat.toFixed(6)}` : BLANK;
  const items = [
    { key: 'plate', label: t('risk:fields.plateNumber'), children: textCell(alarm.plateNumber) },
    { key: 'vin', label: t('risk:fields.vin'), children: textCell(alarm.vin) },
    { key: 'type', label: t('risk:fields.alarmType'), children: typeText(t, alarm) },
    { key: 'level', label: t('risk:fields.level'), children: levelTag(t, alarm) },
    { key: 'start', label: t('risk:fields.startTime'), children: formatTime(alarm.alarmTime) || BLANK },
    { key: 'end', label: t('risk:fields.endTime'), children: endText(t, alarm) },
    { key: 'duration', label: t('risk:fields.duration'), children: durationCell(t, alarm) },
    { key: 'speed', label: t('risk:fields.peakSpeed'), children: speedCell(alarm) },
    { key: 'org', label: t('risk:fields.org'), children: textCell(alarm.orgName) },
    { key: 'driver', label: t('risk:fields.driver'), children: textCell(alarm.driverName) },
    { key: 'address', label: t('risk:fields.address'), children: textCell(alarm.address), span: 2 },
    { key: 'point', label: t('risk:detail.coordinates'), children: point },
    { key: 'rule', label: t('risk:fields.rule'), children: textCell(alarm.ruleName) },
    { key: 'status', label: t('risk:fields.status'), children: statusTag(t, alarm) },
    { key: 'assignee', label: t('risk:fields.assignee'), children: textCell(alarm.assigneeName) },
    { key: 'method', label: t('risk:fields.handleMethod'), children: alarm.handleMethod ? t(`risk:method.${alarm.handleMethod}`) : BLANK },
    { key: 'handler', label: t('risk:fields.handler'), children: textCell(alarm.handlerName) },
    { key: 'handledAt', label: t('risk:fields.handledAt'), children: formatTime(alarm.handleTime) || BLANK },
    { key: 'handleTime', label: t('risk:fields.handleTime'), children: handleTimeCell(t, alarm) },
    { key: 'remark', label: t('risk:fields.remark'), children: textCell(alarm.handleRemark), span: 2 },
  ];
  return <Descriptions size="small" bordered column={2} items={items} data-testid="alarm-facts" />;
}

/** The alarm's photos (previewed) and clips (played in place), or 暂无证据. */
function EvidenceFiles({ alarm }: { alarm: RiskAlarm }) {
  const { t } = useTranslation();
  if (alarm.images.length === 0 && alarm.clips.length === 0) {
    return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('risk:detail.noEvidence')} data-testid="alarm-no-evidence" />;
  }
  return (
    <Space orientation="vertical" style={{ width: '100%' }}>
      {alarm.images.length > 0 && (
        <>
          <Typography.Text type="secondary">{t('risk:detail.images')}</Typography.Text>
          <Image.PreviewGroup>
            <Space wrap data-testid="alarm-images">
              {alarm.images.map((img) => (
                <Image key={img.key} src={img.url} alt={img.name} width={120} height={90} style={{ objectFit: 'cover' }} />
              ))}
            </Space>
          </Image.PreviewGroup>
        </>
      )}
      {alarm.clips.length > 0 && (
        <>
          <Typography.Text type="secondary">{t('risk:detail.clips')}</Typography.Text>
          <Space wrap align="start" data-testid="alarm-clips">
            {alarm.clips.map((clip) => (
              <figure key={clip.file.key} style={{ margin: 0 }}>
                <video controls preload="metadata" src={clip.file.url} width={360} style={{ background: '#000', display: 'block' }} data-testid="alarm-clip">
                  <track kind="captions" />
                </video>
                <figcaption>
                  <Typography.Text type="secondary">
                    {t('risk:detail.channel', { channel: clip.channel })} · {formatTime(clip.takenAt) || BLANK}
                  </Typography.Text>
                </figcaption>
              </figure>
            ))}
          </Space>
        </>
      )}
    </Space>
  );
}

function CommentBox({ alarmId }: { alarmId: string }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<{ remark?: string; attachments?: FileItem[] }>();
  const [busy, setBusy] = useState(false);
  const comment = useCommentAlarm();
  const submit = async () => {
    if (busy) return;
    const values = await form.validateFields();
    await comment.mutateAsync({ alarmId, remark: values.remark?.trim() ?? '', attachments: fileRefsOf(values.attachments) });
    toastSuccess(t('risk:action.done'));
    form.resetFields();
  };
  return (
    <Form form={form} layout="vertical" name="alarm-comment" onFinish={() => void submit().catch(() => undefined)}>
      <Form.Item
        name="remark"
        label={t('risk:detail.comment')}
        rules={[
          { required: true, whitespace: true, message: t('risk:detail.commentRequired') },
          { max: REMARK_MAX, message: t('risk:handle.remarkTooLong') },
        ]}
      >
        <Input.TextArea rows={2} maxLength={REMARK_MAX} showCount placeholder={t('risk:detail.commentPlaceholder')} data-testid="comment-remark" />
      </Form.Item>
      <Form.Item name="attachments">
        <UploadControl upload={uploaderFor(ATTACHMENT_PURPOSE)} {...ATTACHMENT_RULES} buttonText={t('risk:detail.addAttachment')} onBusyChange={setBusy} />
      </Form.Item>
      <Button type="primary" htmlType="submit" loading={comment.isPending} disabled={busy} data-testid="comment-submit">
        {t('risk:detail.send')}
      </Button>
    </Form>
  );
}

/** 报警详情: the facts, the evidence (map, speed, photos, clips), the activity log and a remark box. */
export function AlarmDrawer({ alarmId, onClose, onClosing, onAssign }: AlarmDrawerProps) {
  const { t } = useTranslation();
  const detail = useAlarmDetail(alarmId);
  const data = detail.data;
  const alarm = data?.alarm;
  const chart = useMemo(() => (alarm && data?.track.length ? speedChartOption(data.track, alarm, t) : undefined), [alarm, data?.track, t]);
  const open = !!alarmId;
  return (
    <Drawer open={open} size={820} title={t('risk:detail.title')} onClose={onClose} destroyOnHidden data-testid="alarm-drawer">
      <LoadErrorBanner error={detail.error} onRetry={() => void detail.refetch()} />
      {!alarm ? (
        <Spin spinning={detail.isFetching} />
      ) : (
        <Space orientation="vertical" size="large" style={{ width: '100%' }}>
          {isOpen(alarm) && (
            <Space>
              <Button type="primary" onClick={() => onClosing('HANDLED', [alarm.id])} data-testid="drawer-handle">
                {t('risk:action.handle')}
              </Button>
              <Button onClick={() => onClosing('FALSE_ALARM', [alarm.id])} data-testid="drawer-false">
                {t('risk:action.falseAlarm')}
              </Button>
              <Button onClick={() => onAssign([alarm.id])} data-testid="drawer-assign">
                {t('risk:action.assign')}
              </Button>
            </Space>
          )}
          <section>
            <Typography.Title level={5}>{t('risk:detail.facts')}</Typography.Title>
            <Facts alarm={alarm} />
          </section>
          <section>
            <Typography.Title level={5}>{t('risk:detail.evidence')}</Typography.Title>
            <AlarmMap point={alarm.point} track={data.track} />
            <Typography.Text type="secondary">{t('risk:detail.speedChart')}</Typography.Text>
            {chart ? <EChart option={chart} style={{ height: 220 }} data-testid="alarm-speed-chart" /> : <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('risk:detail.noTrack')} />}
            <EvidenceFiles alarm={alarm} />
          </section>
          <section>
            <Typography.Title level={5}>{t('risk:detail.activities')}</Typography.Title>
            {data.activities.length === 0 ? (
              <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('risk:activity.empty')} />
            ) : (
              <Timeline
                data-testid="alarm-activities"
                items={data.activities.map((a, i) => ({
                  key: `${a.time}-${i}`,
                  content: (
                    <div>
                      <div>
                        <Typography.Text type="secondary">{formatTime(a.time)}</Typography.Text> {activityText(t, a)}
                      </div>
                      {a.remark && <div>{a.remark}</div>}
                      {a.attachments.length > 0 && (
                        <Space wrap>
                          {a.attachments.map((f) => (
                            <a key={f.key} href={f.url} target="_blank" rel="noopener noreferrer">
                              {f.name}
                            </a>
                          ))}
                        </Space>
                      )}
                    </div>
                  ),
                }))}
              />
            )}
            <CommentBox alarmId={alarm.id} />
          </section>
        </Space>
      )}
    </Drawer>
  );
}

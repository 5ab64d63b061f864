import type { MonitoringMessages } from './zh-CN';

const jaJP: MonitoringMessages = {
  codes: {
    status: { driving: '走行中', parked: '駐車中', charging: '充電中', offline: 'オフライン', alarm: 'アラーム' },
  },
  live: {
    total: '車両 {{count}} 台',
    searchPlaceholder: 'ナンバーで検索',
    orgPlaceholder: 'すべての組織',
    notFound: '該当する車両がありません',
    streamOpen: 'リアルタイム更新中',
    streamReconnecting: '接続が切れました。再接続中…',
    streamClosed: 'リアルタイム更新は停止しました',
    truncated: '車両が多すぎるため先頭 20,000 台のみ表示しています。組織で絞り込んでください',
    empty: '位置情報のある車両はまだありません',
    speed: '速度',
    soc: 'バッテリー',
    temperature: '温度',
    probe: 'プローブ{{n}}',
    driver: 'ドライバー',
    org: '組織',
    mileage: '総走行距離',
    fixTime: '測位時刻',
    ago: { minute: '{{count}} 分前', hour: '{{count}} 時間前', day: '{{count}} 日前' },
    follow: '追従',
    following: '追従中',
    track: '走行軌跡再生',
  },
};

export default jaJP;

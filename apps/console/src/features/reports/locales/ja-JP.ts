import type { ReportsMessages } from './zh-CN';

const jaJP: ReportsMessages = {
  fields: {
    plateNumber: 'ナンバー',
    org: '所属組織',
    reportDate: '日付',
    month: '月',
    mileage: '走行距離(km)',
    drivingTime: '走行時間',
    idleTime: 'アイドリング時間',
    onlineTime: 'オンライン時間',
    trips: '運行回数',
    maxSpeed: '最高速度(km/h)',
    avgSpeed: '平均速度(km/h)',
    operatingDays: '稼働日数',
    avgDailyMileage: '1日平均走行距離(km)',
    alarmCount: 'アラーム件数',
    firstStart: '最初の始動',
    lastStop: '最後の停止',
    driver: 'ドライバー',
    energyUsed: '消費電力量(kWh)',
    energyCharged: '充電量(kWh)',
    chargeCount: '充電回数',
    energyPer100km: '100kmあたり電費(kWh)',
  },
  filter: {
    operatingOnly: '稼働車両のみ',
    dateRequired: '日付範囲を選択してください',
    dateTooLong: '日付範囲は最長 {{days}} 日です',
    monthsTooLong: '月の範囲は最長 {{months}} か月です',
  },
  safety: {
    link: '車両安全レポート',
    byTypeTitle: '100 km あたりの警報（種類別）',
    trendTitle: '週次推移',
    empty: 'データがありません',
    loading: '読み込み中…',
    fields: {
      rank: '順位',
      score: '安全スコア',
      per100km: '100 km あたり警報',
      vehicles: '車両数',
      byType: '警報の内訳',
      alarmType: '警報種類',
      weight: '重み',
    },
    name: {
      VEHICLE: 'ナンバー',
      DRIVER: 'ドライバー',
      ORG: '組織',
    },
    tabs: {
      VEHICLE: '車両',
      DRIVER: 'ドライバー',
      ORG: '組織',
    },
    order: {
      worst: '低い順',
      best: '高い順',
    },
    summary: {
      mileage: '走行距離(km)',
      alarms: '警報回数',
      per100km: '100 km あたり警報',
      vehicles: '車両数',
    },
    trend: {
      per100km: '100 km あたり警報',
      averageScore: '平均スコア',
      week: '{{year}}年第{{week}}週',
    },
    weights: {
      button: 'スコアの重み',
      title: 'スコアの重み',
      hint: '安全スコア = 100 − Σ 重み × 100 km あたり警報回数；10 km 未満はスコアなし。',
      saved: '重みを保存しました',
      customized: 'カスタム',
    },
  },
};

export default jaJP;

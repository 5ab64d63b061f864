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
  },
  filter: {
    operatingOnly: '稼働車両のみ',
    dateRequired: '日付範囲を選択してください',
    dateTooLong: '日付範囲は最長 {{days}} 日です',
    monthsTooLong: '月の範囲は最長 {{months}} か月です',
  },
};

export default jaJP;

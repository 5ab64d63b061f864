/** 资产报表 (reports namespace), 简体中文. en-US and ja-JP have the same keys (checked by the compiler). */
const zhCN = {
  fields: {
    plateNumber: '车牌号',
    org: '所属组织',
    reportDate: '日期',
    month: '月份',
    mileage: '里程(km)',
    drivingTime: '行驶时长',
    idleTime: '怠速时长',
    onlineTime: '在线时长',
    trips: '行程数',
    maxSpeed: '最高速度(km/h)',
    avgSpeed: '平均速度(km/h)',
    operatingDays: '运营天数',
    avgDailyMileage: '日均里程(km)',
    alarmCount: '报警次数',
    firstStart: '首次启动',
    lastStop: '末次熄火',
  },
  filter: {
    operatingOnly: '仅看运营车辆',
    dateRequired: '请选择日期范围',
    dateTooLong: '日期范围最长 {{days}} 天',
    monthsTooLong: '月份范围最长 {{months}} 个月',
  },
};

export type ReportsMessages = typeof zhCN;
export default zhCN;

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
    driver: '司机',
    energyUsed: '耗电量(kWh)',
    energyCharged: '充电量(kWh)',
    chargeCount: '充电次数',
    energyPer100km: '百公里电耗(kWh)',
  },
  filter: {
    operatingOnly: '仅看运营车辆',
    dateRequired: '请选择日期范围',
    dateTooLong: '日期范围最长 {{days}} 天',
    monthsTooLong: '月份范围最长 {{months}} 个月',
  },
  safety: {
    link: '车辆安全报告',
    byTypeTitle: '百公里报警（按类型）',
    trendTitle: '周趋势',
    empty: '暂无数据',
    loading: '加载中…',
    fields: {
      rank: '排名',
      score: '安全评分',
      per100km: '百公里报警',
      vehicles: '车辆数',
      byType: '报警构成',
      alarmType: '报警类型',
      weight: '权重',
    },
    name: {
      VEHICLE: '车牌号',
      DRIVER: '司机',
      ORG: '组织',
    },
    tabs: {
      VEHICLE: '车辆',
      DRIVER: '司机',
      ORG: '组织',
    },
    order: {
      worst: '由低到高',
      best: '由高到低',
    },
    summary: {
      mileage: '总里程(km)',
      alarms: '报警次数',
      per100km: '百公里报警',
      vehicles: '车辆数',
    },
    trend: {
      per100km: '百公里报警',
      averageScore: '平均评分',
      week: '{{year}}年第{{week}}周',
    },
    weights: {
      button: '评分权重',
      title: '评分权重',
      hint: '安全评分 = 100 − Σ 权重 × 每百公里报警次数；里程不足 10 km 的不评分。',
      saved: '权重已保存',
      customized: '已自定义',
    },
  },
};

export type ReportsMessages = typeof zhCN;
export default zhCN;

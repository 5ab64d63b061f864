import type { ReportsMessages } from './zh-CN';

const enUS: ReportsMessages = {
  fields: {
    plateNumber: 'Plate number',
    org: 'Organisation',
    reportDate: 'Date',
    month: 'Month',
    mileage: 'Mileage (km)',
    drivingTime: 'Driving time',
    idleTime: 'Idle time',
    onlineTime: 'Online time',
    trips: 'Trips',
    maxSpeed: 'Top speed (km/h)',
    avgSpeed: 'Average speed (km/h)',
    operatingDays: 'Operating days',
    avgDailyMileage: 'Mileage per day (km)',
    alarmCount: 'Alarms',
    firstStart: 'First start',
    lastStop: 'Last stop',
    driver: 'Driver',
    energyUsed: 'Energy used (kWh)',
    energyCharged: 'Energy charged (kWh)',
    chargeCount: 'Charges',
    energyPer100km: 'Energy per 100 km (kWh)',
  },
  filter: {
    operatingOnly: 'Operating vehicles only',
    dateRequired: 'Choose a date range',
    dateTooLong: 'The date range is at most {{days}} days',
    monthsTooLong: 'The month range is at most {{months}} months',
  },
  safety: {
    link: 'Vehicle safety report',
    byTypeTitle: 'Alarms per 100 km by type',
    trendTitle: 'Weekly trend',
    empty: 'No data',
    loading: 'Loading…',
    fields: {
      rank: 'Rank',
      score: 'Safety score',
      per100km: 'Alarms per 100 km',
      vehicles: 'Vehicles',
      byType: 'Alarms by type',
      alarmType: 'Alarm type',
      weight: 'Weight',
    },
    name: {
      VEHICLE: 'Plate number',
      DRIVER: 'Driver',
      ORG: 'Organisation',
    },
    tabs: {
      VEHICLE: 'Vehicles',
      DRIVER: 'Drivers',
      ORG: 'Organisations',
    },
    order: {
      worst: 'Lowest first',
      best: 'Highest first',
    },
    summary: {
      mileage: 'Mileage (km)',
      alarms: 'Alarms',
      per100km: 'Alarms per 100 km',
      vehicles: 'Vehicles',
    },
    trend: {
      per100km: 'Alarms per 100 km',
      averageScore: 'Average score',
      week: '{{year}} W{{week}}',
    },
    weights: {
      button: 'Score weights',
      title: 'Score weights',
      hint: 'Safety score = 100 − Σ weight × alarms per 100 km; under 10 km there is no score.',
      saved: 'Weights saved',
      customized: 'Customised',
    },
  },
};

export default enUS;

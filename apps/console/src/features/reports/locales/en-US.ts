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
  },
  filter: {
    operatingOnly: 'Operating vehicles only',
    dateRequired: 'Choose a date range',
    dateTooLong: 'The date range is at most {{days}} days',
    monthsTooLong: 'The month range is at most {{months}} months',
  },
};

export default enUS;

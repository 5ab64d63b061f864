import type { MonitoringMessages } from './zh-CN';

const enUS: MonitoringMessages = {
  codes: {
    status: { driving: 'Driving', parked: 'Parked', charging: 'Charging', offline: 'Offline', alarm: 'Alarm' },
  },
  live: {
    total: '{{count}} vehicles',
    searchPlaceholder: 'Search by plate number',
    orgPlaceholder: 'All organisations',
    notFound: 'No such vehicle',
    streamOpen: 'Live',
    streamReconnecting: 'Connection lost, reconnecting…',
    streamClosed: 'Live updates stopped',
    truncated: 'Too many vehicles: the map shows the first 20,000; filter by organisation',
    empty: 'No vehicle has reported a position yet',
    speed: 'Speed',
    soc: 'Battery',
    temperature: 'Temperature',
    probe: 'Probe {{n}}',
    driver: 'Driver',
    org: 'Organisation',
    mileage: 'Odometer',
    fixTime: 'Last fix',
    ago: { minute: '{{count}} min ago', hour: '{{count}} h ago', day: '{{count}} d ago' },
    follow: 'Follow',
    following: 'Following',
    track: 'Track playback',
  },
};

export default enUS;

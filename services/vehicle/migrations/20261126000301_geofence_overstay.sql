-- Overstay alarms (GeofenceAlarmKind 4, raised once a vehicle stays inside
-- a fence longer than its max_dwell_minutes): the limit when raised.
alter table geofence_alarm add column max_stay_minutes int;

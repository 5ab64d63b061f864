-- The alarm list and its export read newest first by (started_at desc, id
-- desc): an index in that order serves both (keyset pages included).
drop index temperature_alarm_list;
create index temperature_alarm_newest on temperature_alarm (enterprise_id, started_at desc, id desc);

-- Maintenance reminders as an indexed list (fleetdesk-maintenance,
-- reminders::judge): each reminder keeps the state the list filters by and
-- the key it orders by, judged (by reminders::domain::standing, the one
-- place the rule lives) from the reading stored beside them. The plan
-- sync and the completion write them; the maintenance job re-judges every
-- open reminder hourly, so a state follows the calendar and the odometer
-- within the hour. A reminder whose due or plan changed waits with
-- judged_on null until it is judged (before the next list, or by the job).

alter table maintenance_reminder
    -- The list's status: 0 overdue, 1 due, 2 due soon, 3 ok (DueState's
    -- rank), 4 done.
    add column due_state smallint not null default 3,
    -- The order within a state: open, the day it falls due (the due date
    -- or, sooner, the mileage forecast) as days from the common era,
    -- 2147483647 when unknown; done, minus the (Beijing) day it was done,
    -- so the newest comes first.
    add column urgency int not null default 2147483647,
    -- The day it falls due (the due-time filter); null when unknown.
    add column forecast_date date,
    -- The reading it was judged with: the Beijing day, telemetry's odometer
    -- and the daily mileage (null where telemetry knows nothing); the list
    -- shows these, so what it shows is what it filtered and ordered by.
    add column judged_on date,
    add column judged_odometer_m bigint,
    add column judged_daily_m bigint,
    add constraint maintenance_reminder_due_state_check check (due_state between 0 and 4);

update maintenance_reminder
set due_state = 4,
    urgency = -(((completed_at at time zone interval '+08:00')::date - date '0001-01-01') + 1)
where completed_at is not null;

-- The list, its order (state, urgency, id) straight from an index: the
-- tenant's, an organisation's (the reach and the organisation filter) and a
-- plan's. Open and done share them (done is state 4).
create index maintenance_reminder_urgency_idx on maintenance_reminder
    (enterprise_id, due_state, urgency, id);
create index maintenance_reminder_org_urgency_idx on maintenance_reminder
    (enterprise_id, org_id, due_state, urgency, id);
create index maintenance_reminder_plan_urgency_idx on maintenance_reminder
    (enterprise_id, plan_id, due_state, urgency, id);
-- The reminders waiting to be judged.
create index maintenance_reminder_stale_idx on maintenance_reminder (enterprise_id, id)
    where judged_on is null and completed_at is null;

drop index maintenance_reminder_open_idx;
drop index maintenance_reminder_org_idx;
drop index maintenance_reminder_done_idx;

-- A fix whose terminal time cannot be right (older than retention, or more
-- than 10 minutes ahead: GPS week rollover, an unset clock) is stored at its
-- receive time instead of being dropped; the terminal's own time is kept
-- here, and its being set is the flag. Null for every other fix.
alter table position add column device_time timestamptz;

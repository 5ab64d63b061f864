-- The counter triggers name `vehicle_org_count` unqualified: pin their
-- search_path to this schema so a writer with another search_path (a bulk
-- seed, an operator's psql) still counts into the right table.
alter function vehicle_count_added() set search_path from current;
alter function vehicle_count_removed() set search_path from current;

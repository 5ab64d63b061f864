-- A batch filter (up to 250 plates, VINs or terminals) probes one unique key
-- per value and needs only each match's id and creation time to count and
-- page them: the keys carry both, so the probes are served from the index
-- alone and only the page's 20 rows are read from the table.
alter table vehicle
    drop constraint vehicle_plate_key,
    add constraint vehicle_plate_key unique (enterprise_id, plate_number) include (id, created_at),
    drop constraint vehicle_vin_key,
    add constraint vehicle_vin_key unique (enterprise_id, vin) include (id, created_at),
    drop constraint vehicle_terminal_key,
    add constraint vehicle_terminal_key unique (terminal_id) include (enterprise_id, id, created_at);

-- The dashboard's period figures now sum the time, fixed and reservation
-- parts too: the covering index carries them, so the pass stays index-only.
drop index if exists charging_session_figures_idx;
create index charging_session_figures_idx on charging_session (enterprise_id, start_time)
    include (status, org_id, station_id, vehicle_id, energy_wh, electricity_fen, service_fee_fen,
             parking_fee_fen, time_fee_fen, fixed_fee_fen, reservation_fee_fen, discount_fen,
             total_fen);

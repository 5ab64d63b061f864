-- A connector the platform pushed without its voltage and amperage (OCPI
-- requires them; real platforms, and the standard's own EVSE PUT example,
-- leave them out) has no known power: null, not 0 kW.
alter table station_connector alter column power_kw drop not null;

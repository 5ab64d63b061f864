-- The maker id a terminal registered with (0x0100), kept with its code: the
-- edge reads a report's vendor items (0xE0-0xFF) by the maker, also when the
-- terminal authenticates on another connection or replica than the one it
-- registered on. Null for terminals registered before it was kept, or that
-- sent none.
alter table terminal_auth add column maker_id text;

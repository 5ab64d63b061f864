-- The relay reads unsent events in (created_at, id) order. Events written in
-- one transaction share created_at (now()), so with created_at alone indexed
-- each poll sorted every unsent row to break the tie on id: 800,000 warnings
-- raised by one daily job made each poll of a batch take 1.5 s. The index
-- now gives the whole order, and a poll reads just its batch.
drop index if exists outbox_unsent_idx;
create index outbox_unsent_idx on outbox (created_at, id) where sent_at is null;

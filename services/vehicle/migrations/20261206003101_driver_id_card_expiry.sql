-- A driver's resident ID card validity end (居民身份证有效期至). A long-term
-- card (长期) has no end: id_card_long_term is true and the date is null.
-- Both unset means not recorded yet (drivers from before this column).
alter table driver
    add column id_card_expire_time timestamptz,
    add column id_card_long_term boolean not null default false,
    add constraint driver_id_card_validity_check
        check (not (id_card_long_term and id_card_expire_time is not null));

-- What the daily warnings job reads across tenants: cards with an end, of
-- drivers who have not left.
create index driver_id_card_expire_idx on driver (id_card_expire_time)
    where id_card_expire_time is not null and status <> 3;

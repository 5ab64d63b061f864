-- Locations and tariffs as OCPI 2.2.1 has them, pushed by the platform to
-- energy's Locations and Tariffs receivers as well as pulled by the station
-- sync: each object kept as energy last stored it (what the platform's GET
-- answers and what its PATCHes apply to), every price component of a
-- tariff whatever it prices, and the OCPI ids of tariffs a station names
-- before that tariff has reached energy.

-- The Location as stored (OCPI JSON). Null for a station written before
-- this migration until the sync writes it again.
alter table station
    add column object jsonb,
    -- The OCPI id of the tariff `tariff_id` stands for (its first
    -- connector's first), kept while that tariff is unknown here so that
    -- the tariff, when it comes, is linked.
    add column tariff_ref text;

alter table station_connector add column tariff_ref text;

-- The Tariff as stored (OCPI JSON).
alter table tariff add column object jsonb;

-- A band's time-of-use period is the vendor's `x_period`; the bands of a
-- standard tariff have none.
alter table tariff_period alter column period drop not null;

-- A tariff's elements in order: when each applies (OCPI TariffRestrictions
-- JSON, null: always) and the vendor's service fee (CNY/kWh) and band.
create table tariff_element (
    tariff_id uuid not null references tariff (id) on delete cascade,
    element_no smallint not null,
    restrictions jsonb,
    service_fee numeric,
    -- PEAK 1, FLAT 2, VALLEY 3.
    period smallint,
    primary key (tariff_id, element_no)
);

-- An element's price components: the dimension priced (ENERGY 1, FLAT 2,
-- PARKING_TIME 3, TIME 4), the price per unit excluding VAT in the tariff's
-- currency (per kWh, per session, per hour), the VAT percent (null: none)
-- and the step billed in (Wh or seconds).
create table tariff_component (
    tariff_id uuid not null,
    element_no smallint not null,
    component_no smallint not null,
    dimension smallint not null,
    price numeric not null,
    vat numeric,
    step_size int not null check (step_size >= 0),
    primary key (tariff_id, element_no, component_no),
    foreign key (tariff_id, element_no) references tariff_element (tariff_id, element_no)
        on delete cascade
);

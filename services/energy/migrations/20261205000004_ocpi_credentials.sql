-- Energy's registration with the charging platform through the OCPI
-- credentials module: who the platform is, where its modules are, and the
-- tokens each side presents. Energy meets one platform at a time (its
-- sessions, stations and plate scans all name that platform's party), so
-- there is at most one row: a platform registering with a fresh bootstrap
-- token replaces the one before.
create table ocpi_registration (
    -- Always true: the constant key that keeps the table to one row.
    id boolean primary key default true check (id),
    -- The platform's CPO role as its credentials gave it (party id upper-cased:
    -- OCPI compares it case-insensitively).
    country_code text not null,
    party_id text not null,
    business_name text not null,
    -- The platform's versions endpoint, and the endpoints (identifier, role,
    -- url) of the 2.2.1 details fetched from it; fetched again on every PUT.
    versions_url text not null,
    endpoints jsonb not null,
    -- Token B, what energy presents to the platform. Kept as given because
    -- energy has to send it, unlike the two tokens below.
    token_b text not null,
    -- SHA-256 of token C, what the platform presents to energy; null once
    -- the platform unregistered (DELETE), so that token stops working.
    token_c_hash bytea unique,
    -- SHA-256 of the bootstrap token A this registration used: a token A
    -- registers once, and a second POST with it is refused.
    token_a_hash bytea not null,
    registered_at timestamptz not null default now(),
    updated_at timestamptz not null default now()
);

select manage_updated_at('ocpi_registration');

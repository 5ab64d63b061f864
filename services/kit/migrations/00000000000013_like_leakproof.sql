-- Contains-search with LIKE under row-level security, as 00000000000012 does
-- for ILIKE: `textlike` raises errors only for a malformed pattern, never
-- depending on a row's value, so marking it LEAKPROOF leaks nothing and lets
-- a pg_trgm index serve a name search ahead of the tenant policy (org's
-- member and role names). Needs a superuser; without one searches stay
-- correct, only slower.
do $$
begin
    alter function pg_catalog.textlike(text, text) leakproof;
exception when insufficient_privilege then
    raise notice 'textlike stays non-leakproof: contains-search cannot use pg_trgm under RLS';
end
$$;

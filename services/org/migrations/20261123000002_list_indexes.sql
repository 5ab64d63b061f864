-- An index behind each list's filter and order (issue 9 §4), so one large
-- tenant slows no other and a page of 20 reads about 20 rows. The tenant
-- policy now compares enterprise_id as a uuid (kit migration), so these
-- indexes serve it too. A btree is read both ways: (created_at, id) serves
-- oldest-first and newest-first (created_at desc, id desc) alike.
create extension if not exists pg_trgm schema public;

-- Users (member): order, organisation filter, contains-search, role filter.
create index member_list_idx on member (enterprise_id, created_at, id);
create index member_org_idx on member (enterprise_id, org_id);
create index member_name_trgm_idx on member using gin (name public.gin_trgm_ops);
create index member_user_name_trgm_idx on member using gin (user_name public.gin_trgm_ops);
create index member_role_role_idx on member_role (role_id, member_id);

-- Roles: order and contains-search.
create index role_list_idx on role (enterprise_id, created_at, id);
create index role_name_trgm_idx on role using gin (name public.gin_trgm_ops);

-- Notices, approvals, export records: newest first with the id tie-break.
drop index notice_enterprise_idx;
create index notice_list_idx on notice (enterprise_id, published_at desc, id);
create index approval_list_idx on approval (enterprise_id, applied_at desc, id);
drop index export_record_enterprise_idx;
create index export_record_list_idx on export_record (enterprise_id, created_at desc, id);

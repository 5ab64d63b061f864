-- The operator's remark when approving an application (the applicant's
-- note stays in `remark`).
alter table charging_open_application
    add column approve_remark text not null default '';

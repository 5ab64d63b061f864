-- A WeCom user id names at most one member of an enterprise, so a QR sign-in
-- maps to exactly one account.
create unique index member_wecom_user_id_key on member (enterprise_id, wecom_user_id)
    where wecom_user_id is not null;

-- People who can sign in. Enterprise membership is owned by the org service.
create table account (
    id uuid primary key,
    username text not null,
    phone text,
    name text not null,
    avatar_url text not null default '',
    -- argon2id PHC string; null for accounts that sign in by SMS or WeCom only.
    password_hash text,
    -- 1 active, 2 disabled.
    status smallint not null default 1,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    constraint account_username_key unique (username),
    constraint account_phone_key unique (phone)
);

-- Edge sessions. Only the SHA-256 of the token is kept.
create table session (
    id uuid primary key,
    token_hash bytea not null,
    account_id uuid not null references account (id),
    -- 1 personal, 2 enterprise.
    kind smallint not null,
    enterprise_id uuid,
    created_at timestamptz not null default now(),
    expires_at timestamptz not null,
    revoked_at timestamptz,
    revoke_reason text,
    constraint session_token_hash_key unique (token_hash),
    constraint session_enterprise_matches_kind check ((kind = 2) = (enterprise_id is not null))
);

create index session_live_by_account_idx on session (account_id) where revoked_at is null;

-- Every sign-in attempt, successful or not.
create table login_log (
    id uuid primary key,
    attempted_at timestamptz not null default now(),
    -- 1 password, 2 SMS code, 3 WeCom.
    login_type smallint not null,
    principal text not null,
    account_id uuid,
    enterprise_id uuid,
    succeeded boolean not null,
    failure_reason text not null default '',
    ip text not null default '',
    user_agent text not null default ''
);

create index login_log_enterprise_time_idx on login_log (enterprise_id, attempted_at desc);

-- A statement's card lines page by organisation then card number (the
-- order the console and the workbook show).
create index reconciliation_card_line_org_idx
    on reconciliation_card_line (statement_id, org_name, org_id, card_no, card_id);

-- Which audit entries a report already told its player of: the highest
-- `audit_log.id` when the report was stored. The next report tells the
-- mails refused in his name after it (`game::reports`), by id rather than
-- by timestamp: two daemon cycles in one second no longer tell a refusal
-- twice or never. NULL for reports stored before this migration (then the
-- report's `created_at` is used, as before).
ALTER TABLE reports ADD COLUMN audit_through INTEGER;

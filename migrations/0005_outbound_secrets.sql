-- 0005_outbound_secrets: a secret mailed to a player is kept only until its
-- mail has left.
--
-- The umpire's REPLACE mails the new player a fresh secret. Mail is queued
-- in the transaction that made it and sent afterwards with retries, so the
-- secret must be somewhere durable until then; but `outbound_mail.raw` is
-- kept for good (and may never be rewritten). So the queued raw carries a
-- placeholder, the secret waits here, the sender puts it in at send time
-- (`Store::due_outbound`), and the row is deleted in the same statement
-- that marks the mail sent or given up (the trigger below): once the mail
-- is gone, Adjutant holds only the Argon2 hash, as for every other secret.

CREATE TABLE outbound_secrets (
    mail_id     INTEGER PRIMARY KEY REFERENCES outbound_mail(id),
    -- The text in `raw` that stands for the secret.
    placeholder TEXT    NOT NULL CHECK (length(placeholder) > 0),
    secret      TEXT    NOT NULL CHECK (length(secret) > 0)
) STRICT;

CREATE TRIGGER outbound_secrets_forgotten
AFTER UPDATE OF status ON outbound_mail
WHEN NEW.status IN ('sent', 'failed')
BEGIN
    DELETE FROM outbound_secrets WHERE mail_id = NEW.id;
END;

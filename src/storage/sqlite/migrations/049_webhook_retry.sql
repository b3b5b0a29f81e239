-- Issue 28. POST /webhook's meta.webhook_retry_count (retries after the first failed attempt) and
-- meta.webhook_retry_frequency (minutes between attempts). NULL keeps the default schedule
-- (src/domain/webhook-policy.ts); the dispatcher reads them when it settles an attempt.
ALTER TABLE webhooks ADD COLUMN retry_count INTEGER;
ALTER TABLE webhooks ADD COLUMN retry_frequency_minutes INTEGER;

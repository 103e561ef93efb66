-- The channels a ring was started with (JSON, src/domain/channel-choice.ts), so that the job that
-- finishes it uses the same ones. NULL for rings started before: they used every channel.
ALTER TABLE rings ADD COLUMN channels TEXT;

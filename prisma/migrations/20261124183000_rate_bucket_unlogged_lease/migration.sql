-- The rate-limit buckets (lib/api/rate-limit.ts) are written by every /v1 request and worth nothing after a crash (a
-- bucket that is gone starts full): unlogged, so a request's token costs no WAL write and no wait for its flush.
-- Every request of one API key updates the same row, so with a logged table each one held the row lock until its
-- commit was flushed to disk, and one key's requests could not go faster than the disk's flushes (bench: the
-- statement averaged 5 ms under 32 connections). PostgreSQL empties an unlogged table after a crash and does not
-- replicate it to standbys: after a failover every bucket starts full, as after a restart of the in-memory store.
ALTER TABLE "RateBucket" SET UNLOGGED;

-- Tokens the last request took: 1, or a lease of several that one instance hands out to its coming requests without
-- a statement each (lib/api/rate-limit.ts).
ALTER TABLE "RateBucket" ADD COLUMN     "granted" INTEGER NOT NULL DEFAULT 1;

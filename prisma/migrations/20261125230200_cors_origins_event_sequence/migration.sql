-- CORS for the /me routes (lib/api/cors.ts): the web origins whose pages may call them with a customer token.
ALTER TABLE "Program" ADD COLUMN     "allowedOrigins" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- The webhook body's `sequence` (lib/domain/webhooks.ts EVENT_BODY_SQL): one database sequence, taken when the
-- event row is inserted. Existing events keep NULL: setting the default after adding the column rewrites nothing.
CREATE SEQUENCE "Event_sequence_seq" AS BIGINT;
ALTER TABLE "Event" ADD COLUMN     "sequence" BIGINT;
ALTER TABLE "Event" ALTER COLUMN "sequence" SET DEFAULT nextval('"Event_sequence_seq"'::regclass);
ALTER SEQUENCE "Event_sequence_seq" OWNED BY "Event"."sequence";

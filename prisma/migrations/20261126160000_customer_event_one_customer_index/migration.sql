-- Every event writes one row here (the event log) with each of its indexes. ("programId", "customerId", "occurredAt")
-- is a prefix-equal twin of ("programId", "customerId", "type", "occurredAt"): every query that reads one customer's
-- events (segments' last event time, lifecycle inactivity, deletion) is served by the longer one, a customer's events
-- being few. One index less on the hot path of POST …/events.
DROP INDEX IF EXISTS "CustomerEvent_programId_customerId_occurredAt_idx";

/**
 * What counts as "the database is unavailable" (lib/db/outage.ts), on the error shapes Prisma 7 with
 * @prisma/adapter-pg actually throws (recorded against PostgreSQL 15: pg_terminate_backend, a stopped server),
 * and what does not: a request's own errors must stay 4xx or a 500 bug, never turn into a 503.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { isDatabaseUnavailable } from "@/lib/db/outage";
import { AppError, conflict } from "@/lib/errors";

/** Prisma's shape: the adapter's error in meta.driverAdapterError, the driver's in its cause. */
function prismaError(code: string, cause: Record<string, unknown>, message = "Invalid invocation") {
  return Object.assign(new Error(message), {
    name: "PrismaClientKnownRequestError",
    code,
    meta: { driverAdapterError: Object.assign(new Error("driver"), { name: "DriverAdapterError", cause }) },
  });
}

describe("isDatabaseUnavailable", () => {
  test("a terminated backend (57P01 admin_shutdown), as a raw query and as a model query report it", () => {
    assert.equal(
      isDatabaseUnavailable(
        prismaError("P2010", { originalCode: "57P01", kind: "postgres", code: "57P01", severity: "FATAL" }),
      ),
      true,
    );
  });

  test("a server starting up or shutting down (57P03), a crash (57P02), class 08 connection exceptions, too many connections", () => {
    for (const code of ["57P03", "57P02", "08006", "08001", "08P01", "53300"]) {
      assert.equal(
        isDatabaseUnavailable(prismaError("P2010", { originalCode: code, kind: "postgres", code })),
        true,
        code,
      );
    }
  });

  test("an unreachable server: Prisma's P1001 and the adapter's DatabaseNotReachable, ConnectionClosed and SocketTimeout", () => {
    assert.equal(
      isDatabaseUnavailable(prismaError("P1001", { kind: "DatabaseNotReachable", host: "127.0.0.1", port: 5432 })),
      true,
    );
    assert.equal(isDatabaseUnavailable(prismaError("P2010", { kind: "ConnectionClosed" })), true);
    assert.equal(isDatabaseUnavailable(prismaError("P2010", { kind: "SocketTimeout" })), true);
    assert.equal(
      isDatabaseUnavailable(Object.assign(new Error("Server has closed the connection."), { code: "P1017" })),
      true,
    );
  });

  test("node-postgres's own errors, which the adapter rethrows unchanged, and socket errors", () => {
    assert.equal(isDatabaseUnavailable(new Error("Connection terminated unexpectedly")), true);
    assert.equal(
      isDatabaseUnavailable(new Error("Client has encountered a connection error and is not queryable")),
      true,
    );
    assert.equal(isDatabaseUnavailable(new Error("timeout exceeded when trying to connect")), true);
    assert.equal(
      isDatabaseUnavailable(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" })),
      true,
    );
    assert.equal(
      isDatabaseUnavailable(
        new Error("outer", { cause: Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }) }),
      ),
      true,
    );
  });

  test("not: a request's own errors, constraint violations, other SQL errors, bugs", () => {
    assert.equal(isDatabaseUnavailable(conflict("taken")), false);
    assert.equal(isDatabaseUnavailable(new AppError(400, "validation_failed", "bad")), false);
    assert.equal(
      isDatabaseUnavailable(prismaError("P2002", { originalCode: "23505", kind: "UniqueConstraintViolation" })),
      false,
    );
    assert.equal(
      isDatabaseUnavailable(prismaError("P2010", { originalCode: "23514", kind: "postgres", code: "23514" })),
      false,
    );
    assert.equal(
      isDatabaseUnavailable(prismaError("P2010", { originalCode: "40P01", kind: "postgres", code: "40P01" })),
      false,
    );
    assert.equal(isDatabaseUnavailable(new TypeError("Cannot read properties of undefined")), false);
    assert.equal(isDatabaseUnavailable(undefined), false);
    assert.equal(isDatabaseUnavailable("Connection terminated"), false, "only errors, not strings that look like one");
  });

  test("a cyclic cause chain ends", () => {
    const a: Record<string, unknown> = { message: "a" };
    a.cause = { message: "b", cause: a };
    assert.equal(isDatabaseUnavailable(a), false);
  });
});

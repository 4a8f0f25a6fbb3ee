import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { uniqueViolation } from "@/lib/errors";

describe("uniqueViolation", () => {
  test("finds the constraint through driver-adapter wrapping", () => {
    const wrapped = {
      code: "P2010",
      meta: {
        driverAdapterError: {
          cause: {
            originalCode: "23505",
            originalMessage:
              'duplicate key value violates unique constraint "UserData_programId_externalCustomerId_key"',
          },
        },
      },
    };
    assert.match(uniqueViolation(wrapped)?.constraint ?? "", /externalCustomerId/);
    assert.equal(uniqueViolation(new Error("other")), null);
  });
});

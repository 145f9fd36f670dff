import assert from "node:assert/strict";
import { BlocApiError } from "bloc-data-service/client";

/** The BlocApiError a client call is refused with; fails the test when it is not refused. */
export async function refusal(promise: Promise<unknown>): Promise<BlocApiError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof BlocApiError, `a BlocApiError, got ${String(error)}`);
    return error;
  }
  assert.fail("expected a refusal");
}

import type { FetchBlocClient } from "../api.js";
import { BlocApiError } from "../../../src/client/errors.js";
import type { DataRecord } from "../../../src/client/types.js";

/**
 * One record, read as this user may read it; null when it is not there: deleted, hidden
 * from this user, or the ID is wrong — which, the service does not say (one 404 for all),
 * as a hidden record must not be told apart from a missing one.
 */
export async function findRecord(client: FetchBlocClient, blocId: string, recordId: string): Promise<DataRecord | null> {
  try {
    return await client.record(blocId, recordId);
  } catch (error) {
    if (error instanceof BlocApiError && error.status === 404) return null;
    throw error;
  }
}

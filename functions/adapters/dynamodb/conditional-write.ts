/**
 * The one place a failed condition is read: a conditional write whose
 * condition did not hold is the adapters' "no" (a null, a false, a domain
 * error), never a store failure. Every other error is thrown as it was.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';

const isConditionFailure = (e: unknown): boolean =>
  e instanceof ConditionalCheckFailedException || (e as Error)?.name === 'ConditionalCheckFailedException';

/**
 * Runs `write`; when its condition fails, answers what `otherwise` gives (a result, or the
 * domain's error it throws) instead.
 */
export async function conditionalWrite<T, F>(write: () => Promise<T>, otherwise: () => F | Promise<F>): Promise<T | F> {
  try {
    return await write();
  } catch (e) {
    if (isConditionFailure(e)) return otherwise();
    throw e;
  }
}

/** Whether the condition of `write` held (a failed condition changed nothing). */
export const conditionHeld = (write: () => Promise<unknown>): Promise<boolean> =>
  conditionalWrite(
    async () => {
      await write();
      return true;
    },
    () => false,
  );

/** A write whose failed condition just means there was nothing to do (the item is gone, or someone else's). */
export const unlessConditionFails = async (write: () => Promise<unknown>): Promise<void> => {
  await conditionHeld(write);
};

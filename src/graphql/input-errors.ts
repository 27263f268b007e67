import type { ZodError } from 'zod';
import { PaymentInputError } from '../payments/input-error.ts';

/** zod's issues as the InputError clients see: a path per bad field and a message. */
export function toInputError(error: ZodError): PaymentInputError {
  return new PaymentInputError(error.issues.map((issue) => ({ path: issue.path.map(String), message: issue.message })));
}

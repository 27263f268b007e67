import { GatewayError } from '../lib/gateway-error.ts';

export interface FieldProblem {
  /** Where the bad value is, e.g. ["amount"] or ["recipient", "pan"] (the spec's field names). */
  path: string[];
  message: string;
  /** Stable code for reports: amount.limit, field.required, field.pattern, … */
  code?: string;
}

/** A payment request refused before any upstream call, naming each bad field. */
export class PaymentInputError extends GatewayError {
  readonly code = 'input.invalid';
  readonly kind = 'input';
  constructor(readonly problems: FieldProblem[]) {
    super(problems.map((p) => `${p.path.join('.')}: ${p.message}`).join('; '));
    this.name = 'PaymentInputError';
  }
}

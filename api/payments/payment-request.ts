/**
 * @module Reading a create-payment request: the schema's checks and the asset's together, into the
 * typed input the use case takes. Kept apart from the schemas, which the typed client shares.
 */
import { parseCollecting } from '../http/validate.ts';
import type { Asset, AssetRegistry } from '../networks/asset-registry.ts';
import { resolveRequestAsset } from '../networks/asset-rules.ts';
import { CreatePaymentInput } from './payment.schema.ts';

/** A create request as the use case takes it: the checked fields and the served asset they name. */
export interface CreatePaymentRequest {
  input: CreatePaymentInput;
  asset: Asset;
}

/**
 * Reads a create request's body: every bad field at once, the schema's and the asset's (decimal
 * places, an unserved pair) together, as one InvalidInput; else the typed request.
 */
export function parseCreatePayment(registry: AssetRegistry, body: unknown): CreatePaymentRequest {
  const { data, errors } = parseCollecting(CreatePaymentInput, body);
  const asset = resolveRequestAsset(registry, body, errors);
  return { input: data!, asset };
}

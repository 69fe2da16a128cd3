/** Request rules that depend on the asset: which pair it names and how fine its amounts may be. */
import { type FieldError, invalidFields, InvalidInput } from '../shared/errors.ts';
import { AMOUNT_PATTERN, fractionDigits } from '../shared/money.ts';
import { fieldsOf } from '../shared/validation.ts';
import type { Asset, AssetRegistry } from './asset-registry.ts';

/**
 * Finds the asset a request body names and adds the asset-dependent field errors to those the
 * schema found; throws unless everything is valid. An unknown pair alone is 400 unsupported-asset;
 * together with other bad fields it is listed among them.
 */
export function resolveRequestAsset(
  registry: AssetRegistry,
  body: unknown,
  errors: FieldError[],
  assetChecks: (asset: Asset) => FieldError[] = () => [],
): Asset {
  const short = fieldsOf(fieldsOf(body).asset).short;
  const network = fieldsOf(fieldsOf(body).asset).network;
  const found = typeof short === 'string' && typeof network === 'string' ? registry.find(short, network) : undefined;
  const asset = found && registry.isServed(found) ? found : undefined;
  if (!asset) {
    // A pair the schema already refused (a control character, too long) is misnamed, not unknown.
    const misnamed = errors.some((e) => e.path === 'asset.short' || e.path === 'asset.network');
    if (typeof short === 'string' && typeof network === 'string' && short !== '' && network !== '' && !misnamed) {
      const served = registry.assets().filter((a) => registry.isServed(a));
      const message = `${short} on network "${network}" is not a served asset; served pairs are ${served.length === 0 ? 'none (no network runs on a node or on the simulator)' : served.map((a) => `${a.short}/${a.network}`).join(', ')}.`;
      if (errors.length === 0) throw new InvalidInput('unsupported-asset', message);
      errors.push({ path: 'asset', message });
    }
    throw invalidFields(errors);
  }
  const amount = fieldsOf(body).amount;
  if (typeof amount === 'string' && AMOUNT_PATTERN.test(amount) && fractionDigits(amount) > asset.decimals) {
    errors.push({ path: 'amount', message: `must have at most ${asset.decimals} decimal places for ${asset.short}` });
  }
  errors.push(...assetChecks(asset));
  if (errors.length > 0) throw invalidFields(errors);
  return asset;
}

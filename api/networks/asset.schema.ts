/** Response schema of GET /v2/assets; the OpenAPI document is generated from it. */
import { z } from 'zod';
import { AssetOutput } from '../shared/common.schema.ts';

/** Response of GET /v2/assets: every served asset, with what a merchant needs to choose one. */
export const AssetListOutput = z
  .object({
    data: z.array(
      AssetOutput.extend({
        confirmsNeeded: z.number().int().min(1).meta({ description: 'Confirmations a payment on this network needs.' }),
        withdrawalFee: z.string().meta({ description: 'Network fee taken from each withdrawal amount.' }),
        minWithdrawal: z.string().meta({ description: "The smallest withdrawal amount accepted: the fee plus the network's dust limit (at least one smallest unit)." }),
      }),
    ),
  })
  .meta({ id: 'AssetList' });
/** The asset list as the API returns it. */
export type AssetListOutput = z.output<typeof AssetListOutput>;

/** Bodies of the simulator's dev endpoints. */
import { z } from 'zod';
import { AmountInput, AssetInput, AssetOutput } from '../shared/common.schema.ts';
import { plainString } from '../shared/validation.ts';

/** Body of POST /v2/dev/transactions: a payer's transaction on a simulated chain. */
export const SimulatedTransactionInput = z
  .strictObject({
    address: plainString().min(1, 'must not be empty').max(200, 'must be at most 200 characters'),
    amount: AmountInput,
    asset: AssetInput,
    destTag: z.string().regex(/^[0-9]{1,10}$/, 'must be a whole number in a string').nullish(),
    confirmations: z.number().int('must be a whole number').min(0, 'must not be negative').max(1000, 'must be at most 1000').optional(),
  })
  .meta({ id: 'SimulatedTransaction' });

/** Body of POST /v2/dev/blocks. */
export const MineBlocksInput = z
  .strictObject({
    network: plainString().min(1).max(40).optional().meta({ description: 'Network to mine on; all networks when left out.' }),
    count: z.number().int('must be a whole number').min(1, 'must be at least 1').max(1000, 'must be at most 1000').optional(),
  })
  .meta({ id: 'MineBlocks' });

/** Answer of POST /v2/dev/transactions. */
export const SimulatedTransactionOutput = z
  .object({
    txnId: z.string(),
    network: z.string(),
    asset: AssetOutput,
    addressFrom: z.string(),
    addressTo: z.string(),
    destTag: z.string().nullable(),
    amount: z.string(),
    confirmations: z.number().int().min(0),
  })
  .meta({ id: 'SimulatedTransactionResult' });

/** Answer of POST /v2/dev/transactions/:txnId/drop. */
export const DroppedTransactionOutput = z.object({ txnId: z.string(), dropped: z.literal(true) }).meta({ id: 'DroppedTransaction' });

/** Answer of POST /v2/dev/blocks. */
export const MinedBlocksOutput = z
  .object({ blocks: z.array(z.object({ network: z.string(), height: z.number().int().min(0) })) })
  .meta({ id: 'MinedBlocks' });

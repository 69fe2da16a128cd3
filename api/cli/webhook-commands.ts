/** `npm run cli -- webhook add|list|delete`: a merchant's webhook endpoints, for operators. */
import { parseArgs } from 'node:util';
import { DomainError, InvalidInput, NotFound } from '../shared/errors.ts';
import { printFieldErrors } from './flags.ts';
import type { Merchant } from '../merchants/merchant.store.ts';
import type { WebhookService } from '../webhooks/webhook.service.ts';
import { withMerchantServices } from './cli-services.ts';

/** The usage lines of the webhook commands. */
export const WEBHOOK_USAGE = `  npm run cli -- webhook add --merchant MERCHANT_ID --url URL [--events TYPE,TYPE] [--json]
  npm run cli -- webhook list --merchant MERCHANT_ID [--json]
  npm run cli -- webhook delete --merchant MERCHANT_ID --id WEBHOOK_ID`;

type Print = (text: string) => void;

// Opens the configured store, finds the merchant, and runs `work` with the webhook use cases.
async function withWebhooks(merchantId: string, work: (webhooks: WebhookService, merchant: Merchant) => Promise<number>, err: Print): Promise<number> {
  try {
    return await withMerchantServices(async (services) => {
      const merchant = await services.merchants.findById(merchantId);
      if (!merchant) {
        err(`No merchant with id "${merchantId}" (npm run cli -- merchant list shows them).\n`);
        return 1;
      }
      return work(services.webhooks, merchant);
    });
  } catch (e) {
    if (e instanceof DomainError) {
      err(e.details ? `${e.details.map((d) => `--${d.path.split('.')[0]} ${d.message}`).join('\n')}\n` : `${e.message}\n`);
      return e instanceof NotFound ? 1 : 2;
    }
    throw e;
  }
}

/** Runs `webhook <action> …`; returns the exit code. */
export async function webhookCommand(action: string | undefined, args: string[], out: Print, err: Print): Promise<number> {
  let values: { merchant?: string; url?: string; events?: string; id?: string; json?: boolean };
  try {
    ({ values } = parseArgs({
      args,
      options: { merchant: { type: 'string' }, url: { type: 'string' }, events: { type: 'string' }, id: { type: 'string' }, json: { type: 'boolean' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    err(`${(e as Error).message}\nUsage:\n${WEBHOOK_USAGE}\n`);
    return 2;
  }
  const missing = (flag: string) => {
    err(`--${flag} is required.\nUsage:\n${WEBHOOK_USAGE}\n`);
    return 2;
  };
  if (values.merchant === undefined) return missing('merchant');
  if (action === 'add') {
    if (values.url === undefined) return missing('url');
    const given = { url: values.url, ...(values.events !== undefined ? { events: values.events.split(',').map((e) => e.trim()) } : {}) };
    return withWebhooks(values.merchant, async (webhooks, merchant) => {
      // Every bad flag at once, a URL that can never receive among them, as the API reads a body.
      let body;
      try {
        body = webhooks.read(given);
      } catch (e) {
        if (!(e instanceof InvalidInput) || !e.details) throw e;
        printFieldErrors(e.details, { url: '--url', events: '--events' }, err);
        return 2;
      }
      const created = await webhooks.create(merchant, body);
      if (values.json) out(JSON.stringify(created) + '\n');
      else out(`Webhook ${created.id} added for ${created.url} (${created.events.join(', ')}).\n  Signing secret: ${created.secret}\nStore it now: it is not shown again.\n`);
      return 0;
    }, err);
  }
  if (action === 'list') {
    return withWebhooks(values.merchant, async (webhooks, merchant) => {
      const { data } = await webhooks.list(merchant);
      if (values.json) out(JSON.stringify({ data }) + '\n');
      else if (data.length === 0) out('No webhook endpoints.\n');
      else out(data.map((w) => `${w.id}  ${w.url}  ${w.disabled ? `DISABLED (${w.disabledReason})` : 'enabled'}  ${w.events.join(',')}`).join('\n') + '\n');
      return 0;
    }, err);
  }
  if (action === 'delete') {
    if (values.id === undefined) return missing('id');
    const id = values.id;
    return withWebhooks(values.merchant, async (webhooks, merchant) => {
      await webhooks.remove(merchant, id);
      out(`Webhook ${id} deleted.\n`);
      return 0;
    }, err);
  }
  err(`Unknown command "webhook ${action ?? ''}".\nUsage:\n${WEBHOOK_USAGE}\n`);
  return 2;
}

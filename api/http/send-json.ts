import type { Response } from 'express';
import type { JsonText } from '../shared/json-text.ts';
import type { ListEnvelope } from '../shared/list-page.ts';

/** Sends JSON that is already serialised, exactly as `res.json` would send the value it came from. */
export function sendJsonText(res: Response, text: JsonText): void {
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.send(text);
}

/** Sends a list envelope whose records are already serialised, as `res.json` would send the envelope. */
export function sendJsonList(res: Response, list: ListEnvelope<JsonText>): void {
  sendJsonText(res, `{"data":[${list.data.join(',')}],"page":${list.page},"limit":${list.limit},"total":${list.total}}` as JsonText);
}

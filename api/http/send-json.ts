import type { Response } from 'express';
import type { JsonText } from '../shared/json-text.ts';

/** Sends JSON that is already serialised, exactly as `res.json` would send the value it came from. */
export function sendJsonText(res: Response, text: JsonText): void {
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.send(text);
}
